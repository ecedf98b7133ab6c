/* fix_elements.c — element counts in statuses: MPI_Status_set_elements_x / MPI_Get_elements_x
 * round-trip counts beyond 2^31 exactly (the int queries then say MPI_UNDEFINED); the pair
 * types (MPI_DOUBLE_INT, ...) count two basic elements each, alone, inside derived types and
 * in partial receives; bytes that end inside a basic element give MPI_UNDEFINED. */
#include "../common/mpi_test.h"

static MPI_Count elements_x(MPI_Status *st, MPI_Datatype t)
{
    MPI_Count c;
    MPI_Get_elements_x(st, t, &c);
    return c;
}

static int elements(MPI_Status *st, MPI_Datatype t)
{
    int c;
    MPI_Get_elements(st, t, &c);
    return c;
}

static int count_of(MPI_Status *st, MPI_Datatype t)
{
    int c;
    MPI_Get_count(st, t, &c);
    return c;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Status st;
    /* large counts round-trip exactly */
    const MPI_Count big[] = {60, 0x7fffffffLL, 0x80000000LL, 0x3654321f71234567LL,
                             0x7654321ff1234567LL};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        MPI_Status_set_elements_x(&st, MPI_BYTE, big[i]);
        CHECK(elements_x(&st, MPI_BYTE) == big[i], "MPI_BYTE count %llx came back as %llx",
              (long long)big[i], (long long)elements_x(&st, MPI_BYTE));
        int cancelled = 1;
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(!cancelled, "setting the elements changed the cancelled flag");
    }
    MPI_Status_set_elements_x(&st, MPI_INT, 3000000000LL);
    CHECK(elements_x(&st, MPI_INT) == 3000000000LL, "3e9 MPI_INTs");
    CHECK(elements(&st, MPI_INT) == MPI_UNDEFINED, "3e9 elements fit an int");
    CHECK(count_of(&st, MPI_INT) == MPI_UNDEFINED, "a count of 3e9 fits an int");

    /* pair types: two basic elements per element */
    struct { double d; int i; } di[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, dr[3];
    MPI_Sendrecv(di, 3, MPI_DOUBLE_INT, 0, 1, dr, 3, MPI_DOUBLE_INT, 0, 1, MPI_COMM_SELF, &st);
    CHECK(elements(&st, MPI_DOUBLE_INT) == 6, "3 DOUBLE_INT: %d elements",
          elements(&st, MPI_DOUBLE_INT));
    CHECK(count_of(&st, MPI_DOUBLE_INT) == 3, "3 DOUBLE_INT: count %d",
          count_of(&st, MPI_DOUBLE_INT));
    CHECK(dr[2].d == 3.5 && dr[2].i == 3, "DOUBLE_INT data");
    struct { short s; int i; } si[2] = {{1, 2}, {3, 4}}, sr[2];
    MPI_Sendrecv(si, 2, MPI_SHORT_INT, 0, 1, sr, 2, MPI_SHORT_INT, 0, 1, MPI_COMM_SELF, &st);
    CHECK(elements(&st, MPI_SHORT_INT) == 4, "2 SHORT_INT: %d elements",
          elements(&st, MPI_SHORT_INT));
    MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 3);
    CHECK(elements(&st, MPI_DOUBLE_INT) == 3, "set 3 DOUBLE_INT elements, got %d",
          elements(&st, MPI_DOUBLE_INT));
    CHECK(count_of(&st, MPI_DOUBLE_INT) == MPI_UNDEFINED, "1.5 DOUBLE_INT counted whole");
    MPI_Status_set_elements(&st, MPI_2INT, 4);
    CHECK(elements(&st, MPI_2INT) == 4 && count_of(&st, MPI_2INT) == 2, "4 elements of 2INT");

    /* derived types holding pair types, whole and partial */
    MPI_Datatype two, mix;
    MPI_Type_contiguous(2, MPI_DOUBLE_INT, &two);
    MPI_Type_commit(&two);
    MPI_Sendrecv(di, 2, MPI_DOUBLE_INT, 0, 2, dr, 1, two, 0, 2, MPI_COMM_SELF, &st);
    CHECK(elements(&st, two) == 4 && count_of(&st, two) == 1, "contiguous(2, DOUBLE_INT)");
    MPI_Sendrecv(di, 3, MPI_DOUBLE_INT, 0, 3, dr, 2, two, 0, 3, MPI_COMM_SELF, &st);
    CHECK(elements(&st, two) == 6, "1.5 contiguous(2, DOUBLE_INT): %d elements",
          elements(&st, two));
    CHECK(count_of(&st, two) == MPI_UNDEFINED, "partial derived element counted whole");
    int bl[2] = {1, 2};
    MPI_Aint dp[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_FLOAT_INT, MPI_INT};
    MPI_Type_create_struct(2, bl, dp, ty, &mix); /* 2 + 2 basic elements */
    MPI_Type_commit(&mix);
    MPI_Status_set_elements(&st, mix, 7);
    CHECK(elements(&st, mix) == 7, "set 7 elements of the struct, got %d", elements(&st, mix));
    MPI_Status_set_elements(&st, mix, 8);
    CHECK(elements(&st, mix) == 8 && count_of(&st, mix) == 2, "8 elements of the struct");
    /* bytes ending inside an int: undefined */
    char *bytes = xmalloc(6);
    memset(bytes, 0, 6);
    int ints[2];
    MPI_Sendrecv(bytes, 6, MPI_BYTE, 0, 4, ints, 2, MPI_INT, 0, 4, MPI_COMM_SELF, &st);
    CHECK(elements(&st, MPI_INT) == MPI_UNDEFINED, "6 bytes as ints: %d",
          elements(&st, MPI_INT));
    MPI_Type_free(&two);
    MPI_Type_free(&mix);
    free(bytes);
    return finish();
}
