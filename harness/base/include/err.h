/* err.h — error reporting for every module.
 *
 * Owns: the cdch_err value that every fallible call fills in. An error
 * carries a human message and, where it makes sense, the byte offset in the
 * input where decoding stopped. Callers own the cdch_err (usually on the
 * stack); nothing here allocates.
 */
#ifndef CDCH_ERR_H
#define CDCH_ERR_H

#include <stddef.h>
#include <stdint.h>

#define CDCH_ERR_MSG_MAX 512

typedef struct cdch_err {
    char msg[CDCH_ERR_MSG_MAX];
    int64_t offset; /* byte offset in the input the error refers to, -1 if none */
} cdch_err;

/* Format msg into err (if err is not NULL) and return -1, so callers can
 * write `return cdch_err_set(err, "...")`. */
int cdch_err_set(cdch_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prepend context ("while decoding X: ") to an existing message; returns -1. */
int cdch_err_wrap(cdch_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

void cdch_err_clear(cdch_err *err);

#endif
