/* test_version.c — the version order and ranges of known_issues (version.c)
 * and the prediction of unpinned versions' verdicts (predict.c). */
#include "version.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"
#include "predict.h"

static int sgn(int x) { return (x > 0) - (x < 0); }

#define ORDER(a, b, want)                                                                                       \
    do {                                                                                                        \
        ck_assert_msg(sgn(cdch_version_cmp(a, b)) == (want), "cmp(%s, %s) = %d, want %d", a, b,                \
                      cdch_version_cmp(a, b), want);                                                            \
        ck_assert_msg(sgn(cdch_version_cmp(b, a)) == -(want), "cmp(%s, %s) not antisymmetric", b, a);          \
    } while (0)

START_TEST(order_maven_debezium)
{
    ORDER("1.9.8.Final", "2.0.0.Final", -1);
    ORDER("2.6.0.CR1", "2.6.0.Final", -1);
    ORDER("2.6.0.Beta2", "2.6.0.CR1", -1);
    ORDER("2.6.0.Alpha1", "2.6.0.Beta1", -1);
    ORDER("3.6.0.Beta2", "3.6.0.Beta10", -1); /* numbers numerically */
    ORDER("3.4.1.Final", "3.4.1", 0);
    ORDER("1.0", "1.0.0.Final", 0);
    ORDER("2.3.4.Final", "2.3.10.Final", -1);
    ORDER("2.7.4.Final", "3.0.0.Final", -1);
    ORDER("1.0-SNAPSHOT", "1.0", -1);
    ORDER("1.0-rc1", "1.0-SNAPSHOT", -1);
    ORDER("1.0.Final", "1.0.1", -1);
    ORDER("1.0-sp1", "1.0.1", -1);
    ORDER("1.0-sp1", "1.0", 1);
}
END_TEST

START_TEST(order_semver_pep440)
{
    ORDER("v1.7.0", "v1.16.0", -1);
    ORDER("v1.12.0", "1.12.0", 0);
    ORDER("v1.0.0-rc.1", "v1.0.0", -1);
    ORDER("v1.0.0-alpha", "v1.0.0-beta", -1);
    ORDER("1.0.0a1", "1.0.0b1", -1);
    ORDER("1.0.0rc1", "1.0.0", -1);
    ORDER("1.0.0", "1.0.0.post1", -1);
    ORDER("1.0.0.dev1", "1.0.0a1", -1);
    ORDER("0.45.1", "1.0.9", -1);
    ORDER("1.0.9", "1.0.17", -1);
    ORDER("0.29.2", "0.30.1", -1);
    ORDER("0.9.0", "0.10.0", -1);
    ORDER("1.0.0+unwrap", "1.0.0", 0); /* the variant takes no part */
    ORDER("0010", "10", 0);            /* leading zeros */
    ORDER("99999999999999999999.1", "99999999999999999999.2", -1); /* any length */
}
END_TEST

/* tests/data/version-order.txt: the comparisons scripts/edges.py --selftest checks its mirror with */
START_TEST(order_file)
{
    FILE *f = fopen(CDCH_SOURCE_DIR "/tests/data/version-order.txt", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        char a[200], op[4], b[200];
        if (line[0] == '#' || sscanf(line, "%199s %3s %199s", a, op, b) != 3)
            continue;
        ORDER(a, b, op[0] == '<' ? -1 : op[0] == '>' ? 1 : 0);
        n++;
    }
    fclose(f);
    ck_assert_uint_ge(n, 30);
}
END_TEST

START_TEST(valid_versions)
{
    ck_assert(cdch_version_valid("3.4.1.Final"));
    ck_assert(cdch_version_valid("v1.12.0+canal"));
    ck_assert(cdch_version_valid("1.0.0rc1"));
    ck_assert(!cdch_version_valid(""));
    ck_assert(!cdch_version_valid("latest"));
    ck_assert(!cdch_version_valid("1.0 2.0"));
    ck_assert(!cdch_version_valid("../1.0"));
    ck_assert(!cdch_version_valid("1.0+"));
    ck_assert_str_eq(cdch_version_variant("v1.16.0+canal"), "canal");
    ck_assert_str_eq(cdch_version_variant("v1.16.0"), "");
    ck_assert_uint_eq(cdch_version_common("1.0.9", "1.0.17"), 2);
    ck_assert_uint_eq(cdch_version_common("1.0.9", "0.45.1"), 0);
    ck_assert_uint_eq(cdch_version_common("v2.6.0.CR1", "2.6.0.cr2"), 4);
}
END_TEST

static bool holds(const char *range, const char *v)
{
    cdch_vrange r;
    cdch_err err;
    ck_assert_msg(cdch_vrange_parse(range, &r, &err) == 0, "%s: %s", range, err.msg);
    bool h = cdch_vrange_holds(&r, v);
    cdch_vrange_free(&r);
    return h;
}

START_TEST(ranges)
{
    const char *fixed = ">= 2.0.0.Final, < 2.4.0.Final";
    ck_assert(!holds(fixed, "1.9.8.Final"));
    ck_assert(holds(fixed, "2.0.0.Final"));
    ck_assert(holds(fixed, "2.3.4.Final"));
    ck_assert(holds(fixed, "2.4.0.CR1")); /* a pre-release of the fixed version is before it */
    ck_assert(!holds(fixed, "2.4.0.Final"));
    ck_assert(!holds(fixed, "3.4.1.Final"));
    ck_assert(holds("< 1.5.0.Final", "1.4.0.Final"));
    ck_assert(!holds("< 1.5.0.Final", "1.5.0.Final"));
    ck_assert(holds(">= 1.9.8.Final", "9.0.0.Final"));
    ck_assert(holds("> 1.0, <= 2.0", "2.0"));
    ck_assert(!holds("> 1.0, <= 2.0", "1.0"));
    ck_assert(holds("1.2.5.Final, >= 1.4.0.Final, < 1.6.0", "1.2.5.Final"));
    ck_assert(!holds("1.2.5.Final, >= 1.4.0.Final, < 1.6.0", "1.3.0.Final"));
    ck_assert(holds("1.2.5.Final, >= 1.4.0.Final, < 1.6.0", "1.5.2.Final"));
    ck_assert(holds("v1.15.0, v1.16.0", "v1.16.0+canal"));
    ck_assert(holds("*", "0.0.1"));
    ck_assert(holds("< 2, >= 3", "3.1")); /* an upper bound alone, then an open lower bound */
    ck_assert(!holds("< 2, >= 3", "2.5"));
}
END_TEST

static void bad_range(const char *range, const char *want)
{
    cdch_vrange r;
    cdch_err err;
    ck_assert_msg(cdch_vrange_parse(range, &r, &err) != 0, "'%s' parsed", range);
    ck_assert_msg(strstr(err.msg, want) != NULL, "'%s': message '%s' lacks '%s'", range, err.msg, want);
}

START_TEST(bad_ranges)
{
    bad_range("1.9.8.Final and newer", "bad item '1.9.8.Final and newer'");
    bad_range("2.0.0.Final .. 2.3.x", "bad item");
    bad_range("v1.15.0+parsetime", "use the issue's 'variants'");
    bad_range(">= 2.0, >= 3.0", "no upper bound closed");
    bad_range(">= 3.0, < 2.0", "is empty");
    bad_range("1.0,,2.0", "empty item");
    bad_range("", "empty version range");
    bad_range(">=", "bad item");
}
END_TEST

/* A manifest in a temporary folder: loads, or fails with want in its message. */
static cdch_manifest *load_manifest(const char *text, const char *want)
{
    char dir[] = "/tmp/cdch-test-version-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/manifest.yaml", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    cdch_err err;
    cdch_manifest *m = cdch_manifest_load(path, &err);
    unlink(path);
    rmdir(dir);
    if (want) {
        ck_assert_msg(m == NULL, "manifest loaded; wanted an error with '%s'", want);
        ck_assert_msg(strstr(err.msg, want) != NULL, "message '%s' lacks '%s'", err.msg, want);
    } else {
        ck_assert_msg(m != NULL, "manifest did not load: %s", err.msg);
    }
    return m;
}

#define FAMILY_HEAD                                                                                              \
    "family: sim\nlanguage: python\nrun: [\"true\"]\nknown_issues:\n"                                           \
    "  - {id: skip, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \">= 2.0, < 2.4\"}\n" \
    "  - {id: dies, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \"< 2.0\"}\n"    \
    "  - {id: zero, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \"*\"}\n"      \
    "  - {id: wrap, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \">= 2.0\",\n"   \
    "     variants: [none]}\n"                                                                                      \
    "  - {id: late, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \">= 4.0\",\n"    \
    "     variants: [unwrap], effect: {compressed: duplicate}}\n"                                                 \
    "  - {id: listener, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \">= 2.5\"}\n"   \
    "  - {id: nostart, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \">= 5.0\",\n"  \
    "     startup: true, effect: {uncompressed: parse-failure, compressed: parse-failure}}\n"

START_TEST(manifest_ranges_checked)
{
    /* a pinned version that cites an issue outside its range does not load */
    load_manifest(FAMILY_HEAD "versions:\n  - version: \"2.5\"\n    expect: {compressed: silent-skip skip}\n",
                  "version 2.5 cites known issue 'skip' (expect compressed), but the issue's 'versions: >= 2.0, < 2.4'");
    /* nor one that cites an issue of another variant */
    load_manifest(FAMILY_HEAD "versions:\n  - version: \"2.5+unwrap\"\n    expect: {compressed: silent-skip wrap}\n",
                  "with its 'variants' does not hold 2.5+unwrap");
    /* nor an issue without a range, or with a range that does not parse */
    load_manifest("family: sim\nrun: [\"true\"]\nknown_issues:\n"
                  "  - {id: x, kind: consumer-defect, compression: true, summary: s, evidence: e}\n"
                  "versions: [\"1.0\"]\n",
                  "known issue 'x' needs 'versions'");
    load_manifest("family: sim\nrun: [\"true\"]\nknown_issues:\n"
                  "  - {id: x, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \"1.0 and newer\"}\n"
                  "versions: [\"1.0\"]\n",
                  "bad item '1.0 and newer'");
    /* a claim of in-order delivery shortens a wait that decides verdicts: not without its evidence */
    load_manifest("family: sim\nrun: [\"true\"]\ndelivery: in-order\nversions: [\"1.0\"]\n",
                  "'delivery: in-order' needs 'delivery_evidence'");
    load_manifest("family: sim\nrun: [\"true\"]\ndelivery: sometimes\nversions: [\"1.0\"]\n",
                  "'delivery' must be 'in-order' or 'buffered'");
    cdch_manifest *m = load_manifest("family: sim\nrun: [\"true\"]\ndelivery: in-order\n"
                                     "delivery_evidence: \"lib.js:10\"\nversions: [\"1.0\"]\n",
                                     NULL);
    ck_assert(m->in_order);
    ck_assert_str_eq(m->delivery_evidence, "lib.js:10");
    cdch_manifest_free(m);
    m = load_manifest("family: sim\nrun: [\"true\"]\nversions: [\"1.0\"]\n", NULL);
    ck_assert(!m->in_order); /* default: buffered */
    ck_assert(!m->class_archive);
    cdch_manifest_free(m);
    /* a class-data archive is a JVM's (jvmarchive.h): the run must start the java launcher */
    load_manifest("family: sim\nrun: [\"node\", \"a.js\"]\nclass_archive: true\nversions: [\"1.0\"]\n",
                  "'class_archive: true' needs a 'run' that starts the java launcher");
    m = load_manifest("family: sim\nrun: [\"/usr/lib/jvm/17/bin/java\", \"-cp\", \"a.jar\", \"M\"]\n"
                      "class_archive: true\nversions: [\"1.0\"]\n",
                      NULL);
    ck_assert(m->class_archive);
    cdch_manifest_free(m);
}
END_TEST

static const char *k_sim = FAMILY_HEAD
    "expect_by_scenario:\n"
    "  dates: {uncompressed: mismatch zero, compressed: mismatch zero}\n"
    "versions:\n"
    "  - version: \"1.0\"\n"
    "    expect: {uncompressed: pass, compressed: parse-failure dies}\n"
    "  - version: \"2.0\"\n"
    "    expect: {uncompressed: pass, compressed: silent-skip skip wrap}\n"
    "    expect_by_scenario:\n"
    "      dates: {compressed: silent-skip skip wrap zero}\n"
    "  - version: \"3.0\"\n"
    "    expect: {uncompressed: pass, compressed: silent-skip wrap}\n"
    "  - version: \"3.0+unwrap\"\n"
    "    expect: {uncompressed: pass, compressed: pass}\n"
    "  - version: \"3.5\"\n"
    "    expect: {uncompressed: pass, compressed: duplicate listener}\n";

static void want_prediction(const cdch_manifest *m, const char *version, const char *scenario, const char *mode,
                            const char *verdict, const char *causes)
{
    cdch_prediction p;
    cdch_predict(m, version, scenario, mode, &p);
    ck_assert_msg(strcmp(cdch_verdict_name(p.verdict), verdict) == 0 && strcmp(p.causes, causes) == 0,
                  "%s %s %s: predicted %s '%s', want %s '%s'", version, scenario, mode, cdch_verdict_name(p.verdict),
                  p.causes, verdict, causes);
}

START_TEST(prediction)
{
    cdch_manifest *m = load_manifest(k_sim, NULL);
    want_prediction(m, "1.5", "crud", "compressed", "parse-failure", "dies");
    want_prediction(m, "1.5", "crud", "uncompressed", "pass", "");
    want_prediction(m, "1.5", "dates", "uncompressed", "mismatch", "zero");
    want_prediction(m, "2.2", "crud", "compressed", "silent-skip", "skip wrap");
    want_prediction(m, "2.2", "dates", "compressed", "silent-skip", "skip wrap zero");
    want_prediction(m, "2.5", "crud", "compressed", "silent-skip", "wrap"); /* fixed skip, still wrap */
    /* the variant's own pins: 3.5's duplicate (listener, in range) is not what +unwrap does (3.0+unwrap) */
    want_prediction(m, "2.5+unwrap", "crud", "compressed", "pass", "");
    /* no +unwrap pin says anything about 'dies' (none lies in its range): the plain pin's evidence counts */
    want_prediction(m, "1.5+unwrap", "crud", "compressed", "parse-failure", "dies");
    want_prediction(m, "2.5+unwrap", "dates", "compressed", "mismatch", "zero");
    /* an issue no pinned version shows predicts by its own `effect` where nothing else does */
    want_prediction(m, "4.1+unwrap", "crud", "compressed", "duplicate", "late");
    want_prediction(m, "4.1+unwrap", "crud", "uncompressed", "pass", "");
    want_prediction(m, "4.1+unwrap", "dates", "compressed", "mismatch", "zero");
    /* an issue that stops the consumer before it reads the stream decides every cell */
    want_prediction(m, "5.1", "crud", "compressed", "parse-failure", "nostart");
    want_prediction(m, "5.1", "dates", "uncompressed", "parse-failure", "nostart");
    cdch_prediction p;
    cdch_predict(m, "2.2", "crud", "compressed", &p);
    ck_assert_str_eq(p.in_range, "skip zero wrap");
    /* ties: the nearest pinned version (3.5 for 3.7: duplicate), then the worse verdict (3.0 and 3.5 are
     * as near as each other to 3.2) */
    want_prediction(m, "3.7", "crud", "compressed", "duplicate", "listener");
    want_prediction(m, "3.2", "crud", "compressed", "silent-skip", "wrap");
    cdch_manifest_free(m);
}
END_TEST

/* mysql-binlog-connector-java io.debezium 0.40.2, row-metadata-full compressed: the plain-listener
 * wrapper bug (0.41.0: silent-skip) and the TABLE_MAP fall-through (0.31.0: parse-failure) are both in
 * range; 0.31.0 has both, so it shows which one wins: parse-failure (observed 2026-12-03). */
START_TEST(prediction_by_the_most_similar_pin)
{
    cdch_manifest *m = load_manifest(
        "family: sim\nrun: [\"true\"]\nknown_issues:\n"
        "  - {id: fallthrough, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \">= 0.31.0, < 0.40.3\"}\n"
        "  - {id: wrapper, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \"*\"}\n"
        "versions:\n"
        "  - version: \"0.31.0\"\n"
        "    expect: {compressed: parse-failure fallthrough}\n"
        "  - version: \"0.41.0\"\n"
        "    expect: {compressed: silent-skip wrapper}\n",
        NULL);
    want_prediction(m, "0.40.2", "row-metadata-full", "compressed", "parse-failure", "fallthrough");
    want_prediction(m, "0.40.3", "row-metadata-full", "compressed", "silent-skip", "wrapper");
    cdch_manifest_free(m);
}
END_TEST

/* An issue not about compression that a pin shows uncompressed strikes the plain events of a compressed
 * stream too (Debezium 1.4.1 row-metadata-full: the TABLE_MAP VISIBILITY NPE of 1.2.5/1.4.0 hits the
 * watermark's TABLE_MAP; 1.2.5/1.4.0 die on type 40 before it when compressed). */
START_TEST(prediction_across_modes)
{
    cdch_manifest *m = load_manifest(
        "family: sim\nrun: [\"true\"]\nknown_issues:\n"
        "  - {id: visnpe, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \"< 2.0\"}\n"
        "  - {id: type40, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \"< 1.5\"}\n"
        "  - {id: handler, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \">= 1.5, < 3.0\"}\n"
        "versions:\n"
        "  - version: \"1.0\"\n"
        "    expect: {uncompressed: parse-failure visnpe, compressed: parse-failure type40}\n"
        "  - version: \"2.5\"\n"
        "    expect: {uncompressed: pass, compressed: silent-skip handler}\n",
        NULL);
    want_prediction(m, "1.7", "meta", "compressed", "parse-failure", "visnpe");
    want_prediction(m, "1.7", "meta", "uncompressed", "parse-failure", "visnpe");
    want_prediction(m, "2.1", "meta", "compressed", "silent-skip", "handler");
    cdch_manifest_free(m);
}
END_TEST

/* An issue's own effect_by_scenario: what it does in one scenario and mode, over what the pins show
 * (Debezium 1.5-1.8: file-history-exists-on-start fails the connector on the first TABLE_MAP after a
 * stored offset, before the cut where the 1.9.8 pin's no-resume comes from); `pass` there: it does not
 * show (restart compressed: the cut comes before any plain TABLE_MAP), so a pin's cross-mode candidate
 * citing it is left out; where two in-range issues declare one, the first listed decides (go-mysql:
 * below v1.8.0 the payloads are not parsed, so the VECTOR type never fails them); a startup issue's
 * `pass` in one scenario leaves that scenario to the rest (python-mysql-replication 1.0.2: no column
 * names but under binlog_row_metadata=FULL). */
START_TEST(prediction_by_scenario_effect)
{
    cdch_manifest *m = load_manifest(
        "family: sim\nrun: [\"true\"]\nknown_issues:\n"
        "  - {id: history, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \"< 1.9\",\n"
        "     effect_by_scenario: {restart: {uncompressed: parse-failure, compressed: pass}}}\n"
        "  - {id: noretry, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \">= 1.5, < 2.0\"}\n"
        "  - {id: late, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \">= 1.5\"}\n"
        "  - {id: dies, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \"< 1.1\"}\n"
        "  - {id: ignored, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \">= 1.1, < 2.0\"}\n"
        "  - {id: unparsed, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \"< 1.2\",\n"
        "     effect_by_scenario: {vector: {compressed: silent-skip}}}\n"
        "  - {id: novector, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \"< 3.0\",\n"
        "     effect_by_scenario: {vector: {compressed: parse-failure}}}\n"
        "  - {id: unnamed, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \">= 4.0, < 4.1\",\n"
        "     startup: true, effect: {uncompressed: mismatch, compressed: mismatch},\n"
        "     effect_by_scenario: {meta: {uncompressed: pass, compressed: pass}}}\n"
        "  - {id: labels, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \"*\"}\n"
        "versions:\n"
        "  - version: \"1.0\"\n"
        "    expect: {uncompressed: pass, compressed: parse-failure dies}\n"
        "    expect_by_scenario:\n"
        "      restart: {uncompressed: parse-failure history}\n"
        "  - version: \"1.9\"\n"
        "    expect: {uncompressed: pass, compressed: silent-skip ignored}\n"
        "    expect_by_scenario:\n"
        "      restart: {uncompressed: no-resume noretry}\n"
        "      vector: {uncompressed: parse-failure novector}\n"
        "  - version: \"4.2\"\n"
        "    expect: {uncompressed: pass, compressed: pass}\n"
        "    expect_by_scenario:\n"
        "      meta: {uncompressed: mismatch labels}\n",
        NULL);
    /* 1.7 shares most issues with the 1.9 pin (noretry), but history stops it first */
    want_prediction(m, "1.7", "restart", "uncompressed", "parse-failure", "history");
    /* without the declared pass, the 1.0 pin's uncompressed parse-failure (the most similar pin) would
     * count for the compressed cell */
    want_prediction(m, "1.1", "restart", "compressed", "silent-skip", "ignored");
    want_prediction(m, "1.1", "vector", "compressed", "silent-skip", "unparsed");
    want_prediction(m, "1.5", "vector", "compressed", "parse-failure", "novector");
    want_prediction(m, "1.5", "crud", "compressed", "silent-skip", "ignored");
    want_prediction(m, "4.0", "crud", "compressed", "mismatch", "unnamed");
    /* the 4.2 pin passes compressed there itself: its uncompressed mismatch does not count across modes */
    want_prediction(m, "4.0", "meta", "compressed", "pass", "");
    want_prediction(m, "4.0", "meta", "uncompressed", "mismatch", "labels");
    cdch_manifest_free(m);
    /* the issue is the cause: an effect_by_scenario verdict names no cause */
    load_manifest("family: sim\nrun: [\"true\"]\nknown_issues:\n"
                  "  - {id: x, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: \"*\",\n"
                  "     effect_by_scenario: {crud: {compressed: silent-skip y}}}\n"
                  "versions: [\"1.0\"]\n",
                  "'effect_by_scenario' gives a verdict alone");
}
END_TEST

/* A known issue with hold_end_marker: true holds the watermark for the unpinned versions in its range
 * (Debezium's failure-poll-race: 1.9.6.Final unheld ended silent-skip where the held 1.9.8 pin gives
 * parse-failure); a pinned version keeps its own setting. */
START_TEST(unpinned_hold_end_marker)
{
    cdch_manifest *m = load_manifest(
        "family: sim\nrun: [\"true\"]\nknown_issues:\n"
        "  - {id: race, kind: consumer-defect, compression: false, summary: s, evidence: e, versions: \">= 1.5, < 2.4\",\n"
        "     hold_end_marker: true}\n"
        "versions:\n"
        "  - version: \"1.9\"\n"
        "    hold_end_marker: true\n"
        "    expect: {uncompressed: pass}\n"
        "  - version: \"2.3\"\n"
        "    expect: {uncompressed: pass}\n",
        NULL);
    cdch_err err;
    cdch_manifest_version *v = cdch_manifest_unpinned(m, "1.6", &err);
    ck_assert_ptr_nonnull(v);
    ck_assert(cdch_manifest_hold_end_marker(m, v));
    cdch_manifest_version_free(v);
    v = cdch_manifest_unpinned(m, "2.5", &err);
    ck_assert_ptr_nonnull(v);
    ck_assert(!cdch_manifest_hold_end_marker(m, v));
    cdch_manifest_version_free(v);
    ck_assert(cdch_manifest_hold_end_marker(m, &m->versions[0]));
    ck_assert(!cdch_manifest_hold_end_marker(m, &m->versions[1])); /* pinned, in range: its own (none) */
    cdch_manifest_free(m);
}
END_TEST

START_TEST(unpinned_records)
{
    cdch_manifest *m = load_manifest(k_sim, NULL);
    cdch_err err;
    cdch_manifest_version *v = cdch_manifest_unpinned(m, "2.2+unwrap", &err);
    ck_assert_ptr_nonnull(v);
    ck_assert(v->unpinned);
    ck_assert_str_eq(v->version, "2.2+unwrap");
    cdch_manifest_version_free(v);
    ck_assert_ptr_null(cdch_manifest_unpinned(m, "2.2+nope", &err));
    ck_assert_msg(strstr(err.msg, "unknown variant '+nope'") && strstr(err.msg, ": unwrap"), "%s", err.msg);
    ck_assert_ptr_null(cdch_manifest_unpinned(m, "latest", &err));
    ck_assert_msg(strstr(err.msg, "not a version"), "%s", err.msg);
    ck_assert_ptr_null(cdch_manifest_unpinned(m, "file:/nonexistent/build", &err));
    ck_assert_msg(strstr(err.msg, "local build '/nonexistent/build'"), "%s", err.msg);
    v = cdch_manifest_unpinned(m, "file:/tmp/+unwrap", &err);
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v->version, "file:/tmp+unwrap");
    ck_assert_str_eq(v->local_path, "/tmp");
    cdch_manifest_version_free(v);
    cdch_manifest_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("version");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, order_maven_debezium);
    tcase_add_test(tc, order_semver_pep440);
    tcase_add_test(tc, order_file);
    tcase_add_test(tc, valid_versions);
    tcase_add_test(tc, ranges);
    tcase_add_test(tc, bad_ranges);
    tcase_add_test(tc, manifest_ranges_checked);
    tcase_add_test(tc, prediction);
    tcase_add_test(tc, prediction_by_the_most_similar_pin);
    tcase_add_test(tc, prediction_across_modes);
    tcase_add_test(tc, prediction_by_scenario_effect);
    tcase_add_test(tc, unpinned_hold_end_marker);
    tcase_add_test(tc, unpinned_records);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
