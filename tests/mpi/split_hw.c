/* split_hw.c — MPI_Comm_split_type's MPI-4 hardware split types on one host: HW_GUIDED and
 * RESOURCE_GUIDED give the host communicator for mpi_hw_resource_type=mpi_shared_memory and
 * MPI_COMM_NULL without the key or for a level not known; HW_UNGUIDED gives MPI_COMM_NULL
 * (the host is the whole communicator, no strict subset exists). */
#include <mpi.h>
#include <stdio.h>

static int errs;

static MPI_Comm split(int type, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm c = MPI_COMM_NULL;
    if (value) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_hw_resource_type", value);
    }
    if (MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, info, &c) != MPI_SUCCESS) {
        errs++;
        fprintf(stderr, "split type %d (%s) failed\n", type, value ? value : "no info");
    }
    if (value)
        MPI_Info_free(&info);
    return c;
}

int main(int argc, char **argv)
{
    int size, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int types[] = { MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED };
    for (int t = 0; t < 2; t++) {
        MPI_Comm c = split(types[t], "mpi_shared_memory");
        int n = -1;
        if (c == MPI_COMM_NULL) {
            errs++;
            fprintf(stderr, "type %d: no host communicator\n", types[t]);
        } else {
            MPI_Comm_size(c, &n);
            if (n != size) {
                errs++;
                fprintf(stderr, "type %d: host communicator of %d, expected %d\n", types[t], n,
                        size);
            }
            MPI_Comm_free(&c);
        }
        const char *none[] = { NULL, "l3cache" };
        for (int k = 0; k < 2; k++) {
            c = split(types[t], none[k]);
            if (c != MPI_COMM_NULL) {
                errs++;
                fprintf(stderr, "type %d (%s): expected MPI_COMM_NULL\n", types[t],
                        none[k] ? none[k] : "no info");
                MPI_Comm_free(&c);
            }
        }
    }
    MPI_Comm c = split(MPI_COMM_TYPE_HW_UNGUIDED, NULL);
    if (c != MPI_COMM_NULL) {
        errs++;
        fprintf(stderr, "HW_UNGUIDED on one host: expected MPI_COMM_NULL\n");
        MPI_Comm_free(&c);
    }
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
