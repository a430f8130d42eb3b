/* fuzz_scenario.c — libFuzzer target for the YAML scenario loader.
 *
 * The input is a scenario file's text: cdch_scenario_load_mem parses it
 * (libyaml), validates it and builds the model (types, values, GTIDs,
 * bulk items, faults). A load error is expected; a crash, sanitizer
 * report, leak or abort is a bug. A scenario that loads must also be
 * findable table by table (cdch_scenario_table over what it built), and
 * the first two transactions of each bulk item are generated, at most 64
 * rows of values of at most 4 KiB each (the values the loader accepted go
 * through the bulk value generators).
 */
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load_mem((const char *)data, size, "fuzz.yaml", &err);
    if (!s)
        return 0;
    for (size_t i = 0; i < s->ntables; i++)
        (void)cdch_scenario_table(s, s->tables[i].db, s->tables[i].name);
    for (size_t i = 0; i < s->nitems; i++) {
        if (s->items[i].kind != CDCH_SC_ITEM_BULK)
            continue;
        /* the generators run the same code for every row: 64 rows a transaction keep a unit within
         * milliseconds (a json_staging item of 4000 rows of 40 keys of 200 bytes took 1.4 CPU-s,
         * and a libFuzzer timeout under load) */
        cdch_sc_bulk b = s->items[i].u.bulk;
        if (b.rows_per_txn > 64)
            b.rows_per_txn = 64;
        if (b.keys > 64)
            b.keys = 64;
        if (b.value_bytes > 4096) /* 18 rows of 1 MiB random blobs took 1.6 s */
            b.value_bytes = 4096;
        cdch_bulk_cursor *bc = cdch_bulk_start(s, &b);
        cdch_sc_txn txn;
        for (int k = 0; k < 2 && cdch_bulk_next(bc, &txn) == 1; k++) {
        }
        cdch_bulk_free(bc);
    }
    cdch_scenario_free(s);
    return 0;
}
