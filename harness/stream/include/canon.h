/* canon.h — decoded binlog events -> canonical change events (design.md
 * section 4), the form adapters print and expected.jsonl holds. This is the
 * harness's own reference consumer: it reads a stream the way a correct CDC
 * consumer must (payloads unwrapped, table maps kept across inner events,
 * partial JSON updates applied) and prints, per row change,
 *   {"op","db","table","before","after","gtid","pos":{"file","pos"},"txn","compressed"}
 * with pos = the end position of the transaction (what a consumer should
 * checkpoint), txn = 1-based transaction number, compressed = the row came
 * from inside a TRANSACTION_PAYLOAD. Lines are released when the
 * transaction ends (XID, or QUERY COMMIT for non-transactional tables).
 *
 * Owns: the cdch_canon state (pending lines of the open transaction, GTID,
 * counters). Column names, ENUM/SET labels and signedness come from the
 * TABLE_MAP's optional metadata, or from a scenario's schema when one is
 * given (a consumer with catalogue access knows them the same way).
 */
#ifndef CDCH_CANON_H
#define CDCH_CANON_H

#include "buf.h"
#include "err.h"
#include "event.h"
#include "scenario.h"

typedef struct cdch_canon cdch_canon;

cdch_canon *cdch_canon_new(const cdch_scenario *schema /* NULL: TABLE_MAP metadata only */);
void cdch_canon_free(cdch_canon *c);

/* Feed one decoded top-level event of file `file` (a name like
 * "binlog.000001"). Completed transactions' lines are appended to out. */
int cdch_canon_event(cdch_canon *c, const char *file, const cdch_event *ev, cdch_buf *out, cdch_err *err);

#endif
