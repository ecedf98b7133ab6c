/* icoll.c — non-blocking collectives (placeholder until the schedule engine lands). */
#include "api/api.h"

int sm_nbc_active;
void sm_nbc_progress(void) {}
