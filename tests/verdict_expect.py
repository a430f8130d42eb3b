"""Shared by tests/run_verdicts.sh: compare a run's report.json with the verdicts a test wants.

    problems = check(cells, want)

cells: {(consumer, mode): cell} from report.json; want: {consumer: (uncompressed verdict,
compressed verdict, compression-regression flag on the compressed cell)}. Returns one line per
difference (no cell, another verdict, another flag, a cell that does not meet its manifest).
"""


def check(cells, want):
    bad = []
    for con, (unc, comp, reg) in want.items():
        for mode, v in (("uncompressed", unc), ("compressed", comp)):
            c = cells.get((con, mode))
            if c is None:
                bad.append("%s %s: no cell" % (con, mode))
                continue
            if c["verdict"] != v:
                bad.append("%s %s: verdict %s, want %s (%s)" % (con, mode, c["verdict"], v, c["summary"]))
            want_reg = reg and mode == "compressed"
            if c["compression_regression"] != want_reg:
                bad.append("%s %s: compression_regression %s, want %s (%s)"
                           % (con, mode, c["compression_regression"], want_reg, c["summary"]))
            if not c["meets"]:
                bad.append("%s %s: does not meet %s" % (con, mode, c["expected"]))
    return bad
