/* manifest.c — load consumers/<family>/manifest.yaml with libyaml. */
#include "manifest.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>
#include "xalloc.h"
#include "yamlfile.h"

#define xcalloc cdch_xcalloc
#define xrealloc cdch_xrealloc
#define xstrdup cdch_xstrdup

typedef struct mctx {
    yaml_document_t *doc;
    const char *path;
    cdch_err *err;
} mctx;

static int fail(mctx *c, const yaml_node_t *n, const char *msg, const char *arg)
{
    char m[400];
    snprintf(m, sizeof m, msg, arg ? arg : "");
    cdch_err_set(c->err, "%s:%lu:%lu: %s", c->path, n ? (unsigned long)n->start_mark.line + 1 : 1ul,
                 n ? (unsigned long)n->start_mark.column + 1 : 1ul, m);
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int str_list(mctx *c, yaml_node_t *n, const char *key, char ***out, size_t *nout)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "'%s' must be a list of strings (a command and its arguments)", key);
    size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    char **v = xcalloc(cnt + 1, sizeof *v);
    for (size_t i = 0; i < cnt; i++) {
        yaml_node_t *it = yaml_document_get_node(c->doc, n->data.sequence.items.start[i]);
        const char *s = scalar(it);
        if (!s) {
            for (size_t k = 0; k < i; k++)
                free(v[k]);
            free(v);
            return fail(c, it, "'%s' items must be strings", key);
        }
        v[i] = xstrdup(s);
    }
    *out = v;
    *nout = cnt;
    return 0;
}

static int parse_auth(mctx *c, yaml_node_t *n, bool *native)
{
    const char *a = scalar(n);
    if (a && strcmp(a, "mysql_native_password") == 0)
        *native = true;
    else if (a && strcmp(a, "caching_sha2_password") == 0)
        *native = false;
    else
        return fail(c, n, "'server_auth' must be mysql_native_password or caching_sha2_password", NULL);
    return 0;
}

static int parse_bool(mctx *c, yaml_node_t *n, const char *key, bool *out)
{
    const char *s = scalar(n);
    if (s && (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "on") == 0))
        *out = true;
    else if (s && (strcmp(s, "false") == 0 || strcmp(s, "no") == 0 || strcmp(s, "off") == 0))
        *out = false;
    else
        return fail(c, n, "'%s' must be true or false", key);
    return 0;
}

/* {uncompressed: V, compressed: V, flip: V} */
static int parse_expect(mctx *c, yaml_node_t *val, char **unc, char **comp, char **flip)
{
    if (!val || val->type != YAML_MAPPING_NODE)
        return fail(c, val, "'expect' must be a mapping {uncompressed: VERDICT, compressed: VERDICT}", NULL);
    for (yaml_node_pair_t *q = val->data.mapping.pairs.start; q < val->data.mapping.pairs.top; q++) {
        const char *mk = scalar(yaml_document_get_node(c->doc, q->key));
        yaml_node_t *mv = yaml_document_get_node(c->doc, q->value);
        if (!mk || !scalar(mv))
            return fail(c, mv, "'expect' values must be verdict names", NULL);
        char **slot = strcmp(mk, "uncompressed") == 0 ? unc
                      : strcmp(mk, "compressed") == 0 ? comp
                      : strcmp(mk, "flip") == 0       ? flip
                                                      : NULL;
        if (!slot)
            return fail(c, mv, "unknown mode '%s' in 'expect' (uncompressed, compressed, flip)", mk);
        free(*slot);
        *slot = xstrdup(scalar(mv));
    }
    return 0;
}

/* expect_by_scenario: {SCENARIO: {uncompressed: V, ...}, ...} */
static int parse_by_scenario(mctx *c, yaml_node_t *val, cdch_manifest_sexpect **out, size_t *nout)
{
    if (!val || val->type != YAML_MAPPING_NODE)
        return fail(c, val, "'expect_by_scenario' must be a mapping {SCENARIO: {uncompressed: VERDICT, ...}}", NULL);
    for (yaml_node_pair_t *q = val->data.mapping.pairs.start; q < val->data.mapping.pairs.top; q++) {
        yaml_node_t *kn = yaml_document_get_node(c->doc, q->key);
        const char *name = scalar(kn);
        if (!name || !*name)
            return fail(c, kn, "'expect_by_scenario' keys must be scenario names", NULL);
        *out = xrealloc(*out, (*nout + 1) * sizeof **out);
        cdch_manifest_sexpect *e = &(*out)[(*nout)++];
        memset(e, 0, sizeof *e);
        e->scenario = xstrdup(name);
        if (parse_expect(c, yaml_document_get_node(c->doc, q->value), &e->uncompressed, &e->compressed, &e->flip) != 0)
            return -1;
    }
    return 0;
}

static void free_by_scenario(cdch_manifest_sexpect *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].scenario);
        free(e[i].uncompressed);
        free(e[i].compressed);
        free(e[i].flip);
    }
    free(e);
}

static int load_version(mctx *c, yaml_node_t *n, cdch_manifest_version *v)
{
    v->source = -1;
    v->native_auth = -1;
    v->session = -1;
    if (scalar(n)) {
        v->version = xstrdup(scalar(n));
        return 0;
    }
    if (!n || n->type != YAML_MAPPING_NODE)
        return fail(c, n, "a version must be a string or a mapping {version: ..., expect: {...}}", NULL);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *val = yaml_document_get_node(c->doc, p->value);
        const char *key = scalar(k);
        if (!key)
            continue;
        if (strcmp(key, "version") == 0) {
            if (!scalar(val))
                return fail(c, val, "'version' must be a string", NULL);
            v->version = xstrdup(scalar(val));
        } else if (strcmp(key, "source") == 0) {
            const char *src = scalar(val);
            if (src && strcmp(src, "files") == 0)
                v->source = 1;
            else if (src && strcmp(src, "server") == 0)
                v->source = 0;
            else
                return fail(c, val, "'source' must be 'server' or 'files'", NULL);
        } else if (strcmp(key, "server_auth") == 0) {
            bool native = false;
            if (parse_auth(c, val, &native) != 0)
                return -1;
            v->native_auth = native;
        } else if (strcmp(key, "expect") == 0) {
            if (parse_expect(c, val, &v->expect_uncompressed, &v->expect_compressed, &v->expect_flip) != 0)
                return -1;
        } else if (strcmp(key, "expect_by_scenario") == 0) {
            if (parse_by_scenario(c, val, &v->by_scenario, &v->nby_scenario) != 0)
                return -1;
        } else if (strcmp(key, "session") == 0) {
            bool on = false;
            if (parse_bool(c, val, "session", &on) != 0)
                return -1;
            v->session = on;
        }
    }
    if (!v->version)
        return fail(c, n, "a version entry needs 'version'", NULL);
    return 0;
}

static void free_version(cdch_manifest_version *v)
{
    free(v->version);
    free(v->expect_uncompressed);
    free(v->expect_compressed);
    free(v->expect_flip);
    free_by_scenario(v->by_scenario, v->nby_scenario);
}

void cdch_manifest_free(cdch_manifest *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nversions; i++)
        free_version(&m->versions[i]);
    free(m->versions);
    for (size_t i = 0; i < m->nsetup; i++)
        free(m->setup[i]);
    free(m->setup);
    for (size_t i = 0; i < m->nrun; i++)
        free(m->run[i]);
    free(m->run);
    free(m->path);
    free(m->dir);
    free(m->family);
    free(m->language);
    free_by_scenario(m->by_scenario, m->nby_scenario);
    free(m);
}

static int load_root(mctx *c, yaml_node_t *root, cdch_manifest *m)
{
    if (!root || root->type != YAML_MAPPING_NODE)
        return fail(c, root, "the manifest must be a mapping (family, source, versions, setup, run)", NULL);
    yaml_node_t *versions = NULL, *run = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *v = yaml_document_get_node(c->doc, p->value);
        const char *key = scalar(k);
        if (!key)
            continue;
        if (strcmp(key, "family") == 0) {
            if (!scalar(v))
                return fail(c, v, "'family' must be a string", NULL);
            free(m->family);
            m->family = xstrdup(scalar(v));
        } else if (strcmp(key, "language") == 0) {
            free(m->language);
            m->language = scalar(v) ? xstrdup(scalar(v)) : NULL;
        } else if (strcmp(key, "source") == 0) {
            const char *s = scalar(v);
            if (s && strcmp(s, "files") == 0)
                m->files_source = true;
            else if (s && strcmp(s, "server") == 0)
                m->files_source = false;
            else
                return fail(c, v, "'source' must be 'server' or 'files'", NULL);
        } else if (strcmp(key, "versions") == 0) {
            versions = v;
        } else if (strcmp(key, "setup") == 0) {
            if (m->setup)
                continue;
            if (scalar(v) && !*scalar(v))
                continue;
            if (str_list(c, v, "setup", &m->setup, &m->nsetup) != 0)
                return -1;
        } else if (strcmp(key, "run") == 0) {
            run = v;
        } else if (strcmp(key, "server_auth") == 0) {
            if (parse_auth(c, v, &m->native_auth) != 0)
                return -1;
        } else if (strcmp(key, "session") == 0) {
            if (parse_bool(c, v, "session", &m->session) != 0)
                return -1;
        } else if (strcmp(key, "expect_by_scenario") == 0) {
            if (parse_by_scenario(c, v, &m->by_scenario, &m->nby_scenario) != 0)
                return -1;
        } else if (strcmp(key, "startup_timeout") == 0) {
            const char *s = scalar(v);
            char *end;
            double t = s ? strtod(s, &end) : 0;
            if (!s || *end || t <= 0)
                return fail(c, v, "'startup_timeout' must be a positive number of seconds", NULL);
            m->startup_timeout = t;
        }
    }
    if (!m->family)
        return fail(c, root, "missing 'family'", NULL);
    if (!versions || versions->type != YAML_SEQUENCE_NODE ||
        versions->data.sequence.items.top == versions->data.sequence.items.start)
        return fail(c, versions ? versions : root, "'versions' must be a non-empty list", NULL);
    size_t n = (size_t)(versions->data.sequence.items.top - versions->data.sequence.items.start);
    m->versions = xcalloc(n, sizeof *m->versions);
    for (size_t i = 0; i < n; i++) {
        if (load_version(c, yaml_document_get_node(c->doc, versions->data.sequence.items.start[i]),
                         &m->versions[m->nversions++]) != 0)
            return -1;
    }
    if (!run)
        return fail(c, root, "missing 'run' (the command that starts the adapter)", NULL);
    if (str_list(c, run, "run", &m->run, &m->nrun) != 0)
        return -1;
    if (m->nrun == 0)
        return fail(c, run, "'run' is empty", NULL);
    return 0;
}

cdch_manifest *cdch_manifest_load(const char *path, cdch_err *err)
{
    yaml_document_t doc;
    if (cdch_yaml_load_file(path, &doc, err) != 0)
        return NULL;
    cdch_manifest *m = xcalloc(1, sizeof *m);
    m->startup_timeout = 60;
    m->path = xstrdup(path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    char abs[PATH_MAX];
    m->dir = xstrdup(realpath(dir, abs) ? abs : dir);
    mctx c = {&doc, path, err};
    int rc = load_root(&c, yaml_document_get_root_node(&doc), m);
    yaml_document_delete(&doc);
    if (rc != 0) {
        cdch_manifest_free(m);
        return NULL;
    }
    return m;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* "a, b, c" of the families in dirs (folders with a manifest.yaml). */
static void list_families(const char *const *dirs, size_t ndirs, char *out, size_t outsz)
{
    char *names[512];
    size_t n = 0;
    for (size_t i = 0; i < ndirs; i++) {
        DIR *d = opendir(dirs[i]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL && n < 512) {
            if (e->d_name[0] == '.')
                continue;
            char p[PATH_MAX];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s/manifest.yaml", dirs[i], e->d_name);
            if (stat(p, &st) == 0)
                names[n++] = xstrdup(e->d_name);
        }
        closedir(d);
    }
    qsort(names, n, sizeof *names, cmp_str);
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (o < outsz)
            o += (size_t)snprintf(out + o, outsz - o, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
    if (!n)
        snprintf(out, outsz, "none (no <family>/manifest.yaml)");
}

cdch_manifest *cdch_manifest_find(const char *const *dirs, size_t ndirs, const char *family, cdch_err *err)
{
    if (!family[0] || strchr(family, '/') || strcmp(family, "..") == 0) {
        cdch_err_set(err, "bad consumer family name '%s'", family);
        return NULL;
    }
    for (size_t i = 0; i < ndirs; i++) {
        char p[PATH_MAX];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s/manifest.yaml", dirs[i], family);
        if (stat(p, &st) == 0) {
            cdch_manifest *m = cdch_manifest_load(p, err);
            if (m && strcmp(m->family, family) != 0) {
                cdch_err_set(err, "%s: 'family: %s' does not match its folder name '%s'", p, m->family, family);
                cdch_manifest_free(m);
                return NULL;
            }
            return m;
        }
    }
    char known[2048], where[1024];
    list_families(dirs, ndirs, known, sizeof known);
    size_t o = 0;
    where[0] = '\0';
    for (size_t i = 0; i < ndirs && o < sizeof where; i++)
        o += (size_t)snprintf(where + o, sizeof where - o, "%s%s", i ? ", " : "", dirs[i]);
    cdch_err_set(err, "unknown consumer family '%s' (looked in %s); known: %s", family, where, known);
    return NULL;
}

const cdch_manifest_version *cdch_manifest_find_version(const cdch_manifest *m, const char *version, cdch_err *err)
{
    for (size_t i = 0; i < m->nversions; i++)
        if (strcmp(m->versions[i].version, version) == 0)
            return &m->versions[i];
    char list[1024];
    size_t o = 0;
    list[0] = '\0';
    for (size_t i = 0; i < m->nversions && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", m->versions[i].version);
    cdch_err_set(err, "%s: version '%s' is not pinned in %s; pinned: %s", m->family, version, m->path, list);
    return NULL;
}

bool cdch_manifest_files_source(const cdch_manifest *m, const cdch_manifest_version *v)
{
    return v->source >= 0 ? v->source == 1 : m->files_source;
}

bool cdch_manifest_native_auth(const cdch_manifest *m, const cdch_manifest_version *v)
{
    return v->native_auth >= 0 ? v->native_auth == 1 : m->native_auth;
}

const char *cdch_manifest_expect(const cdch_manifest_version *v, const char *mode)
{
    if (strcmp(mode, "compressed") == 0)
        return v->expect_compressed;
    if (strcmp(mode, "uncompressed") == 0)
        return v->expect_uncompressed;
    if (strcmp(mode, "flip") == 0)
        return v->expect_flip;
    return NULL;
}

bool cdch_manifest_session(const cdch_manifest *m, const cdch_manifest_version *v)
{
    return v->session >= 0 ? v->session == 1 : m->session;
}

static const char *sexpect_mode(const cdch_manifest_sexpect *e, size_t n, const char *scenario, const char *mode)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(e[i].scenario, scenario) != 0)
            continue;
        if (strcmp(mode, "compressed") == 0)
            return e[i].compressed;
        if (strcmp(mode, "uncompressed") == 0)
            return e[i].uncompressed;
        if (strcmp(mode, "flip") == 0)
            return e[i].flip;
    }
    return NULL;
}

const char *cdch_manifest_expect_for(const cdch_manifest *m, const cdch_manifest_version *v, const char *scenario,
                                     const char *mode)
{
    const char *e = scenario ? sexpect_mode(v->by_scenario, v->nby_scenario, scenario, mode) : NULL;
    if (!e && scenario && m)
        e = sexpect_mode(m->by_scenario, m->nby_scenario, scenario, mode);
    return e ? e : cdch_manifest_expect(v, mode);
}
