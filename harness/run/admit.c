/* admit.c — see admit.h. */
#include "admit.h"

#include <unistd.h>

void cdch_admit_init(cdch_admit *a, unsigned slots)
{
    if (!slots) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        slots = n > 0 ? (unsigned)n : 1;
    }
    a->slots = slots;
    a->running = 0;
}

bool cdch_admit_may_start(const cdch_admit *a, bool heavy)
{
    return !heavy || a->running == 0 || a->running < a->slots;
}

void cdch_admit_started(cdch_admit *a, bool heavy)
{
    if (heavy)
        a->running++;
}

void cdch_admit_ended(cdch_admit *a, bool heavy)
{
    if (heavy && a->running)
        a->running--;
}

bool cdch_admit_heavy(double est_cpu_s, uint64_t stream_bytes)
{
    if (est_cpu_s >= 0)
        return est_cpu_s >= CDCH_ADMIT_HEAVY_CPU_S;
    return stream_bytes >= CDCH_ADMIT_HEAVY_BYTES;
}
