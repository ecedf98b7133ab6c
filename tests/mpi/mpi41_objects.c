/* mpi41_objects.c — MPI-4.1 details of error classes and object names: the null handles are
 * named (MPI_Comm_get_name(MPI_COMM_NULL) gives "MPI_COMM_NULL", MPI_Win_get_name the same for
 * MPI_WIN_NULL), and user error classes and codes can be added and removed many times over
 * (2,000 rounds of 32 classes with 5 codes each, in bounded time: removing a class once scanned
 * every code ever added), with classes, codes and strings right afterwards. */
#include <stdio.h>
#include <string.h>

#include "../common/mpi_test.h"

#define NCLASSES 32
#define NCODES 5

int main(int argc, char **argv)
{
    start(&argc, &argv);
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Comm_get_name(MPI_COMM_NULL, name, &len);
    CHECK(!strcmp(name, "MPI_COMM_NULL") && len == 13, "name of MPI_COMM_NULL '%s' (%d)", name,
          len);
    MPI_Win_get_name(MPI_WIN_NULL, name, &len);
    CHECK(!strcmp(name, "MPI_WIN_NULL") && len == 12, "name of MPI_WIN_NULL '%s' (%d)", name,
          len);

    int cls[NCLASSES], code[NCLASSES][NCODES];
    char text[MPI_MAX_ERROR_STRING], got[MPI_MAX_ERROR_STRING];
    double t0 = MPI_Wtime();
    for (int k = 0; k < 2000; k++) {
        for (int i = 0; i < NCLASSES; i++) {
            MPI_Add_error_class(&cls[i]);
            for (int j = 0; j < NCODES; j++) {
                MPI_Add_error_code(cls[i], &code[i][j]);
                MPI_Add_error_string(code[i][j], "scratch");
            }
        }
        for (int i = 0; i < NCLASSES; i++) {
            for (int j = 0; j < NCODES; j++) {
                MPI_Remove_error_string(code[i][j]);
                MPI_Remove_error_code(code[i][j]);
            }
            CHECK(MPI_Remove_error_class(cls[i]) == MPI_SUCCESS, "round %d: class %d not removed",
                  k, i);
        }
    }
    double took = MPI_Wtime() - t0;
    CHECK(took < 30, "2,000 rounds of adding and removing took %.1f s", took);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Add_error_class(&cls[0]);
    MPI_Add_error_code(cls[0], &code[0][0]);
    CHECK(MPI_Remove_error_class(cls[0]) != MPI_SUCCESS, "a class with a live code was removed");
    snprintf(text, sizeof text, "code of rank %d", rank_);
    MPI_Add_error_string(code[0][0], text);
    int k = -1, l = 0;
    MPI_Error_class(code[0][0], &k);
    CHECK(k == cls[0], "class of the new code %d, expected %d", k, cls[0]);
    MPI_Error_string(code[0][0], got, &l);
    CHECK(!strcmp(got, text), "string '%s', expected '%s'", got, text);
    MPI_Remove_error_string(code[0][0]);
    MPI_Remove_error_code(code[0][0]);
    CHECK(MPI_Remove_error_class(cls[0]) == MPI_SUCCESS, "the emptied class was not removed");
    return finish();
}
