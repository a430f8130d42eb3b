#!/usr/bin/env bash
# replay.sh BIN SRCDIR — a captured stream replayed through `run` like a scenario (issue 12 item 3;
# scenarios/README.md "Captured streams"):
#   - scenarios/crud-basic.yaml served by `cdcharness serve` (uncompressed) and captured with
#     `cdcharness record`; a scenario `capture: cap` (relative to its file) serves the capture:
#     its compressed stream (recompressed at binlog.zstd_level 3) and uncompressed stream equal
#     `gen`'s of crud-basic byte for byte in expected.jsonl (txn, compressed, positions);
#     flip: compressed from the middle transaction (7 of 13), or capture.flip_at
#   - the fake primary serving the capture answers SHOW CREATE TABLE with schema.sql's text,
#     information_schema.COLUMNS and SHOW FULL COLUMNS from it, SHOW MASTER STATUS from the stream
#   - `cdcharness run` with cdcharness-ref, python-mysql-replication@1.0.17 and
#     go-mysql@v1.16.0+canal in both modes: the same verdicts and finding classes as crud-basic
#     run directly (real consumers must have run: no harness-error); the capture's cells end
#     without a watermark (went idle / every expected row)
#   - a real MySQL 8.0.29 binlog pair (../shared/fixtures/mysql-binlog, replicated-bin.000001/2:
#     GTIDs, a ROTATE, a STOP) taken with `record --from-files` and a schema.sql written by hand
#     from its TABLE_MAPs: exactly its 7 rows expected (column names from schema.sql), the
#     reference consumer passes compressed, uncompressed and flipped
#   - errors: no schema.sql, tables: beside capture:, an unknown column type (file:line)
# Consumers install into $CDCH_CACHE (the harness's default cache when unset). Needs python3 and
# the mariadb client; a missing one fails its checks.
set -u
BIN=$1
SRC=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdch-replay-test.XXXXXX") || exit 1
export BIN WORK
SERVE_QUIET=1
# shellcheck source=tests/clients/serve_lib.sh
. "$SRC/tests/clients/serve_lib.sh"
trap 'serve_stop_all; rm -rf "$WORK"' EXIT
FIX=${CDCH_FIXTURES:-$SRC/../shared/fixtures/mysql-binlog}

check() { # NAME CMD...: CMD's success is the check
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then check_ok "$name"; else check_fail "$name" "$(echo "$out" | tail -5)"; fi
}

# ---- a generated scenario, served and recorded ------------------------------------------------
echo "== record crud-basic from cdcharness serve"
SCENARIO=$SRC/scenarios/crud-basic.yaml SERVE_MODE=uncompressed serve_start crud || exit 1
"$BIN" record --user cdch --password cdch --port "$crud_PORT" --start binlog.000001:4 --until-end --quiet \
    --out "$WORK/cap" 2>"$WORK/record.err"
check "record: the capture has its schema.sql" test -s "$WORK/cap/schema.sql"
stop_pid "$crud_PID"
# what a real primary's SHOW CREATE TABLE has and the fake primary's model does not print: a secondary
# key, a column comment, a table AUTO_INCREMENT; parsed past, and answered verbatim
python3 - "$WORK/cap/schema.sql" <<'EOF'
import sys
p = sys.argv[1]
t = open(p).read()
t = t.replace("`customer_id` int unsigned NOT NULL,", "`customer_id` int unsigned NOT NULL COMMENT 'who, (really)',")
head, orders = t.split("CREATE TABLE `orders`")
t = head + "CREATE TABLE `orders`" + orders.replace(
    "  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT", "  PRIMARY KEY (`id`),\n  KEY `by_customer` (`customer_id`,`status`)\n"
    ") ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT")
open(p, "w").write(t)
EOF
check "schema.sql edited (a key, a comment)" grep -q 'KEY `by_customer`' "$WORK/cap/schema.sql"
cat >"$WORK/crud-cap.yaml" <<'EOF'
# probes: crud-basic as captured from a primary, replayed
description: crud-basic as captured from a primary, replayed
capture: cap
binlog: {compression: both, zstd_level: 3}
EOF
for m in compressed uncompressed; do
    "$BIN" gen "$SRC/scenarios/crud-basic.yaml" --mode $m --out "$WORK/gen-$m" --quiet
    "$BIN" gen "$WORK/crud-cap.yaml" --mode $m --out "$WORK/rep-$m" --quiet 2>"$WORK/rep-$m.err"
    check "$m: expected.jsonl of the capture == gen's of crud-basic (txn, compressed, positions)" \
        cmp "$WORK/gen-$m/expected.jsonl" "$WORK/rep-$m/expected.jsonl"
    check "$m: the served files are gen's but for the FDE flags" \
        python3 -c "import sys; a=open(sys.argv[1],'rb').read(); b=open(sys.argv[2],'rb').read(); \
sys.exit(0 if len(a)==len(b) and a[:21]+a[23:]==b[:21]+b[23:] else 1)" \
        "$WORK/gen-$m/binlog.000001" "$WORK/rep-$m/binlog.000001"
done
check "stream.json: capture, identity, gtid_executed, counts" python3 -c "
import json,sys; s=json.load(open(sys.argv[1])); g=json.load(open(sys.argv[2]))
assert s['capture'].endswith('/cap') and s['mode']=='compressed', s
for k in ('server_version','server_uuid','gtid_mode','gtid_executed','basename','files'): assert s[k]==g[k], k
for k in ('files','bytes','events','inner_events','transactions','compressed_transactions','row_changes'):
    assert s['stats'][k]==g['stats'][k], k" "$WORK/rep-compressed/stream.json" "$WORK/gen-compressed/stream.json"
"$BIN" gen "$WORK/crud-cap.yaml" --mode flip --out "$WORK/rep-flip" --quiet
check "flip: transactions 4-6 plain, 7-13 compressed (the middle one of 13)" python3 -c "
import json,sys; t={}
for l in open(sys.argv[1]): e=json.loads(l); t[e['txn']]=e['compressed']
assert t=={4:False,5:False,6:False,7:True,8:True,9:True,10:True,11:True,12:True,13:True}, t" "$WORK/rep-flip/expected.jsonl"
sed 's/^capture: cap$/capture: {dir: cap, flip_at: 10}/' "$WORK/crud-cap.yaml" >"$WORK/crud-cap10.yaml"
"$BIN" gen "$WORK/crud-cap10.yaml" --mode flip --out "$WORK/rep-flip10" --quiet
check "flip_at: 10: transactions 10.. compressed" python3 -c "
import json,sys; t={}
for l in open(sys.argv[1]): e=json.loads(l); t[e['txn']]=e['compressed']
assert all(c == (k >= 10) for k, c in t.items()) and len(t) == 10, t" "$WORK/rep-flip10/expected.jsonl"

echo "== the catalogue from schema.sql"
SCENARIO=$WORK/crud-cap.yaml SERVE_MODE=compressed serve_start capd || exit 1
q() { mariadb -h127.0.0.1 -P"$capd_PORT" -ucdch -pcdch --skip-ssl -N -B -e "$1" 2>&1; }
python3 - "$WORK/cap/schema.sql" >"$WORK/want-orders.sql" <<'EOF'
import sys, re
t = open(sys.argv[1]).read()
m = re.search(r"CREATE TABLE `orders` \(.*?\n\) [^;]*", t, re.S)
print(m.group(0) if m else "no orders in schema.sql")
EOF
q "SHOW CREATE TABLE shop.orders" | cut -f2- | sed 's/\\n/\n/g' >"$WORK/got-orders.sql"
check "SHOW CREATE TABLE shop.orders: schema.sql's text" diff "$WORK/want-orders.sql" "$WORK/got-orders.sql"
check "information_schema.COLUMNS of shop.customers" test "$(q "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='shop' AND TABLE_NAME='customers' ORDER BY ORDINAL_POSITION" | tr '\t\n' ' |')" = \
    "id int unsigned NO PRI auto_increment|email varchar(120) NO  |name varchar(80) YES  |created datetime NO  |"
check "SHOW FULL COLUMNS FROM shop.orders: status" test "$(q "SHOW FULL COLUMNS FROM shop.orders" | awk -F'\t' '$1=="status"{print $2"/"$3"/"$4}')" = \
    "enum('new','paid','shipped','cancelled')/utf8mb4_0900_ai_ci/NO"
check "SHOW MASTER STATUS: the replayed stream" test "$(q "SHOW MASTER STATUS" | cut -f1,2,5)" = \
    "$(printf 'binlog.000001\t%s\t3e11fa47-71ca-11e1-9e33-c80aa9429562:1-13' "$(stat -c %s "$WORK/rep-compressed/binlog.000001")")"
stop_pid "$capd_PID"

echo "== run: the capture and the scenario, same verdicts"
CONS=(--consumer cdcharness-ref --consumer python-mysql-replication@1.0.17 --consumer go-mysql@v1.16.0+canal)
"$BIN" run "${CONS[@]}" --scenario "$SRC/scenarios/crud-basic.yaml" --report-dir "$WORK/r-gen" --quiet >"$WORK/r-gen.out" 2>&1
"$BIN" run "${CONS[@]}" --scenario "$WORK/crud-cap.yaml" --report-dir "$WORK/r-cap" --quiet >"$WORK/r-cap.out" 2>&1
check "run: 6 cells each, the same verdict and classes per consumer and mode, no harness-error" python3 -c "
import json,sys
def cells(p):
    r = json.load(open(p))
    return {(c['family'], c['version'], c['mode']): (c['verdict'], sorted(c.get('classes') or [])) for c in r['cells']}
g, c = cells(sys.argv[1]), cells(sys.argv[2])
assert len(g) == 6 and g.keys() == c.keys(), (g, c)
bad = {k: (g[k], c[k]) for k in g if g[k] != c[k]}
assert not bad, bad
assert not [k for k in g if g[k][0] == 'harness-error'], g
assert g[('cdcharness-ref', 'builtin', 'compressed')][0] == 'pass' and g[('cdcharness-ref', 'builtin', 'uncompressed')][0] == 'pass'
for k in sorted(g): print(*k, *g[k])" "$WORK/r-gen/report.json" "$WORK/r-cap/report.json"
sed -n '2,7p' "$WORK/r-cap.out" | cut -c1-110

# ---- a real binlog pair from disk, schema.sql written by hand -----------------------------------
echo "== a real MySQL 8.0.29 binlog pair"
mkdir -p "$WORK/fxin"
cp "$FIX/mysql-server-std_data__replicated-bin.000001" "$WORK/fxin/replicated-bin.000001"
cp "$FIX/mysql-server-std_data__replicated-bin.000002" "$WORK/fxin/replicated-bin.000002"
cat >"$WORK/fx-schema.sql" <<'EOF'
-- by hand, from the TABLE_MAPs of replicated-bin.000001/2 (MySQL 8.0.29-debug, MINIMAL metadata):
-- mtr.test_suppressions: VARSTRING(1020) NOT NULL = varchar(255) utf8mb4; test.t1: INT nullable
CREATE DATABASE IF NOT EXISTS `mtr` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci */;
USE `mtr`;
CREATE TABLE `test_suppressions` (
  `pattern` varchar(255) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
CREATE DATABASE IF NOT EXISTS `test`;
USE `test`;
CREATE TABLE `t1` (
  `i` int DEFAULT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
EOF
"$BIN" record --from-files "$WORK"/fxin/replicated-bin.00000[12] --schema "$WORK/fx-schema.sql" --out "$WORK/capfx" \
    --quiet 2>"$WORK/fx-record.err"
printf 'description: a real MySQL 8.0.29 binlog pair\ncapture: capfx\n' >"$WORK/fx.yaml"
"$BIN" gen "$WORK/fx.yaml" --mode compressed --out "$WORK/fx-c" --quiet
check "fixture: its 7 rows, names from schema.sql, GTIDs, compressed, across the rotation" python3 -c "
import json,sys
rows = [json.loads(l) for l in open(sys.argv[1])]
got = [(r['db'], r['table'], r['op'], r['after'], r['gtid'].split(':')[1], r['txn'], r['compressed'], r['pos']['file']) for r in rows]
want = [('mtr', 'test_suppressions', 'insert', {'pattern': 'using --replicate-same-server-id in conjunction with --log-replica-updates would lead to infinite loops in this server.'}, '1', 1, True, 'replicated-bin.000001')]
want += [('test', 't1', 'insert', {'i': i}, str(i + 2), i + 2, True, 'replicated-bin.00000%d' % (1 if i <= 3 else 2)) for i in range(1, 7)]
assert got == want, got" "$WORK/fx-c/expected.jsonl"
"$BIN" decode --canonical --scenario "$WORK/fx.yaml" "$WORK"/fxin/replicated-bin.00000[12] >"$WORK/fx-orig.jsonl" 2>/dev/null
check "fixture: the same rows as the original files' canonical decode (but pos, compressed)" python3 -c "
import json,sys
def rows(p): return [{k: v for k, v in json.loads(l).items() if k not in ('pos', 'compressed')} for l in open(p)]
assert rows(sys.argv[1]) == rows(sys.argv[2])" "$WORK/fx-orig.jsonl" "$WORK/fx-c/expected.jsonl"
"$BIN" run --consumer cdcharness-ref --scenario "$WORK/fx.yaml" --report-dir "$WORK/r-fx" --quiet >"$WORK/r-fx.out" 2>&1
check "fixture: cdcharness-ref passes compressed and uncompressed (run exit 0)" python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))
v = sorted((c['mode'], c['verdict'], c['expected_rows'], c['observed_rows']) for c in r['cells'])
assert v == [('compressed','pass',7,7), ('uncompressed','pass',7,7)], v" "$WORK/r-fx/report.json"
"$BIN" run --consumer cdcharness-ref --scenario "$WORK/fx.yaml" --mode flip --report-dir "$WORK/r-fxf" --quiet >/dev/null 2>&1
check "fixture: cdcharness-ref passes flipped" grep -q '"verdict":"pass"' "$WORK/r-fxf/report.json"
cat >"$WORK/m.yaml" <<EOF
name: replay
consumers_dirs: [$SRC/consumers]
consumers: [cdcharness-ref]
scenarios: [crud-cap.yaml, fx.yaml]
modes: both
expect: pass
EOF
"$BIN" matrix "$WORK/m.yaml" --report-dir "$WORK/r-m" >"$WORK/r-m.out" 2>&1
check "matrix with both captures: 4 cells pass (exit 0)" grep -q '^4 cell(s): 4 pass, 0 not as expected' "$WORK/r-m.out"

# ---- errors ---------------------------------------------------------------------------------------
echo "== errors"
mkdir -p "$WORK/noschema"
cp "$WORK"/capfx/replicated-bin.* "$WORK/noschema/"
err_is() { # NAME YAML TEXT: gen of YAML fails (exit 1) saying TEXT
    printf '%b' "$2" >"$WORK/e.yaml"
    local out rc
    out=$("$BIN" gen "$WORK/e.yaml" --mode compressed --out "$WORK/e-out" --quiet 2>&1)
    rc=$?
    rm -rf "$WORK/e-out"
    if [ $rc -eq 1 ] && [[ $out == *"$3"* ]]; then check_ok "$1"; else check_fail "$1" "exit $rc: $out"; fi
}
err_is "no schema.sql" 'capture: noschema\n' "noschema/schema.sql: cannot open"
err_is "tables: beside capture:" 'capture: capfx\ntables: []\n' "e.yaml:2:9: tables: does not go with capture:"
err_is "binlog.row_image beside capture:" 'capture: capfx\nbinlog: {row_image: FULL}\n' "unknown key 'row_image' in binlog"
err_is "a missing capture directory" 'capture: nowhere\n' "nowhere: No such file or directory (the path is relative to the scenario file's folder)"
printf 'USE `x`;\nCREATE TABLE `t` (\n  `a` intt NOT NULL\n);\n' >"$WORK/noschema/schema.sql"
err_is "an unknown column type: file and line" 'capture: noschema\n' "noschema/schema.sql:3: table x.t, column a: unknown column type 'intt'"

summary
