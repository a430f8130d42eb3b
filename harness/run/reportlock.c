/* reportlock.c — one harness at a time in a report directory (reportlock.h). */
#include "reportlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "setup.h"
#include "sys.h"

int cdch_reportlock_take(const char *dir, cdch_err *err)
{
    if (cdch_mkdirs(dir, err) != 0)
        return -1;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, CDCH_REPORTLOCK_FILE) >= (int)sizeof path)
        return cdch_err_set(err, "the report directory's path is too long: %s", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return cdch_err_set(err, "cannot create %s (the report directory's lock): %s; check --report-dir", path,
                            strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            char who[64];
            long n = cdch_read_small(path, who, sizeof who);
            long pid = n > 0 ? strtol(who, NULL, 10) : 0;
            close(fd);
            char pidtxt[48] = "";
            if (pid > 0)
                snprintf(pidtxt, sizeof pidtxt, " (pid %ld)", pid);
            return cdch_err_set(err,
                                "the report directory %s is in use by another cdcharness%s: its cells and "
                                "reports would overwrite this one's; wait for it to end, or give this one "
                                "its own directory (--report-dir; report merge and digest: --out)",
                                dir, pidtxt);
        }
        close(fd);
        if (e == ENOLCK || e == EOPNOTSUPP || e == EINVAL || e == ENOSYS) {
            fprintf(stderr,
                    "cdcharness: warning: cannot lock %s (%s): the run goes on unlocked; do not run a second "
                    "harness into %s at the same time\n",
                    path, strerror(e), dir);
            return -2;
        }
        return cdch_err_set(err, "cannot lock %s: %s", path, strerror(e));
    }
    /* The holder's pid, for a refused harness's message; best effort (the
     * lock, not this text, is what keeps a second harness out). */
    char line[32];
    int len = snprintf(line, sizeof line, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len) {
        /* the lock holds without it */
    }
    return fd;
}

void cdch_reportlock_release(int fd)
{
    if (fd < 0)
        return;
    flock(fd, LOCK_UN);
    close(fd);
}
