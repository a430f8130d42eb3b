#!/bin/sh
# Reference consumer adapter: decode the stream's files with the cdcharness
# binary that runs the harness, print canonical change events (design.md s.4).
# Environment (consumers/README.md): CDCH_BIN, CDCH_SCENARIO (column names and
# ENUM/SET labels when the TABLE_MAPs carry no FULL metadata and no CREATE/ALTER
# TABLE read earlier in the stream defines the table), CDCH_BINLOG_FILES,
# CDCH_START_FILE/CDCH_START_POS (where a replica would start).
set -eu
: "${CDCH_BIN:?CDCH_BIN not set (the harness sets it)}"
: "${CDCH_BINLOG_FILES:?CDCH_BINLOG_FILES not set (source: files)}"
printf '{"kind":"ready"}\n'
start=
if [ -n "${CDCH_START_FILE:-}" ]; then
    start="${CDCH_START_FILE}:${CDCH_START_POS:-4}"
fi
# CDCH_BINLOG_FILES is space-separated: split on purpose
# shellcheck disable=SC2086
exec "$CDCH_BIN" decode --canonical ${CDCH_SCENARIO:+--scenario "$CDCH_SCENARIO"} ${start:+--start "$start"} $CDCH_BINLOG_FILES
