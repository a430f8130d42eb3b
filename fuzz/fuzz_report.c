/* fuzz_report.c — libFuzzer target for the report merge input.
 *
 * The input is a report.json text (what `cdcharness report merge` reads
 * from each shard): rep_doc_add parses it and collects its cells; then the
 * cells are sorted (both with and without the overlap check a merge uses)
 * and every renderer runs — report.json again, junit.xml, summary.md and
 * report.html — into /dev/null. The input is also added twice to one
 * document, as a merge of two shards. Errors are expected; a crash,
 * sanitizer report, leak or abort is a bug.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "report_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void)
{
    static FILE *f;
    if (!f && !(f = fopen("/dev/null", "w")))
        abort();
    return f;
}

static void render(rep_doc *d, bool reject_overlap)
{
    cdch_err err;
    if (rep_doc_sort(d, reject_overlap, &err) != 0)
        return;
    FILE *f = sink();
    rep_doc_write_json(d, f);
    rep_render_junit(d, f);
    rep_render_markdown(d, f);
    rep_render_html(d, f);
    fflush(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cdch_err err;
    rep_doc d;
    rep_doc_init(&d);
    if (rep_doc_add(&d, (const char *)data, size, "fuzz/report.json", NULL, &err) == 0)
        render(&d, false);
    rep_doc_free(&d);

    rep_doc_init(&d);
    if (rep_doc_add(&d, (const char *)data, size, "shard1/report.json", NULL, &err) == 0 &&
        rep_doc_add(&d, (const char *)data, size, "shard2/report.json", NULL, &err) == 0) {
        d.merged = true;
        render(&d, true);
    }
    rep_doc_free(&d);
    return 0;
}
