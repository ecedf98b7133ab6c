/* mpit_init.c — MPI_T_init_thread / MPI_T_finalize (reference counted: usable before MPI_Init
 * and after MPI_Finalize), the string-return rule of MPI_T queries, and the enumerations
 * (sctpmpi's variables use none, so every MPI_T_enum handle is invalid). */
#include <string.h>

#include "api/mpit.h"

static int t_refs;

int sm_t_initialized(void)
{
    return t_refs > 0;
}

void sm_t_strcpy(char *buf, int *len, const char *src)
{
    if (!len)
        return;
    int need = (int)strlen(src) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need <= *len ? need - 1 : *len - 1;
    memcpy(buf, src, (size_t)n);
    buf[n] = '\0';
    *len = n + 1;
}

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_ERR_ARG;
    t_refs++;
    *provided = required;
    return MPI_SUCCESS;
}

int PMPI_T_finalize(void)
{
    if (t_refs <= 0)
        return MPI_T_ERR_NOT_INITIALIZED;
    if (--t_refs == 0) {
        sm_t_pvar_free_all();
        sm_t_cvar_free_all();
    }
    return MPI_SUCCESS;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype, (void)num, (void)name, (void)name_len;
    return sm_t_initialized() ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED;
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    (void)enumtype, (void)index, (void)value, (void)name, (void)name_len;
    return sm_t_initialized() ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED;
}
