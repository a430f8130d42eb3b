/* matrix.c — load a matrix file (matrix.h) with libyaml. */
#include "matrix.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "estimate.h"
#include "scenario.h"
#include "sys.h"
#include "verdict.h"
#include "xalloc.h"
#include "yamlfile.h"

#define xcalloc cdch_xcalloc
#define xrealloc cdch_xrealloc
#define xstrdup cdch_xstrdup

typedef struct mctx {
    yaml_document_t *doc;
    const char *path;
    cdch_err *err;
    cdch_matrix *m;
} mctx;

static int fail(mctx *c, const yaml_node_t *n, const char *fmt, const char *arg)
{
    return cdch_yaml_fail(c->err, c->path, n, fmt, arg);
}

#define scalar cdch_yaml_scalar

static yaml_node_t *node(mctx *c, yaml_node_item_t i) { return yaml_document_get_node(c->doc, i); }

static void push(char ***v, size_t *n, const char *s)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = xstrdup(s);
}

/* A list of strings (a single string is a list of one). */
static int str_list(mctx *c, yaml_node_t *n, const char *key, char ***out, size_t *nout)
{
    if (scalar(n)) {
        push(out, nout, scalar(n));
        return 0;
    }
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "'%s' must be a list of strings", key);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *e = node(c, *it);
        if (!scalar(e) || !*scalar(e))
            return fail(c, e, "'%s' items must be non-empty strings", key);
        push(out, nout, scalar(e));
    }
    return 0;
}

static void rel(const cdch_matrix *m, const char *p, char *out, size_t outsz)
{
    if (p[0] == '/')
        snprintf(out, outsz, "%s", p);
    else
        snprintf(out, outsz, "%s/%s", m->dir, p);
}


static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_scenario_file(cdch_matrix *m, const char *p)
{
    char abs[PATH_MAX];
    push(&m->scenarios, &m->nscenarios, realpath(p, abs) ? abs : p);
}

/* One `scenarios:` entry: a file, a folder of *.yaml, or a glob. */
static int expand_scenario(mctx *c, yaml_node_t *n, const char *entry)
{
    char p[PATH_MAX];
    rel(c->m, entry, p, sizeof p);
    if (is_dir(p)) {
        size_t l = strlen(p);
        snprintf(p + l, sizeof p - l, "/*.yaml");
    }
    glob_t g;
    memset(&g, 0, sizeof g);
    int rc = glob(p, 0, NULL, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
        globfree(&g);
        return fail(c, n, "no scenario file matches '%s'", entry);
    }
    if (rc != 0) {
        globfree(&g);
        return fail(c, n, "cannot expand '%s'", entry);
    }
    for (size_t i = 0; i < g.gl_pathc; i++)
        add_scenario_file(c->m, g.gl_pathv[i]);
    globfree(&g);
    return 0;
}

static int parse_secs(mctx *c, yaml_node_t *n, const char *key, double *out, bool auto_ok)
{
    const char *s = scalar(n);
    if (auto_ok && s && strcmp(s, "auto") == 0) {
        *out = 0;
        return 0;
    }
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || *end || v <= 0)
        return fail(c, n, auto_ok ? "'%s' must be a positive number of seconds or auto"
                                  : "'%s' must be a positive number of seconds",
                    key);
    *out = v;
    return 0;
}

static bool valid_mode(const char *s, bool any_ok)
{
    return strcmp(s, "compressed") == 0 || strcmp(s, "uncompressed") == 0 || strcmp(s, "flip") == 0 ||
           (any_ok && strcmp(s, "*") == 0);
}

static int parse_exclude(mctx *c, yaml_node_t *n)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "'exclude' must be a list of {consumer, scenario, mode, reason}", NULL);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *e = node(c, *it);
        if (!e || e->type != YAML_MAPPING_NODE)
            return fail(c, e, "an 'exclude' entry must be a mapping {consumer, scenario, mode, reason}", NULL);
        cdch_matrix_exclude x = {NULL, NULL, NULL, NULL};
        for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
            yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);
            const char *k = scalar(kn), *v = scalar(vn);
            char **slot = !k                              ? NULL
                          : strcmp(k, "consumer") == 0 ? &x.consumer
                          : strcmp(k, "scenario") == 0 ? &x.scenario
                          : strcmp(k, "mode") == 0     ? &x.mode
                          : strcmp(k, "reason") == 0   ? &x.reason
                                                       : NULL;
            if (!slot) {
                free(x.consumer), free(x.scenario), free(x.mode), free(x.reason);
                return fail(c, kn, "unknown key '%s' in an 'exclude' entry (consumer, scenario, mode, reason)", k);
            }
            if (!v || !*v) {
                free(x.consumer), free(x.scenario), free(x.mode), free(x.reason);
                return fail(c, vn, "'%s' must be a non-empty string", k);
            }
            free(*slot);
            *slot = xstrdup(v);
        }
        if (!x.reason) {
            free(x.consumer), free(x.scenario), free(x.mode);
            return fail(c, e, "an 'exclude' entry needs a 'reason' (say why the cell is not run)", NULL);
        }
        if (x.mode && !valid_mode(x.mode, true)) {
            fail(c, e, "unknown mode '%s' in 'exclude' (compressed, uncompressed, flip or *)", x.mode);
            free(x.consumer), free(x.scenario), free(x.mode), free(x.reason);
            return -1;
        }
        if (!x.consumer)
            x.consumer = xstrdup("*");
        if (!x.scenario)
            x.scenario = xstrdup("*");
        if (!x.mode)
            x.mode = xstrdup("*");
        c->m->exclude = xrealloc(c->m->exclude, (c->m->nexclude + 1) * sizeof *c->m->exclude);
        c->m->exclude[c->m->nexclude++] = x;
    }
    return 0;
}

static int parse_quick(mctx *c, yaml_node_t *n)
{
    if (!n || n->type != YAML_MAPPING_NODE)
        return fail(c, n, "'quick' must be a mapping {consumers: [...], scenarios: [...]}", NULL);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);
        const char *k = scalar(kn);
        if (k && strcmp(k, "consumers") == 0) {
            if (str_list(c, vn, "quick.consumers", &c->m->quick_consumers, &c->m->nquick_consumers) != 0)
                return -1;
        } else if (k && strcmp(k, "scenarios") == 0) {
            if (str_list(c, vn, "quick.scenarios", &c->m->quick_scenarios, &c->m->nquick_scenarios) != 0)
                return -1;
        } else {
            return fail(c, kn, "unknown key '%s' in 'quick' (consumers, scenarios)", k ? k : "?");
        }
    }
    return 0;
}

/* A path relative to the matrix file's folder, made absolute (as given when it does not resolve). */
static char *rel_path(mctx *c, const char *p)
{
    char pth[PATH_MAX * 2], abs[PATH_MAX];
    if (p[0] == '/')
        snprintf(pth, sizeof pth, "%s", p);
    else
        snprintf(pth, sizeof pth, "%s/%s", c->m->dir, p);
    return xstrdup(realpath(pth, abs) ? abs : pth);
}

/* One consumer spec; a local build's path (FAMILY@file:PATH[+variant]) made absolute. */
static char *consumer_spec(mctx *c, const char *spec)
{
    const char *f = strstr(spec, "@file:");
    if (!f)
        return xstrdup(spec);
    const char *path = f + 6, *plus = strrchr(path, '+');
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%.*s", (int)(plus ? (size_t)(plus - path) : strlen(path)), path);
    char *abs = rel_path(c, rel);
    size_t n = strlen(spec) + strlen(abs) + 16;
    char *out = xcalloc(1, n);
    snprintf(out, n, "%.*s@file:%s%s", (int)(f - spec), spec, abs, plus ? plus : "");
    free(abs);
    return out;
}

/* consumers: [SPEC | {consumer: SPEC, config: FILE}] */
static int parse_consumers(mctx *c, yaml_node_t *n)
{
    cdch_matrix *m = c->m;
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "'consumers' must be a list of FAMILY[@VERSION] or {consumer: SPEC, config: FILE}", NULL);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *e = node(c, *it);
        const char *spec = scalar(e), *config = NULL, *command = NULL, *cname = NULL, *csource = NULL;
        if (!spec && e && e->type == YAML_MAPPING_NODE) {
            for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
                yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);
                const char *k = scalar(kn), *v = scalar(vn);
                if (k && strcmp(k, "consumer") == 0 && v && *v)
                    spec = v;
                else if (k && strcmp(k, "config") == 0 && v && *v)
                    config = v;
                else if (k && strcmp(k, "command") == 0 && v && *v)
                    command = v;
                else if (k && strcmp(k, "name") == 0 && v && *v)
                    cname = v;
                else if (k && strcmp(k, "source") == 0 && v && (strcmp(v, "server") == 0 || strcmp(v, "files") == 0))
                    csource = v;
                else
                    return fail(c, kn, "a 'consumers' entry is FAMILY[@VERSION] or {consumer: SPEC, config: FILE}; "
                                       "bad key '%s'", k ? k : "?");
            }
        }
        if (command && !spec) { /* any program (command.h) */
            m->commands = xrealloc(m->commands, (m->ncommands + 1) * sizeof *m->commands);
            m->command_names = xrealloc(m->command_names, (m->ncommands + 1) * sizeof *m->command_names);
            m->command_files = xrealloc(m->command_files, (m->ncommands + 1) * sizeof *m->command_files);
            m->commands[m->ncommands] = xstrdup(command);
            m->command_names[m->ncommands] = cname ? xstrdup(cname) : NULL;
            m->command_files[m->ncommands] = csource && strcmp(csource, "files") == 0;
            m->ncommands++;
            continue;
        }
        if (!spec || !*spec || command || cname || csource)
            return fail(c, e, "a 'consumers' entry is FAMILY[@VERSION], {consumer: SPEC, config: FILE} or "
                              "{command: 'PROGRAM ARGS', name: NAME, source: server|files}", NULL);
        m->consumers = xrealloc(m->consumers, (m->nconsumers + 1) * sizeof *m->consumers);
        m->consumer_configs = xrealloc(m->consumer_configs, (m->nconsumers + 1) * sizeof *m->consumer_configs);
        m->consumers[m->nconsumers] = consumer_spec(c, spec);
        m->consumer_configs[m->nconsumers] = config ? rel_path(c, config) : NULL;
        m->nconsumers++;
    }
    return 0;
}

/* consumers_dirs: folders, relative to the matrix file, made absolute. */
static int parse_consumers_dirs(mctx *c, yaml_node_t *vn, const char *k)
{
    cdch_matrix *m = c->m;
    char **v = NULL;
    size_t n = 0;
    if (str_list(c, vn, k, &v, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char pth[PATH_MAX], abs[PATH_MAX];
        rel(m, v[i], pth, sizeof pth);
        if (!is_dir(pth)) {
            fail(c, vn, "consumers_dirs: '%s' is not a folder", v[i]);
            for (size_t k2 = 0; k2 < n; k2++)
                free(v[k2]);
            free(v);
            return -1;
        }
        push(&m->consumers_dirs, &m->nconsumers_dirs, realpath(pth, abs) ? abs : pth);
        free(v[i]);
    }
    free(v);
    return 0;
}

/* One key of the matrix file's mapping; 'scenarios' is only noted (*scen):
 * it is expanded once the whole file is read. */
static int parse_capture(mctx *c, yaml_node_t *n);
static int parse_estimate(mctx *c, yaml_node_t *n);

static int load_key(mctx *c, yaml_node_t *kn, yaml_node_t *vn, yaml_node_t **scen)
{
    cdch_matrix *m = c->m;
    const char *k = scalar(kn);
    if (!k)
        return fail(c, kn, "keys must be strings", NULL);
    if (strcmp(k, "name") == 0 || strcmp(k, "description") == 0) {
        if (!scalar(vn))
            return fail(c, vn, "'%s' must be a string", k);
        char **slot = k[0] == 'n' ? &m->name : &m->description;
        free(*slot);
        *slot = xstrdup(scalar(vn));
        return 0;
    }
    if (strcmp(k, "consumers_dirs") == 0)
        return parse_consumers_dirs(c, vn, k);
    if (strcmp(k, "consumers") == 0)
        return parse_consumers(c, vn);
    if (strcmp(k, "scenarios") == 0) {
        *scen = vn;
        return 0;
    }
    if (strcmp(k, "modes") == 0) {
        const char *s = scalar(vn);
        if (!s || (strcmp(s, "both") != 0 && !valid_mode(s, false)))
            return fail(c, vn, "'modes' must be both, compressed, uncompressed or flip", NULL);
        free(m->modes);
        m->modes = xstrdup(s);
        return 0;
    }
    if (strcmp(k, "expect") == 0) {
        const char *s = scalar(vn);
        cdch_verdict v;
        if (!s || (strcmp(s, "manifest") != 0 && cdch_verdict_parse(s, &v) != 0))
            return fail(c, vn, "'expect' must be manifest or a verdict name", NULL);
        free(m->expect);
        m->expect = xstrdup(s);
        return 0;
    }
    if (strcmp(k, "timeout") == 0)
        return parse_secs(c, vn, k, &m->timeout, false);
    if (strcmp(k, "grace") == 0)
        return parse_secs(c, vn, k, &m->grace, false);
    if (strcmp(k, "idle_after_stream") == 0)
        return parse_secs(c, vn, k, &m->idle_after_stream, true);
    if (strcmp(k, "exclude") == 0)
        return parse_exclude(c, vn);
    if (strcmp(k, "quick") == 0)
        return parse_quick(c, vn);
    if (strcmp(k, "capture") == 0)
        return parse_capture(c, vn);
    if (strcmp(k, "estimate") == 0)
        return parse_estimate(c, vn);
    return fail(c, kn,
                "unknown key '%s' (name, description, consumers_dirs, consumers, scenarios, capture, estimate, "
                "modes, expect, timeout, grace, idle_after_stream, exclude, quick)",
                k);
}

/* ---- capture: and estimate: (a deployment file) ---------------------------------------- */

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether dir holds a capture: binlog files with their index (`record` writes binlog.index). */
static bool has_index(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        found = l > 6 && strcmp(e->d_name + l - 6, ".index") == 0;
    }
    closedir(d);
    return found;
}

/* One `capture:` entry: a capture directory, or a scenario file that names one. */
static int capture_entry(mctx *c, yaml_node_t *n, const char *entry)
{
    cdch_matrix *m = c->m;
    char *abs = rel_path(c, entry);
    char *dir = NULL, *scen = NULL;
    if (is_dir(abs)) {
        if (!has_index(abs)) {
            free(abs);
            return fail(c, n, "capture: '%s' is a folder without a binlog index: give a directory `cdcharness "
                              "record` wrote (or a scenario file naming one)", entry);
        }
        dir = abs;
    } else if (is_file(abs)) {
        cdch_err serr;
        cdch_scenario *s = cdch_scenario_load(abs, &serr);
        if (!s) {
            free(abs);
            return cdch_err_set(c->err, "%s (named by %s:%zu:%zu: capture)", serr.msg, c->path,
                                n ? n->start_mark.line + 1 : 1, n ? n->start_mark.column + 1 : 1);
        }
        if (!s->capture_dir) {
            cdch_scenario_free(s);
            free(abs);
            return fail(c, n, "capture: '%s' is a generated scenario (it has no 'capture:' key): list it under "
                              "'scenarios'", entry);
        }
        dir = xstrdup(s->capture_dir);
        scen = abs;
        cdch_scenario_free(s);
    } else {
        free(abs);
        return fail(c, n, "capture: '%s' does not exist (a capture directory or a scenario file, relative to "
                          "this file)", entry);
    }
    m->capture_dirs = xrealloc(m->capture_dirs, (m->ncaptures + 1) * sizeof *m->capture_dirs);
    m->capture_scenarios = xrealloc(m->capture_scenarios, (m->ncaptures + 1) * sizeof *m->capture_scenarios);
    m->capture_dirs[m->ncaptures] = dir;
    m->capture_scenarios[m->ncaptures] = scen;
    m->ncaptures++;
    return 0;
}

/* capture: ENTRY | [ENTRY, ...] */
static int parse_capture(mctx *c, yaml_node_t *n)
{
    if (scalar(n) && *scalar(n))
        return capture_entry(c, n, scalar(n));
    if (!n || n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.start == n->data.sequence.items.top)
        return fail(c, n, "'capture' must be a capture directory or scenario file, or a list of them", NULL);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *e = node(c, *it);
        if (!scalar(e) || !*scalar(e))
            return fail(c, e, "'capture' items must be paths (capture directories or scenario files)", NULL);
        if (capture_entry(c, e, scalar(e)) != 0)
            return -1;
    }
    return 0;
}

/* estimate.levels: "1-7", "1,3,7" or a list of numbers, checked as `estimate --levels` checks it. */
static int estimate_levels(mctx *c, yaml_node_t *n)
{
    char spec[256] = "";
    if (scalar(n)) {
        snprintf(spec, sizeof spec, "%s", scalar(n));
    } else if (n && n->type == YAML_SEQUENCE_NODE) {
        size_t l = 0;
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            yaml_node_t *e = node(c, *it);
            if (!scalar(e) || !*scalar(e) || l + strlen(scalar(e)) + 2 >= sizeof spec)
                return fail(c, e, "'estimate.levels' items must be zstd levels 1..22", NULL);
            l += (size_t)snprintf(spec + l, sizeof spec - l, "%s%s", l ? "," : "", scalar(e));
        }
    }
    cdch_estimate_opts eo;
    memset(&eo, 0, sizeof eo);
    cdch_err lerr;
    if (!*spec)
        return fail(c, n, "'estimate.levels' must be zstd levels: 1-7, \"1,3,7\" or [1, 3, 7]", NULL);
    if (cdch_estimate_parse_levels(spec, &eo, &lerr) != 0)
        return fail(c, n, "estimate.levels: %s", lerr.msg);
    free(c->m->estimate_levels);
    c->m->estimate_levels = xstrdup(spec);
    return 0;
}

/* estimate: {levels: L, link: RATE[/DELAY]} */
static int parse_estimate(mctx *c, yaml_node_t *n)
{
    cdch_matrix *m = c->m;
    if (!n || n->type != YAML_MAPPING_NODE)
        return fail(c, n, "'estimate' must be a mapping {levels: 1-7, link: 10mbit/20ms}", NULL);
    m->has_estimate = true;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);
        const char *k = scalar(kn);
        if (k && strcmp(k, "levels") == 0) {
            if (estimate_levels(c, vn) != 0)
                return -1;
        } else if (k && strcmp(k, "link") == 0) {
            if (!scalar(vn) || !*scalar(vn))
                return fail(c, vn, "'estimate.link' must be RATE or RATE/DELAY, e.g. 10mbit/20ms", NULL);
            free(m->estimate_link);
            m->estimate_link = xstrdup(scalar(vn));
            m->estimate_link_line = vn->start_mark.line + 1;
            m->estimate_link_col = vn->start_mark.column + 1;
        } else {
            return fail(c, kn, "unknown key '%s' in 'estimate' (levels, link)", k ? k : "?");
        }
    }
    return 0;
}

/* 'scenarios': files, folders or globs, expanded, sorted, each once. */
static int load_scenarios(mctx *c, yaml_node_t *scen)
{
    cdch_matrix *m = c->m;
    if (scalar(scen)) {
        if (expand_scenario(c, scen, scalar(scen)) != 0)
            return -1;
    } else if (scen->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = scen->data.sequence.items.start; it < scen->data.sequence.items.top; it++) {
            yaml_node_t *e = node(c, *it);
            if (!scalar(e) || !*scalar(e))
                return fail(c, e, "'scenarios' items must be paths", NULL);
            if (expand_scenario(c, e, scalar(e)) != 0)
                return -1;
        }
    } else {
        return fail(c, scen, "'scenarios' must be a list of files, folders or globs", NULL);
    }
    qsort(m->scenarios, m->nscenarios, sizeof *m->scenarios, cdch_cmp_strp);
    size_t w = 0;
    for (size_t i = 0; i < m->nscenarios; i++) {
        if (w && strcmp(m->scenarios[w - 1], m->scenarios[i]) == 0) {
            free(m->scenarios[i]);
            continue;
        }
        m->scenarios[w++] = m->scenarios[i];
    }
    m->nscenarios = w;
    return 0;
}

/* Quick scenarios must name library scenarios: a typo would silently
 * shrink the PR gate. */
static int check_quick(mctx *c, yaml_node_t *root)
{
    const cdch_matrix *m = c->m;
    for (size_t i = 0; i < m->nquick_scenarios; i++) {
        bool found = false;
        for (size_t k = 0; k < m->nscenarios && !found; k++) {
            char nm[256];
            cdch_matrix_scenario_name(m->scenarios[k], nm, sizeof nm);
            found = strcmp(nm, m->quick_scenarios[i]) == 0;
        }
        if (!found)
            return fail(c, root, "quick.scenarios: '%s' is not one of the matrix's scenarios", m->quick_scenarios[i]);
    }
    return 0;
}

static int load_root(mctx *c, yaml_node_t *root)
{
    cdch_matrix *m = c->m;
    if (!root || root->type != YAML_MAPPING_NODE)
        return fail(c, root, "a matrix file is a mapping (name, consumers, scenarios, ...)", NULL);
    yaml_node_t *scen = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++)
        if (load_key(c, node(c, p->key), node(c, p->value), &scen) != 0)
            return -1;
    if (!m->name)
        return fail(c, root, "missing 'name' (it names the matrix in reports and merged shards)", NULL);
    if (!m->nconsumers && !m->ncommands)
        return fail(c, root, "missing 'consumers' (FAMILY, FAMILY@VERSION or {command: ...} entries)", NULL);
    if (!scen && !m->ncaptures)
        return fail(c, root, "missing 'scenarios' (files, folders or globs) or 'capture' (capture directories)",
                    NULL);
    if (m->has_estimate && !m->ncaptures)
        return fail(c, root, "'estimate' measures the matrix's captures: add 'capture' (capture directories or "
                             "scenario files naming one)", NULL);
    if ((scen && load_scenarios(c, scen) != 0) || check_quick(c, root) != 0)
        return -1;
    if (!m->estimate_levels)
        m->estimate_levels = xstrdup("1-7");
    if (!m->modes)
        m->modes = xstrdup("both");
    if (!m->expect)
        m->expect = xstrdup("manifest");
    return 0;
}

cdch_matrix *cdch_matrix_load(const char *path, cdch_err *err)
{
    yaml_document_t doc;
    if (cdch_yaml_load_file(path, &doc, err) != 0)
        return NULL;
    cdch_matrix *m = xcalloc(1, sizeof *m);
    char abs[PATH_MAX];
    m->path = xstrdup(realpath(path, abs) ? abs : path);
    m->dir = xstrdup(m->path);
    char *slash = strrchr(m->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(m->dir, strlen(m->dir) + 1, ".");
    mctx c = {&doc, path, err, m};
    int rc = load_root(&c, yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
    if (rc != 0) {
        cdch_matrix_free(m);
        return NULL;
    }
    return m;
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void cdch_matrix_free(cdch_matrix *m)
{
    if (!m)
        return;
    free(m->path);
    free(m->dir);
    free(m->name);
    free(m->description);
    free_strs(m->consumers_dirs, m->nconsumers_dirs);
    for (size_t i = 0; i < m->nconsumers; i++)
        free(m->consumer_configs ? m->consumer_configs[i] : NULL);
    free(m->consumer_configs);
    for (size_t i = 0; i < m->ncommands; i++) {
        free(m->commands[i]);
        free(m->command_names[i]);
    }
    free(m->commands);
    free(m->command_names);
    free(m->command_files);
    free_strs(m->consumers, m->nconsumers);
    free_strs(m->scenarios, m->nscenarios);
    free(m->modes);
    free(m->expect);
    for (size_t i = 0; i < m->nexclude; i++) {
        free(m->exclude[i].consumer);
        free(m->exclude[i].scenario);
        free(m->exclude[i].mode);
        free(m->exclude[i].reason);
    }
    free(m->exclude);
    free_strs(m->quick_consumers, m->nquick_consumers);
    free_strs(m->quick_scenarios, m->nquick_scenarios);
    for (size_t i = 0; i < m->ncaptures; i++)
        free(m->capture_scenarios[i]);
    free(m->capture_scenarios);
    free_strs(m->capture_dirs, m->ncaptures);
    free(m->estimate_levels);
    free(m->estimate_link);
    free(m);
}

void cdch_matrix_scenario_name(const char *path, char *out, size_t outsz)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".yaml") == 0)
        n -= 5;
    snprintf(out, outsz, "%.*s", (int)n, b);
}

bool cdch_matrix_excluded(const cdch_matrix *m, const cdch_cell *c, const char **reason)
{
    for (size_t i = 0; i < m->nexclude; i++) {
        const cdch_matrix_exclude *x = &m->exclude[i];
        if (cdch_cell_match_consumer(x->consumer, c) && cdch_cell_match_scenario(x->scenario, c) &&
            (strcmp(x->mode, "*") == 0 || strcmp(x->mode, c->mode) == 0)) {
            if (reason)
                *reason = x->reason;
            return true;
        }
    }
    return false;
}

bool cdch_matrix_quick(const cdch_matrix *m, const cdch_cell *c)
{
    bool con = m->nquick_consumers == 0;
    for (size_t i = 0; i < m->nquick_consumers && !con; i++)
        con = cdch_cell_match_consumer(m->quick_consumers[i], c);
    if (!con)
        return false;
    if (m->nquick_scenarios == 0)
        return true;
    for (size_t i = 0; i < m->nquick_scenarios; i++)
        if (cdch_cell_match_scenario(m->quick_scenarios[i], c))
            return true;
    return false;
}
