/* report_internal.h — the parsed report (report.json) the renderers read,
 * and the escaping they share.
 *
 * Owns: a rep_doc owns the report texts it read, the JSON trees parsed from
 * them (its arena) and its cell array; free with rep_doc_free. Invalid UTF-8
 * (stderr of adapters may hold anything) is replaced by U+FFFD in JSON and
 * XML, control characters XML cannot hold are dropped.
 */
#ifndef CDCH_REPORT_INTERNAL_H
#define CDCH_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "arena.h"
#include "err.h"
#include "events.h"

void rep_json_str(FILE *f, const char *s);   /* quoted JSON string; NULL -> null */
void rep_json_strn(FILE *f, const char *s, size_t n); /* same, n bytes (NULs escaped) */
void rep_jv_write(FILE *f, const cdch_jv *v); /* compact JSON */
void rep_xml_text(FILE *f, const char *s);   /* escaped for text and attribute values */
void rep_md_cell(FILE *f, const char *s, size_t max); /* one Markdown table cell ('|' escaped, no newlines) */
const char *rep_consumer(const char *family, const char *version, char *buf, size_t n); /* "family@version" */
/* A cell's consumer as reports name it: "family@version", and " (config FILE)" when it ran with one. */
struct cdch_cell;
const char *rep_cell_consumer(const struct cdch_cell *c, char *buf, size_t n);

/* ---- the parsed report ------------------------------------------------------------ */

typedef struct rep_doc {
    cdch_arena arena;
    char **texts;              /* the files read (trees point into them) */
    size_t ntexts;
    const char *generated;     /* "2026-11-29T10:00:00Z" or NULL */
    const cdch_jv *matrix;     /* NULL when none */
    const cdch_jv *deployment; /* NULL when none (matrix --pre-flip; a merge keeps the first report's) */
    const cdch_jv **cells;     /* objects */
    const char **cell_src;     /* per cell: the directory of the report it came from (NULL: none) */
    size_t ncells, cap;
    bool merged;               /* joined from shards: the matrix's "shard" is dropped */
    double cpu_harness, cpu_children; /* "cpu" of the reports read, summed over shards */
    bool has_cpu;
} rep_doc;

void rep_doc_init(rep_doc *d);
void rep_doc_free(rep_doc *d);
/* Parse report.json text (copied) and append its cells; src_dir: where its
 * cell logs are (NULL: none); name: for messages. */
int rep_doc_add(rep_doc *d, const char *text, size_t len, const char *name, const char *src_dir, cdch_err *err);
/* Read a report.json file and add it. */
int rep_doc_load(rep_doc *d, const char *path, const char *src_dir, cdch_err *err);
/* Sort the cells (see report.h), stably; reject_overlap (merging shards):
 * fail on two cells with the same consumer, scenario and mode, or the same
 * index. (One run may hold such twins: a scenario given twice.) */
int rep_doc_sort(rep_doc *d, bool reject_overlap, cdch_err *err);
/* report.json, with totals recomputed. */
int rep_doc_write_json(const rep_doc *d, FILE *f);

/* Cell fields; NULL / 0 / false when absent or of another type. */
const char *rep_str(const cdch_jv *o, const char *key);
double rep_num(const cdch_jv *o, const char *key);
bool rep_bool(const cdch_jv *o, const char *key);
bool rep_has_num(const cdch_jv *o, const char *key);

/* Renderers of the parsed report. */
int rep_render_junit(const rep_doc *d, FILE *f);
int rep_render_markdown(const rep_doc *d, FILE *f);
int rep_render_html(const rep_doc *d, FILE *f);
/* The "deployment" object's sections (report_deploy.c): the pre-flip answer per
 * consumer with its evidence, and per capture estimate's table (and in HTML,
 * its charts as inline SVG). Nothing when the report has none. */
void rep_deploy_markdown(const rep_doc *d, FILE *f);
void rep_deploy_html(const rep_doc *d, FILE *f);

/* ---- the first difference of a run's cells (report_firstdiff.c) ------------------- */

#include "runner.h"

/* Per cell of the run, a JSON object text for "first_difference" (NULL: the
 * cell has none), built from its diff, its observed.jsonl and the
 * expected events (regenerated from the scenario, once per scenario and
 * mode that needs them). Free with rep_firstdiff_free. */
char **rep_firstdiff_collect(cdch_run *r);
void rep_firstdiff_free(char **fd, size_t n);

/* Write to dir/name under a temporary name, renamed into place. */
int rep_write_file(const char *dir, const char *name, int (*fn)(const void *ctx, FILE *f), const void *ctx,
                   cdch_err *err);

/* Whether a cell's recorded expectation cites `unexplained`. */
bool rep_cell_unexplained(const cdch_jv *c);
/* Whether a cell passed (or failed) with warnings: consumer errors that explain no finding. */
bool rep_cell_warned(const cdch_jv *c);

#endif
