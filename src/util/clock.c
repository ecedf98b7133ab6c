/* clock.c — the hook that makes sm_now_ns() and MPI_Wtime() virtual under mpiexec --sim (the
 * sim transport sets it at init, src/transport/sim/). */
#include "util/util.h"

uint64_t (*sm_clock_hook)(void);
