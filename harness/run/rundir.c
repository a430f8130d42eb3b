/* rundir.c — the run's temporary directory and the sweep of dead owners'
 * (rundir.h). */
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "setup.h"
#include "sys.h"

/* The kernel's start time of pid (clock ticks since boot), 0 when it has
 * no /proc entry, the entry cannot be parsed or the process has ended (a
 * zombie not reaped yet: its parent died too, or has not waited). */
static unsigned long long start_time(long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (cdch_read_small(path, line, sizeof line) <= 0)
        return 0;
    const char *f = cdch_proc_stat_fields(line); /* field 3 (state) on */
    if (!f || *f == 'Z' || *f == 'X')
        return 0;
    for (int i = 3; f && i < 22; i++) {
        f = strchr(f, ' ');
        if (f)
            f++;
    }
    return f ? strtoull(f, NULL, 10) : 0;
}

/* Whether dir's owner file names a process that is gone (false when it
 * cannot tell: no file, an unreadable or malformed one). */
static bool owner_gone(const char *dir)
{
    char path[4096], buf[128];
    snprintf(path, sizeof path, "%s/%s", dir, CDCH_RUNDIR_OWNER);
    if (cdch_read_small(path, buf, sizeof buf) <= 0)
        return false;
    long pid = 0;
    unsigned long long st = 0;
    if (sscanf(buf, "%ld %llu", &pid, &st) != 2 || pid <= 0 || st == 0)
        return false;
    return start_time(pid) != st;
}

/* Whether the environment block env[0..n) (NUL-separated, /proc/PID/environ)
 * has TMPDIR inside the directory whose real path is ud. */
static bool env_tmpdir_under(const char *env, size_t n, void *ud)
{
    const char *rdir = ud;
    size_t rl = strlen(rdir);
    for (size_t i = 0; i < n;) {
        const char *e = env + i;
        size_t el = strnlen(e, n - i);
        /* private_tmp's form, <run dir>/tmp/a-XXXXXX: only those are resolved */
        if (el > 7 && el < PATH_MAX && memcmp(e, "TMPDIR=", 7) == 0) {
            char v[PATH_MAX], real[PATH_MAX];
            memcpy(v, e + 7, el - 7);
            v[el - 7] = '\0';
            if (strstr(v, "/" CDCH_RUNDIR_PREFIX) && realpath(v, real) && strncmp(real, rdir, rl) == 0 &&
                real[rl] == '/')
                return true;
        }
        i += el + 1;
    }
    return false;
}

size_t cdch_rundir_kill_orphans(const char *dir)
{
    char rdir[PATH_MAX];
    if (!realpath(dir, rdir))
        return 0;
    /* Two scans: a process killed in the first may have forked one the
     * scan had passed already. */
    return cdch_kill_by_environ(env_tmpdir_under, rdir, 2, 0);
}

static const char *parent_or_default(const char *parent)
{
    if (parent && *parent)
        return parent;
    const char *td = getenv("TMPDIR");
    return td && *td ? td : "/tmp";
}

size_t cdch_rundir_sweep(const char *parent)
{
    parent = parent_or_default(parent);
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    size_t removed = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, CDCH_RUNDIR_PREFIX, strlen(CDCH_RUNDIR_PREFIX)) != 0)
            continue;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", parent, de->d_name);
        struct stat sb;
        if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
            continue;
        if (!owner_gone(dir))
            continue;
        cdch_rundir_kill_orphans(dir); /* its adapters, left running by a harness killed with SIGKILL */
        if (cdch_rm_tree(dir) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

int cdch_rundir_make(const char *parent, char *out, size_t outsz, cdch_err *err)
{
    parent = parent_or_default(parent);
    cdch_rundir_sweep(parent);
    int n = snprintf(out, outsz, "%s/%sXXXXXX", parent, CDCH_RUNDIR_PREFIX);
    if (n < 0 || (size_t)n >= outsz) {
        if (outsz)
            out[0] = '\0';
        return cdch_err_set(err, "the temporary directory's path is too long (TMPDIR=%s)", parent);
    }
    if (!mkdtemp(out)) {
        int e = errno;
        char tried[4096];
        snprintf(tried, sizeof tried, "%s", out);
        out[0] = '\0';
        return cdch_err_set(err, "cannot create a temporary directory %s: %s (set TMPDIR)", tried, strerror(e));
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out, CDCH_RUNDIR_OWNER);
    FILE *f = fopen(path, "we");
    unsigned long long st = start_time((long)getpid());
    if (f) {
        fprintf(f, "%ld %llu\n", (long)getpid(), st);
        if (fclose(f) != 0)
            unlink(path); /* half a file: never swept, which is the safe side */
    }
    return 0;
}

void cdch_rundir_release(const char *dir, bool keep)
{
    if (!dir || !*dir)
        return;
    if (!keep) {
        cdch_rm_tree(dir);
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, CDCH_RUNDIR_OWNER);
    unlink(path);
}
