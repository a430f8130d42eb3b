#!/usr/bin/env bash
# The harness protects itself from its adapters (tests/consumers/_common/hostile.py): adapters that
# flood stdout (noise, duplicate rows, a line that never ends; one-shot and session mode) or stderr,
# write invalid UTF-8 and NUL bytes, leave a daemon behind (setsid, holding stdout; or with stdio on
# /dev/null and an empty environment, so that only its parentage names it), ignore SIGTERM
# (with a child that does too), or close stdout and keep running. Each cell gets its exact verdict and
# stop reason, the report stays valid JSON, stderr.log is capped, the harness's peak memory stays
# bounded (the flood limit: 8 MiB + 4x the expected events), and no process outlives the run.
#
#   tests/self_protect.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
work=$(mktemp -d)
# the mark the hostile adapters' leftover processes carry in their argv (hostile.py): unique to this
# run, so that pgrep/pkill see this run's processes only (not another test's or run's)
mark=cdch-hostile-orphan-$$-$RANDOM
export CDCH_HOSTILE_MARK=$mark
cleanup() { pkill -KILL -f "$mark" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || fail "/usr/bin/time is needed (Debian package time; scripts/setup.sh installs it)"
if pgrep -f "$mark" >/dev/null; then fail "processes marked $mark exist before the test: $(pgrep -af "$mark")"; fi

args=()
for c in flood-stdout flood-dup flood-line flood-stderr bad-bytes orphan orphan-noenv ignore-term close-stdout session-flood; do
  args+=(--consumer "hostile-$c")
done
set +e
/usr/bin/time -f '%M' -o "$work/rss" "$bin" run --consumers-dir "$src/tests/consumers" "${args[@]}" \
  --scenario "$src/tests/data/run-small.yaml" --timeout 30 -j 2 --quiet --report-dir "$work/r" >"$work/out.txt" 2>"$work/err.txt"
rc=$?
set -e
[ $rc -eq 1 ] || { cat "$work/out.txt" "$work/err.txt"; fail "run: exit 1 expected (duplicate and silent-skip cells), got $rc"; }

python3 - "$work/r/report.json" <<'PY' || fail "verdicts"
import json, sys
r = json.load(open(sys.argv[1]))   # valid JSON whatever the adapters wrote
want = {
    # consumer: (verdict, stop reason, warning substring or None) for both modes
    "hostile-flood-stdout@1": ("pass", "output-flood", "flooded stdout"),
    "hostile-flood-dup@1": ("duplicate", "output-flood", "flooded stdout"),
    "hostile-flood-line@1": ("pass", "output-flood", "flooded stdout"),
    "hostile-flood-stderr@1": ("pass", ("exited", "done"), None),  # done: the watermark row came first
    "hostile-bad-bytes@1": ("silent-skip", "exited", None),
    "hostile-orphan@1": ("pass", "exited", None),
    "hostile-orphan-noenv@1": ("pass", "exited", None),
    "hostile-ignore-term@1": ("pass", "done", None),
    "hostile-close-stdout@1": ("pass", "done", None),
    "hostile-session-flood@1": ("duplicate", "output-flood", "flooded stdout"),
}
seen = set()
bad = []
for c in r["cells"]:
    v, stop, warn = want[c["consumer"]]
    seen.add((c["consumer"], c["mode"]))
    got_warn = " ".join(c["warnings"])
    stops = stop if isinstance(stop, tuple) else (stop,)
    if c["verdict"] != v or c["stop"] not in stops or (warn and warn not in got_warn) or (not warn and c["warnings"]):
        bad.append("%s %s: %s/%s warnings=%r (want %s/%s %r)" % (c["consumer"], c["mode"], c["verdict"], c["stop"],
                                                               c["warnings"], v, stop, warn))
    if c["consumer"] == "hostile-bad-bytes@1":
        assert any("not canonical events" in d for d in c["detail"]), c["detail"]
assert len(seen) == 2 * len(want), sorted(seen)
if bad:
    sys.exit("\n".join(bad))
PY

for m in uncompressed compressed; do
  log="$work/r/cells/hostile-flood-stderr@1/run-small/$m/stderr.log"
  size=$(stat -c %s "$log")
  [ "$size" -le $((16 * 1024 * 1024 + 200)) ] || fail "stderr.log of the stderr flood is $size bytes (cap 16 MiB)"
  tail -n 1 "$log" | grep -q 'wrote more than 16 MiB to stderr; the copy stops here' || fail "stderr.log does not say where it stops"
done

rss=$(tail -n 1 "$work/rss")
bound=400000   # kB; AddressSanitizer's shadow memory and quarantine triple a build's footprint
grep -q __asan_init "$bin" && bound=1200000
[ "$rss" -lt "$bound" ] || fail "peak RSS of the harness ${rss} kB (bound: $((bound / 1000)) MB)"
# processes the harness killed at its end are gone once scheduled: up to 5 s for that (a leftover
# it did not kill sleeps 600 s, so it is still found)
for _ in $(seq 50); do pgrep -f "$mark" >/dev/null || break; sleep 0.1; done
if pgrep -f "$mark" >/dev/null; then fail "processes outlived the run: $(pgrep -af "$mark")"; fi
echo "self_protect: all checks passed (peak RSS ${rss} kB)"
