#!/usr/bin/env python3
"""Check a report.html in headless Chromium (DevTools protocol, tests/html/cdp.py).

    check_report.py REPORT.html [--report report.json] [--open SPEC ...] [--screenshot PNG]

Asserts, printing every failure and exiting 1 if any:
  - the page loads with no console error, no uncaught exception, no log entry
    of level error, and requests nothing but itself (self-contained);
  - the grid has one td.cell per cell of report.json (default: the
    report.json beside the page), each with the class of its verdict
    (v-<verdict>), `regression` exactly on the compression regressions and
    `unmet` exactly on the cells not as expected;
  - each --open SPEC, a JSON object
        {"cell": [CONSUMER, SCENARIO, MODE], "contains": {SELECTOR: TEXT, ...}}
    clicks that cell with a real mouse event and finds the panel open, its
    verdict badge naming the cell's verdict, and each SELECTOR's text
    containing TEXT; Escape then closes it.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CDPError  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("html")
    ap.add_argument("--report")
    ap.add_argument("--open", action="append", default=[])
    ap.add_argument("--screenshot")
    a = ap.parse_args()
    html = os.path.abspath(a.html)
    report = json.load(open(a.report or os.path.join(os.path.dirname(html), "report.json"), encoding="utf-8"))
    url = "file://" + html
    bad = []
    with Browser() as b:
        page = b.new_page(1400, 1000)
        page.navigate(url)
        b.pump(0.3)  # late console messages
        ready = page.evaluate("document.documentElement.getAttribute('data-ready')")
        if ready != "1":
            bad.append("the page's script did not finish (data-ready=%r)" % ready)

        # the grid against report.json
        got = page.evaluate("""Array.prototype.map.call(document.querySelectorAll('#grid td.cell'), function (td) {
            return [td.getAttribute('data-consumer'), td.getAttribute('data-scenario'), td.getAttribute('data-mode'),
                    td.className.split(/\\s+/)]; })""") or []
        want = {(c["consumer"], c["scenario"], c["mode"]): c for c in report["cells"]}
        if len(got) != len(want):
            bad.append("grid has %d cells, report.json %d" % (len(got), len(want)))
        seen = set()
        for con, sc, mode, classes in got:
            c = want.get((con, sc, mode))
            if c is None:
                bad.append("grid cell %s %s %s is not in report.json" % (con, sc, mode))
                continue
            seen.add((con, sc, mode))
            if "v-" + c["verdict"] not in classes:
                bad.append("%s %s %s: classes %s lack v-%s" % (con, sc, mode, classes, c["verdict"]))
            if ("regression" in classes) != bool(c.get("compression_regression")):
                bad.append("%s %s %s: regression class %s, report %s" % (con, sc, mode, "regression" in classes,
                                                                         c.get("compression_regression")))
            if ("unmet" in classes) != (not c.get("meets")):
                bad.append("%s %s %s: unmet class %s, meets %s" % (con, sc, mode, "unmet" in classes, c.get("meets")))
        for k in set(want) - seen:
            bad.append("report cell %s %s %s has no grid cell" % k)
        bars = page.evaluate("document.querySelectorAll('#bytes-chart rect.bar').length")
        nstreams = len({(c["scenario"], c["mode"]) for c in report["cells"] if c.get("stream_bytes")})
        if bars != nstreams:
            bad.append("chart has %s bars, want one per scenario and mode with a stream: %d" % (bars, nstreams))

        # open cells
        for spec in a.open:
            s = json.loads(spec)
            con, sc, mode = s["cell"]
            c = want.get((con, sc, mode))
            sel = 'td.cell[data-consumer=%s][data-scenario=%s][data-mode=%s]' % tuple(json.dumps(x) for x in s["cell"])
            try:
                page.click(sel)
            except CDPError as e:
                bad.append(str(e))
                continue
            b.pump(0.2)
            is_open = page.evaluate("document.body.classList.contains('open') && "
                                    "getComputedStyle(document.getElementById('panel')).display !== 'none'")
            if not is_open:
                bad.append("clicking %s %s %s did not open the panel" % (con, sc, mode))
                continue
            title = page.evaluate("document.getElementById('p-title').textContent")
            verdict = page.evaluate("(document.getElementById('p-verdict') || {}).textContent")
            if title != con or (c and verdict != c["verdict"]):
                bad.append("panel for %s %s %s shows %r / %r" % (con, sc, mode, title, verdict))
            for q, text in s.get("contains", {}).items():
                t = page.evaluate("(function(){var e=document.querySelector(%s); return e ? e.textContent : null;})()"
                                  % json.dumps(q))
                if t is None:
                    bad.append("%s %s %s: the panel has no %s" % (con, sc, mode, q))
                elif text not in t:
                    bad.append("%s %s %s: %s does not contain %r: %r" % (con, sc, mode, q, text, t[:400]))
            if a.screenshot:
                base, ext = os.path.splitext(a.screenshot)
                page.screenshot("%s-%s-%s%s" % (base, con.split("@")[0], mode, ext))
            page.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Escape", "code": "Escape",
                                                 "windowsVirtualKeyCode": 27})
            page.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Escape", "code": "Escape",
                                                 "windowsVirtualKeyCode": 27})
            b.pump(0.1)
            if page.evaluate("document.body.classList.contains('open')"):
                bad.append("Escape did not close the panel of %s %s %s" % (con, sc, mode))

        if a.screenshot:
            page.screenshot(a.screenshot, full=True)
        b.pump(0.2)
        for e in page.events("Runtime.exceptionThrown"):
            d = e["params"]["exceptionDetails"]
            bad.append("uncaught exception: %s" % (d.get("exception", {}).get("description") or d.get("text")))
        notes = []  # warnings are shown, not failed on: a browser version may add deprecation notices
        for e in page.events("Runtime.consoleAPICalled"):
            t = e["params"]["type"]
            msg = "console.%s: %s" % (t, " ".join(str(x.get("value", x.get("description", "")))
                                                  for x in e["params"]["args"]))
            if t in ("error", "assert"):
                bad.append(msg)
            elif t == "warning":
                notes.append(msg)
        for e in page.events("Log.entryAdded"):
            entry = e["params"]["entry"]
            msg = "log %s: %s" % (entry["level"], entry.get("text"))
            if entry["level"] == "error":
                bad.append(msg)
            elif entry["level"] == "warning":
                notes.append(msg)
        for n in notes:
            print("note: " + n)
        for e in page.events("Network.requestWillBeSent"):
            u = e["params"]["request"]["url"]
            if u.split("#")[0] != url and not u.startswith("data:"):
                bad.append("the page requested %s (it must be self-contained)" % u)
    if bad:
        print("report.html: %d problem(s):" % len(bad))
        for x in bad:
            print("  " + x)
        return 1
    print("report.html: %d cells, %d opened: ok" % (len(want), len(a.open)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
