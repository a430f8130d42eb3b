/* predict.c — verdicts of unpinned versions from known_issues (predict.h). */
#include "predict.h"

#include <stdio.h>
#include <string.h>

/* Whether every word of causes ("id id") is one of the in-range issues. */
static bool all_in_range(const cdch_manifest *m, const char *causes, const bool *in, size_t *count)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", causes);
    char *save = NULL;
    size_t n = 0;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        const cdch_known_issue *ki = cdch_manifest_issue(m, w);
        if (!ki || !in[ki - m->issues])
            return false;
        n++;
    }
    *count = n;
    return n > 0;
}

/* Append the words of causes not yet in out ("id id"). */
static void add_causes(char *out, size_t outsz, const char *causes)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", causes);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        bool seen = false;
        char have[512];
        snprintf(have, sizeof have, "%s", out);
        char *s2 = NULL;
        for (char *h = strtok_r(have, " ", &s2); h && !seen; h = strtok_r(NULL, " ", &s2))
            seen = strcmp(h, w) == 0;
        size_t len = strlen(out);
        if (!seen && len + strlen(w) + 2 < outsz)
            snprintf(out + len, outsz - len, "%s%s", len ? " " : "", w);
    }
}

/* How far pinned version p is from version v: the pinned versions between
 * them in version order, plus one (0: the same version); nearer first by
 * the leading parts they share (cdch_version_common): 1.0.17 is nearer to
 * 1.0.9 than 0.45.1 is. */
static size_t distance(const cdch_manifest *m, const char *p, const char *v)
{
    int c = cdch_version_cmp(p, v);
    if (c == 0)
        return 0;
    const char *lo = c < 0 ? p : v, *hi = c < 0 ? v : p;
    size_t n = 1;
    for (size_t i = 0; i < m->nversions; i++) {
        const char *q = m->versions[i].version;
        if (cdch_version_cmp(q, lo) > 0 && cdch_version_cmp(q, hi) < 0 &&
            strcmp(cdch_version_variant(q), cdch_version_variant(p)) == 0)
            n++;
    }
    return n + 1000 * (64 - (cdch_version_common(p, v) < 64 ? cdch_version_common(p, v) : 64));
}

/* Whether one of the causes ("id id") is about compression. */
static bool any_compression(const cdch_manifest *m, const char *causes)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", causes);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        const cdch_known_issue *ki = cdch_manifest_issue(m, w);
        if (!ki || ki->compression)
            return true;
    }
    return false;
}

/* How many of the issues in range (in[]) also hold pinned version p: the pin
 * that shares most of the version's known issues shows best how they
 * combine (which one stops the consumer first). */
static size_t similarity(const cdch_manifest *m, const char *p, const bool *in, size_t nissues)
{
    size_t n = 0;
    for (size_t i = 0; i < nissues; i++)
        n += in[i] && cdch_known_issue_holds(&m->issues[i], p);
    return n;
}

/* Whether a pinned version of the variant lies in the range of one of the
 * causes ("id id") and does not cite it for that cell: the issue does not
 * show on that variant there. */
static bool refuted(const cdch_manifest *m, const char *causes, const char *variant, const char *scenario,
                    const char *mode)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", causes);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        const cdch_known_issue *ki = cdch_manifest_issue(m, w);
        for (size_t i = 0; ki && i < m->nversions; i++) {
            const cdch_manifest_version *q = &m->versions[i];
            if (strcmp(cdch_version_variant(q->version), variant) != 0 || !cdch_known_issue_holds(ki, q->version))
                continue;
            const char *qc = cdch_manifest_cause_for(m, q, scenario, mode);
            bool cites = false;
            char qb[1024];
            snprintf(qb, sizeof qb, "%s", qc ? qc : "");
            char *s2 = NULL;
            for (char *x = strtok_r(qb, " ", &s2); x && !cites; x = strtok_r(NULL, " ", &s2))
                cites = strcmp(x, w) == 0;
            if (!cites)
                return true;
        }
    }
    return false;
}

/* Whether one of the causes ("id id") says by its effect_by_scenario that it
 * does not show in scenario and mode (`pass` there): a pinned version's
 * expectation citing it is no evidence for that cell. */
static bool silenced(const cdch_manifest *m, const char *causes, const char *scenario, const char *mode)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", causes);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        const cdch_known_issue *ki = cdch_manifest_issue(m, w);
        bool by = false;
        const char *e = ki ? cdch_known_issue_effect(ki, scenario, mode, &by) : NULL;
        if (by && e && strcmp(e, "pass") == 0)
            return true;
    }
    return false;
}

/* What the in-range issues declare for (scenario, mode) themselves, pass
 * left out: with startup_only, the issues with `startup: true` (their
 * effect_by_scenario, else their effect), the worst verdict; with
 * by_scenario_only, the effect_by_scenario entries, the first issue listed
 * deciding (it is listed before the issues it hides); else every `effect`,
 * the worst. The causes are every such issue that gives the chosen verdict.
 * false (out untouched) when none declares one. */
static bool by_effect(const cdch_manifest *m, const bool *in, size_t nissues, const char *scenario, const char *mode,
                      bool startup_only, bool by_scenario_only, cdch_prediction *out)
{
    bool found = false;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nissues; i++) {
            cdch_verdict v;
            bool by = false;
            const char *e = in[i] ? cdch_known_issue_effect(&m->issues[i], scenario, mode, &by) : NULL;
            if (!e || (startup_only && !m->issues[i].startup) || (by_scenario_only && !by) ||
                cdch_verdict_parse(e, &v) != 0 || v == CDCH_VERDICT_PASS)
                continue;
            if (pass == 0 && (!found || (!by_scenario_only && cdch_verdict_worse(v, out->verdict)))) {
                found = true;
                out->verdict = v;
            } else if (pass == 1 && v == out->verdict) {
                add_causes(out->causes, sizeof out->causes, m->issues[i].id);
            }
        }
    return found;
}

/* Whether pinned version p shows itself what happens in (scenario, mode) to a
 * version with the in-range issues in[]: its expectation there passes, or
 * every issue it cites is in range. Its uncompressed expectation is then no
 * evidence for that mode (1.0.17's partial JSON mismatch is in payloads it
 * skips when compressed). */
static bool own_mode(const cdch_manifest *m, const cdch_manifest_version *p, const char *scenario, const char *mode,
                     const bool *in)
{
    const char *e = cdch_manifest_expect_for(m, p, scenario, mode);
    const char *causes = cdch_manifest_cause_for(m, p, scenario, mode);
    cdch_verdict v;
    size_t n = 0;
    if (!e || cdch_verdict_parse_any(e, &v, NULL) != 0) /* VERDICT|VERDICT: its first */
        return false;
    return v == CDCH_VERDICT_PASS || (causes && all_in_range(m, causes, in, &n));
}

void cdch_predict(const cdch_manifest *m, const char *version, const char *scenario, const char *mode,
                  cdch_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = CDCH_VERDICT_PASS;
    bool in[512] = {false};
    size_t nissues = m->nissues < 512 ? m->nissues : 512;
    for (size_t i = 0; i < nissues; i++) {
        in[i] = cdch_known_issue_holds(&m->issues[i], version);
        if (in[i])
            add_causes(out->in_range, sizeof out->in_range, m->issues[i].id);
    }
    int k = strcmp(mode, "uncompressed") == 0 ? 0 : strcmp(mode, "compressed") == 0 ? 1 : strcmp(mode, "flip") == 0 ? 2 : -1;
    /* an in-range issue that stops the consumer before it reads the stream decides every cell */
    if (by_effect(m, in, nissues, scenario, mode, true, false, out))
        return;
    /* then what an in-range issue says it does in this very scenario and mode (effect_by_scenario) */
    if (by_effect(m, in, nissues, scenario, mode, false, true, out))
        return;
    bool found = false;
    const char *variant = cdch_version_variant(version);
    size_t best_d = 0, best_sim = 0;
    /* tier 0: the pinned versions of the same variant; tier 1 (when they give no candidate): every
     * pinned version, but an issue a pinned version of this variant shows not to apply is left out */
    for (int tier = 0; tier < 2 && !found; tier++) {
        size_t best_n = 0;
        for (int pass = 0; pass < 2; pass++) { /* 0: choose the verdict; 1: gather its causes */
            /* each pinned version twice: its expectation for this mode, and (compressed, flip) its
             * uncompressed one when every cause is an issue not about compression: such an issue strikes
             * the plain events of a compressed stream too (the watermark, DDL), unless an earlier failure
             * stops the consumer first, which the pins that have both show (similarity) */
            for (size_t i = 0; i < 2 * m->nversions; i++) {
                const cdch_manifest_version *p = &m->versions[i / 2];
                bool cross = i % 2 == 1;
                if (cross && (k <= 0 || own_mode(m, p, scenario, mode, in)))
                    continue;
                bool same = strcmp(cdch_version_variant(p->version), variant) == 0;
                if (tier == 0 && !same)
                    continue;
                const char *pmode = cross ? "uncompressed" : mode;
                const char *e = cdch_manifest_expect_for(m, p, scenario, pmode);
                const char *causes = cdch_manifest_cause_for(m, p, scenario, pmode);
                cdch_verdict v;
                size_t n = 0;
                if (!e || !causes || cdch_verdict_parse_any(e, &v, NULL) != 0 || v == CDCH_VERDICT_PASS ||
                    !all_in_range(m, causes, in, &n) || (cross && any_compression(m, causes)) ||
                    silenced(m, causes, scenario, mode) ||
                    (tier == 1 && (same || refuted(m, causes, variant, scenario, pmode))))
                    continue;
                if (pass == 0) {
                    size_t d = distance(m, p->version, version), sim = similarity(m, p->version, in, nissues);
                    if (!found || sim > best_sim || (sim == best_sim && n > best_n) ||
                        (sim == best_sim && n == best_n && d < best_d) ||
                        (sim == best_sim && n == best_n && d == best_d && cdch_verdict_worse(v, out->verdict))) {
                        found = true;
                        best_sim = sim;
                        best_n = n;
                        best_d = d;
                        out->verdict = v;
                    }
                } else if (v == out->verdict) {
                    add_causes(out->causes, sizeof out->causes, causes);
                }
            }
            if (!found)
                break;
        }
    }
    if (found)
        return;
    /* no pinned version shows an in-range issue here: the issues' own `effect` for the mode */
    by_effect(m, in, nissues, scenario, mode, false, false, out);
}
