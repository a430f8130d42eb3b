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
#include "buf.h"
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
} mctx;

static int fail(mctx *c, const yaml_node_t *n, const char *fmt, const char *arg)
{
    return cdch_yaml_fail(c->err, c->path, n, fmt, arg);
}

#define scalar cdch_yaml_scalar

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

/* A java launcher by path: ".../bin/java". */
static bool ends_with_java(const char *s)
{
    size_t n = strlen(s);
    return n >= 5 && strcmp(s + n - 5, "/java") == 0;
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

/* A key whose value is one of two words: *is_a = (value == a). */
static int parse_either(mctx *c, yaml_node_t *n, const char *key, const char *a, const char *b, bool *is_a)
{
    const char *s = scalar(n);
    if (s && (strcmp(s, a) == 0 || strcmp(s, b) == 0)) {
        *is_a = strcmp(s, a) == 0;
        return 0;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "'%s' must be '%s' or '%s'", key, a, b);
    return fail(c, n, "%s", msg);
}

/* A known issue id: lower-case letters, digits, '-', '.', '_'. */
static bool valid_id(const char *id)
{
    for (const char *q = id; *q; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '-' || *q == '.' || *q == '_'))
            return false;
    return *id != '\0';
}

/* "VERDICT[|VERDICT] [CAUSE...]" -> the verdict word and the causes ("id id",
 * NULL when none; required with two verdicts). Causes are checked against known_issues after the whole file
 * is read (check_causes). */
static int split_expectation(mctx *c, yaml_node_t *n, const char *text, char **verdict, char **cause)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL, *w = strtok_r(buf, " \t", &save);
    cdch_verdict v, other;
    if (!w || cdch_verdict_parse_any(w, &v, &other) != 0) {
        char m[400];
        snprintf(m, sizeof m, "'%s' must start with a verdict (%s), or two distinct ones as VERDICT|VERDICT", text,
                 cdch_verdict_names());
        return fail(c, n, "%s", m);
    }
    bool racy = other != v;
    free(*verdict);
    *verdict = xstrdup(w);
    cdch_buf ids = CDCH_BUF_INIT;
    for (w = strtok_r(NULL, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        if (!valid_id(w)) {
            cdch_buf_free(&ids);
            return fail(c, n, "bad cause id '%s' (ids are lower-case letters, digits, '-', '.', '_')", w);
        }
        if (ids.len)
            cdch_put_u8(&ids, ' ');
        cdch_put_bytes(&ids, w, strlen(w));
    }
    if (racy && !ids.len) {
        cdch_buf_free(&ids);
        return fail(c, n, "'%s': two verdicts (a race inside the consumer decides between them) need the known issue "
                          "that describes the race among the causes", text);
    }
    free(*cause);
    *cause = ids.len ? xstrdup(cdch_buf_cstr(&ids)) : NULL;
    cdch_buf_free(&ids);
    return 0;
}

/* {uncompressed: V, compressed: V, flip: V}, each V "VERDICT [CAUSE...]" */
static int parse_expect(mctx *c, yaml_node_t *val, char **slots[3], char **causes[3])
{
    if (!val || val->type != YAML_MAPPING_NODE)
        return fail(c, val, "'expect' must be a mapping {uncompressed: VERDICT [CAUSE...], compressed: VERDICT [CAUSE...]}",
                    NULL);
    for (yaml_node_pair_t *q = val->data.mapping.pairs.start; q < val->data.mapping.pairs.top; q++) {
        const char *mk = scalar(yaml_document_get_node(c->doc, q->key));
        yaml_node_t *mv = yaml_document_get_node(c->doc, q->value);
        if (!mk || !scalar(mv))
            return fail(c, mv, "'expect' values must be 'VERDICT [CAUSE...]'", NULL);
        int i = strcmp(mk, "uncompressed") == 0 ? 0 : strcmp(mk, "compressed") == 0 ? 1 : strcmp(mk, "flip") == 0 ? 2 : -1;
        if (i < 0)
            return fail(c, mv, "unknown mode '%s' in 'expect' (uncompressed, compressed, flip)", mk);
        if (split_expectation(c, mv, scalar(mv), slots[i], causes[i]) != 0)
            return -1;
    }
    return 0;
}

/* expect_by_scenario (a known issue's effect_by_scenario: what names it):
 * {SCENARIO: {uncompressed: V, ...}, ...} */
static int parse_by_scenario(mctx *c, yaml_node_t *val, const char *what, cdch_manifest_sexpect **out, size_t *nout)
{
    if (!val || val->type != YAML_MAPPING_NODE)
        return fail(c, val, "'%s' must be a mapping {SCENARIO: {uncompressed: VERDICT, ...}}", what);
    for (yaml_node_pair_t *q = val->data.mapping.pairs.start; q < val->data.mapping.pairs.top; q++) {
        yaml_node_t *kn = yaml_document_get_node(c->doc, q->key);
        const char *name = scalar(kn);
        if (!name || !*name)
            return fail(c, kn, "'%s' keys must be scenario names", what);
        *out = xrealloc(*out, (*nout + 1) * sizeof **out);
        cdch_manifest_sexpect *e = &(*out)[(*nout)++];
        memset(e, 0, sizeof *e);
        e->scenario = xstrdup(name);
        char **slots[3] = {&e->uncompressed, &e->compressed, &e->flip};
        char **causes[3] = {&e->uncompressed_cause, &e->compressed_cause, &e->flip_cause};
        if (parse_expect(c, yaml_document_get_node(c->doc, q->value), slots, causes) != 0)
            return -1;
    }
    return 0;
}

static void free_by_scenario(cdch_manifest_sexpect *e, size_t n);

static const char *const k_issue_kinds[] = {"consumer-defect", "adapter-limitation", "not-applicable"};

const char *cdch_issue_kind_name(cdch_issue_kind k)
{
    return (unsigned)k < 3 ? k_issue_kinds[k] : "?";
}

/* known_issues: [{id, kind, compression, summary, evidence, versions}] */
static int parse_issues(mctx *c, yaml_node_t *val, cdch_manifest *m)
{
    if (!val || val->type != YAML_SEQUENCE_NODE)
        return fail(c, val, "'known_issues' must be a list of {id, kind, compression, summary, evidence}", NULL);
    for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
        yaml_node_t *n = yaml_document_get_node(c->doc, *it);
        if (!n || n->type != YAML_MAPPING_NODE)
            return fail(c, n, "a known issue must be a mapping {id, kind, compression, summary, evidence}", NULL);
        m->issues = xrealloc(m->issues, (m->nissues + 1) * sizeof *m->issues);
        cdch_known_issue *ki = &m->issues[m->nissues++];
        memset(ki, 0, sizeof *ki);
        int kind = -1, comp = -1;
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
            const char *key = scalar(yaml_document_get_node(c->doc, p->key));
            yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
            const char *sv = scalar(v);
            if (!key)
                continue;
            char **slot = strcmp(key, "id") == 0 ? &ki->id
                          : strcmp(key, "summary") == 0 ? &ki->summary
                          : strcmp(key, "evidence") == 0 ? &ki->evidence
                          : strcmp(key, "versions") == 0 ? &ki->versions
                          : strcmp(key, "versions_note") == 0 ? &ki->versions_note
                                                              : NULL;
            if (strcmp(key, "versions") == 0 && sv && *sv) {
                cdch_vrange_free(&ki->range);
                cdch_err verr;
                if (cdch_vrange_parse(sv, &ki->range, &verr) != 0)
                    return fail(c, v, "%s", verr.msg);
            }
            if (strcmp(key, "startup") == 0) {
                if (parse_bool(c, v, "startup", &ki->startup) != 0)
                    return -1;
                continue;
            }
            if (strcmp(key, "hold_end_marker") == 0) {
                if (parse_bool(c, v, "hold_end_marker", &ki->hold_end_marker) != 0)
                    return -1;
                continue;
            }
            if (strcmp(key, "effect") == 0) {
                char *causes[3] = {NULL, NULL, NULL};
                char **slots[3] = {&ki->effect[0], &ki->effect[1], &ki->effect[2]};
                char **cs[3] = {&causes[0], &causes[1], &causes[2]};
                int erc = parse_expect(c, v, slots, cs);
                for (int k = 0; k < 3; k++) {
                    if (erc == 0 && causes[k])
                        erc = fail(c, v, "'effect' gives a verdict alone (the issue is its cause): '%s'", causes[k]);
                    free(causes[k]);
                }
                if (erc != 0)
                    return -1;
                continue;
            }
            if (strcmp(key, "effect_by_scenario") == 0) {
                if (parse_by_scenario(c, v, "effect_by_scenario", &ki->effect_by_scenario, &ki->neffect_by_scenario) != 0)
                    return -1;
                for (size_t k = 0; k < ki->neffect_by_scenario; k++) {
                    const cdch_manifest_sexpect *e = &ki->effect_by_scenario[k];
                    const char *cs = e->uncompressed_cause ? e->uncompressed_cause
                                     : e->compressed_cause ? e->compressed_cause : e->flip_cause;
                    if (cs)
                        return fail(c, v, "'effect_by_scenario' gives a verdict alone (the issue is its cause): '%s'", cs);
                }
                continue;
            }
            if (strcmp(key, "variants") == 0) {
                if (str_list(c, v, "variants", &ki->variants, &ki->nvariants) != 0)
                    return -1;
                if (ki->nvariants == 0)
                    return fail(c, v, "'variants' must list at least one variant (or 'none'), or be left out", NULL);
                continue;
            }
            if (slot) {
                if (!sv || !*sv)
                    return fail(c, v, "known issue '%s' must be a non-empty string", key);
                free(*slot);
                *slot = xstrdup(sv);
            } else if (strcmp(key, "kind") == 0) {
                for (int k = 0; k < 3 && sv; k++)
                    if (strcmp(sv, k_issue_kinds[k]) == 0)
                        kind = k;
                if (kind < 0)
                    return fail(c, v, "'kind' must be consumer-defect, adapter-limitation or not-applicable", NULL);
            } else if (strcmp(key, "compression") == 0) {
                bool b = false;
                if (parse_bool(c, v, "compression", &b) != 0)
                    return -1;
                comp = b;
            }
        }
        if (!ki->id)
            return fail(c, n, "a known issue needs 'id'", NULL);
        if (!valid_id(ki->id))
            return fail(c, n, "bad known issue id '%s' (lower-case letters, digits, '-', '.', '_')", ki->id);
        if (strcmp(ki->id, "unexplained") == 0)
            return fail(c, n, "'unexplained' is reserved (it needs no known_issues entry)", NULL);
        for (size_t k = 0; k + 1 < m->nissues; k++)
            if (strcmp(m->issues[k].id, ki->id) == 0)
                return fail(c, n, "known issue id '%s' is given twice", ki->id);
        if (kind < 0)
            return fail(c, n, "known issue '%s' needs 'kind' (consumer-defect, adapter-limitation, not-applicable)",
                        ki->id);
        if (comp < 0)
            return fail(c, n, "known issue '%s' needs 'compression: true|false'", ki->id);
        if (!ki->summary || !ki->evidence)
            return fail(c, n, "known issue '%s' needs 'summary' and 'evidence' (the consumer's source file:line at "
                              "that version, or an upstream issue or commit)", ki->id);
        if (!ki->versions)
            return fail(c, n,
                        "known issue '%s' needs 'versions': the range of releases it affects, e.g. "
                        "\">= 2.0.0.Final, < 2.4.0.Final\" (first affected, first fixed), \"1.9.8.Final\", or \"*\" "
                        "(consumers/README.md \"Version ranges\")",
                        ki->id);
        if (ki->startup && !ki->effect[0] && !ki->effect[1] && !ki->effect[2])
            return fail(c, n, "known issue '%s' says 'startup: true' but gives no 'effect' (the verdict it causes)",
                        ki->id);
        ki->kind = (cdch_issue_kind)kind;
        ki->compression = comp == 1;
    }
    return 0;
}

/* shares: [DIR, ...] relative to the family's folder, made absolute; each must be a folder. */
static int parse_shares(mctx *c, yaml_node_t *val, cdch_manifest *m)
{
    char **dirs = NULL;
    size_t n = 0;
    if (str_list(c, val, "shares", &dirs, &n) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char p[PATH_MAX * 2], abs[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", m->dir, dirs[i]);
        struct stat st;
        if (rc == 0 && (!realpath(p, abs) || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode)))
            rc = fail(c, val, "'shares': %s is not a folder (paths are relative to the family's folder)", dirs[i]);
        if (rc == 0) {
            m->shares = xrealloc(m->shares, (m->nshares + 1) * sizeof *m->shares);
            m->shares[m->nshares++] = xstrdup(abs);
        }
        free(dirs[i]);
    }
    free(dirs);
    return rc;
}

bool cdch_known_issue_holds(const cdch_known_issue *ki, const char *version)
{
    if (!cdch_vrange_holds(&ki->range, version))
        return false;
    if (!ki->nvariants)
        return true;
    const char *var = cdch_version_variant(version);
    for (size_t i = 0; i < ki->nvariants; i++)
        if (strcmp(ki->variants[i], *var ? var : "none") == 0)
            return true;
    return false;
}

/* representations: [key-update-as-delete-insert] */
static int parse_representations(mctx *c, yaml_node_t *val, unsigned *out)
{
    if (!val || val->type != YAML_SEQUENCE_NODE)
        return fail(c, val, "'representations' must be a list (known: key-update-as-delete-insert)", NULL);
    *out = 0;
    for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
        yaml_node_t *n = yaml_document_get_node(c->doc, *it);
        const char *s = scalar(n);
        if (s && strcmp(s, "key-update-as-delete-insert") == 0)
            *out |= CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT;
        else
            return fail(c, n, "unknown representation '%s' (known: key-update-as-delete-insert)", s ? s : "");
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
        free(e[i].uncompressed_cause);
        free(e[i].compressed_cause);
        free(e[i].flip_cause);
    }
    free(e);
}

/* start: attach | empty */
static int parse_start(mctx *c, yaml_node_t *n, bool *attach)
{
    const char *s = scalar(n);
    if (s && (strcmp(s, "attach") == 0 || strcmp(s, "empty") == 0)) {
        *attach = strcmp(s, "attach") == 0;
        return 0;
    }
    return fail(c, n, "'start' must be 'attach' (the schema pre-exists: consumers start after its DDL) or "
                      "'empty' (from the first event)", NULL);
}

static int load_version(mctx *c, yaml_node_t *n, cdch_manifest_version *v)
{
    v->source = -1;
    v->native_auth = -1;
    v->session = -1;
    v->representations = -1;
    v->start_attach = -1;
    v->hold_end_marker = -1;
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
            bool server = false;
            if (parse_either(c, val, "source", "server", "files", &server) != 0)
                return -1;
            v->source = server ? 0 : 1;
        } else if (strcmp(key, "server_auth") == 0) {
            bool native = false;
            if (parse_auth(c, val, &native) != 0)
                return -1;
            v->native_auth = native;
        } else if (strcmp(key, "expect") == 0) {
            char **slots[3] = {&v->expect_uncompressed, &v->expect_compressed, &v->expect_flip};
            char **causes[3] = {&v->cause_uncompressed, &v->cause_compressed, &v->cause_flip};
            if (parse_expect(c, val, slots, causes) != 0)
                return -1;
        } else if (strcmp(key, "representations") == 0) {
            unsigned bits = 0;
            if (parse_representations(c, val, &bits) != 0)
                return -1;
            v->representations = (int)bits;
        } else if (strcmp(key, "expect_by_scenario") == 0) {
            if (parse_by_scenario(c, val, "expect_by_scenario", &v->by_scenario, &v->nby_scenario) != 0)
                return -1;
        } else if (strcmp(key, "session") == 0) {
            bool on = false;
            if (parse_bool(c, val, "session", &on) != 0)
                return -1;
            v->session = on;
        } else if (strcmp(key, "start") == 0) {
            bool attach = false;
            if (parse_start(c, val, &attach) != 0)
                return -1;
            v->start_attach = attach;
        } else if (strcmp(key, "hold_end_marker") == 0) {
            bool on = false;
            if (parse_bool(c, val, "hold_end_marker", &on) != 0)
                return -1;
            v->hold_end_marker = on;
        } else if (strcmp(key, "named_only") == 0) {
            if (parse_bool(c, val, "named_only", &v->named_only) != 0)
                return -1;
        }
    }
    if (!v->version)
        return fail(c, n, "a version entry needs 'version'", NULL);
    return 0;
}

static void free_version(cdch_manifest_version *v)
{
    free(v->version);
    free(v->local_path);
    free(v->expect_uncompressed);
    free(v->expect_compressed);
    free(v->expect_flip);
    free(v->cause_uncompressed);
    free(v->cause_compressed);
    free(v->cause_flip);
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
    free(m->delivery_evidence);
    free(m->language);
    free_by_scenario(m->by_scenario, m->nby_scenario);
    for (size_t i = 0; i < m->nissues; i++) {
        free(m->issues[i].id);
        free(m->issues[i].summary);
        free(m->issues[i].evidence);
        free(m->issues[i].versions);
        free(m->issues[i].versions_note);
        for (int k = 0; k < 3; k++)
            free(m->issues[i].effect[k]);
        free_by_scenario(m->issues[i].effect_by_scenario, m->issues[i].neffect_by_scenario);
        cdch_vrange_free(&m->issues[i].range);
        for (size_t k = 0; k < m->issues[i].nvariants; k++)
            free(m->issues[i].variants[k]);
        free(m->issues[i].variants);
    }
    free(m->issues);
    for (size_t i = 0; i < m->nshares; i++)
        free(m->shares[i]);
    free(m->shares);
    cdch_vrange_free(&m->native_auth_versions);
    free(m);
}

/* One expectation's causes: a non-pass verdict needs one, each must be known. */
static int check_one(mctx *c, yaml_node_t *root, const cdch_manifest *m, const char *where, const char *mode,
                     const char *verdict, const char *cause)
{
    if (!verdict)
        return 0;
    char msg[700];
    if (!cause) {
        if (strcmp(verdict, "pass") == 0)
            return 0;
        snprintf(msg, sizeof msg,
                 "%s %s: '%s' names no cause: write '%s ID' with the id of a known_issues entry (its evidence: the "
                 "consumer's source at that version, or an upstream issue), or '%s unexplained'",
                 where, mode, verdict, verdict, verdict);
        return fail(c, root, "%s", msg);
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cause);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (strcmp(w, "unexplained") == 0 || cdch_manifest_issue(m, w))
            continue;
        snprintf(msg, sizeof msg, "%s %s: cause '%s' is not an id of this family's known_issues", where, mode, w);
        return fail(c, root, "%s", msg);
    }
    return 0;
}

static int check_sexpect(mctx *c, yaml_node_t *root, const cdch_manifest *m, const char *who,
                         const cdch_manifest_sexpect *e, size_t n)
{
    char where[400];
    for (size_t i = 0; i < n; i++) {
        snprintf(where, sizeof where, "%sexpect_by_scenario %s", who, e[i].scenario);
        if (check_one(c, root, m, where, "uncompressed", e[i].uncompressed, e[i].uncompressed_cause) != 0 ||
            check_one(c, root, m, where, "compressed", e[i].compressed, e[i].compressed_cause) != 0 ||
            check_one(c, root, m, where, "flip", e[i].flip, e[i].flip_cause) != 0)
            return -1;
    }
    return 0;
}

static int check_causes(mctx *c, yaml_node_t *root, const cdch_manifest *m)
{
    if (check_sexpect(c, root, m, "", m->by_scenario, m->nby_scenario) != 0)
        return -1;
    for (size_t i = 0; i < m->nversions; i++) {
        const cdch_manifest_version *v = &m->versions[i];
        char who[300];
        snprintf(who, sizeof who, "version %s: expect", v->version);
        if (check_one(c, root, m, who, "uncompressed", v->expect_uncompressed, v->cause_uncompressed) != 0 ||
            check_one(c, root, m, who, "compressed", v->expect_compressed, v->cause_compressed) != 0 ||
            check_one(c, root, m, who, "flip", v->expect_flip, v->cause_flip) != 0)
            return -1;
        snprintf(who, sizeof who, "version %s: ", v->version);
        if (check_sexpect(c, root, m, who, v->by_scenario, v->nby_scenario) != 0)
            return -1;
    }
    return 0;
}

/* Every cause a pinned version's expectations cite must concern that version:
 * the issue's range (and variants) must hold it. */
static int check_range_cites(mctx *c, yaml_node_t *root, const cdch_manifest *m, const cdch_manifest_version *v,
                             const char *scenario)
{
    static const char *const modes[] = {"uncompressed", "compressed", "flip"};
    for (size_t k = 0; k < 3; k++) {
        const char *cause = cdch_manifest_cause_for(m, v, scenario, modes[k]);
        if (!cause)
            continue;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", cause);
        char *save = NULL;
        for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            const cdch_known_issue *ki = cdch_manifest_issue(m, w);
            if (!ki || cdch_known_issue_holds(ki, v->version))
                continue;
            char msg[900];
            snprintf(msg, sizeof msg,
                     "version %s cites known issue '%s' (%s %s), but the issue's 'versions: %s'%s does not hold "
                     "%s: fix the range (first affected, first fixed release) or the expectation",
                     v->version, w, scenario ? scenario : "expect", modes[k], ki->versions,
                     ki->nvariants ? " with its 'variants'" : "", v->version);
            return fail(c, root, "%s", msg);
        }
    }
    return 0;
}

static int check_ranges(mctx *c, yaml_node_t *root, const cdch_manifest *m)
{
    for (size_t i = 0; i < m->nversions; i++) {
        const cdch_manifest_version *v = &m->versions[i];
        if (check_range_cites(c, root, m, v, NULL) != 0)
            return -1;
        for (size_t k = 0; k < m->nby_scenario; k++)
            if (check_range_cites(c, root, m, v, m->by_scenario[k].scenario) != 0)
                return -1;
        for (size_t k = 0; k < v->nby_scenario; k++)
            if (check_range_cites(c, root, m, v, v->by_scenario[k].scenario) != 0)
                return -1;
    }
    return 0;
}

static int load_root(mctx *c, yaml_node_t *root, cdch_manifest *m)
{
    if (!root || root->type != YAML_MAPPING_NODE)
        return fail(c, root, "the manifest must be a mapping (family, source, versions, setup, run)", NULL);
    yaml_node_t *versions = NULL, *run = NULL, *delivery = NULL, *class_archive = NULL;
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
            bool server = false;
            if (parse_either(c, v, "source", "server", "files", &server) != 0)
                return -1;
            m->files_source = !server;
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
        } else if (strcmp(key, "start") == 0) {
            if (parse_start(c, v, &m->start_attach) != 0)
                return -1;
        } else if (strcmp(key, "hold_end_marker") == 0) {
            if (parse_bool(c, v, "hold_end_marker", &m->hold_end_marker) != 0)
                return -1;
        } else if (strcmp(key, "setup_batch") == 0) {
            if (parse_bool(c, v, "setup_batch", &m->setup_batch) != 0)
                return -1;
        } else if (strcmp(key, "class_archive") == 0) {
            if (parse_bool(c, v, "class_archive", &m->class_archive) != 0)
                return -1;
            class_archive = v;
        } else if (strcmp(key, "delivery") == 0) {
            if (parse_either(c, v, "delivery", "in-order", "buffered", &m->in_order) != 0)
                return -1;
            delivery = v;
        } else if (strcmp(key, "delivery_evidence") == 0) {
            if (!scalar(v) || !*scalar(v))
                return fail(c, v, "'delivery_evidence' must be a string (where the library's source shows it)", NULL);
            free(m->delivery_evidence);
            m->delivery_evidence = xstrdup(scalar(v));
        } else if (strcmp(key, "variant_setup") == 0) {
            if (parse_either(c, v, "variant_setup", "shared", "own", &m->variant_setup_shared) != 0)
                return -1;
        } else if (strcmp(key, "expect_by_scenario") == 0) {
            if (parse_by_scenario(c, v, "expect_by_scenario", &m->by_scenario, &m->nby_scenario) != 0)
                return -1;
        } else if (strcmp(key, "known_issues") == 0) {
            if (parse_issues(c, v, m) != 0)
                return -1;
        } else if (strcmp(key, "native_auth_versions") == 0) {
            cdch_err verr;
            cdch_vrange_free(&m->native_auth_versions);
            if (!scalar(v) || cdch_vrange_parse(scalar(v), &m->native_auth_versions, &verr) != 0)
                return fail(c, v, "'native_auth_versions': %s", scalar(v) ? verr.msg : "must be a version range");
            m->has_native_auth_versions = true;
        } else if (strcmp(key, "shares") == 0) {
            if (parse_shares(c, v, m) != 0)
                return -1;
        } else if (strcmp(key, "representations") == 0) {
            if (parse_representations(c, v, &m->representations) != 0)
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
    /* a claim about the consumer's code shortens a wait that decides verdicts: it carries its evidence */
    if (m->in_order && !m->delivery_evidence)
        return fail(c, delivery, "'delivery: in-order' needs 'delivery_evidence' (file:line in the library's source at a tag)",
                    NULL);
    if (str_list(c, run, "run", &m->run, &m->nrun) != 0)
        return -1;
    if (m->nrun == 0)
        return fail(c, run, "'run' is empty", NULL);
    if (m->class_archive && strcmp(m->run[0], "java") != 0 && !ends_with_java(m->run[0]))
        return fail(c, class_archive, "'class_archive: true' needs a 'run' that starts the java launcher (java or a path ending in /java)",
                    NULL);
    if (check_causes(c, root, m) != 0)
        return -1;
    return check_ranges(c, root, m);
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


size_t cdch_manifest_families(const char *const *dirs, size_t ndirs, char ***out)
{
    char **names = NULL;
    size_t n = 0;
    for (size_t i = 0; i < ndirs; i++) {
        DIR *d = opendir(dirs[i]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char p[PATH_MAX];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s/manifest.yaml", dirs[i], e->d_name);
            bool seen = false;
            for (size_t k = 0; k < n && !seen; k++)
                seen = strcmp(names[k], e->d_name) == 0;
            if (!seen && stat(p, &st) == 0) {
                names = xrealloc(names, (n + 1) * sizeof *names);
                names[n++] = xstrdup(e->d_name);
            }
        }
        closedir(d);
    }
    if (n > 1)
        qsort(names, n, sizeof *names, cdch_cmp_strp);
    *out = names;
    return n;
}

/* "a, b, c" of the families in dirs (folders with a manifest.yaml). */
static void list_families(const char *const *dirs, size_t ndirs, char *out, size_t outsz)
{
    char **names;
    size_t n = cdch_manifest_families(dirs, ndirs, &names);
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (o < outsz)
            o += (size_t)snprintf(out + o, outsz - o, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
    free(names);
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

void cdch_manifest_version_free(cdch_manifest_version *v)
{
    if (!v)
        return;
    free_version(v);
    free(v);
}

/* "a, b" of the variants the family's pinned versions use ("" when none). */
static bool family_has_variant(const cdch_manifest *m, const char *variant, cdch_buf *list)
{
    bool found = false;
    for (size_t i = 0; i < m->nversions; i++) {
        const char *var = cdch_version_variant(m->versions[i].version);
        if (!*var)
            continue;
        if (strcmp(var, variant) == 0)
            found = true;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(cdch_version_variant(m->versions[k].version), var) == 0;
        if (!seen)
            cdch_buf_printf(list, "%s%s", list->len ? ", " : "", var);
    }
    return found;
}

cdch_manifest_version *cdch_manifest_unpinned(const cdch_manifest *m, const char *spec, cdch_err *err)
{
    const char *plus = strrchr(spec, '+');
    const char *variant = plus ? plus + 1 : "";
    size_t baselen = plus ? (size_t)(plus - spec) : strlen(spec);
    if (plus && !*variant)
        return cdch_err_set(err, "%s: '%s': nothing after '+' (FAMILY@VERSION+VARIANT)", m->family, spec), NULL;
    if (*variant) {
        cdch_buf list = CDCH_BUF_INIT;
        bool ok = family_has_variant(m, variant, &list);
        if (!ok) {
            cdch_err_set(err, "%s: unknown variant '+%s' in '%s'; the variants of %s: %s", m->family, variant, spec,
                         m->path, list.len ? cdch_buf_cstr(&list) : "none");
            cdch_buf_free(&list);
            return NULL;
        }
        cdch_buf_free(&list);
    }
    cdch_manifest_version *v = xcalloc(1, sizeof *v);
    v->source = v->native_auth = v->session = v->representations = v->start_attach = v->hold_end_marker = -1;
    v->unpinned = true;
    if (strncmp(spec, "file:", 5) == 0) {
        char path[PATH_MAX], abs[PATH_MAX];
        snprintf(path, sizeof path, "%.*s", (int)(baselen - 5), spec + 5);
        struct stat st;
        if (!path[0] || !realpath(path, abs) || stat(abs, &st) != 0) {
            cdch_err_set(err, "%s: local build '%s': %s (FAMILY@file:PATH: a directory or file you built)", m->family,
                         path, path[0] ? strerror(errno) : "no path after 'file:'");
            free(v);
            return NULL;
        }
        v->local_path = xstrdup(abs);
        cdch_buf b = CDCH_BUF_INIT;
        cdch_buf_printf(&b, "file:%s%s%s", abs, *variant ? "+" : "", variant);
        v->version = xstrdup(cdch_buf_cstr(&b));
        cdch_buf_free(&b);
        return v;
    }
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)baselen, spec);
    if (baselen >= sizeof base || !cdch_version_valid(base)) {
        cdch_err_set(err,
                     "%s: '%s' is not a version the harness can order (letters, digits, '.', '-', '_'; e.g. "
                     "3.4.1.Final, v1.12.0, 1.0.9); a local build is FAMILY@file:PATH",
                     m->family, spec);
        free(v);
        return NULL;
    }
    v->version = xstrdup(spec);
    return v;
}

bool cdch_manifest_files_source(const cdch_manifest *m, const cdch_manifest_version *v)
{
    return v->source >= 0 ? v->source == 1 : m->files_source;
}

bool cdch_manifest_native_auth(const cdch_manifest *m, const cdch_manifest_version *v)
{
    if (v->native_auth >= 0)
        return v->native_auth == 1;
    if (m->has_native_auth_versions && !v->local_path && cdch_vrange_holds(&m->native_auth_versions, v->version))
        return true;
    return m->native_auth;
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

bool cdch_manifest_hold_end_marker(const cdch_manifest *m, const cdch_manifest_version *v)
{
    if (v->hold_end_marker >= 0)
        return v->hold_end_marker == 1;
    for (size_t i = 0; v->unpinned && i < m->nissues; i++)
        if (m->issues[i].hold_end_marker && cdch_known_issue_holds(&m->issues[i], v->version))
            return true;
    return m->hold_end_marker;
}

/* The expect_by_scenario entry for scenario that names mode, NULL when none;
 * *cause gets its causes. */
static const char *sexpect_mode(const cdch_manifest_sexpect *e, size_t n, const char *scenario, const char *mode,
                                const char **cause)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(e[i].scenario, scenario) != 0)
            continue;
        const char *v = NULL, *cs = NULL;
        if (strcmp(mode, "compressed") == 0)
            v = e[i].compressed, cs = e[i].compressed_cause;
        else if (strcmp(mode, "uncompressed") == 0)
            v = e[i].uncompressed, cs = e[i].uncompressed_cause;
        else if (strcmp(mode, "flip") == 0)
            v = e[i].flip, cs = e[i].flip_cause;
        if (v) {
            *cause = cs;
            return v;
        }
    }
    return NULL;
}

const char *cdch_known_issue_effect(const cdch_known_issue *ki, const char *scenario, const char *mode,
                                    bool *by_scenario)
{
    const char *cause = NULL;
    const char *e = scenario ? sexpect_mode(ki->effect_by_scenario, ki->neffect_by_scenario, scenario, mode, &cause)
                             : NULL;
    if (by_scenario)
        *by_scenario = e != NULL;
    if (e)
        return e;
    int k = strcmp(mode, "uncompressed") == 0 ? 0 : strcmp(mode, "compressed") == 0 ? 1 : strcmp(mode, "flip") == 0 ? 2 : -1;
    return k >= 0 ? ki->effect[k] : NULL;
}

static const char *expect_and_cause(const cdch_manifest *m, const cdch_manifest_version *v, const char *scenario,
                                    const char *mode, const char **cause)
{
    *cause = NULL;
    const char *e = scenario ? sexpect_mode(v->by_scenario, v->nby_scenario, scenario, mode, cause) : NULL;
    if (!e && scenario && m)
        e = sexpect_mode(m->by_scenario, m->nby_scenario, scenario, mode, cause);
    if (e)
        return e;
    if (strcmp(mode, "compressed") == 0)
        *cause = v->cause_compressed;
    else if (strcmp(mode, "uncompressed") == 0)
        *cause = v->cause_uncompressed;
    else if (strcmp(mode, "flip") == 0)
        *cause = v->cause_flip;
    return cdch_manifest_expect(v, mode);
}

const char *cdch_manifest_expect_for(const cdch_manifest *m, const cdch_manifest_version *v, const char *scenario,
                                     const char *mode)
{
    const char *cause;
    return expect_and_cause(m, v, scenario, mode, &cause);
}

const char *cdch_manifest_cause_for(const cdch_manifest *m, const cdch_manifest_version *v, const char *scenario,
                                    const char *mode)
{
    const char *cause;
    expect_and_cause(m, v, scenario, mode, &cause);
    return cause;
}

const cdch_known_issue *cdch_manifest_issue(const cdch_manifest *m, const char *id)
{
    for (size_t i = 0; m && i < m->nissues; i++)
        if (strcmp(m->issues[i].id, id) == 0)
            return &m->issues[i];
    return NULL;
}

unsigned cdch_manifest_representations(const cdch_manifest *m, const cdch_manifest_version *v)
{
    return v && v->representations >= 0 ? (unsigned)v->representations : m->representations;
}

bool cdch_manifest_start_attach(const cdch_manifest *m, const cdch_manifest_version *v)
{
    return v->start_attach >= 0 ? v->start_attach == 1 : m->start_attach;
}
