"""Check that a report's digest states the numbers its glance figure plots, in headless Chromium.

    python scripts/check_digest.py [PAGE ...]    (default: reports/*/report.html that carry a glance figure)

A report (`report.html`, rendered by nbs/08_claims.ipynb) opens with a glance figure: per claim (or per hypothesis of
the families extension) the part that decided its verdict, our mean and its 95 % interval, coloured by the verdict. The
text around it states the same parts: the claims summary under the figure (one line per claim), the digest table of
the Claims section (its 'deciding parts' column), and for the families' hypotheses the table of deciding parts above
their figure. Each page is opened in one headless Chromium (scripts/check_docs.py's), the figure's numbers are read from
the plotly figure the page drew (`gd._fullData`: what the reader sees, not the notebook's tables), and for every row
of the figure (its tick label: the claim, then the part) every digest on the page that lists the claim must give the
same part with the same mean and interval (equal to the digits it prints) and the same verdict, and the legend may
name the paper's value only for the claims the figure draws it for. A problem names the label and both numbers. Then a
change planted in the figure's numbers must be caught (the check can fail).
scripts/check_docs.py runs the same check on every page of the built site that draws a glance figure.
Exit status 1 on a problem (2: no browser).
"""
import functools, http.server, json, re, sys, threading, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DIGEST_JS = r"""(async () => {
  for (let i = 0; i < 300; i++) {  // the report draws its figures once plotly.js is decompressed
    const gs = [...document.querySelectorAll('.plotly-graph-div')];
    if (gs.length && gs.every(g => g._fullData)) break;
    await new Promise(r => setTimeout(r, 100));
  }
  const strip = s => String(s || '').replace(/<br\s*\/?>/g, '\n').replace(/<[^>]+>/g, '').trim();
  const figs = [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
    const t = gd.layout && gd.layout.title ? (gd.layout.title.text || gd.layout.title) : '';
    if (!/at a glance/i.test(strip(t))) return null;
    const ax = gd._fullLayout.yaxis, vals = Array.from(ax.tickvals || []), text = Array.from(ax.ticktext || []);
    const rows = [], paper = [];
    for (const tr of gd._fullData) {
      if (/^the paper/.test(tr.name || '')) Array.from(tr.x).forEach((x, k) => paper.push({name: tr.name,
        label: strip(text[vals.indexOf(Number(tr.y[k]))]), x: Number.isFinite(x) ? x : null}));
      if (!/^ours/.test(tr.name || '')) continue;
      const e = tr.error_x || {}, up = Array.from(e.array || []), down = Array.from(e.arrayminus || []);
      Array.from(tr.x).forEach((x, k) => rows.push({label: strip(text[vals.indexOf(Number(tr.y[k]))]),
        verdict: tr.name.replace(/^ours:\s*/, ''), ours: x, lo: x - (down[k] || 0), hi: x + (up[k] || 0)}));
    }
    return {title: strip(t).split('\n')[0], rows, paper};
  }).filter(Boolean);
  const items = [...document.querySelectorAll('li')].map(l => l.innerText.trim()).filter(t => /^[CH]\d/.test(t));
  const tables = [...document.querySelectorAll('table')].map(t => [...t.querySelectorAll('tr')].map(r =>
      [...r.querySelectorAll('th, td')].map(c => c.innerText.trim())));
  return {figs, items, tables};
})()"""

REQUIRED = ('reports/cpu/report.html', 'reports/cpu-families/report.html')  # reports that must open with a glance
NUM = r'(-?\d+(?:\.\d+)?)'
INTERVAL = NUM + r'(?: \[' + NUM + ', ' + NUM + r'\])?'

def split_label(label:str) -> tuple:
    "A glance row's tick label 'C2 · batch RPI\\nrope' as (claim, estimator or '', part)."
    head, _, part = label.partition('\n')
    claim, _, est = head.partition(' · ')
    return claim.strip(), est.removesuffix(' RPI').strip(), part.strip()

def summary_entry(items:list, claim:str, est:str, part:str):
    """(verdict, numbers) of `part` in the claims summary's line of `claim` (None: the page has no line for the claim;
    numbers None: the line does not list the part)."""
    tag = f' ({est} RPI)' if est else ''
    line = next((t for t in items if t.startswith(f'{claim}{tag} (')), None)
    if line is None: return None
    m = re.search(r'\): (.+?)\. ', line)
    n = re.search(r'(?:\. |; )' + re.escape(part) + ': ' + INTERVAL, line)
    return (m.group(1) if m else None), (n.groups() if n else None)

def digest_entry(tables:list, claim:str, est:str, part:str):
    "(verdict, numbers) of `part` in the digest table's row of `claim` (None: no digest table row for the claim)."
    for t in tables:
        if not t or 'deciding parts' not in t[0]: continue
        head = t[0]
        row = next((r for r in t[1:] if r and r[0] == claim and len(r) == len(head)), None)
        if row is None: continue
        vcol = next((i for i, h in enumerate(head) if h == (f'verdict ({est} RPI)' if est else 'verdict')), None)
        verdict = row[vcol].split('\n')[0] if vcol is not None else None
        cell = row[head.index('deciding parts')]
        n = re.search(r'• ' + re.escape(part) + r'(?: \((?:batch|image) RPI\))?(?: · [^\n]*?)?: ' + INTERVAL, cell)
        return verdict, (n.groups() if n else None)
    return None

def deciding_entry(tables:list, claim:str, est:str, part:str):
    "(verdict, numbers) of `part` in the families' table of deciding parts (None: no such table row for `claim`)."
    for t in tables:
        if not t or not {'hypothesis', 'part', 'ours', 'ci_low', 'ci_high'} <= set(t[0]): continue
        h = t[0]
        rows = [r for r in t[1:] if len(r) == len(h) and r[h.index('hypothesis')] == claim]
        if not rows: continue
        r = next((r for r in rows if r[h.index('part')] == part), None)
        if r is None: return None, None
        return (r[h.index('part_verdict')] if 'part_verdict' in h else None,
                tuple(r[h.index(c)] for c in ('ours', 'ci_low', 'ci_high')))
    return None

SOURCES = {'the claims summary under the glance figure': summary_entry, 'the digest table (Claims)': digest_entry,
           "the table of the hypotheses' deciding parts": deciding_entry}

def same(x:float, shown:str|None) -> bool:
    "Does the printed number `shown` state `x` to the digits it prints?"
    if shown is None: return False
    digits = len(shown.partition('.')[2])
    return abs(float(shown) - x) <= 0.5 * 10 ** -digits + 1e-9

def show(nums) -> str:
    "Printed numbers (mean, low, high) as one string."
    return nums[0] + ('' if nums[1] is None else f' [{nums[1]}, {nums[2]}]')

def row_problems(page:dict, r:dict) -> tuple:
    "Problems of one glance row against every digest on the page; how many digests list its claim."
    claim, est, part = split_label(r['label'])
    plotted = f"{r['ours']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]"
    out, found = [], 0
    for name, entry in SOURCES.items():
        got = entry(page['tables'] if entry is not summary_entry else page['items'], claim, est, part)
        if got is None: continue
        found += 1
        verdict, nums = got
        where = f"{claim}{' · ' + est + ' RPI' if est else ''} '{part}'"
        if nums is None:
            out.append(f"{where}: the glance figure plots {plotted}, {name} does not list the part"); continue
        interval = nums[1] is not None and abs(r['hi'] - r['lo']) > 0
        ok = same(r['ours'], nums[0]) and (not interval or (same(r['lo'], nums[1]) and same(r['hi'], nums[2])))
        if not ok: out.append(f"{where}: the glance figure plots {plotted}, {name} says {show(nums)}")
        if verdict is not None and verdict != r['verdict']:
            out.append(f"{where}: the glance figure colours it '{r['verdict']}', {name} says '{verdict}'")
    return out, found

def digest_problems(page:dict, # DIGEST_JS's answer: the glance figures' rows, the page's list items and tables
                    required:bool=False, # the page must carry a glance figure and a digest for it
                   ) -> list:
    "Every row of every glance figure on the page against the digests that list its claim."
    out = []
    if required and not page['figs']: out.append("no glance figure drawn (a report must open with one)")
    for f in page['figs']:
        if not f['rows']: out.append(f"glance figure {f['title']!r} plots no row"); continue
        out += legend_problems(f)
        listed = 0
        for r in f['rows']:
            probs, found = row_problems(page, r)
            out += [f"digest vs glance figure {f['title']!r}: {p}" for p in probs]
            listed += bool(found)
            if required and not found:
                out.append(f"digest vs glance figure {f['title']!r}: no digest on the page lists {r['label']!r}")
        if not required and 0 < listed < len(f['rows']):
            out.append(f"digest vs glance figure {f['title']!r}: only {listed} of its {len(f['rows'])} rows are listed")
    return out

def legend_problems(f:dict) -> list:
    """The claims whose paper's value the legend names (a name without a list of claims: every row's) against those the
    figure draws one for: the legend promises only what is drawn."""
    drawn = {split_label(p['label'])[0] for p in f.get('paper', []) if p['x'] is not None}
    names, rows = {p['name'] for p in f.get('paper', [])}, {split_label(r['label'])[0] for r in f['rows']}
    lists = [m for n in names for m in re.findall(r'\(([^)]*)\)\s*$', n)]
    named = {c.strip() for m in lists for c in m.split(',') if c.strip()} if lists else rows if names else set()
    if drawn == named: return []
    return [f"glance figure {f['title']!r}: its legend names the paper's value for {', '.join(sorted(named)) or 'none'}"
            f", it draws it for {', '.join(sorted(drawn)) or 'none'}"]

def planted(page:dict) -> dict:
    "A copy of `page` whose first glance row's mean is moved by 0.01 (the check must catch it)."
    p = json.loads(json.dumps(page))
    r = p['figs'][0]['rows'][0]
    r['ours'] += 0.01; r['lo'] += 0.01; r['hi'] += 0.01
    return p

def read_page(b, url:str, timeout:float=90) -> dict:
    "Open `url` in browser `b` (scripts/check_docs.Browser), let it draw, return DIGEST_JS's answer."
    target = b.call('Target.createTarget', {'url': url})['targetId']
    try:
        s = b.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        b.call('Runtime.enable', session=s)
        end = time.time() + timeout
        while time.time() < end:
            st = b.call('Runtime.evaluate', {'expression': 'location.href + " " + document.readyState',
                                             'returnByValue': True}, s)
            if st['result'].get('value') == f'{url} complete': break
            time.sleep(0.2)
        r = b.call('Runtime.evaluate', {'expression': DIGEST_JS, 'awaitPromise': True, 'returnByValue': True}, s,
                   timeout=max(5, end - time.time()))
        if 'exceptionDetails' in r: raise RuntimeError(f"DIGEST_JS failed: {r['exceptionDetails']}")
        return r['result']['value']
    finally: b.call('Target.closeTarget', {'targetId': target})

def main(argv=None) -> int:
    import check_docs  # the browser (its folder is on sys.path when run as a script)
    pages = list(argv if argv is not None else sys.argv[1:]) or sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / 'reports').glob('*/report.html'))
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(check_docs.Quiet, directory=str(ROOT)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try: b = check_docs.Browser(check_docs.find_chromium())
    except FileNotFoundError as e: print(e); return 2
    n_problems, n_rows, t0 = 0, 0, time.time()
    try:
        b.call('Browser.getVersion', timeout=60)
        for rel in pages:
            page = read_page(b, f'http://127.0.0.1:{srv.server_address[1]}/{rel}')
            probs = digest_problems(page, required=rel in REQUIRED)
            rows = sum(len(f['rows']) for f in page['figs'])
            n_rows += rows
            for p in probs: print(f"PROBLEM {rel}: {p}")
            print(f"  {rel}: {len(page['figs'])} glance figures, {rows} rows compared with the digests; "
                  f"{len(probs)} problems", flush=True)
            n_problems += len(probs)
            if page['figs'] and page['figs'][0]['rows'] and not digest_problems(planted(page), required=True):
                print(f"PROBLEM {rel}: a change planted in the glance figure's numbers was not caught"); n_problems += 1
    finally:
        b.close(); srv.shutdown(); srv.server_close()
    print(f"digest: {len(pages)} pages, {n_rows} glance rows, {n_problems} problems ({time.time() - t0:.1f} s)")
    return 1 if n_problems else 0

if __name__ == '__main__': sys.exit(main())
