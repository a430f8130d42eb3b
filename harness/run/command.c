/* command.c — a program as a consumer (command.h): its manifest. */
#include "command.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

static bool name_char(char c) { return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-'; }

cdch_manifest *cdch_command_manifest(const char *name, const char *command, const char *cwd_in, bool files,
                                     cdch_err *err)
{
    if (!name || !*name || strlen(name) > 64 || name[0] == '.') {
        cdch_err_set(err, "command consumer name '%s': give 1-64 letters, digits, '.', '_' or '-' (not starting "
                          "with '.')", name ? name : "");
        return NULL;
    }
    for (const char *p = name; *p; p++)
        if (!name_char(*p)) {
            cdch_err_set(err, "command consumer name '%s': '%c' is not allowed (letters, digits, '.', '_', '-')",
                         name, *p);
            return NULL;
        }
    const char *s = command;
    while (s && isspace((unsigned char)*s))
        s++;
    if (!s || !*s) {
        cdch_err_set(err, "command consumer '%s': the command is empty (--consumer-cmd 'PROGRAM ARGS...')", name);
        return NULL;
    }
    char cwd[PATH_MAX];
    if (cwd_in)
        snprintf(cwd, sizeof cwd, "%s", cwd_in);
    else if (!getcwd(cwd, sizeof cwd)) {
        cdch_err_set(err, "command consumer '%s': cannot read the current directory", name);
        return NULL;
    }
    cdch_manifest *m = cdch_xcalloc(1, sizeof *m);
    m->path = cdch_xstrdup("(command)");
    m->dir = cdch_xstrdup(cwd);
    m->family = cdch_xstrdup(name);
    m->files_source = files;
    m->nversions = 1;
    m->versions = cdch_xcalloc(1, sizeof *m->versions);
    cdch_manifest_version *v = &m->versions[0];
    v->version = cdch_xstrdup(CDCH_COMMAND_VERSION);
    v->source = v->native_auth = v->session = v->representations = v->start_attach = v->hold_end_marker = -1;
    m->nrun = 3;
    m->run = cdch_xcalloc(4, sizeof *m->run);
    m->run[0] = cdch_xstrdup("/bin/sh");
    m->run[1] = cdch_xstrdup("-c");
    m->run[2] = cdch_xstrdup(command);
    m->startup_timeout = 60;
    return m;
}

void cdch_command_default_name(const char *command, char *out, size_t outsz)
{
    const char *best = NULL, *first = NULL;
    size_t best_len = 0, first_len = 0;
    for (const char *p = command; *p;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        const char *w = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        size_t wl = (size_t)(p - w);
        if (!wl)
            break;
        if (!first) {
            first = w;
            first_len = wl;
        }
        if (memchr(w, '/', wl) || memchr(w, '.', wl)) {
            best = w;
            best_len = wl;
        }
    }
    if (!best) {
        best = first;
        best_len = first_len;
    }
    size_t n = 0;
    if (best) {
        while (best_len && best[best_len - 1] == '/')
            best_len--;
        const char *slash = NULL;
        for (size_t i = 0; i < best_len; i++)
            if (best[i] == '/')
                slash = best + i;
        if (slash) {
            best_len -= (size_t)(slash + 1 - best);
            best = slash + 1;
        }
        const char *dot = NULL;
        for (size_t i = 1; i < best_len; i++)
            if (best[i] == '.')
                dot = best + i;
        if (dot)
            best_len = (size_t)(dot - best);
        for (size_t i = 0; i < best_len && n + 1 < outsz && n < 64; i++)
            out[n++] = name_char(best[i]) ? best[i] : '_';
    }
    if (n == 0 || out[0] == '.')
        n = (size_t)snprintf(out, outsz, "command");
    out[n < outsz ? n : outsz - 1] = '\0';
}
