#!/usr/bin/env python3
"""Per-family figures of a matrix report.json, or a before/after table of two.

    bench/matrix_table.py REPORT.json                 one line per family (text)
    bench/matrix_table.py BEFORE.json AFTER.json      a Markdown table, "before -> after"

Per family: cells, mean / p50 / p95 cell seconds, adapter launches, the share of cell
time spent starting up (launch to the adapter's first line, in cells that launched it)
and in waits (a cell the harness stopped: its last line to the end of the stop), and
the adapters' CPU seconds (report.json cpu_seconds; absent in reports before it: "-").
Used by bench/matrix_bench.sh and for bench/README.md's tables.
"""
import json
import statistics
import sys


def fam_stats(cells):
    secs = [c.get("seconds", 0) for c in cells]
    launched = [c for c in cells if c.get("launched")]
    start = sum(max(c.get("startup_seconds", 0) or 0, 0) for c in launched)
    waits = sum(max(c.get("wait_seconds", 0) or 0, 0) for c in cells)
    cpus = [c["cpu_seconds"] for c in cells if c.get("cpu_seconds", -1) >= 0]
    tot = sum(secs) or 1
    return {
        "cells": len(cells),
        "mean": statistics.mean(secs) if secs else 0,
        "p50": statistics.median(secs) if secs else 0,
        "p95": sorted(secs)[int(0.95 * (len(secs) - 1))] if secs else 0,
        "cell_s": sum(secs),
        "launches": len(launched),
        "startup": 100 * start / tot,
        "waits": 100 * waits / tot,
        "cpu": sum(cpus) if cpus else None,
    }


def by_family(report):
    by = {}
    for c in report["cells"]:
        by.setdefault(c["family"], []).append(c)
    out = {f: fam_stats(cs) for f, cs in sorted(by.items())}
    out["all"] = fam_stats(report["cells"])
    return out


def text(report):
    for f, s in by_family(report).items():
        cpu = "%7.1f s (%.2f s/cell)" % (s["cpu"], s["cpu"] / max(s["cells"], 1)) if s["cpu"] is not None else "-"
        print("%-28s %5d cells  mean %5.2f s  p50 %5.2f s  p95 %6.2f s  launches %4d  start-up %5.1f%%  "
              "waits %5.1f%% of cell time  adapter CPU %s" % (f, s["cells"], s["mean"], s["p50"], s["p95"],
                                                            s["launches"], s["startup"], s["waits"], cpu))
    cpu = report.get("cpu")
    if cpu:
        print("CPU: harness process %.0f s, its children %.0f s (adapters, sessions, setups)"
              % (cpu["harness_seconds"], cpu["children_seconds"]))


def table(before, after):
    a, b = by_family(before), by_family(after)
    print("| family | cells | mean s | p50 s | p95 s | cell-s | launches | start-up share | waits share | adapter CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def pair(x, y, fmt):
        fx = "-" if x is None else fmt % x
        fy = "-" if y is None else fmt % y
        return fx if fx == fy else "%s -> %s" % (fx, fy)

    for f in list(a) + [f for f in b if f not in a]:
        x, y = a.get(f), b.get(f)
        if not x or not y:
            continue
        name = "**all**" if f == "all" else f
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, pair(x["cells"], y["cells"], "%d"), pair(x["mean"], y["mean"], "%.2f"),
            pair(x["p50"], y["p50"], "%.2f"), pair(x["p95"], y["p95"], "%.2f"),
            pair(x["cell_s"], y["cell_s"], "%.0f"), pair(x["launches"], y["launches"], "%d"),
            pair(x["startup"], y["startup"], "%.0f %%"), pair(x["waits"], y["waits"], "%.0f %%"),
            pair(x["cpu"], y["cpu"], "%.0f")))


if __name__ == "__main__":
    if len(sys.argv) == 2:
        text(json.load(open(sys.argv[1])))
    elif len(sys.argv) == 3:
        table(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
    else:
        sys.exit(__doc__)
