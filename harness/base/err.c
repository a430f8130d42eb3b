#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cdch_err_set(cdch_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->offset = -1;
    return -1;
}

int cdch_err_wrap(cdch_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char prefix[CDCH_ERR_MSG_MAX];
    char old[CDCH_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t pl = strnlen(prefix, sizeof prefix - 1);
    size_t room = sizeof err->msg - 1;
    if (pl > room)
        pl = room;
    memcpy(err->msg, prefix, pl);
    size_t o = pl;
    if (o + 2 <= room) {
        memcpy(err->msg + o, ": ", 2);
        o += 2;
    }
    size_t ol = strnlen(old, sizeof old - 1);
    if (ol > room - o)
        ol = room - o;
    memcpy(err->msg + o, old, ol);
    err->msg[o + ol] = '\0';
    return -1;
}

void cdch_err_clear(cdch_err *err)
{
    if (!err)
        return;
    err->msg[0] = '\0';
    err->offset = -1;
}
