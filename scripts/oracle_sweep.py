#!/usr/bin/env python3
"""oracle_sweep.py REPORT_JSON [OUTDIR]: the cells of a `matrix --oracle both` run where the canonical and the
differential oracles disagree (verdict, or compression-regression flag of a compressed/flip cell), grouped
by cause as in reports/oracle-sweep.md. Writes OUTDIR/cells.json and OUTDIR/groups.json (default /tmp)."""
import json, os, sys, collections
OUT = sys.argv[2] if len(sys.argv) > 2 else "/tmp"
os.makedirs(OUT, exist_ok=True)
ORDER = ["pass","hang","no-resume","parse-failure","bad-checkpoint","reorder","duplicate","mismatch","announced-skip","silent-skip","harness-error"]
R = {v:i for i,v in enumerate(ORDER)}
def cls(s): return set(x.strip() for x in (s or "").split(",") if x.strip())
def regression(cv, ccl, uv, ucl):
    if "harness-error" in (cv, uv) or cv == "pass": return False
    if cv != uv: return R[cv] > R[uv]
    return bool(cls(ccl) - cls(ucl))
rep = json.load(open(sys.argv[1]))
cells = rep["cells"]
twin = {}
for c in cells:
    if c["mode"] == "uncompressed":
        twin[(c["consumer"], c["scenario"], c["attach"])] = c
out = []
for c in cells:
    o = c.get("oracle")
    if not o:
        out.append((c, None, None, None, "no-oracle")); continue
    cv, dv = c["verdict"], o["verdict"]
    if c["mode"] == "uncompressed":
        cf = df = None
    else:
        u = twin.get((c["consumer"], c["scenario"], c["attach"]))
        cf = regression(cv, c["classes"], u["verdict"], u["classes"]) if u else None
        df = c["compression_regression"]
    out.append((c, cv, dv, (cf, df), "agree" if (cv == dv and cf == df) else "disagree"))
json.dump([dict(consumer=c["consumer"], family=c["family"], scenario=c["scenario"], mode=c["mode"], attach=c["attach"],
  canon=cv, canon_classes=c["classes"], diff=(c.get("oracle") or {}).get("verdict"), diff_classes=(c.get("oracle") or {}).get("classes"),
  canon_flag=None if f is None else f[0], diff_flag=None if f is None else f[1], status=s,
  canon_summary=c["summary"], diff_summary=(c.get("oracle") or {}).get("summary"), cause=c.get("cause"),
  first_rows=(c.get("oracle") or {}).get("first_rows"), expected=c["expected"], meets=c["meets"])
  for c, cv, dv, f, s in out], open(os.path.join(OUT, 'cells.json'), "w"), indent=0)
print("cells", len(cells), collections.Counter(s for *_, s in out))

# ---- grouping ----
d = json.load(open(os.path.join(OUT, 'cells.json')))
tw = {(c['consumer'],c['scenario'],c['attach']):c for c in d if c['mode']=='uncompressed'}
def twin(c): return tw.get((c['consumer'],c['scenario'],c['attach']))
def said(c): s=c['canon_summary']; return 'consumer error' in s or 'consumer said' in s or 'announced by the consumer' in s
def group(c):
    p = c['mode']=='uncompressed'; cv, dv = c['canon'], c['diff']
    cf, df = c['canon_flag'], c['diff_flag']
    t = None if p else twin(c)
    base_rows_empty = False
    if not p:
        fr = c['first_rows'] or []
        base_rows_empty = bool(fr) and all(r['plain_line'] is None for r in fr)
    if not p and cf is False and df is True and cv == 'no-resume':
        return 'G-plain-reference-incomplete'
    if not p and cf is False and df is True:
        return 'F-same-verdict-more-loss'
    if cv in ('announced-skip','parse-failure') and dv in ('silent-skip','hang') and said(c):
        return 'B-error-lines-unseen'
    if p:
        return 'C-plain-row-count'
    if dv == 'pass' and not cf and not df:
        return 'A-same-defect-both-modes'
    if dv == 'pass' and cf and not df:
        if 'bad-checkpoint' in c['canon_classes'] and 'bad-checkpoint' not in t['canon_classes']:
            return 'D-pos-not-compared'
        return 'G-plain-reference-incomplete'
    if cv == 'bad-checkpoint' and dv == 'mismatch':
        return 'E-text-differs-value-equal'
    if not cf and df and cv == dv or (not cf and df and t['canon'] not in ('pass',)):
        if base_rows_empty and cv != dv: return 'G-plain-reference-incomplete'
        return 'F-same-verdict-more-loss'
    if cf and df and dv in ('mismatch','no-resume') and cv in ('silent-skip','announced-skip','parse-failure'):
        return 'G-plain-reference-incomplete'
    return 'Z-unclassified'
res = collections.defaultdict(list)
for c in d:
    if c['status']=='disagree': res[group(c)].append(c)
for k in sorted(res):
    g = res[k]
    print(k, len(g), dict(collections.Counter((c['canon'],c['diff'],c['canon_flag'],c['diff_flag']) for c in g)))
fam = collections.defaultdict(collections.Counter)
tot = collections.Counter(); agree = collections.Counter()
for c in d:
    tot[c['family']] += 1
    if c['status']=='agree': agree[c['family']] += 1
for k,v in res.items():
    for c in v: fam[c['family']][k[0]] += 1
print('| family | cells | agree | A | B | C | D | E | F | G |')
for f in sorted(tot):
    print('| %s | %d | %d | %s |' % (f, tot[f], agree[f], ' | '.join(str(fam[f][x] or '') for x in 'ABCDEFG')))
print('| total | %d | %d | %s |' % (sum(tot.values()), sum(agree.values()), ' | '.join(str(sum(fam[f][x] for f in fam)) for x in 'ABCDEFG')))
json.dump({k:[(c['consumer'],c['scenario'],c['mode']) for c in v] for k,v in res.items()}, open(os.path.join(OUT, 'groups.json'), 'w'))
