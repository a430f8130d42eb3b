#!/usr/bin/env bash
# replay_ddl.sh BIN SRCDIR — DDL inside a captured range (scenarios/README.md "Captured streams",
# "Schema changes inside the range"): the replay's expected events name the columns as a consumer
# that follows the stream's DDL does (harness/scenario ddltrack.h, used by stream/canon.c), while the
# fake primary's catalogue stays the capture's start schema (schema.sql).
#   - the tables-created-in-range repro: t1 in schema.sql, t2 created by the range, rows in both:
#     t2's row is {"k":7,"w":"y"}, not {"@1":7,"@2":"y"}
#   - a range with CREATE TABLE then insert; ALTER TABLE ADD COLUMN ... AFTER (INT UNSIGNED: its
#     signedness from the DDL) and a partitioning clause, then insert; RENAME then insert under the
#     new name; DROP + CREATE with other columns (as many) then insert; CREATE + ALTER CHANGE/DROP/
#     ADD ... FIRST then insert; an ALTER not followed (CONVERT TO CHARACTER SET) on a table created
#     in the range (forgotten: "@1", "@2") and on one of schema.sql (falls back to schema.sql's names,
#     the column count matching); MODIFY of a schema.sql ENUM to other members then insert (the
#     label from the DDL: "y", not schema.sql's "b" at the same index); exact expected.jsonl lines,
#     gen and decode never fail on DDL
#   - the replay's rows equal the generated scenario's own expected rows (which know the final
#     tables) but for the one forgotten table; cdcharness-ref passes the replay in both modes
#   - SHOW TABLES of the fake primary serving the replay: schema.sql's tables only
# Streams are built with `gen` (ddl: items, create_tables: false) and taken with `record
# --from-files` and a hand-written start schema. Needs python3 and the mariadb client.
set -u
BIN=$1
SRC=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdch-replay-ddl-test.XXXXXX") || exit 1
export BIN WORK
SERVE_QUIET=1
# shellcheck source=tests/clients/serve_lib.sh
. "$SRC/tests/clients/serve_lib.sh"
trap 'serve_stop_all; rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

check() { # NAME CMD...: CMD's success is the check
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then check_ok "$name"; else check_fail "$name" "$(echo "$out" | tail -8)"; fi
}
# same_lines NAME WANT_FILE GOT_FILE: byte for byte, the difference shown otherwise
same_lines() { check "$1" diff "$2" "$3"; }

# ---- the repro: a table created inside the range --------------------------------------------
echo "== a table created inside the range"
mkdir repro && cd repro || exit 1
cat >s.yaml <<'EOF'
description: tables created in range
server: {version: "8.0.36"}
binlog: {compression: both}
tables:
  - name: a.t1
    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]
  - name: a.t2
    columns: [{name: k, type: int, primary_key: true}, {name: w, type: varchar(20)}]
transactions:
  - insert: {table: a.t1, rows: [{id: 1, v: x}]}
  - insert: {table: a.t2, rows: [{k: 7, w: y}]}
EOF
"$BIN" gen s.yaml --mode compressed --quiet --out g
printf 'CREATE DATABASE IF NOT EXISTS `a`;\nUSE `a`;\nCREATE TABLE `t1` (\n  `id` int NOT NULL,\n  `v` varchar(20) DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB;\n' >schema1.sql
"$BIN" record --from-files g/binlog.000001 --schema schema1.sql --out cap --quiet
printf 'description: replay\ncapture: cap\nbinlog: {compression: both}\n' >r.yaml
"$BIN" gen r.yaml --mode compressed --quiet --out rg
cat >want.jsonl <<'EOF'
{"op":"insert","db":"a","table":"t1","before":null,"after":{"id":1,"v":"x"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:4","pos":{"file":"binlog.000001","pos":1316},"txn":4,"compressed":true}
{"op":"insert","db":"a","table":"t2","before":null,"after":{"k":7,"w":"y"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:5","pos":{"file":"binlog.000001","pos":1556},"txn":5,"compressed":true}
EOF
same_lines "repro: t2 (created in the range) has its column names" want.jsonl rg/expected.jsonl
same_lines "repro: the replay expects what gen of the scenario does" g/expected.jsonl rg/expected.jsonl
cd "$WORK" || exit 1

# ---- CREATE / ALTER / RENAME / DROP inside the range -----------------------------------------
echo "== CREATE, ALTER, RENAME, DROP inside the range"
mkdir range && cd range || exit 1
# the tables as they are when their rows are written (what the generator needs)
cat >s.yaml <<'EOF'
description: DDL inside the captured range
server: {version: "8.0.36"}   # the positions below are an 8.0 FORMAT_DESCRIPTION's (41 post-header lengths)
binlog: {compression: both, create_tables: false}
tables:
  - name: a.t1
    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]
  - name: a.t2
    columns: [{name: k, type: int, primary_key: true}, {name: w, type: varchar(20)}]
  - name: a.t3
    columns: [{name: id, type: int, primary_key: true}, {name: extra, type: int unsigned}, {name: v, type: varchar(20)}]
  - name: a.t4b
    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]
  - name: a.t5
    columns: [{name: x, type: int, primary_key: true}, {name: y, type: varchar(10)}]
  - name: a.t6
    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]
  - name: a.t7
    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]
  - name: a.t8
    columns: [{name: c, type: varchar(5), nullable: false}, {name: a, type: int, primary_key: true}, {name: b2, type: bigint unsigned}]
  - name: a.t9
    columns: [{name: id, type: int, primary_key: true}, {name: e, type: "enum('x','y','z')"}]
transactions:
  - insert: {table: a.t1, rows: [{id: 1, v: x}]}
  - ddl: {db: a, sql: "CREATE TABLE t2 (k int NOT NULL, w varchar(20), PRIMARY KEY (k))"}
  - insert: {table: a.t2, rows: [{k: 7, w: y}]}
  - ddl: {db: a, sql: "ALTER TABLE t3 ADD COLUMN extra int unsigned AFTER id"}
  - ddl: {db: a, sql: "ALTER TABLE `a`.`t3` PARTITION BY KEY (id) PARTITIONS 2"}
  - insert: {table: a.t3, rows: [{id: 1, extra: 4294967295, v: x}]}
  - ddl: {db: a, sql: "RENAME TABLE t4 TO t4b"}
  - insert: {table: a.t4b, rows: [{id: 2, v: z}]}
  - ddl: {db: a, sql: "DROP TABLE `t5` /* generated by server */"}
  - ddl: {db: a, sql: "CREATE TABLE `t5` (`x` int NOT NULL, `y` varchar(10) DEFAULT NULL, PRIMARY KEY (`x`)) ENGINE=InnoDB"}
  - insert: {table: a.t5, rows: [{x: 3, y: q}]}
  - ddl: {db: a, sql: "CREATE TABLE t6 (id int PRIMARY KEY, v varchar(20))"}
  - ddl: {db: a, sql: "ALTER TABLE t6 CONVERT TO CHARACTER SET latin1"}
  - insert: {table: a.t6, rows: [{id: 4, v: p}]}
  - ddl: {db: a, sql: "ALTER TABLE t7 ENGINE=InnoDB, CONVERT TO CHARACTER SET utf8mb4"}
  - insert: {table: a.t7, rows: [{id: 5, v: r}]}
  - ddl: {db: a, sql: "CREATE TABLE t8 (a int NOT NULL PRIMARY KEY, b int, d int)"}
  - ddl: {db: a, sql: "ALTER TABLE t8 CHANGE COLUMN b b2 bigint unsigned, DROP COLUMN d, ADD COLUMN c varchar(5) NOT NULL DEFAULT '' FIRST, ALGORITHM=INPLACE"}
  - insert: {table: a.t8, rows: [{c: s, a: 6, b2: 18446744073709551615}]}
  - ddl: {db: a, sql: "ALTER TABLE t9 MODIFY e enum('x','y','z')"}
  - insert: {table: a.t9, rows: [{id: 9, e: y}]}
EOF
# the schema as of the start of the range
cat >start.sql <<'EOF'
CREATE DATABASE IF NOT EXISTS `a`;
USE `a`;
CREATE TABLE `t1` (`id` int NOT NULL, `v` varchar(20) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
CREATE TABLE `t3` (`id` int NOT NULL, `v` varchar(20) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
CREATE TABLE `t4` (`id` int NOT NULL, `v` varchar(20) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
CREATE TABLE `t5` (`id` int NOT NULL, `v` varchar(20) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
CREATE TABLE `t7` (`id` int NOT NULL, `v` varchar(20) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
CREATE TABLE `t9` (`id` int NOT NULL, `e` enum('a','b') DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
EOF
check "gen of the DDL scenario" "$BIN" gen s.yaml --mode uncompressed --quiet --out g
check "record --from-files with the start schema" "$BIN" record --from-files g/binlog.000001 --schema start.sql \
    --out cap --quiet
printf 'description: a range with DDL, replayed\ncapture: cap\n' >r.yaml
check "gen of the replay (DDL never fails it)" "$BIN" gen r.yaml --mode both --quiet --out rg
cat >want.jsonl <<'EOF'
{"op":"insert","db":"a","table":"t1","before":null,"after":{"id":1,"v":"x"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:1","pos":{"file":"binlog.000001","pos":394},"txn":1,"compressed":true}
{"op":"insert","db":"a","table":"t2","before":null,"after":{"k":7,"w":"y"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:3","pos":{"file":"binlog.000001","pos":857},"txn":3,"compressed":true}
{"op":"insert","db":"a","table":"t3","before":null,"after":{"id":1,"extra":4294967295,"v":"x"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:6","pos":{"file":"binlog.000001","pos":1527},"txn":6,"compressed":true}
{"op":"insert","db":"a","table":"t4b","before":null,"after":{"id":2,"v":"z"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:8","pos":{"file":"binlog.000001","pos":1947},"txn":8,"compressed":true}
{"op":"insert","db":"a","table":"t5","before":null,"after":{"x":3,"y":"q"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:11","pos":{"file":"binlog.000001","pos":2647},"txn":11,"compressed":true}
{"op":"insert","db":"a","table":"t6","before":null,"after":{"@1":4,"@2":"p"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:14","pos":{"file":"binlog.000001","pos":3303},"txn":14,"compressed":true}
{"op":"insert","db":"a","table":"t7","before":null,"after":{"id":5,"v":"r"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:16","pos":{"file":"binlog.000001","pos":3765},"txn":16,"compressed":true}
{"op":"insert","db":"a","table":"t8","before":null,"after":{"c":"s","a":6,"b2":"18446744073709551615"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:19","pos":{"file":"binlog.000001","pos":4520},"txn":19,"compressed":true}
{"op":"insert","db":"a","table":"t9","before":null,"after":{"id":9,"e":"y"},"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:21","pos":{"file":"binlog.000001","pos":4954},"txn":21,"compressed":true}
EOF
same_lines "compressed: every table's names as its DDL left them; t6 forgotten (@N), t7 schema.sql's" \
    want.jsonl rg/compressed/expected.jsonl
check "uncompressed: the same rows" python3 -c "
import json,sys
def rows(p): return [(r['txn'], r['table'], r['before'], r['after']) for r in map(json.loads, open(p))]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a == b and len(a) == 9, (a, b)" rg/compressed/expected.jsonl rg/uncompressed/expected.jsonl
check "the replay's rows == the generated scenario's (it knows the final tables) but t6's" python3 -c "
import json,sys
def rows(p): return [(r['txn'], r['table'], r['after']) for r in map(json.loads, open(p))]
g, r = rows(sys.argv[1]), rows(sys.argv[2])
diff = [(x, y) for x, y in zip(g, r) if x != y]
assert len(g) == len(r) == 9 and diff == [((14, 't6', {'id': 4, 'v': 'p'}), (14, 't6', {'@1': 4, '@2': 'p'}))], diff
" g/expected.jsonl rg/compressed/expected.jsonl
"$BIN" decode --canonical cap/binlog.000001 >nosc.jsonl 2>nosc.err
check "decode --canonical without --scenario: the stream's tables named, the start schema's @N" python3 -c "
import json,sys
got = {r['table']: sorted(r['after']) for r in map(json.loads, open(sys.argv[1]))}
assert got == {'t1': ['@1', '@2'], 't2': ['k', 'w'], 't3': ['@1', '@2', '@3'], 't4b': ['@1', '@2'],
               't5': ['x', 'y'], 't6': ['@1', '@2'], 't7': ['@1', '@2'], 't8': ['a', 'b2', 'c'], 't9': ['@1', '@2']}, got
" nosc.jsonl
"$BIN" run --consumer cdcharness-ref --scenario r.yaml --report-dir rep --quiet >run.out 2>&1
check "run: cdcharness-ref passes the replay in both modes" python3 -c "
import json,sys; r = json.load(open(sys.argv[1]))
v = sorted((c['mode'], c['verdict'], c['expected_rows'], c['observed_rows']) for c in r['cells'])
assert v == [('compressed', 'pass', 9, 9), ('uncompressed', 'pass', 9, 9)], v" rep/report.json

echo "== the catalogue stays the start schema"
SCENARIO=$WORK/range/r.yaml SERVE_MODE=compressed serve_start cat || exit 1
got=$(mariadb -h127.0.0.1 -P"$cat_PORT" -ucdch -pcdch --skip-ssl -N -B -e "SHOW TABLES FROM a" 2>&1 | tr '\n' ' ')
check "SHOW TABLES FROM a: schema.sql's t1 t3 t4 t5 t7 t9 (not the range's t2 t4b t6 t8)" test "$got" = "t1 t3 t4 t5 t7 t9 "
[ "$got" = "t1 t3 t4 t5 t7 t9 " ] || echo "       got: $got"
stop_pid "$cat_PID"

summary
