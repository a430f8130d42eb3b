/* backlog.c — see backlog.h. */
#include "backlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void cdch_backlog_init(cdch_backlog *b, size_t nconsumers)
{
    size_t n = nconsumers ? nconsumers : 1;
    b->n = nconsumers;
    b->left_est = cdch_xcalloc(n, sizeof *b->left_est);
    b->seen_s = cdch_xcalloc(n, sizeof *b->seen_s);
    b->seen_est = cdch_xcalloc(n, sizeof *b->seen_est);
}

void cdch_backlog_free(cdch_backlog *b)
{
    free(b->left_est);
    free(b->seen_s);
    free(b->seen_est);
    memset(b, 0, sizeof *b);
}

void cdch_backlog_add(cdch_backlog *b, size_t consumer, double est)
{
    if (consumer < b->n && est > 0)
        b->left_est[consumer] += est;
}

void cdch_backlog_taken(cdch_backlog *b, size_t consumer, double est)
{
    if (consumer >= b->n || est <= 0)
        return;
    b->left_est[consumer] -= est;
    if (b->left_est[consumer] < 1e-9) /* rounding: the sum of what was added, taken back in another order */
        b->left_est[consumer] = 0;
}

void cdch_backlog_seen(cdch_backlog *b, size_t consumer, double est, double seconds)
{
    if (consumer >= b->n || est <= 0 || seconds < 0)
        return;
    b->seen_s[consumer] += seconds;
    b->seen_est[consumer] += est;
}

double cdch_backlog_left(const cdch_backlog *b, size_t consumer)
{
    if (consumer >= b->n)
        return 0;
    double scale = b->seen_est[consumer] > 0 ? b->seen_s[consumer] / b->seen_est[consumer] : 1;
    return b->left_est[consumer] * scale;
}

double cdch_backlog_total(const cdch_backlog *b)
{
    double t = 0;
    for (size_t i = 0; i < b->n; i++)
        t += cdch_backlog_left(b, i);
    return t;
}

unsigned cdch_backlog_sessions(const cdch_backlog *b, size_t consumer, double total, unsigned jobs)
{
    if (jobs < 1)
        jobs = 1;
    double left = cdch_backlog_left(b, consumer);
    if (total <= 0 || left >= total)
        return jobs;
    double need = ceil((double)jobs * left / total - 1e-9);
    if (need < 1)
        return 1;
    return need > (double)jobs ? jobs : (unsigned)need;
}
