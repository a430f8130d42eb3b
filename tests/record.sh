#!/usr/bin/env bash
# record.sh BIN SRCDIR — `cdcharness record` against the fake primary (`cdcharness serve`, which
# speaks the real replication protocol) and from files. `cdcharness gen` writes the files `serve`
# serves, so every capture is compared with them (tests/record_check.py):
#   - from the start by position, --until-end, TLS REQUIRED + caching_sha2_password (full path
#     over TLS in the server's log), across rotations (scenarios/rotation.yaml: 16 files): identical
#   - --gtid-set '' (COM_BINLOG_DUMP_GTID) identical; --gtid-set UUID:1-250: exactly the served
#     events, transactions 251.. only
#   - from a mid-file position to a --stop position two files later: magic + FDE as sent + the range
#   - --max-bytes and --duration (blocking dump, heartbeats): end at a transaction boundary
#   - --ssl-mode DISABLED: caching_sha2 full path by RSA key exchange, no TLS in capture.json;
#     VERIFY_IDENTITY against a certificate of a test CA (and refused with another CA / host name)
#   - faults: a connection cut mid-event (serve --drop-after-bytes, --faults-once), a corrupt CRC
#     and the scenario faults of scenarios/restart-mid-payload.yaml resume and stay identical; a
#     server that cuts every dump makes the capture fail clearly after --retries (exit 1,
#     capture.json "complete": false with the end reached); a --stop inside an event fails clearly
#   - --from-files: identical copy; a flipped byte and a truncated file are refused by name
#   - the password is nowhere in capture.json; usage errors exit 2
set -u
BIN=$1
SRC=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdch-record-test.XXXXXX") || exit 1
export BIN WORK
SERVE_QUIET=1
# shellcheck source=tests/clients/serve_lib.sh
. "$SRC/tests/clients/serve_lib.sh"
CHECK="python3 $SRC/tests/record_check.py"
trap 'serve_stop_all; rm -rf "$WORK"' EXIT

# check NAME CMD...: CMD's success is the check (its output indented)
check() {
    local name=$1
    shift
    local out
    if out=$("$@" 2>&1); then
        check_ok "$name"
    else
        check_fail "$name" "$(echo "$out" | tail -5)"
    fi
}

# rec NAME ARGS...: record into $WORK/NAME (stderr in $WORK/NAME.err); sets REC_RC
# (the password: --password $PW, or with PW_ENV=1 only in $CDCH_PASSWORD)
PW=cdch
rec() {
    local name=$1
    shift
    rm -rf "${WORK:?}/$name"
    if [ -n "${PW_ENV:-}" ]; then
        CDCH_PASSWORD=$PW "$BIN" record --user cdch --quiet --out "$WORK/$name" "$@" 2>"$WORK/$name.err"
    else
        "$BIN" record --user cdch --password "$PW" --quiet --out "$WORK/$name" "$@" 2>"$WORK/$name.err"
    fi
    REC_RC=$?
}

expect_rc() { # NAME WANT: the last rec's exit status
    if [ "$REC_RC" -eq "$2" ]; then
        check_ok "$1 (exit $2)"
    else
        check_fail "$1" "exit $REC_RC, want $2: $(tail -3 "$WORK/$1.err")"
    fi
}

err_has() { # NAME TEXT
    if grep -qF -- "$2" "$WORK/$1.err"; then check_ok "$1: says '$2'"; else check_fail "$1: says '$2'" "$(cat "$WORK/$1.err")"; fi
}

json_is() { # NAME PYEXPR: capture.json as c
    if python3 -c "import json,sys; c=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$WORK/$1/capture.json"; then
        check_ok "$1: capture.json $2"
    else
        check_fail "$1: capture.json $2" "$(head -c 600 "$WORK/$1/capture.json")"
    fi
}

UUID=3e11fa47-71ca-11e1-9e33-c80aa9429562
ROT=$SRC/scenarios/rotation.yaml
"$BIN" gen "$ROT" --mode compressed --quiet --out "$WORK/gen" || { echo "gen failed"; exit 1; }
PW=Pw-h10-secret
SCENARIO=$ROT SERVE_MODE=compressed serve_start rot --password "$PW" || exit 1

echo "== by position, TLS, caching_sha2, rotations"
rec pos --port "$rot_PORT" --ssl-mode REQUIRED --start mysql-bin.000001:4 --until-end
expect_rc pos 0
check "pos: files identical to what was served" $CHECK identical "$WORK/gen" "$WORK/pos"
json_is pos 'c["server"]["tls"] and c["server"]["version"] == "8.0.36" and c["options"][:2] == ["--user", "cdch"]'
check "pos: the password is in no file of the capture" bash -c "! grep -rqF -- '$PW' '$WORK/pos'"
check "pos: the server saw caching_sha2 full authentication over TLS" log_has rot "caching_sha2_password full authentication over TLS"
check "pos: schema.sql has the table" grep -q 'CREATE TABLE `counters`' "$WORK/pos/schema.sql"
json_is pos 'c["tables_scanned"] is False and c["tables"] is None'

echo "== by GTID set"
PW_ENV=1 rec gtid_all --port "$rot_PORT" --gtid-set '' --until-end
expect_rc gtid_all 0
check "gtid_all: files identical" $CHECK identical "$WORK/gen" "$WORK/gtid_all"
rec gtid250 --port "$rot_PORT" --gtid-set "$UUID:1-250" --until-end
expect_rc gtid250 0
check "gtid250: exactly the served events of transactions 251.." $CHECK gtid "$WORK/gen" "$WORK/gtid250" "$UUID" 250

echo "== a range: mid-file start, --stop two files later"
read -r p0 < <($CHECK boundaries "$WORK/gen/mysql-bin.000003" | awk '$3 == 33 {n++} n == 3 && !d {print $1; d = 1}')
read -r p1 < <($CHECK boundaries "$WORK/gen/mysql-bin.000005" | awk '$3 == 33 {n++} n == 5 && !d {print $1; d = 1}')
rec range --port "$rot_PORT" --start "mysql-bin.000003:$p0" --stop "mysql-bin.000005:$p1"
expect_rc range 0
check "range: magic + FDE + mysql-bin.000003[$p0:] .. mysql-bin.000005[:$p1]" \
    $CHECK range "$WORK/gen" "$WORK/range" mysql-bin.000003 "$p0" mysql-bin.000005 "$p1"
rec badstop --port "$rot_PORT" --start mysql-bin.000001:4 --stop "mysql-bin.000002:$((p1 + 1))"
expect_rc badstop 1
err_has badstop "is not the end of an event"
json_is badstop 'c["complete"] is False and c["error"] and c["end"]["file"] == "mysql-bin.000002"'

echo "== --max-bytes, --duration (blocking dump)"
rec maxb --port "$rot_PORT" --start mysql-bin.000001:4 --max-bytes 50000
expect_rc maxb 0
json_is maxb 'c["complete"] and c["bytes"] >= 50000 and c["bytes"] < 60000'
check "maxb: ends at a transaction boundary" $CHECK txn-end "$WORK/gen" "$WORK/maxb"
start=$(date +%s)
rec dur --port "$rot_PORT" --start mysql-bin.000001:4 --duration 2
expect_rc dur 0
took=$(($(date +%s) - start))
# at least the duration; the upper bound only catches a --duration that is not honoured (slack for load)
if [ "$took" -ge 2 ] && [ "$took" -le 30 ]; then check_ok "dur: took ${took}s"; else check_fail "dur: took ${took}s"; fi
check "dur: the whole stream (the server then idles: heartbeats)" $CHECK identical "$WORK/gen" "$WORK/dur"

echo "== TLS modes"
serve_stop_all
PW=cdch
SCENARIO=$ROT SERVE_MODE=compressed serve_start fresh || exit 1
rec notls --port "$fresh_PORT" --ssl-mode DISABLED --gtid-set '' --until-end
expect_rc notls 0
json_is notls 'c["server"]["tls"] is None'
check "notls: caching_sha2 full authentication by RSA key exchange (a fresh server's first login)" \
    log_has fresh "caching_sha2_password full authentication with the RSA key pair"
check "notls: files identical" $CHECK identical "$WORK/gen" "$WORK/notls"
serve_stop_all
if command -v openssl >/dev/null; then
    (cd "$WORK" &&
        openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=cdch-test-ca &&
        openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 &&
        printf 'subjectAltName=IP:127.0.0.1\n' >ip.cnf && printf 'subjectAltName=DNS:elsewhere.example\n' >dns.cnf &&
        openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 -extfile ip.cnf &&
        openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out other.pem -days 2 -extfile dns.cnf &&
        openssl req -x509 -newkey rsa:2048 -nodes -keyout x.key -out x.pem -days 2 -subj /CN=x) >/dev/null 2>&1 ||
        check_fail "openssl: test certificates"
    SCENARIO=$ROT SERVE_MODE=compressed serve_start good --tls-cert "$WORK/srv.pem" --tls-key "$WORK/srv.key"
    SCENARIO=$ROT SERVE_MODE=compressed serve_start badname --tls-cert "$WORK/other.pem" --tls-key "$WORK/srv.key"
    rec vid --port "$good_PORT" --ssl-mode VERIFY_IDENTITY --ssl-ca "$WORK/ca.pem" --gtid-set '' --until-end
    expect_rc vid 0
    rec vca_badname --port "$badname_PORT" --ssl-mode VERIFY_CA --ssl-ca "$WORK/ca.pem" --gtid-set '' --until-end
    expect_rc vca_badname 0
    rec vid_badname --port "$badname_PORT" --ssl-mode VERIFY_IDENTITY --ssl-ca "$WORK/ca.pem" --gtid-set '' --until-end
    expect_rc vid_badname 1
    rec vca_otherca --port "$good_PORT" --ssl-mode VERIFY_CA --ssl-ca "$WORK/x.pem" --gtid-set '' --until-end
    expect_rc vca_otherca 1
    err_has vca_otherca "TLS"
    check "vca_otherca: nothing written" test ! -e "$WORK/vca_otherca"
    serve_stop_all
else
    check_fail "openssl is not installed (VERIFY_CA / VERIFY_IDENTITY not tested)"
fi

echo "== a connection dropped mid-dump"
SCENARIO=$ROT SERVE_MODE=compressed serve_start cut --drop-after-bytes 30000 --faults-once
rec cut --port "$cut_PORT" --start mysql-bin.000001:4 --until-end
expect_rc cut 0
check "cut: resumed, files identical" $CHECK identical "$WORK/gen" "$WORK/cut"
json_is cut 'c["reconnects"] == 1'
err_has cut "reconnecting"
serve_stop_all
SCENARIO=$ROT SERVE_MODE=compressed serve_start crc --corrupt-checksum-at 40 --faults-once
rec crc --port "$crc_PORT" --gtid-set '' --until-end
expect_rc crc 0
err_has crc "bad CRC32 checksum"
check "crc: resumed, files identical" $CHECK identical "$WORK/gen" "$WORK/crc"
serve_stop_all
SCENARIO=$ROT SERVE_MODE=compressed serve_start always --drop-after-events 300
rec always --port "$always_PORT" --start mysql-bin.000001:4 --until-end --retries 1
expect_rc always 1
err_has always "gave up after 1 reconnect(s)"
err_has always "capture.json says \"complete\": false"
json_is always 'c["complete"] is False and c["end"]["file"] and c["end"]["pos"] > 4 and c["reconnects"] == 1'
serve_stop_all
RMP=$SRC/scenarios/restart-mid-payload.yaml
"$BIN" gen "$RMP" --mode compressed --quiet --out "$WORK/gen_rmp" || check_fail "gen restart-mid-payload"
SCENARIO=$RMP SERVE_MODE=compressed serve_start rmp
rec rmp --port "$rmp_PORT" --gtid-set '' --until-end
expect_rc rmp 0
check "rmp: the scenario's cut (mid TRANSACTION_PAYLOAD) resumed, identical" $CHECK identical "$WORK/gen_rmp" "$WORK/rmp"
json_is rmp 'c["reconnects"] == 1'

echo "== --tables: every table of the catalogue (default) or the tables the range maps (payloads read)"
cat >"$WORK/two.yaml" <<'EOF2'
description: two tables, rows in one of them only (compressed)
server: {version: "8.0.36"}
tables:
  - name: two.used
    columns: [{name: id, type: int, primary_key: true}]
  - name: two.idle
    columns: [{name: id, type: int, primary_key: true}]
transactions:
  - insert: {table: two.used, rows: [{id: 1}, {id: 2}]}
EOF2
SCENARIO=$WORK/two.yaml SERVE_MODE=compressed serve_start two || exit 1
rec two_all --port "$two_PORT" --ssl-mode DISABLED --gtid-set '' --until-end
expect_rc two_all 0
check "two_all: schema.sql has both tables (by name) under one CREATE DATABASE" python3 -c "
import re, sys
t = open(sys.argv[1]).read()
names = re.findall(r'^CREATE TABLE \`(\w+)\`', t, re.M)
sys.exit(0 if names == ['idle', 'used'] and t.count('CREATE DATABASE IF NOT EXISTS \`two\`') == 1 else 1)" "$WORK/two_all/schema.sql"
json_is two_all 'c["tables_scanned"] is False and c["tables"] is None'
rec two_touched --port "$two_PORT" --ssl-mode DISABLED --gtid-set '' --until-end --tables touched
expect_rc two_touched 0
check "two_touched: files identical to two_all's" diff -r -x capture.json -x schema.sql "$WORK/two_all" "$WORK/two_touched"
check "two_touched: schema.sql has the table the payload maps, not the other" python3 -c "
import re, sys
names = re.findall(r'^CREATE TABLE \`(\w+)\`', open(sys.argv[1]).read(), re.M)
sys.exit(0 if names == ['used'] else 1)" "$WORK/two_touched/schema.sql"
json_is two_touched 'c["tables_scanned"] is True and c["tables"] == [{"db": "two", "table": "used", "in_schema": True}]'
rec two_bad --port "$two_PORT" --gtid-set '' --until-end --tables some
expect_rc two_bad 2
err_has two_bad "--tables wants all or touched, not 'some'"

serve_stop_all

echo "== from files"
"$BIN" record --from-files "$WORK"/gen/mysql-bin.0* --out "$WORK/files" --quiet 2>"$WORK/files.err"
REC_RC=$?
expect_rc files 0
mkdir -p "$WORK/gen_inuse" && cp "$WORK"/gen/mysql-bin.* "$WORK/gen_inuse/"
# from files nothing is cleared: the last FDE keeps its in-use flag, so compare with the raw files
check "files: copies identical" cmp "$WORK/gen/mysql-bin.000016" "$WORK/files/mysql-bin.000016"
check "files: every file" bash -c "for f in $WORK/gen/mysql-bin.0*; do cmp \$f $WORK/files/\$(basename \$f) || exit 1; done"
json_is files 'c["source"] == "files" and c["schema"] is None and c["events"] > 1000 and c["tables"] is None'
check "files: no schema.sql without --schema" test ! -e "$WORK/files/schema.sql"
cp "$WORK/gen/mysql-bin.000002" "$WORK/flip.000002"
printf '\x55' | dd of="$WORK/flip.000002" bs=1 seek=3000 conv=notrunc 2>/dev/null
"$BIN" record --from-files "$WORK/gen/mysql-bin.000001" "$WORK/flip.000002" --schema "$WORK/pos/schema.sql" \
    --out "$WORK/flip" --quiet 2>"$WORK/flip.err"
REC_RC=$?
expect_rc flip 1
err_has flip "flip.000002"
check "flip: nothing written" test ! -e "$WORK/flip"
head -c 5000 "$WORK/gen/mysql-bin.000003" >"$WORK/trunc.000003"
"$BIN" record --from-files "$WORK/trunc.000003" --out "$WORK/trunc" --quiet 2>"$WORK/trunc.err"
REC_RC=$?
expect_rc trunc 1
err_has trunc "trunc.000003"
"$BIN" record --from-files "$WORK"/gen/mysql-bin.00000[12] --schema "$WORK/pos/schema.sql" --out "$WORK/withschema" \
    --tables touched --quiet
check "withschema: schema.sql copied" cmp "$WORK/pos/schema.sql" "$WORK/withschema/schema.sql"
json_is withschema 'c["tables"] == [{"db": "rot", "table": "counters", "in_schema": None}]'

echo "== usage"
for bad in "--start x:4 --until-end --out $WORK/u" "--user u --out $WORK/u --until-end" \
    "--user u --start f:4 --gtid-set '' --until-end --out $WORK/u" "--user u --start f:4 --out $WORK/u" \
    "--user u --start f --until-end --out $WORK/u" "--user u --start f:4 --until-end --ssl-mode VERIFY_CA --out $WORK/u"; do
    # shellcheck disable=SC2086
    "$BIN" record $bad >/dev/null 2>&1
    rc=$?
    if [ $rc -eq 2 ]; then check_ok "usage: $bad"; else check_fail "usage: $bad" "exit $rc"; fi
done
MYSQL_PWD=wrong "$BIN" record --user cdch --port 1 --start f:4 --until-end --out "$WORK/refused" 2>"$WORK/refused.err"
REC_RC=$?
expect_rc refused 1
err_has refused "cannot connect to 127.0.0.1:1"

summary
