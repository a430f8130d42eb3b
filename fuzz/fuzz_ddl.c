/* fuzz_ddl.c — libFuzzer target for the DDL tracker (harness/scenario
 * ddltrack.h), which reads the statements of a binlog's QUERY events: text
 * from the stream, untrusted.
 *
 * The input is a sequence of statements separated by NUL bytes, each
 * "db\x01sql" (no \x01: the default database is empty); all go to one
 * tracker in order, so CREATE / ALTER / RENAME / DROP chains are exercised.
 * After each statement every table named so far in the input is looked up
 * and its columns read. Nothing may crash, leak or trip a sanitizer; the
 * tracker never fails by design.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ddltrack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(const cdch_ddl_tracker *t, const char *db, const char *name)
{
    const cdch_sc_table *st = cdch_ddl_tracker_table(t, db, name);
    if (!st)
        return;
    volatile size_t sum = 0;
    for (size_t i = 0; i < st->ncols; i++)
        sum += (st->cols[i].name ? strlen(st->cols[i].name) : 0) + st->cols[i].def.type + st->cols[i].def.nlabels;
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cdch_ddl_tracker *t = cdch_ddl_tracker_new(NULL);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *stmt_end = memchr(p, '\0', (size_t)(end - p));
        if (!stmt_end)
            stmt_end = end;
        const char *sep = memchr(p, '\x01', (size_t)(stmt_end - p));
        const char *db = sep ? p : "", *sql = sep ? sep + 1 : p;
        size_t dblen = sep ? (size_t)(sep - p) : 0;
        cdch_ddl_tracker_query(t, db, dblen, sql, (size_t)(stmt_end - sql));
        /* the names the fuzzer likes to use, and the seeds' */
        static const char *const names[][2] = {{"d", "t"}, {"d", "u"}, {"a", "t1"}, {"a", "t2"}, {"", "t"}};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            touch(t, names[i][0], names[i][1]);
        p = stmt_end + 1;
    }
    const char *why = NULL;
    (void)cdch_ddl_tracker_forgotten(t, &why);
    cdch_ddl_tracker_free(t);
    return 0;
}
