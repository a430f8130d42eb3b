#!/usr/bin/env python3
"""Every consumer-defect cause cites where it is: a file:line of the consumer's source or an
upstream id (consumers/README.md "Every non-pass expectation names its cause"); so does every
`delivery: in-order` claim (its delivery_evidence).

    tests/manifest_evidence.py SOURCE_DIR [MANIFEST...]

tests/manifest_evidence_pending.txt names the few causes still waiting for their lines (each with
why); they are accepted, and an entry there whose cause now cites one fails the test (remove it).

Reads consumers/*/manifest.yaml (or the manifests given) and fails, naming each one, on a
known_issues entry of kind consumer-defect whose evidence cites neither
  - a file:line (`BinlogReader.java:181`, `lib/binlog_event.js:377-394`, `index.js:63`), nor
  - an upstream id: an issue or pull request (`#533`, `owner/repo#179`, `PR #76`, `issue #4388`),
    a tracker key (`DBZ-2663`, `MDEV-123`), a commit (7 to 40 hex digits with a digit and a letter)
    or a changelog entry at a version (`CHANGELOG 0.7.0`, `CHANGELOG.md of 0.9.0`).
A not-applicable cause (a documented requirement) must cite the documentation the same way.
"""
import glob
import os
import re
import sys

import yaml

FILE_LINE = re.compile(r"[A-Za-z0-9_./-]+\.[A-Za-z0-9]+:\d+")
# a file, then within its clause the lines: "TableMapLogEvent.java decodeFields :530-599"
FILE_THEN_LINE = re.compile(r"[A-Za-z0-9_./-]+\.(?:java|js|ts|py|go|c|cc|h|rb|adoc|md|rs)\b[^;]{0,80}?[\s(]:\d+")
ISSUE = re.compile(r"(?:^|[\s(/,;])(?:[\w.-]+/[\w.-]+)?#\d+\b")
TRACKER = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d+\b")
COMMIT = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
CHANGELOG = re.compile(r"\bCHANGELOG(?:\.md)?(?: of)? v?\d+\.\d+")


def cites(evidence):
    """Which kind of citation the evidence holds, or None."""
    for name, rx in (("file:line", FILE_LINE), ("file :line", FILE_THEN_LINE), ("issue", ISSUE), ("tracker", TRACKER), ("commit", COMMIT),
                     ("changelog", CHANGELOG)):
        if rx.search(evidence):
            return name
    return None


def check(path, pending, seen):
    bad = []
    with open(path, encoding="utf-8") as f:
        m = yaml.safe_load(f) or {}
    for ki in m.get("known_issues") or []:
        kind = ki.get("kind")
        if kind not in ("consumer-defect", "not-applicable"):
            continue
        ev = str(ki.get("evidence") or "")
        key = "%s %s" % (m.get("family"), ki.get("id"))
        if key in pending:
            seen.add(key)
            if cites(ev):
                bad.append("%s: known issue '%s' cites its source now: remove '%s' from "
                           "tests/manifest_evidence_pending.txt" % (path, ki.get("id"), key))
            continue
        if not cites(ev):
            bad.append("%s: known issue '%s' (%s) cites no file:line or upstream id in its evidence: %r" %
                       (path, ki.get("id"), kind, ev))
    # a `delivery: in-order` claim shortens the wait after the watermark (waits.h rule 3): a late row is
    # then lost, not late. It is a claim about the library's code, cited like a defect
    if m.get("delivery") == "in-order" and not cites(str(m.get("delivery_evidence") or "")):
        bad.append("%s: 'delivery: in-order' cites no file:line or upstream id in its delivery_evidence: %r" %
                   (path, m.get("delivery_evidence")))
    return bad


def selftest():
    good = ["EventHeaderV4Deserializer.java:43-47 at shyiko 0.20.0", "upstream #533", "osheroff/mysql-binlog-connector-java#179",
            "DBZ-2663", "fixed by 54145ced", "TableMapLogEvent.java decodeFields :530-599 at canal-1.1.5", "CHANGELOG 0.7.0: ...", "lib/binlog_event.js:377-394 at 0.7.1"]
    poor = ["LogDecoder.java decode() default branch in alibaba/canal@canal-1.1.5", "see the source", "1.1.5",
            "consumers.md section 3", "deadbeef"]
    for e in good:
        assert cites(e), e
    for e in poor:
        assert not cites(e), e


def main():
    selftest()
    src = sys.argv[1]
    paths = sys.argv[2:] or sorted(glob.glob(os.path.join(src, "consumers", "*", "manifest.yaml")))
    if not paths:
        print("manifest_evidence: no manifests under %s/consumers" % src)
        return 2
    pending = set()
    with open(os.path.join(src, "tests", "manifest_evidence_pending.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                pending.add(" ".join(line.split()))
    seen = set()
    bad = [b for p in paths for b in check(p, pending, seen)]
    if len(sys.argv) == 2:
        bad += ["tests/manifest_evidence_pending.txt: '%s' is no known issue of a manifest: remove it" % k
                for k in sorted(pending - seen)]
    if bad:
        print("\n".join(bad))
        print("manifest_evidence: %d cause(s) without a citation; add the file:line at the pinned tag or the "
              "upstream id (consumers/README.md)" % len(bad))
        return 1
    print("manifest_evidence: every consumer-defect and not-applicable cause of %d manifest(s) cites a file:line "
          "or an upstream id (%d pending, tests/manifest_evidence_pending.txt)" % (len(paths), len(pending)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
