/* setup.c — cached, logged, locked installation of consumer versions. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "setup.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "proc.h"
#include "run_internal.h"
#include "rundir.h"
#include "sys.h"
#include "version.h"

#include <dirent.h>

/* ---- the adapter's fingerprint: setup reruns when the family's folder changed ---------- */

typedef struct fplist {
    char **paths;
    size_t n, cap;
} fplist;

static void fp_walk(const char *root, const char *rel, fplist *l)
{
    char dirp[PATH_MAX];
    snprintf(dirp, sizeof dirp, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dirp);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        /* hidden files and what tools write next to sources are not the adapter */
        if (n[0] == '.' || strcmp(n, "__pycache__") == 0 || strcmp(n, "node_modules") == 0 ||
            strcmp(n, "target") == 0)
            continue;
        /* the manifest's expectations change often and do not change what setup builds; its
         * setup command is hashed on its own */
        if (!*rel && strcmp(n, "manifest.yaml") == 0)
            continue;
        char r[PATH_MAX], full[PATH_MAX * 2];
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", n);
        snprintf(full, sizeof full, "%s/%s", root, r);
        /* stat, not lstat: a link counts as what it points to, so the Java adapters'
         * java-common -> ../java-common (the shared module their setup compiles in) is part
         * of their fingerprint; 16 levels at most (a link to an ancestor would loop) */
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            int depth = 0;
            for (const char *c = r; *c; c++)
                depth += *c == '/';
            if (depth < 16)
                fp_walk(root, r, l);
        } else if (S_ISREG(st.st_mode)) {
            if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 64;
                char **np = realloc(l->paths, cap * sizeof *np);
                if (!np)
                    break;
                l->paths = np;
                l->cap = cap;
            }
            l->paths[l->n] = strdup(r);
            if (l->paths[l->n])
                l->n++;
        }
    }
    closedir(d);
}

/* Feed h with the sorted relative paths and contents of every file under root. */
static uint64_t hash_tree(uint64_t h, const char *root)
{
    fplist l = {NULL, 0, 0};
    struct stat st;
    if (stat(root, &st) == 0 && S_ISREG(st.st_mode)) { /* one file (a local build's jar, wheel, tarball) */
        l.paths = malloc(sizeof *l.paths);
        if (l.paths && (l.paths[0] = strdup("")) != NULL)
            l.n = 1;
    } else {
        fp_walk(root, "", &l);
    }
    if (l.n > 1)
        qsort(l.paths, l.n, sizeof *l.paths, cdch_cmp_strp);
    for (size_t i = 0; i < l.n; i++) {
        h = run_fnv1a(h, l.paths[i], strlen(l.paths[i]) + 1);
        char full[PATH_MAX * 2];
        snprintf(full, sizeof full, "%s%s%s", root, *l.paths[i] ? "/" : "", l.paths[i]);
        FILE *f = fopen(full, "rb");
        if (f) {
            char buf[65536];
            size_t k;
            while ((k = fread(buf, 1, sizeof buf, f)) > 0)
                h = run_fnv1a(h, buf, k);
            fclose(f);
        }
        free(l.paths[i]);
    }
    free(l.paths);
    return h;
}

/* FNV-1a over the sorted relative paths and contents of every file of the
 * family's folder (and of its `shares`), and the version: "v1 <hex>"; a
 * local build's content fingerprint (local_fp, NULL: none) is part of it. */
static void fingerprint(const cdch_manifest *m, const char *key, const char *local_fp, char *out, size_t outsz)
{
    /* not FNV's offset basis (14695981039346656037, a digit longer) but kept: the cache's .ok stamps
     * depend on it, and any other start would reinstall every adapter */
    uint64_t h = 1469598103934665603ull;
    h = run_fnv1a(h, key, strlen(key) + 1);
    for (size_t i = 0; i < m->nsetup; i++)
        h = run_fnv1a(h, m->setup[i], strlen(m->setup[i]) + 1);
    h = hash_tree(h, m->dir);
    for (size_t i = 0; i < m->nshares; i++) { /* folders the family's setup or adapter use besides its own */
        /* by name, not by absolute path: the same checkout cloned elsewhere is the same adapter */
        const char *name = strrchr(m->shares[i], '/');
        name = name ? name + 1 : m->shares[i];
        h = run_fnv1a(h, name, strlen(name) + 1);
        h = hash_tree(h, m->shares[i]);
    }
    if (local_fp)
        h = run_fnv1a(h, local_fp, strlen(local_fp) + 1);
    snprintf(out, outsz, "v1 %016llx\n", (unsigned long long)h);
}

static bool stamp_matches(const char *stamp, const char *want)
{
    FILE *f = fopen(stamp, "rb");
    if (!f)
        return false;
    char got[64] = "";
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    return strcmp(got, want) == 0;
}

void cdch_setup_cache_root(char *out, size_t outsz)
{
    const char *c = getenv("CDCH_CACHE");
    if (c && *c) {
        snprintf(out, outsz, "%s", c);
        return;
    }
    const char *home = getenv("HOME");
    snprintf(out, outsz, "%s/.cache/cdcharness", home && *home ? home : "/tmp");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int cdch_rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int cdch_mkdirs(const char *path, cdch_err *err)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    size_t n = strlen(tmp);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] == '/' || tmp[i] == '\0') {
            char c = tmp[i];
            tmp[i] = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return cdch_err_set(err, "cannot create directory %s: %s", tmp, strerror(errno));
            tmp[i] = c;
        }
    }
    return 0;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The last `lines` lines of a file, appended to out. */
static void tail_file(const char *path, int lines, char *out, size_t outsz)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char buf[8192];
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long start = size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0;
    fseek(f, start, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n && buf[n - 1] == '\n')
        buf[--n] = '\0';
    size_t b = n;
    int seen = 0;
    while (b > 0) {
        if (buf[b - 1] == '\n' && ++seen == lines)
            break;
        b--;
    }
    snprintf(out, outsz, "%s", buf + b);
}

/* The text after prefix on the last line of the log that starts with it. */
static bool said_line(const char *logp, const char *prefix, char *out, size_t outsz)
{
    FILE *f = fopen(logp, "rb");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    size_t pl = strlen(prefix);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, prefix, pl) != 0)
            continue;
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        snprintf(out, outsz, "%s", line + pl);
        found = true;
    }
    fclose(f);
    return found;
}

typedef struct logctx {
    FILE *log;
} logctx;

static void to_log(void *ud, const char *line, size_t len)
{
    logctx *l = ud;
    fwrite(line, 1, len, l->log);
    fputc('\n', l->log);
}

static int write_stamp(const char *stamp, const char *fp, cdch_err *err)
{
    FILE *s = fopen(stamp, "we");
    if (!s)
        return cdch_err_set(err, "cannot write %s: %s", stamp, strerror(errno));
    fputs(fp, s);
    fclose(s);
    return 0;
}

/* Why a setup command failed, for its error message. */
static void setup_failure(bool timed_out, double timeout_s, int status, int sig, char *how, size_t howsz)
{
    if (timed_out && cdch_proc_interrupted())
        snprintf(how, howsz, "interrupted");
    else if (timed_out)
        snprintf(how, howsz, "timed out after %.0f s", timeout_s);
    else if (sig)
        snprintf(how, howsz, "killed by signal %d", sig);
    else
        snprintf(how, howsz, "exit status %d", status);
}

/* Where one version lives in the cache, and how its install went. */
typedef struct vpaths {
    char key[256]; /* the install's name: the version, or V for "V+variant" with variant_setup: shared;
                    * local-<hash of the path>[+variant] for a local build */
    char arg[PATH_MAX + 256]; /* the VERSION setup is given: key, or "file:PATH[+variant]" */
    const cdch_manifest_version *v;
    char local_fp[24]; /* a local build's content fingerprint */
    char dir[PATH_MAX], stamp[PATH_MAX + 8], lockp[PATH_MAX + 8], logp[PATH_MAX + 16];
    char fp[64];   /* the adapter's fingerprint for key */
    int lockfd;    /* -1: not locked */
    long holder;   /* the pid the lock file named when it was taken: a harness that died holding it */
    struct vpaths *install; /* the entry that installs this key (itself, or an earlier item's) */
    cdch_err err;  /* msg "" while nothing failed */
} vpaths;

/* What every setup run of one cdch_setup_ensure call shares. */
typedef struct setup_ctx {
    const cdch_manifest *m;
    const char *root;       /* the cache root, absolute */
    const char *tmp_parent; /* NULL, or where each setup run gets its private TMPDIR */
    double timeout_s;       /* a version */
    FILE *log_to;           /* progress lines, or NULL */
} setup_ctx;

/* Run the manifest's setup command (argv: setup..., then VERSION DIR for
 * each of the n installs: n > 1 only with setup_batch) in the family's
 * folder, its output logged to the first install's log; 0 when it exited 0
 * in time (timeout_s for each install). Its environment names the cache
 * root (CDCH_CACHE_ROOT: tools shared by setups, e.g. java-common/mvn.sh's
 * Maven) and, for one install, its folder (CDCH_CACHE) and version
 * (CDCH_VERSION). */
static int run_setup(const setup_ctx *cx, vpaths *const *vp, size_t n, cdch_err *err)
{
    const cdch_manifest *m = cx->m;
    const char *root = cx->root;
    double timeout_s = cx->timeout_s;
    FILE *log_to = cx->log_to;
    const char *logp = vp[0]->logp;
    FILE *log = fopen(logp, "we");
    if (!log)
        return cdch_err_set(err, "cannot write setup log %s: %s", logp, strerror(errno));
    setvbuf(log, NULL, _IOLBF, 0);
    cdch_buf keys = CDCH_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        cdch_buf_printf(&keys, "%s%s", i ? ", " : "", vp[i]->key);
    if (log_to && n == 1)
        fprintf(log_to, "setup %s@%s (log: %s)\n", m->family, vp[0]->arg, logp);
    else if (log_to)
        fprintf(log_to, "setup %s@%s: %zu versions in one run (log: %s)\n", m->family, cdch_buf_cstr(&keys), n, logp);
    char **argv = calloc(m->nsetup + 2 * n + 1, sizeof *argv);
    if (!argv) {
        fclose(log);
        cdch_buf_free(&keys);
        return cdch_err_set(err, "out of memory");
    }
    for (size_t i = 0; i < m->nsetup; i++)
        argv[i] = m->setup[i];
    for (size_t i = 0; i < n; i++) {
        argv[m->nsetup + 2 * i] = vp[i]->arg;
        argv[m->nsetup + 2 * i + 1] = vp[i]->dir;
    }
    char e_cache[PATH_MAX + 16], e_root[PATH_MAX + 24], e_ver[PATH_MAX + 300], e_local[PATH_MAX + 16];
    snprintf(e_cache, sizeof e_cache, "CDCH_CACHE=%s", vp[0]->dir);
    snprintf(e_root, sizeof e_root, "CDCH_CACHE_ROOT=%s", root);
    snprintf(e_ver, sizeof e_ver, "CDCH_VERSION=%s", vp[0]->arg);
    snprintf(e_local, sizeof e_local, "CDCH_LOCAL=%s", vp[0]->v && vp[0]->v->local_path ? vp[0]->v->local_path : "");
    char e_unpinned[] = "CDCH_UNPINNED=1";
    char *env1[6] = {e_cache, e_root, e_ver, NULL}, *envn[] = {e_root, NULL};
    size_t ne = 3;
    if (n == 1 && vp[0]->v && vp[0]->v->unpinned) /* never batched (cdch_setup_ensure) */
        env1[ne++] = e_unpinned;
    if (n == 1 && vp[0]->v && vp[0]->v->local_path)
        env1[ne++] = e_local;
    fprintf(log, "# %s@%s: setup in %s:", m->family, cdch_buf_cstr(&keys), m->dir);
    cdch_buf_free(&keys);
    for (size_t i = 0; argv[i]; i++)
        fprintf(log, " %s", argv[i]);
    fprintf(log, "\n");
    /* a private TMPDIR inside the run directory: a setup this harness cannot stop (it was killed) is
     * found there by the next sweep (rundir.h) */
    char tmp[PATH_MAX];
    tmp[0] = '\0';
    if (cx->tmp_parent && (size_t)snprintf(tmp, sizeof tmp, "%s/s-XXXXXX", cx->tmp_parent) < sizeof tmp &&
        !mkdtemp(tmp)) {
        int e = errno;
        fprintf(log, "# cannot create a temporary directory %s for the setup: %s\n", tmp, strerror(e));
        fclose(log);
        free(argv);
        return cdch_err_set(err, "setup of %s@%s: cannot create a temporary directory %s: %s (log: %s)", m->family,
                            vp[0]->key, tmp, strerror(e), logp);
    }
    cdch_proc_opts po = {argv, m->dir, n == 1 ? env1 : envn, log, false, tmp[0] ? tmp : NULL};
    cdch_err perr;
    cdch_proc *p = cdch_proc_spawn(&po, &perr);
    free(argv);
    if (!p) {
        if (tmp[0])
            cdch_rm_tree(tmp);
        fprintf(log, "# %s\n", perr.msg);
        fclose(log);
        return cdch_err_set(err, "setup of %s@%s failed: %s (log: %s)", m->family, vp[0]->key, perr.msg, logp);
    }
    logctx lc = {log};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double limit = timeout_s * (double)n;
    bool timed_out = false;
    while (cdch_proc_pump(p, 500, to_log, &lc)) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if ((double)(t1.tv_sec - t0.tv_sec) > limit || cdch_proc_interrupted()) {
            timed_out = true;
            cdch_proc_stop(p, 5000, to_log, &lc);
            break;
        }
    }
    int status, sig;
    cdch_proc_status(p, &status, &sig);
    double cpu = cdch_proc_cpu_seconds(p);
    cdch_proc_free(p);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(log, "# setup ended: %s %d after %.1f s, %.1f CPU-s\n", sig ? "signal" : "status", sig ? sig : status,
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, cpu);
    fclose(log);
    if (!timed_out && !sig && status == 0)
        return 0;
    char tail[4096], how[80];
    tail_file(logp, 15, tail, sizeof tail);
    setup_failure(timed_out, limit, status, sig, how, sizeof how);
    char said[1024];
    if (!timed_out && !sig && (status == 3 || status == 4) && n == 1 &&
        said_line(logp, status == 3 ? "setup: not served: " : "setup: unsupported: ", said, sizeof said))
        return cdch_err_set(err, "%s@%s %s: %s (setup log: %s)", m->family, vp[0]->arg,
                            status == 3 ? "is not served by the family's registry; it answered"
                                        : "cannot be run by the family's adapter",
                            said, logp);
    return cdch_err_set(err, "setup of %s@%s failed (%s); log: %s; last lines:\n%s", m->family, vp[0]->arg, how,
                        logp, tail);
}

/* A fresh, empty directory for an install. */
static int fresh_dir(const char *dir, cdch_err *err)
{
    cdch_rm_tree(dir);
    if (mkdir(dir, 0755) != 0)
        return cdch_err_set(err, "cannot create %s: %s", dir, strerror(errno));
    return 0;
}

/* Under the version's lock, not installed: a fresh directory, the setup
 * command, the stamp. */
static int install_one(const setup_ctx *cx, vpaths *vp, cdch_err *err)
{
    if (fresh_dir(vp->dir, err) != 0)
        return -1;
    if (cx->m->nsetup > 0 && run_setup(cx, &vp, 1, err) != 0)
        return -1;
    return write_stamp(vp->stamp, vp->fp, err);
}

/* Copy the batch's log into another install's log, under a line naming it. */
static void copy_log(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "we") : NULL;
    if (out) {
        fprintf(out, "# installed by the setup run logged in %s (copied here):\n", from);
        char buf[65536];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, k, out);
        fclose(out);
    }
    if (in)
        fclose(in);
}

/* Installs not stamped yet (need[0..n)), all locked: one setup run for all of
 * them; on failure each is installed alone, for an error of its own (and so
 * that one broken version does not keep the others out). */
static void install_batch(const setup_ctx *cx, vpaths **need, size_t n)
{
    const cdch_manifest *m = cx->m;
    FILE *log_to = cx->log_to;
    cdch_err berr;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = fresh_dir(need[i]->dir, &berr) == 0;
    ok = ok && run_setup(cx, need, n, &berr) == 0;
    for (size_t i = 0; i < n && ok; i++)
        ok = write_stamp(need[i]->stamp, need[i]->fp, &berr) == 0;
    if (ok) {
        for (size_t i = 1; i < n; i++)
            copy_log(need[0]->logp, need[i]->logp);
        return;
    }
    char *nl = strchr(berr.msg, '\n');
    if (nl)
        *nl = '\0';
    if (log_to)
        fprintf(log_to, "setup %s: the run for %zu versions failed; installing each alone (%s)\n", m->family, n,
                berr.msg);
    for (size_t i = 0; i < n; i++)
        if (install_one(cx, need[i], &need[i]->err) == 0)
            cdch_err_clear(&need[i]->err);
}

/* The cache root as an absolute path. */
static int abs_root(const char *cache_root, char *root, size_t rootsz, cdch_err *err)
{
    if (cache_root)
        snprintf(root, rootsz, "%s", cache_root);
    else
        cdch_setup_cache_root(root, rootsz);
    if (root[0] != '/') { /* the setup runs in the family's folder: a relative root would point elsewhere */
        char cwd[PATH_MAX], rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s", root);
        if (!getcwd(cwd, sizeof cwd) || (size_t)snprintf(root, rootsz, "%s/%s", cwd, rel) >= rootsz)
            return cdch_err_set(err, "cache directory %s: cannot make it an absolute path", rel);
    }
    return 0;
}

/* Paths of version v's install; its family folder in the cache created. */
static int version_paths(const cdch_manifest *m, const cdch_manifest_version *v, const char *root, vpaths *vp,
                         cdch_err *err)
{
    vp->lockfd = -1;
    vp->v = v;
    if (v->local_path) {
        /* the user's build: one install per path, its stamp keyed by the content */
        const char *var = cdch_version_variant(v->version);
        bool keep_var = *var && !m->variant_setup_shared;
        uint64_t ph = run_fnv1a(RUN_FNV1A_INIT, v->local_path, strlen(v->local_path));
        snprintf(vp->key, sizeof vp->key, "local-%016llx%s%s", (unsigned long long)ph, keep_var ? "+" : "",
                 keep_var ? var : "");
        snprintf(vp->arg, sizeof vp->arg, "file:%s%s%s", v->local_path, keep_var ? "+" : "", keep_var ? var : "");
        snprintf(vp->local_fp, sizeof vp->local_fp, "%016llx",
                 (unsigned long long)hash_tree(RUN_FNV1A_INIT, v->local_path));
    } else {
        if (strchr(v->version, '/') || strcmp(v->version, "..") == 0 || strcmp(v->version, ".") == 0)
            return cdch_err_set(err, "%s: version '%s' cannot be used as a directory name", m->family, v->version);
        /* variant_setup: shared -- "2.7.4.Final+retry" runs on the install of "2.7.4.Final" */
        snprintf(vp->key, sizeof vp->key, "%s", v->version);
        if (m->variant_setup_shared && strchr(vp->key, '+') && strchr(vp->key, '+') != vp->key)
            *strchr(vp->key, '+') = '\0';
        snprintf(vp->arg, sizeof vp->arg, "%s", vp->key);
    }
    char famdir[PATH_MAX];
    snprintf(famdir, sizeof famdir, "%s/%s", root, m->family);
    snprintf(vp->dir, sizeof vp->dir, "%s/%s", famdir, vp->key);
    snprintf(vp->stamp, sizeof vp->stamp, "%s/.ok", vp->dir);
    snprintf(vp->lockp, sizeof vp->lockp, "%s/%s.lock", famdir, vp->key);
    snprintf(vp->logp, sizeof vp->logp, "%s/%s.setup.log", famdir, vp->key);
    if (cdch_mkdirs(famdir, err) != 0)
        return cdch_err_wrap(err, "cache for %s@%s", m->family, vp->key);
    return 0;
}

/* The version's lock file names its holder's pid while it is held (emptied
 * before the lock is let go): one found there on taking the lock is a
 * harness that died holding it (vp->holder). */
static int lock_version(vpaths *vp, cdch_err *err)
{
    vp->lockfd = open(vp->lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (vp->lockfd < 0)
        return cdch_err_set(err, "cannot open lock %s: %s", vp->lockp, strerror(errno));
    while (flock(vp->lockfd, LOCK_EX) != 0 && errno == EINTR) {
    }
    char buf[32];
    ssize_t k = pread(vp->lockfd, buf, sizeof buf - 1, 0);
    buf[k > 0 ? k : 0] = '\0';
    vp->holder = strtol(buf, NULL, 10);
    if (vp->holder == (long)getpid())
        vp->holder = 0;
    int len = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(vp->lockfd, 0) != 0 || pwrite(vp->lockfd, buf, (size_t)len, 0) != len) {
        /* the name is for a harness that comes after a crash of this one: it can do without */
    }
    return 0;
}

static void unlock_version(vpaths *vp)
{
    if (vp->lockfd >= 0) {
        if (ftruncate(vp->lockfd, 0) != 0) {
            /* a name left behind only makes the next holder wait for a pid that runs on (bounded) */
        }
        flock(vp->lockfd, LOCK_UN);
        close(vp->lockfd);
        vp->lockfd = -1;
    }
}

static int cmp_vpaths_key(const void *a, const void *b)
{
    return strcmp((*(vpaths *const *)a)->key, (*(vpaths *const *)b)->key);
}

void cdch_setup_ensure(const cdch_manifest *m, cdch_setup_item *items, size_t n, const char *cache_root,
                       const char *tmp_parent, double timeout_s, FILE *log_to)
{
    char root[PATH_MAX];
    cdch_err rerr;
    int rrc = abs_root(cache_root, root, sizeof root, &rerr);
    vpaths *vp = calloc(n ? n : 1, sizeof *vp);
    /* the installs (one per key: a shared variant and its base are one) in plan order, the same in key
     * order, and those not installed yet */
    vpaths **uniq = calloc(n ? n : 1, sizeof *uniq), **sorted = calloc(n ? n : 1, sizeof *sorted),
           **need = calloc(n ? n : 1, sizeof *need);
    if (!vp || !uniq || !sorted || !need) {
        for (size_t i = 0; i < n; i++)
            items[i].rc = cdch_err_set(&items[i].err, "out of memory");
        goto out;
    }
    size_t nu = 0;
    for (size_t i = 0; i < n; i++) {
        items[i].rc = rrc ? -1 : version_paths(m, items[i].v, root, &vp[i], &items[i].err);
        if (rrc)
            items[i].err = rerr;
        snprintf(items[i].dir, sizeof items[i].dir, "%s", vp[i].dir);
        if (items[i].rc)
            continue;
        for (size_t k = 0; k < nu && !vp[i].install; k++)
            if (strcmp(uniq[k]->key, vp[i].key) == 0)
                vp[i].install = uniq[k];
        if (!vp[i].install)
            vp[i].install = uniq[nu++] = &vp[i];
    }
    /* locked in key order, so that two harness processes taking overlapping sets cannot deadlock */
    memcpy(sorted, uniq, nu * sizeof *uniq);
    qsort(sorted, nu, sizeof *sorted, cmp_vpaths_key);
    for (size_t k = 0; k < nu; k++)
        if (lock_version(sorted[k], &sorted[k]->err) == 0)
            fingerprint(m, sorted[k]->key, sorted[k]->local_fp[0] ? sorted[k]->local_fp : NULL, sorted[k]->fp,
                        sizeof sorted[k]->fp);
    /* what is not installed yet (or whose adapter changed since) */
    size_t nn = 0, nchanged = 0;
    cdch_buf changed = CDCH_BUF_INIT;
    for (size_t k = 0; k < nu; k++) {
        vpaths *u = uniq[k];
        if (u->lockfd >= 0 && !stamp_matches(u->stamp, u->fp)) {
            if (exists(u->stamp) && u->v->local_path && log_to)
                fprintf(log_to, "setup %s@%s: %s or the adapter changed since it was installed (content %s); "
                                "installing again\n",
                        m->family, u->arg, u->v->local_path, u->local_fp);
            else if (exists(u->stamp))
                cdch_buf_printf(&changed, "%s%s", nchanged++ ? ", " : "", u->key);
            need[nn++] = u;
        }
    }
    /* one line for all the versions of the family whose install is stale */
    if (nchanged && log_to)
        fprintf(log_to, "setup %s@%s: the adapter in %s changed since %s installed; installing again\n", m->family,
                cdch_buf_cstr(&changed), m->dir, nchanged > 1 ? "they were" : "it was");
    cdch_buf_free(&changed);
    /* a version the manifest does not pin is installed alone: its setup's answer (not served,
     * unsupported) is its own */
    size_t npinned = 0;
    for (size_t j = 0; j < nn; j++)
        if (!need[j]->v->unpinned) {
            vpaths *t = need[npinned];
            need[npinned++] = need[j];
            need[j] = t;
        }
    /* A harness killed while it set one of these up left its setup running (its lock went with it):
     * kill what dead harnesses left before emptying the directories it may still write. The lock is
     * let go as the dead harness's files close, a moment before the kernel has it end (a sweep
     * spares a run directory whose owner runs): wait for that end first (bounded). */
    if (nn > 0) {
        for (size_t j = 0; j < nn; j++)
            for (int k = 0; need[j]->holder > 0 && cdch_pid_running(need[j]->holder) && k < 500; k++) {
                struct timespec ts = {0, 10 * 1000000L};
                nanosleep(&ts, NULL);
            }
        cdch_rundir_sweep(NULL);
    }
    setup_ctx cx = {m, root, tmp_parent, timeout_s, log_to};
    if (m->setup_batch && npinned > 1 && m->nsetup > 0)
        install_batch(&cx, need, npinned);
    else
        for (size_t j = 0; j < npinned; j++)
            if (install_one(&cx, need[j], &need[j]->err) == 0)
                cdch_err_clear(&need[j]->err);
    for (size_t j = npinned; j < nn; j++)
        if (install_one(&cx, need[j], &need[j]->err) == 0)
            cdch_err_clear(&need[j]->err);
    for (size_t k = 0; k < nu; k++)
        unlock_version(uniq[k]);
    for (size_t i = 0; i < n; i++) {
        if (items[i].rc)
            continue;
        snprintf(items[i].local_fp, sizeof items[i].local_fp, "%s", vp[i].install->local_fp);
        if (items[i].v->local_path) {
            char lv[PATH_MAX + 32];
            snprintf(lv, sizeof lv, "%s/local-version", vp[i].dir);
            FILE *f = fopen(lv, "rb");
            if (f) {
                if (fgets(items[i].local_version, sizeof items[i].local_version, f))
                    items[i].local_version[strcspn(items[i].local_version, "\r\n")] = '\0';
                fclose(f);
            }
        }
        const cdch_err *e = &vp[i].install->err;
        items[i].rc = e->msg[0] ? -1 : 0;
        if (items[i].rc)
            items[i].err = *e;
    }
out:
    free(vp);
    free(uniq);
    free(sorted);
    free(need);
}
