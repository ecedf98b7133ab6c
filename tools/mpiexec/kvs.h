/* kvs.h — the job's key-value space that mpiexec's PMI server stores puts in. */
#ifndef MPIEXEC_KVS_H
#define MPIEXEC_KVS_H

struct kvs;

struct kvs *kvs_create(void);
void kvs_destroy(struct kvs *kvs);
int kvs_put(struct kvs *kvs, const char *key, const char *value); /* overwrites; -1 on ENOMEM */
const char *kvs_get(const struct kvs *kvs, const char *key);      /* NULL if absent */

#endif
