/* paths.c — see paths.h. */
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CDCH_SOURCE_DIR
#define CDCH_SOURCE_DIR "."
#endif
#ifndef CDCH_INSTALL_DATADIR
#define CDCH_INSTALL_DATADIR CDCH_SOURCE_DIR
#endif

static int holds_data(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/ci/matrix.yaml", dir);
    return access(p, R_OK) == 0;
}

const char *cli_data_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *home = getenv("CDCH_HOME");
    if (home && *home) {
        snprintf(dir, sizeof dir, "%s", home);
        return dir;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0'; /* <prefix>/bin */
            char cand[PATH_MAX];
            snprintf(cand, sizeof cand, "%s/../share/cdcharness", exe);
            if (holds_data(cand) && realpath(cand, dir))
                return dir;
        }
    }
    /* a build tree's binary: its own source tree first */
    snprintf(dir, sizeof dir, "%s", holds_data(CDCH_SOURCE_DIR) ? CDCH_SOURCE_DIR : CDCH_INSTALL_DATADIR);
    return dir;
}
