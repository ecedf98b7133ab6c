/* io_test.h — helpers of the MPI-IO test programs: a private temporary directory made by
 * rank 0 (under $TMPDIR or /tmp) and removed with everything in it at the end, file names
 * inside it, and the check macros of tests/mpi/sm_test.h.  Standard MPI C only. */
#ifndef IO_TEST_H
#define IO_TEST_H

#include "sm_test.h"

#include <dirent.h>
#include <sys/stat.h>

static char io_dir[1024];

/* every rank learns the directory rank 0 made */
static inline void io_setup(void)
{
    if (sm_rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(io_dir, sizeof io_dir, "%s/sm-io-XXXXXX", t && *t ? t : "/tmp");
        SM_CHECK(mkdtemp(io_dir) != NULL, "mkdtemp: %s", strerror(errno));
    }
    MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static inline const char *io_path(const char *name)
{
    static char p[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", io_dir, name);
    return p[k];
}

/* remove the directory and whatever the test left in it */
static inline void io_cleanup(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 0) {
        DIR *d = opendir(io_dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[2400];
            snprintf(p, sizeof p, "%s/%s", io_dir, e->d_name);
            unlink(p);
        }
        if (d)
            closedir(d);
        rmdir(io_dir);
    }
}

/* files left in the directory (side files of shared pointers must be gone after close) */
static inline int io_count_files(void)
{
    int n = 0;
    DIR *d = opendir(io_dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static inline int io_class(int err)
{
    int c = -1;
    MPI_Error_class(err, &c);
    return c;
}

#define IO_EXPECT(call, cls)                                                                     \
    do {                                                                                         \
        int io_c_ = io_class(call);                                                              \
        SM_CHECK(io_c_ == (cls), "%s: error class %d, expected %s (%d)", #call, io_c_, #cls,     \
                 (int)(cls));                                                                    \
    } while (0)

#endif
