/* announce.c — does a consumer's error line name a skipped event (announce.h). */
#include "announce.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The message lowercased, letters and digits only, into a new string. */
static char *squash(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    if (!o)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c))
            o[k++] = (char)tolower(c);
    }
    o[k] = '\0';
    return o;
}

/* "type" then the decimal number t, not followed by another digit. */
static bool names_type(const char *sq, const char *num)
{
    size_t nl = strlen(num);
    for (const char *p = strstr(sq, "type"); p; p = strstr(p + 1, "type")) {
        const char *q = p + 4;
        if (strncmp(q, num, nl) == 0 && !isdigit((unsigned char)q[nl]))
            return true;
    }
    return false;
}

bool cdch_announce_names_event(const char *message, bool compressed, bool partial)
{
    if (!message || (!compressed && !partial))
        return false;
    char *sq = squash(message);
    bool yes = (compressed && (strstr(sq, "transactionpayload") || names_type(sq, "40"))) ||
               (partial && (strstr(sq, "partialupdaterows") || strstr(sq, "updaterowspartial") || names_type(sq, "39")));
    free(sq);
    return yes;
}
