/* mpit_category.c — MPI_T categories: one per section of the tunables table (its control
 * variables, in table order) and one holding every performance variable.  The set never
 * changes while the process runs, so MPI_T_category_changed always returns the same number. */
#include <stdio.h>
#include <string.h>

#include "api/mpit.h"

#define SM_T_MAX_CATS 32

static const char *sections[SM_T_MAX_CATS]; /* the cvar categories, in order of appearance */
static int nsections = -1;

static void build(void)
{
    if (nsections >= 0)
        return;
    nsections = 0;
    for (int i = 0; i < sm_t_cvar_count(); i++) {
        const char *s = sm_t_cvar_section(i);
        int k = 0;
        while (k < nsections && strcmp(sections[k], s) != 0)
            k++;
        if (k == nsections && nsections < SM_T_MAX_CATS - 1)
            sections[nsections++] = s;
    }
}

static int ncats(void)
{
    build();
    return nsections + 1; /* the last one holds the performance variables */
}

static const char pvar_cat[] = "sctpmpi performance";

static const char *cat_name(int c)
{
    return c < nsections ? sections[c] : pvar_cat;
}

/* the control variables of category c: indices written to out (up to len), count returned */
static int cat_cvars(int c, int len, int *out)
{
    int n = 0;
    if (c >= nsections)
        return 0;
    for (int i = 0; i < sm_t_cvar_count(); i++) {
        if (strcmp(sm_t_cvar_section(i), sections[c]) == 0) {
            if (out && n < len)
                out[n] = i;
            n++;
        }
    }
    return n;
}

static int cat_pvars(int c, int len, int *out)
{
    if (c < nsections)
        return 0;
    int n = sm_t_pvar_count();
    for (int i = 0; out && i < n && i < len; i++)
        out[i] = i;
    return n;
}

static int check(int cat_index)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cat_index < 0 || cat_index >= ncats())
        return MPI_T_ERR_INVALID_INDEX;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_num(int *num_cat)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_cat)
        return MPI_ERR_ARG;
    *num_cat = ncats();
    return MPI_SUCCESS;
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    int rc = check(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    char d[256];
    if (cat_index < nsections)
        snprintf(d, sizeof d, "SCTPMPI_* tunables: %s", sections[cat_index]);
    else
        snprintf(d, sizeof d, "counters and levels kept by the engine");
    sm_t_strcpy(name, name_len, cat_name(cat_index));
    sm_t_strcpy(desc, desc_len, d);
    if (num_cvars)
        *num_cvars = cat_cvars(cat_index, 0, NULL);
    if (num_pvars)
        *num_pvars = cat_pvars(cat_index, 0, NULL);
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = check(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_events)
        return MPI_ERR_ARG;
    *num_events = 0;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!name || !cat_index)
        return MPI_ERR_ARG;
    for (int c = 0; c < ncats(); c++) {
        if (strcmp(cat_name(c), name) == 0) {
            *cat_index = c;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    int rc = check(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    if (len < 0 || (len > 0 && !indices))
        return MPI_ERR_ARG;
    cat_cvars(cat_index, len, indices);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    int rc = check(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    if (len < 0 || (len > 0 && !indices))
        return MPI_ERR_ARG;
    cat_pvars(cat_index, len, indices);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    (void)indices; /* no event types */
    int rc = check(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    return len < 0 ? MPI_ERR_ARG : MPI_SUCCESS;
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    (void)indices; /* the categories are flat */
    int rc = check(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    return len < 0 ? MPI_ERR_ARG : MPI_SUCCESS;
}

int PMPI_T_category_changed(int *update_number)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!update_number)
        return MPI_ERR_ARG;
    *update_number = 0;
    return MPI_SUCCESS;
}
