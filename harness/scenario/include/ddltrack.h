/* ddltrack.h — table definitions followed through a binlog stream's DDL,
 * as a consumer that tracks DDL from the stream does (Debezium's schema
 * history, Canal's table meta, Maxwell's schema store, python-mysql-
 * replication with its catalogue ...): the reference consumer (stream
 * canon.h) names a row's columns from them.
 *
 * Followed, from plain QUERY events (DDL is never inside a
 * TRANSACTION_PAYLOAD), with the event's database as the default one:
 *   CREATE TABLE [IF NOT EXISTS] [db.]t (columns ...) [options]
 *                                     the definition, read as schema.sql is
 *                                     (scenarios/README.md "Captured streams")
 *   CREATE TABLE [IF NOT EXISTS] t LIKE u, t (LIKE u)
 *   RENAME TABLE a TO b [, c TO d]...  ALTER TABLE a RENAME [TO|AS] b
 *   DROP TABLE [IF EXISTS] a [, b]...
 *   ALTER TABLE t: ADD [COLUMN] def [FIRST | AFTER c], ADD [COLUMN] (def, ...),
 *                  DROP [COLUMN] c, MODIFY [COLUMN] def [FIRST | AFTER c],
 *                  CHANGE [COLUMN] old def [FIRST | AFTER c], RENAME COLUMN a TO b,
 *                  ALTER [COLUMN] c SET DEFAULT v | DROP DEFAULT | SET [IN]VISIBLE,
 *                  ADD / DROP PRIMARY KEY, [DEFAULT] CHARSET / COLLATE (the
 *                  table's default for later columns), ENGINE; and items that
 *                  change no column (indexes, constraints, ALGORITHM, LOCK,
 *                  COMMENT and the other table options)
 *   CREATE / ALTER / DROP DATABASE     the default charset a new table takes
 * A table's first change starts from the start schema's definition (the
 * scenario's tables: schema.sql for a capture). Any other change of a table
 * (an ALTER item not listed, partitioning, CONVERT TO CHARACTER SET, CREATE
 * TABLE ... SELECT, a statement that does not parse, a column that is not
 * there) is not guessed: the table's definition is forgotten until a CREATE
 * TABLE defines it again, and the caller falls back to what it knew without
 * the stream. Nothing here ever fails.
 *
 * Owns: the tracker, and in one arena every definition it learned (freed by
 * cdch_ddl_tracker_free). Definitions copied from the start scenario share
 * its strings: the scenario must outlive the tracker.
 */
#ifndef CDCH_DDLTRACK_H
#define CDCH_DDLTRACK_H

#include <stddef.h>

#include "arena.h"
#include "err.h"
#include "scenario.h"

/* Parse one CREATE TABLE statement (column list form; SHOW CREATE TABLE output or as
 * written, as schema.sql is read) into *out, everything allocated in a. db: the default
 * database for an unqualified name (NULL: none). dbs[0..ndbs): the databases' default
 * charsets (a table without DEFAULT CHARSET takes its database's, utf8mb4 for a database
 * not listed; a column without one takes its table's). Returns 0, or -1 with a plain
 * message in err ("table a.t, column c: unknown column type 'intt'"). */
int cdch_sc_parse_create_table(const char *sql, size_t len, const char *db, const cdch_sc_database *dbs,
                               size_t ndbs, cdch_arena *a, cdch_sc_table *out, cdch_err *err);

typedef struct cdch_ddl_tracker cdch_ddl_tracker;

/* A tracker whose schema starts as start's databases and tables (NULL: none known). */
cdch_ddl_tracker *cdch_ddl_tracker_new(const cdch_scenario *start);
void cdch_ddl_tracker_free(cdch_ddl_tracker *t); /* accepts NULL */

/* Follow one QUERY event's statement: db[0..dblen) its default database (may be empty),
 * sql[0..len) its text. Statements that change no table definition (BEGIN, DML, GRANT,
 * CREATE INDEX ...) are ignored. */
void cdch_ddl_tracker_query(cdch_ddl_tracker *t, const char *db, size_t dblen, const char *sql, size_t len);

/* The definition of db.name learned from the stream's DDL, NULL when the stream has not
 * defined it (never changed since the start, dropped, or forgotten): the caller then uses
 * what it knows without the stream. */
const cdch_sc_table *cdch_ddl_tracker_table(const cdch_ddl_tracker *t, const char *db, const char *name);

/* Statements not understood so far (a table forgotten each), and the last one's reason. */
size_t cdch_ddl_tracker_forgotten(const cdch_ddl_tracker *t, const char **last_reason);

#endif
