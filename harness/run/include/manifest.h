/* manifest.h — consumers/<family>/manifest.yaml (consumers/README.md):
 * a consumer family's pinned versions, setup and run commands; and
 * FAMILY[@VERSION] resolution over the consumer directories.
 *
 * Owns: a cdch_manifest owns every string and array in it (free with
 * cdch_manifest_free). Errors are "PATH:LINE:COL: message"; resolution
 * errors list what exists ("unknown consumer family 'x' in consumers/;
 * known: go-mysql, zongji").
 *
 * Keys: family (must equal the folder name), language, source (server |
 * files, default server), versions (list of {version, expect:{mode:
 * verdict}, source (overrides the family's)} or plain version strings), setup (command list, optional), run
 * (command list, required; "{cache}" in any word is replaced by the
 * version's cache directory), startup_timeout (seconds, default 60),
 * server_auth (mysql_native_password | caching_sha2_password, the plugin of
 * the fake primary's replication account; default caching_sha2_password, as
 * MySQL 8; also per version), session (bool, family or version: the adapter
 * serves many cells in one launch, consumers/README.md "Session mode"),
 * expect_by_scenario ({SCENARIO: {mode: verdict}}, family or version: wins
 * over `expect` for that scenario), known_issues (family: the causes
 * expectations cite), representations (family or version: documented
 * alternative shapes of a change the diff accepts), start (attach | empty,
 * family or version: attach = every scenario starts after the schema's DDL,
 * runner.h cdch_start_mode), hold_end_marker (bool, family or version: the
 * fake primary holds the watermark transaction until the consumer is quiet,
 * and quiet for hold_quiet_s when it has reported an error: for consumers
 * whose stop after an error races their emission of later events; runner.h),
 * variant_setup (shared | own, family; default own: shared = a version
 * "V+variant" runs on the install of "V", the variant being a run-time
 * setting the adapter reads from CDCH_VERSION; setup.h), setup_batch (bool,
 * family: the setup command takes any number of "VERSION DIR" pairs and
 * the harness installs the versions a run needs in one run of it; setup.h), named_only (bool,
 * version: not one of the family's "every pinned version" — `--consumer
 * FAMILY`, a matrix's `consumers: [FAMILY]`, hence the default matrix —
 * but run when named FAMILY@VERSION, e.g. by the soak matrix ci/soak.yaml),
 * shares (list of folders relative to the family's: their content is part
 * of the setup fingerprint, setup.h), native_auth_versions (a range: the
 * versions, pinned or not, that speak only mysql_native_password), delivery
 * (in-order | buffered, family; default buffered: in-order = the library
 * hands each event to the adapter on the thread that read it, in stream
 * order, with no queue, batch or timer between, and the adapter prints
 * them in that order, so nothing the stream held before the watermark can
 * come after it; waits.h rule 3) with delivery_evidence (required with
 * in-order: file:line in the library's source at a tag).
 *
 * known_issues entries: id, kind, compression, summary, evidence, versions
 * (required: a range in version.h's grammar, "*" for every version),
 * variants (optional list: only versions run with one of these variants;
 * "none" = without a variant), versions_note (free text), effect (optional
 * {mode: verdict}: what the issue does to every scenario, for issues no
 * pinned version shows; predict.h), startup (bool: the consumer fails
 * before it reads the stream; its effect wins), effect_by_scenario
 * (optional {scenario: {mode: verdict}}: what it does in that scenario, over
 * the pins; `pass`: it does not decide there; predict.h), hold_end_marker
 * (bool: the unpinned versions it holds run with hold_end_marker). At load, every
 * pinned version whose expectation cites an issue must be in that issue's
 * range and variants: a range that contradicts the pinned evidence does not
 * load.
 *
 * An expectation is "VERDICT [CAUSE...]": a verdict name, then the ids of
 * the known issues that explain it ("silent-skip no-type-40"). Every
 * non-pass expectation must name at least one cause, and every cause must
 * be an id of the family's known_issues or the reserved `unexplained`; the
 * manifest fails to load otherwise (a gate built on observed results alone
 * proves they are stable, not that they are right).
 * Unknown keys are ignored (adapters may carry notes for humans).
 */
#ifndef CDCH_MANIFEST_H
#define CDCH_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "version.h"

/* expect_by_scenario entry: the verdicts one scenario should give */
typedef struct cdch_manifest_sexpect {
    char *scenario;
    char *uncompressed, *compressed, *flip; /* verdict names, NULL when not given */
    char *uncompressed_cause, *compressed_cause, *flip_cause; /* "id id", NULL when none */
} cdch_manifest_sexpect;

/* known_issues entry: one cause, with its evidence. */
typedef enum cdch_issue_kind {
    CDCH_ISSUE_CONSUMER_DEFECT = 0, /* consumer-defect: the consumer at that version is wrong */
    CDCH_ISSUE_ADAPTER_LIMITATION,  /* adapter-limitation: our adapter cannot show what the consumer does */
    CDCH_ISSUE_NOT_APPLICABLE,      /* not-applicable: the scenario asks for something the consumer does not claim */
} cdch_issue_kind;

typedef struct cdch_known_issue {
    char *id;
    cdch_issue_kind kind;
    bool compression;  /* about compressed streams (type 40 / payloads) */
    char *summary;     /* one line */
    char *evidence;    /* source file:line at that version, or an upstream issue / commit */
    char *versions;    /* the range as written (version.h grammar: "*", ">= 2.0.0.Final, < 2.4.0.Final", ...) */
    cdch_vrange range; /* versions, parsed (required: a manifest without it does not load) */
    char **variants;   /* `variants: [unwrap, none]`: only versions run with these variants ("none": without
                        * one); NULL: every variant */
    size_t nvariants;
    char *versions_note; /* free text for humans (which versions were checked, what is not located), or NULL */
    char *effect[3];   /* `effect: {uncompressed: V, compressed: V, flip: V}`: the verdict the issue gives every
                        * scenario in that mode where no pinned version shows it (predict.h); NULL: none */
    bool startup;      /* `startup: true`: its `effect` is every cell's, whatever else is in range (predict.h):
                        * the consumer fails before it reads the stream, or on what every stream has (the
                        * watermark's transaction) */
    cdch_manifest_sexpect *effect_by_scenario; /* `effect_by_scenario: {SCENARIO: {MODE: VERDICT}}`: what the
                        * issue does in that scenario and mode, over `effect` and over what the pinned versions
                        * show (predict.h); `pass`: it does not show there. Causes are always NULL */
    size_t neffect_by_scenario;
    bool hold_end_marker; /* `hold_end_marker: true`: an unpinned version it holds runs with hold_end_marker (its
                        * failures race the stream's end, as the pinned versions that show it are held) */
} cdch_known_issue;

/* Whether known issue ki concerns version ("V[+variant]"): V in its range and
 * the variant among its `variants`. */
bool cdch_known_issue_holds(const cdch_known_issue *ki, const char *version);

/* The verdict name known issue ki gives scenario in mode ("uncompressed",
 * "compressed", "flip"): its effect_by_scenario entry, else its `effect`;
 * NULL when it gives none. *by_scenario (when not NULL) says which. */
const char *cdch_known_issue_effect(const cdch_known_issue *ki, const char *scenario, const char *mode,
                                    bool *by_scenario);

const char *cdch_issue_kind_name(cdch_issue_kind k); /* "consumer-defect", ... */

/* Representations a consumer may declare (manifest `representations`; diff.h says what each accepts). */
#ifndef CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT
#define CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT 1u /* key-update-as-delete-insert */
#endif

typedef struct cdch_manifest_version {
    char *version;
    char *expect_uncompressed; /* verdict names from `expect`, NULL when not given */
    char *expect_compressed;
    char *expect_flip;
    int source;                /* -1: the family's `source`; 0 server, 1 files (a per-version `source`) */
    int native_auth;           /* -1: the family's `server_auth`; 1 mysql_native_password, 0 caching_sha2 */
    int session;               /* -1: the family's `session`; 1 session protocol, 0 one launch per cell */
    char *cause_uncompressed;  /* causes of `expect` ("id id"), NULL when none */
    char *cause_compressed;
    char *cause_flip;
    cdch_manifest_sexpect *by_scenario; /* expect_by_scenario (wins over the family's) */
    size_t nby_scenario;
    int representations;       /* -1: the family's; else CDCH_REPR_* bits */
    int start_attach;          /* -1: the family's `start`; 1 `start: attach`, 0 `start: empty` */
    int hold_end_marker;       /* -1: the family's `hold_end_marker`; else 0/1 */
    bool named_only;           /* named_only: left out of FAMILY (every pinned version); run as FAMILY@VERSION */
    /* not from the manifest (cdch_manifest_unpinned): a version the manifest does not pin, or a local build */
    bool unpinned;             /* installed from the registry like a pinned one; its expectation is predicted
                                * from known_issues (predict.h) */
    char *local_path;          /* FAMILY@file:PATH: the user's build (absolute), NULL for a registry version */
} cdch_manifest_version;

typedef struct cdch_manifest {
    char *path;            /* the manifest file */
    char *dir;             /* its folder (absolute): where setup and run are run */
    char *family;
    char *language;        /* NULL when not given */
    bool files_source;     /* source: files */
    size_t nversions;
    cdch_manifest_version *versions;
    size_t nsetup;
    char **setup;          /* NULL-terminated; nsetup == 0: nothing to install */
    size_t nrun;
    char **run;            /* NULL-terminated */
    double startup_timeout;
    bool native_auth;      /* server_auth: mysql_native_password (default caching_sha2_password) */
    bool session;          /* session: true — the adapter speaks the session protocol */
    cdch_manifest_sexpect *by_scenario; /* expect_by_scenario for every version */
    size_t nby_scenario;
    cdch_known_issue *issues;  /* known_issues */
    size_t nissues;
    unsigned representations;  /* CDCH_REPR_* bits */
    bool start_attach;         /* start: attach — every scenario attaches to an existing schema (runner.h) */
    bool hold_end_marker;      /* hold_end_marker: true — the watermark waits for the consumer (runner.h) */
    bool variant_setup_shared; /* variant_setup: shared — "V+variant" uses the install of "V" (setup.h) */
    bool setup_batch;          /* setup_batch: true — setup installs several versions in one run (setup.h) */
    bool class_archive;        /* class_archive: true — the JVM keeps a class-data archive per version (jvmarchive.h) */
    bool in_order;             /* delivery: in-order — the library hands events to the adapter on its reading
                                * thread in stream order, and the adapter prints them so (waits.h rule 3) */
    char *delivery_evidence;   /* delivery_evidence: where the library's source shows it (required with in-order) */
    cdch_vrange native_auth_versions; /* native_auth_versions: RANGE — versions (without a server_auth of
                                       * their own) whose fake primary announces mysql_native_password */
    bool has_native_auth_versions;
    char **shares;             /* shares: [../zongji] — folders (absolute) whose content the setup fingerprint
                                * covers besides the family's own (a shared setup script or adapter) */
    size_t nshares;
} cdch_manifest;

cdch_manifest *cdch_manifest_load(const char *path, cdch_err *err);
void cdch_manifest_free(cdch_manifest *m); /* accepts NULL */

/* Every family of dirs (folders holding a manifest.yaml; the first dir wins a
 * name), sorted; the caller frees each name and the array. */
size_t cdch_manifest_families(const char *const *dirs, size_t ndirs, char ***out);

/* Find family's manifest in the first of dirs holding <dir>/<family>/manifest.yaml. */
cdch_manifest *cdch_manifest_find(const char *const *dirs, size_t ndirs, const char *family, cdch_err *err);

/* The pinned version, or NULL with err listing the pinned versions. */
const cdch_manifest_version *cdch_manifest_find_version(const cdch_manifest *m, const char *version, cdch_err *err);

/* A version record for what the manifest does not pin: "V[+variant]" (a
 * version the family's registry may serve) or "file:PATH[+variant]" (the
 * user's own build: PATH must exist; made absolute). The variant must be one
 * the family's pinned versions use. The caller owns the record (free with
 * cdch_manifest_version_free); it has no expectation (predict.h). NULL with
 * err when the spec is not a version. */
cdch_manifest_version *cdch_manifest_unpinned(const cdch_manifest *m, const char *spec, cdch_err *err);
void cdch_manifest_version_free(cdch_manifest_version *v); /* a record of cdch_manifest_unpinned; accepts NULL */

/* Whether version v reads files (its own `source`, else the family's). */
bool cdch_manifest_files_source(const cdch_manifest *m, const cdch_manifest_version *v);

/* Whether version v's fake primary announces mysql_native_password. */
bool cdch_manifest_native_auth(const cdch_manifest *m, const cdch_manifest_version *v);

/* The expectation the manifest records for a mode ("compressed",
 * "uncompressed", "flip"), NULL when none. */
const char *cdch_manifest_expect(const cdch_manifest_version *v, const char *mode);

/* The expectation for a scenario and mode: the version's expect_by_scenario,
 * else the family's, else the version's `expect`; NULL when none. */
const char *cdch_manifest_expect_for(const cdch_manifest *m, const cdch_manifest_version *v, const char *scenario,
                                     const char *mode);

/* The causes recorded with that expectation ("id id"; NULL when none),
 * from the same entry cdch_manifest_expect_for takes the verdict from. */
const char *cdch_manifest_cause_for(const cdch_manifest *m, const cdch_manifest_version *v, const char *scenario,
                                    const char *mode);

/* The known issue with that id, NULL when none (or "unexplained"). */
const cdch_known_issue *cdch_manifest_issue(const cdch_manifest *m, const char *id);

/* CDCH_REPR_* bits version v declares (its own, else the family's). */
unsigned cdch_manifest_representations(const cdch_manifest *m, const cdch_manifest_version *v);

/* Whether version v's adapter speaks the session protocol. */
bool cdch_manifest_session(const cdch_manifest *m, const cdch_manifest_version *v);

/* Whether version v starts every scenario attached to an existing schema
 * (`start: attach`, its own else the family's; `start: empty` says no). */
bool cdch_manifest_start_attach(const cdch_manifest *m, const cdch_manifest_version *v);

/* Whether version v's cells hold the watermark until the consumer is quiet
 * (`hold_end_marker`, its own else the family's; an unpinned version's: on when
 * a known issue with `hold_end_marker: true` holds it, else the family's). */
bool cdch_manifest_hold_end_marker(const cdch_manifest *m, const cdch_manifest_version *v);

#endif
