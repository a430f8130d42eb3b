#!/usr/bin/env python3
"""Write ci/edges.yaml: the matrix that checks the manifests' version ranges against reality.

For every known issue with a fix (a `versions` range with an upper bound), the last affected and
the first fixed version that the family's registry serves, each run over the scenarios where the
pinned versions show the issue, those its `effect_by_scenario` names (and crud-basic), in both modes. The run's predictions say whether
each range is right: a wrong range is a prediction that does not hold (summary.md "Predictions").

    scripts/edges.py [--out ci/edges.yaml] [--family F ...] [--served FILE]
    scripts/edges.py --selftest        # the version order against tests/data/version-order.txt

The registries' version lists come from each manifest's `registry:` key ({maven: GROUP:ARTIFACT},
or a list of them, {pypi: NAME}, {npm: NAME}, {go: MODULE}), asked with the ordinary clients
(curl for Maven Central's maven-metadata.xml, pip, npm, go); --served FILE reads them from a JSON
file {family: [versions]} instead (and --dump-served FILE writes what was fetched). A manifest's
`not_served: {VERSION: why}` names versions the registry lists but cannot install (a dependency it
lacks): they are left out of the edges, the next served one taken instead. The version
order and range grammar are harness/run/version.h's, mirrored here (--selftest checks they agree on
tests/data/version-order.txt, which test_version.c reads too).

Owns nothing but its output file.
"""
import argparse
import functools
import json
import os
import re
import subprocess
import sys
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- version order (harness/run/version.c) -------------------------------------------------------

RANKS = {"dev": 0, "alpha": 1, "a": 1, "beta": 2, "b": 2, "milestone": 3, "m": 3, "rc": 4, "cr": 4, "c": 4,
         "pre": 4, "preview": 4, "snapshot": 5, "final": 6, "ga": 6, "release": 6, "r": 6, "sp": 7, "post": 7,
         "p": 7}
RELEASE, OTHER = 6, 8


def parts(v):
    v = v.split("+", 1)[0]
    if len(v) > 1 and v[0] in "vV" and v[1].isdigit():
        v = v[1:]
    out = []
    for tok in re.findall(r"[0-9]+|[^0-9._-]+", v):
        out.append((True, tok.lstrip("0") or "0") if tok.isdigit() else (False, tok.lower()))
    return out


def rank(q):
    return RANKS.get(q, OTHER)


def cmp_missing(p):
    num, t = p
    if num:
        return 0 if t == "0" else 1
    r = rank(t)
    return 0 if r == RELEASE else (-1 if r < RELEASE else 1)


def cmp_num_qual(n, q):
    r = rank(q)
    if r < RELEASE:
        return 1
    if r == RELEASE:
        return 0 if n == "0" else 1
    return -1 if n == "0" else 1


def sign(x):
    return (x > 0) - (x < 0)


def vcmp(a, b):
    pa, pb = parts(a), parts(b)
    for i in range(max(len(pa), len(pb))):
        x = pa[i] if i < len(pa) else None
        y = pb[i] if i < len(pb) else None
        if y is None:
            c = cmp_missing(x)
        elif x is None:
            c = -cmp_missing(y)
        elif x[0] and y[0]:
            c = sign(len(x[1]) - len(y[1])) or sign((x[1] > y[1]) - (x[1] < y[1]))
        elif not x[0] and not y[0]:
            rx, ry = rank(x[1]), rank(y[1])
            c = sign(rx - ry) if rx != ry else (0 if rx != OTHER else sign((x[1] > y[1]) - (x[1] < y[1])))
        elif x[0]:
            c = cmp_num_qual(x[1], y[1])
        else:
            c = -cmp_num_qual(y[1], x[1])
        if c:
            return c
    return 0


def parse_range(text):
    """[(lo, lo_incl, hi, hi_incl)] and any; as version.c parses it."""
    items, any_, open_ = [], False, None
    for tok in (t.strip() for t in text.split(",")):
        if tok == "*":
            any_ = True
            continue
        m = re.match(r"^(>=|<=|>|<|==|=)?\s*(.+)$", tok)
        op, v = m.group(1) or "", m.group(2)
        if op in ("", "=", "=="):
            items.append([v, True, v, True])
            open_ = None
        elif op[0] == ">":
            open_ = [v, op == ">=", None, False]
            items.append(open_)
        else:
            it = open_ if open_ else [None, False, None, False]
            if not open_:
                items.append(it)
            it[2], it[3] = v, op == "<="
            open_ = None
    return items, any_


def holds(rng, v):
    items, any_ = rng
    if any_:
        return True
    for lo, lo_i, hi, hi_i in items:
        if lo is not None:
            c = vcmp(v, lo)
            if c < 0 or (c == 0 and not lo_i):
                continue
        if hi is not None:
            c = vcmp(v, hi)
            if c > 0 or (c == 0 and not hi_i):
                continue
        return True
    return False


def selftest():
    path = os.path.join(ROOT, "tests", "data", "version-order.txt")
    bad = 0
    n = 0
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        a, op, b = line.split()
        want = {"<": -1, "=": 0, ">": 1}[op]
        n += 1
        if vcmp(a, b) != want or vcmp(b, a) != -want:
            print("edges.py: %s %s %s: got %d" % (a, op, b, vcmp(a, b)), file=sys.stderr)
            bad += 1
    print("edges.py selftest: %d passed, %d failed" % (n - bad, bad))
    return 1 if bad else 0


# ---- registries ----------------------------------------------------------------------------------

def maven_versions(coord):
    group, artifact = coord.split(":")
    base = os.environ.get("CDCH_MAVEN_CENTRAL", "https://repo1.maven.org/maven2").rstrip("/")
    url = "%s/%s/%s/maven-metadata.xml" % (base, group.replace(".", "/"), artifact)
    with urllib.request.urlopen(url, timeout=60) as r:
        xml = r.read().decode()
    return re.findall(r"<version>([^<]+)</version>", xml)


def pypi_versions(name):
    with urllib.request.urlopen("https://pypi.org/pypi/%s/json" % name, timeout=60) as r:
        return list(json.load(r)["releases"].keys())


def npm_versions(name):
    out = subprocess.run(["npm", "view", name, "versions", "--json"], capture_output=True, text=True, check=True)
    v = json.loads(out.stdout)
    return v if isinstance(v, list) else [v]


def go_versions(module, bounds=()):
    """The proxy's list, or (where the proxy serves versions but not its list, as here) the versions
    v1.MINOR.PATCH up to two minors past the highest bound that `go list -m MODULE@V` finds."""
    out = subprocess.run(["go", "list", "-m", "-versions", module], capture_output=True, text=True, cwd="/tmp")
    if out.returncode == 0:
        return out.stdout.split()[1:]
    majors = {}
    for b in bounds:
        p = [int(x) for x in re.findall(r"\d+", b)[:2]]
        if len(p) == 2:
            majors[p[0]] = max(majors.get(p[0], 0), p[1])
    found = []
    for maj, top in majors.items():
        for minor in range(0, top + 3):
            for patch in range(0, 4):
                v = "v%d.%d.%d" % (maj, minor, patch)
                r = subprocess.run(["go", "list", "-m", "%s@%s" % (module, v)], capture_output=True, text=True,
                                   cwd="/tmp")
                if r.returncode == 0:
                    found.append(v)
                elif patch == 0 and minor > top:
                    break
    if not found:
        raise RuntimeError("the Go proxy lists no version and serves none probed: %s" % out.stderr.strip()[:200])
    return found


def served(reg, bounds=()):
    kind, what = next(iter(reg.items()))
    whats = what if isinstance(what, list) else [what]
    out = []
    for w in whats:
        if kind == "go":
            out += go_versions(w, bounds)
        else:
            out += {"maven": maven_versions, "pypi": pypi_versions, "npm": npm_versions}[kind](w)
    return out


def bounds_of(manifest):
    out = []
    for ki in manifest.get("known_issues", []):
        for lo, _, hi, _ in parse_range(str(ki.get("versions", "*")))[0]:
            out += [x for x in (lo, hi) if x]
    return out


# ---- edges ---------------------------------------------------------------------------------------

STABLE = re.compile(r"(alpha|beta|rc|cr|snapshot|dev|pre|preview|m\d)", re.I)


def cites(manifest):
    """{issue id: [(version, scenario or None, mode)]} of the pinned expectations."""
    out = {}

    def add(ver, scen, mode, text):
        for w in text.split()[1:]:
            out.setdefault(w, []).append((ver, scen, mode))

    fam_by = manifest.get("expect_by_scenario") or {}
    for v in manifest.get("versions", []):
        if isinstance(v, str):
            continue
        ver = v["version"]
        for mode, text in (v.get("expect") or {}).items():
            add(ver, None, mode, text)
        for by in (fam_by, v.get("expect_by_scenario") or {}):
            for scen, modes in by.items():
                for mode, text in (modes or {}).items():
                    add(ver, scen, mode, text)
    return out


def edges_of(family, manifest, versions):
    """[(spec, [scenarios], reason)] for one family."""
    stable = sorted({v for v in versions if not STABLE.search(v)}, key=functools.cmp_to_key(vcmp))
    pinned = [v["version"] if isinstance(v, dict) else v for v in manifest.get("versions", [])]
    cite = cites(manifest)
    out = {}
    for ki in manifest.get("known_issues", []):
        text = ki.get("versions")
        if not text:
            continue
        rng = parse_range(str(text))
        uppers = [hi for lo, lo_i, hi, hi_i in rng[0] if hi is not None and lo != hi]
        if not uppers:
            continue
        variants = ki.get("variants") or []
        cited = cite.get(ki["id"], [])
        var = ""
        if variants and variants[0] != "none":
            var = "+" + variants[0]
        elif not variants:
            vs = [c[0].split("+", 1)[1] for c in cited if "+" in c[0]]
            nv = [c for c in cited if "+" not in c[0]]
            if vs and not nv:
                var = "+" + vs[0]
            elif not cited and all("+" in p for p in pinned):
                var = "+" + pinned[0].split("+", 1)[1]
        # where the pins show it, and where the issue says itself what it does (effect_by_scenario)
        scen = sorted({c[1] for c in cited if c[1]} | set((ki.get("effect_by_scenario") or {}).keys()))
        for hi in uppers:
            affected = [v for v in stable if holds(rng, v) and vcmp(v, hi) <= 0]
            fixed = [v for v in stable if vcmp(v, hi) >= 0 and not holds(rng, v)]
            for v, what in ((affected[-1] if affected else None, "last affected"),
                            (fixed[0] if fixed else None, "first fixed")):
                if v is None:
                    continue
                vv = var
                if var:
                    # a variant the family runs at that version: the cited one when it pins it there,
                    # else the first pinned at or after it (go-mysql's +raw ends at v1.8.0)
                    later = [p.split("+", 1)[1] for p in pinned if "+" in p and vcmp(p, v) >= 0]
                    if later and var[1:] not in later:
                        vv = "+" + later[0]
                spec = "%s@%s%s" % (family, v, vv)
                e = out.setdefault(spec, [set(), []])
                e[0].update(scen)
                e[1].append("%s %s (%s)" % (what, ki["id"], text))
    return [(spec, sorted(s), reasons) for spec, (s, reasons) in sorted(out.items())]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "ci", "edges.yaml"))
    ap.add_argument("--family", action="append")
    ap.add_argument("--served", help="JSON {family: [versions]} instead of asking the registries")
    ap.add_argument("--dump-served", help="write the version lists fetched to this JSON file")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    served_lists = json.load(open(a.served)) if a.served else {}
    fetched = {}
    entries = []
    cdir = os.path.join(ROOT, "consumers")
    for fam in sorted(os.listdir(cdir)):
        mp = os.path.join(cdir, fam, "manifest.yaml")
        if not os.path.exists(mp) or (a.family and fam not in a.family):
            continue
        m = yaml.safe_load(open(mp))
        reg = m.get("registry")
        if fam in served_lists:
            versions = served_lists[fam]
        elif reg:
            try:
                versions = served(reg, bounds_of(m))
            except Exception as e:  # a registry that does not answer: the family is left out, said so
                print("edges.py: %s: cannot list the versions its registry serves (%s); left out" % (fam, e),
                      file=sys.stderr)
                continue
        else:
            continue
        fetched[fam] = versions
        # versions the registry lists but cannot install (a dependency it lacks): never an edge
        ns = {str(v) for v in (m.get("not_served") or {})}
        versions = [v for v in versions if v not in ns]
        entries += edges_of(fam, m, versions)
    if a.dump_served:
        json.dump(fetched, open(a.dump_served, "w"), indent=1, sort_keys=True)
    scen_dir = os.path.join(ROOT, "scenarios")
    lines = [
        "# The edges of every known issue with a fix: the last affected and the first fixed version the",
        "# family's registry serves, each over the scenarios where the pinned versions show the issue, those",
        "# its effect_by_scenario names, and crud-basic, in both modes. Their expectations are predicted from",
        "# the manifests' ranges: a prediction that does not hold is a range to fix, with its evidence",
        "# (summary.md \"Predictions\").",
        "# Written by scripts/edges.py from the manifests and the registries' version lists; not part of",
        "# the default matrix. Run: cdcharness matrix ci/edges.yaml --report-dir reports/edges",
        "name: edges",
        "description: the last affected and first fixed served version of every known issue with a fix",
        "consumers_dirs: [../consumers]",
        "consumers:",
    ]
    scen_all = set()
    for spec, scen, reasons in entries:
        lines.append("  - %s   # %s" % (spec, "; ".join(reasons)))
        scen_all.update(scen)
    lines.append("scenarios:")
    lines.append("  - ../scenarios/crud-basic.yaml")
    for s in sorted(scen_all):
        if s != "crud-basic" and os.path.exists(os.path.join(scen_dir, s + ".yaml")):
            lines.append("  - ../scenarios/%s.yaml" % s)
    lines += ["modes: both", "expect: manifest", "timeout: 120", "grace: 1"]
    # each consumer runs only its own issue's scenarios (and crud-basic)
    excl = []
    for spec, scen, reasons in entries:
        for s in sorted(scen_all):
            if s not in scen and s != "crud-basic":
                excl.append("  - {consumer: %s, scenario: %s, reason: \"not where its edge shows\"}" % (spec, s))
    if excl:
        lines.append("exclude:")
        lines += excl
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("edges.py: %d consumer(s), %d scenario(s) -> %s" % (len(entries), len(scen_all | {"crud-basic"}), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
