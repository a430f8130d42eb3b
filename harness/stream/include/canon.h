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
 * counters, the DDL tracker and its definitions).
 *
 * Column names, ENUM/SET labels, collations and the other column attributes
 * come, for each rows event's table, from the first of:
 *   1. the table's definition learned from the stream's DDL (ddltrack.h: plain
 *      QUERY events' CREATE TABLE [LIKE], ALTER TABLE column changes and
 *      RENAME, RENAME TABLE, DROP TABLE, CREATE/ALTER/DROP DATABASE), as a
 *      consumer that tracks DDL from the stream knows it. A table the DDL
 *      changed in a way not followed (CONVERT TO CHARACTER SET, CREATE TABLE
 *      ... SELECT, a statement that does not parse ...) has none until a
 *      CREATE TABLE defines it again;
 *   2. else the scenario's table, when a scenario is given (its `tables:`, a
 *      capture's schema.sql: the schema at the start of the stream, as a
 *      consumer with catalogue access knows it);
 * used only when its column count is the TABLE_MAP's; else the TABLE_MAP's
 * optional metadata (binlog_row_metadata=FULL), else "@1", "@2" ... Values
 * are decoded with the TABLE_MAP's types and signedness.
 */
#ifndef CDCH_CANON_H
#define CDCH_CANON_H

#include "buf.h"
#include "err.h"
#include "event.h"
#include "scenario.h"

typedef struct cdch_canon cdch_canon;

/* schema: the tables at the start of the stream (NULL: none; the stream's DDL
 * and TABLE_MAP metadata only); it must outlive the cdch_canon. NULL when out
 * of memory. */
cdch_canon *cdch_canon_new(const cdch_scenario *schema);
void cdch_canon_free(cdch_canon *c);

/* Feed one decoded top-level event of file `file` (a name like
 * "binlog.000001"). Completed transactions' lines are appended to out. */
int cdch_canon_event(cdch_canon *c, const char *file, const cdch_event *ev, cdch_buf *out, cdch_err *err);

#endif
