/* watermark.h — the runner's end-of-stream marker.
 *
 * A consumer that silently skips compressed transactions gives no sign of
 * having finished: without a marker the harness can only wait for the
 * stream to go idle. So the runner appends to each scenario one last
 * transaction that every consumer sees whatever it does with type 40: an
 * INSERT into a MyISAM table `<first database>.cdch_watermark (id INT
 * PRIMARY KEY, mark VARCHAR(16))` (non-transactional: MySQL never
 * compresses it) of the row (1, 'end'). Its row is
 * an expected event like any other; once a consumer has emitted it, every
 * earlier event it was going to emit has arrived, and the cell stops after
 * a short grace. The scenario file itself is not changed: a copy with the
 * table and the insert appended is written and loaded (and handed to
 * adapters as CDCH_SCENARIO).
 *
 * Owns: nothing (writes the copy to the caller's path).
 */
#ifndef CDCH_WATERMARK_H
#define CDCH_WATERMARK_H

#include "err.h"

#define CDCH_WATERMARK_TABLE "cdch_watermark"

/* Copy scenario file `path` to `out_path` with the watermark table (in
 * database db) added to `tables:` and its insert appended to
 * `transactions:`. */
int cdch_watermark_write(const char *path, const char *db, const char *out_path, cdch_err *err);

#endif
