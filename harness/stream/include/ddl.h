/* ddl.h — SQL text for a scenario's schema: CREATE DATABASE and CREATE
 * TABLE statements as MySQL 8 prints them (SHOW CREATE TABLE form), used
 * for the DDL the stream starts with and by the fake primary's catalogue
 * queries.
 *
 * Owns: nothing; appends to the caller's buffer.
 */
#ifndef CDCH_DDL_H
#define CDCH_DDL_H

#include "buf.h"
#include "scenario.h"

void cdch_ddl_create_database(const cdch_sc_database *db, cdch_buf *out);
void cdch_ddl_create_table(const cdch_sc_table *t, cdch_buf *out);
/* Append `name` quoted with backticks (doubling embedded backticks). */
void cdch_ddl_quote(const char *name, cdch_buf *out);

#endif
