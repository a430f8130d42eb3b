/* sys.c — see sys.h. */
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xalloc.h"

uint64_t cdch_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cdch_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *cdch_read_file(const char *path, size_t max_len, size_t *len, cdch_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cdch_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *text = cdch_xrealloc(NULL, cap);
    for (;;) {
        if (cap - n < 2) {
            cap *= 2;
            text = cdch_xrealloc(text, cap);
        }
        size_t got = fread(text + n, 1, cap - n - 1, f);
        n += got;
        if (max_len && n > max_len) {
            cdch_err_set(err, "%s: larger than %zu bytes", path, max_len);
            goto fail;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        cdch_err_set(err, "%s: read error: %s", path, strerror(errno));
        goto fail;
    }
    fclose(f);
    text[n] = '\0';
    if (len)
        *len = n;
    return text;
fail:
    fclose(f);
    free(text);
    return NULL;
}

int cdch_cmp_strp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void cdch_io_buffer(FILE *f, char **buf)
{
    if (!*buf)
        *buf = cdch_xrealloc(NULL, CDCH_IO_BUF);
    setvbuf(f, *buf, _IOFBF, CDCH_IO_BUF);
}

double cdch_rusage_seconds(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 + (double)ru->ru_stime.tv_sec +
           (double)ru->ru_stime.tv_usec / 1e6;
}

long cdch_read_small(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, n - 1);
    close(fd);
    if (r < 0)
        return -1;
    buf[r] = '\0';
    return (long)r;
}

const char *cdch_proc_stat_fields(const char *line)
{
    const char *rp = strrchr(line, ')');
    return rp && rp[1] == ' ' && rp[2] ? rp + 2 : NULL;
}

double cdch_proc_stat_line_cpu_seconds(const char *line)
{
    /* utime stime cutime cstime are fields 14-17, after "(comm)" */
    const char *q = cdch_proc_stat_fields(line);
    unsigned long long v[4];
    if (!q || sscanf(q, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                     &v[3]) != 4)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    return (double)(v[0] + v[1] + v[2] + v[3]) / (double)(hz > 0 ? hz : 100);
}

double cdch_proc_stat_cpu_seconds(const char *path)
{
    char buf[1024];
    if (cdch_read_small(path, buf, sizeof buf) <= 0)
        return -1;
    return cdch_proc_stat_line_cpu_seconds(buf);
}

bool cdch_pid_running(long pid)
{
    char path[64], line[1024];
    if (pid <= 0)
        return false;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (cdch_read_small(path, line, sizeof line) <= 0)
        return false;
    const char *f = cdch_proc_stat_fields(line); /* field 3: the state */
    return f && *f != 'Z' && *f != 'X';
}

size_t cdch_kill_by_environ(cdch_environ_match_fn match, void *ud, int rounds, int pause_ms)
{
    char *env = NULL;
    size_t cap = 0, killed = 0;
    for (int round = 0; round < rounds; round++) {
        DIR *d = opendir("/proc");
        if (!d)
            break;
        size_t before = killed;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            char *end;
            long pid = strtol(de->d_name, &end, 10);
            if (*end || pid <= 1 || pid == (long)getpid())
                continue;
            char path[64];
            snprintf(path, sizeof path, "/proc/%ld/environ", pid);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                continue;
            struct stat sb; /* the process's owner, as /proc/PID's */
            if (fstat(fd, &sb) != 0 || sb.st_uid != geteuid()) {
                close(fd);
                continue;
            }
            size_t len = 0;
            for (;;) {
                if (cap - len < 4096) {
                    cap = cap ? cap * 2 : 65536;
                    env = cdch_xrealloc(env, cap);
                }
                ssize_t r = read(fd, env + len, cap - len);
                if (r <= 0)
                    break;
                len += (size_t)r;
            }
            close(fd);
            if (len && match(env, len, ud) && kill((pid_t)pid, SIGKILL) == 0)
                killed++;
        }
        closedir(d);
        if (killed == before)
            break;
        if (pause_ms > 0 && round + 1 < rounds) {
            struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    free(env);
    return killed;
}
