/* world.c — the job as the engine sees it, for the API layer: this process's world rank, the
 * job size, the eager limit, and translating world ranks to ranks of a communicator. */
#include "engine/engine_internal.h"

int sm_world_rank(void)
{
    return sm_eng.rank;
}
int sm_world_size(void)
{
    return sm_eng.size;
}
size_t sm_eager_limit(void)
{
    return sm_eng.eager_limit;
}

int sm_comm_rank_of_world(const struct sctpmpi_comm *c, int world)
{
    if (!c->world_of)
        return world;
    if (c->size == 1)
        return c->world_of[0] == world ? 0 : -1;
    uintptr_t v = (uintptr_t)sm_map_get(&c->rank_of, (uint64_t)world + 1);
    return v ? (int)v - 1 : -1;
}
