"""Check a built docs site: every page renders in headless Chromium, every figure shows, every link resolves.

    python scripts/check_docs.py SITE_DIR [--verbose] [--page-timeout S]

Serves SITE_DIR on 127.0.0.1 (http.server in a thread) and opens every HTML page (not those under _static/) in one
headless Chromium, driven over the DevTools protocol through a pipe (standard library only). A page's problems:
- it does not load (HTTP status, empty body), a JavaScript exception or console error, a failed request for one of the
  site's own files (404 ...);
- a request to another host for anything but an image or a link (scripts, styles, fonts, frames, data): the site must
  be self-contained. Every request to another host is blocked, never sent; external images are listed, not counted;
- an <img> of the site that did not load (naturalWidth 0);
- a plotly figure (`.pe-docs-plotly`, `.pe-figure`, `.plotly-graph-div`) that drew no SVG with traces and shows no
  loaded PNG fallback;
- math that MathJax did not typeset, or typeset as an error;
- a link (a/link href, img/script/iframe/source src) to a file of the site that does not exist, or to an #anchor that
  is not on the target page (checked in the HTML files themselves);
- layout: a figure (plotly or image) or a display equation wider than the content column, or a page that scrolls
  sideways (at the 1280 px viewport);
- results: placeholder text where results belong ("generated here", the README's placeholder, a raw block marker); a
  page that `_pe_docs_expect.json` (written by scripts/build_docs.py) says must carry results and carries none (no
  figure and no output table), the home page without the verdict table, `05_fragility` without a figure;
- first screens that disagree: on every page that draws a glance figure (the committed reports `reports/cpu/report.html`
  and `reports/cpu-families/report.html` must), a digest whose numbers or verdict differ from the figure's for the
  same label, with the label and both numbers (scripts/check_digest.py, which also runs on the reports alone); a
  committed study's overview page titled like another's, the families extension's titled otherwise than as the
  families extension (e.g. "The confirmatory study") or without its H1-H3 verdict table; a sidebar entry listed twice.
`--screenshots DIR` saves a full-page PNG of the home page, `05_fragility` and every page with a layout problem.
External links (http(s) to other hosts) are listed, never fetched. The last line is
`docs: N pages, N figures, N links checked, N problems`; exit status 1 if there is a problem (2: no site / browser).
"""
import argparse, collections, fcntl, functools, html.parser, http.server, json, os, queue, shutil, subprocess, sys
import tempfile, threading, time
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_digest import DIGEST_JS, digest_problems  # a report's digest against its glance figure
from pe_anchor.base.render import find_chromium, VIEWPORT  # one definition each: the report's browser test uses them too

CHROMIUM_FLAGS = ('--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
                  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-extensions',
                  '--disable-default-apps', '--mute-audio', '--hide-scrollbars')
PLACEHOLDERS = ('generated here', 'Placeholder: no verdict table', 'results:begin', 'deviations:begin', 'costs:begin')
MUST = {'index.html': 'the verdict table', '05_fragility.html': 'a committed figure',  # whatever the build says
        **{f'reports/{s}/report.html': 'the glance digest' for s in ('cpu', 'cpu-families')}}
SHOTS = ('index.html', '05_fragility.html')  # screenshots taken with --screenshots
EXTERNAL_OK = {'Image', 'Media', 'Ping', 'Other'}  # external resources that are listed, not problems

# ---------------------------------------------------------------- static links and anchors
class Refs(html.parser.HTMLParser):
    "The ids (id=, <a name=>) of an HTML file and its references (tag, attribute, value)."
    ATTRS = {'a': 'href', 'link': 'href', 'img': 'src', 'script': 'src', 'iframe': 'src', 'source': 'src',
             'area': 'href', 'embed': 'src', 'video': 'src', 'audio': 'src'}
    def __init__(self):
        super().__init__(convert_charrefs=True); self.ids, self.refs = set(), []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get('id'): self.ids.add(a['id'])
        if tag == 'a' and a.get('name'): self.ids.add(a['name'])
        key = self.ATTRS.get(tag)
        if key and a.get(key) is not None: self.refs.append((tag, key, a[key].strip()))

@functools.lru_cache(maxsize=None)
def parse(path:Path) -> Refs:
    p = Refs(); p.feed(path.read_text(encoding='utf-8', errors='replace')); p.close()
    return p

def check_links(site:Path, pages:list) -> tuple:
    "Problems {page: [..]}, the number of internal references checked, the external links {url: [pages]}."
    problems, external, n = collections.defaultdict(list), collections.defaultdict(set), 0
    base = 'http://site.invalid/'
    for page in pages:
        rel = page.relative_to(site).as_posix()
        for tag, attr, value in parse(page).refs:
            if not value or value.startswith(('javascript:', 'mailto:', 'data:', 'blob:', 'tel:')): continue
            u = urlsplit(urljoin(base + rel, value))
            if f'{u.scheme}://{u.netloc}/' != base:
                if u.scheme in ('http', 'https'): external[value].add(rel)
                continue
            n += 1
            path = unquote(u.path)[1:]
            target = site / path
            if target.is_dir() or path == '' or path.endswith('/'): target = target / 'index.html'
            if not target.is_file():
                problems[rel].append(f"broken link: <{tag} {attr}=\"{value}\">: no file {target.relative_to(site).as_posix()}")
                continue
            if u.fragment and target.suffix == '.html' and unquote(u.fragment) not in parse(target).ids:
                problems[rel].append(f"broken anchor: <{tag} {attr}=\"{value}\">: no id \"{unquote(u.fragment)}\" "
                                     f"in {target.relative_to(site).as_posix()}")
    return problems, n, external

# ---------------------------------------------------------------- the browser
class Browser:
    "Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: fds 3 and 4)."
    def __init__(self, chromium:str):
        self.profile = tempfile.mkdtemp(prefix='pe_anchor-docs-chromium-')
        r_in, w_in = os.pipe(); r_out, w_out = os.pipe()
        cr, cw = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (r_in, w_out))
        os.close(r_in); os.close(w_out)
        cmd = ['bash', '-c', f'exec "$0" "$@" 3<&{cr} 4>&{cw} {cr}<&- {cw}>&-', chromium, *CHROMIUM_FLAGS,
               f'--user-data-dir={self.profile}', f'--window-size={VIEWPORT[0]},{VIEWPORT[1]}',
               '--remote-debugging-pipe', 'about:blank']
        self.proc = subprocess.Popen(cmd, pass_fds=(cr, cw), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(cr); os.close(cw)
        self.w, self.r, self.ids = w_in, r_out, 0
        self.inbox, self.handlers = queue.Queue(), {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b''
        while True:
            try: chunk = os.read(self.r, 1 << 16)
            except OSError: chunk = b''
            if not chunk: self.inbox.put(None); return
            buf += chunk
            while b'\0' in buf:
                msg, buf = buf.split(b'\0', 1); self.inbox.put(json.loads(msg))

    def send(self, method:str, params:dict|None=None, session:str|None=None) -> int:
        self.ids += 1
        msg = {'id': self.ids, 'method': method, 'params': params or {}}
        if session: msg['sessionId'] = session
        data = json.dumps(msg).encode() + b'\0'
        while data: data = data[os.write(self.w, data):]
        return self.ids

    def pump(self, timeout:float):
        "Handle one incoming message (events go to their session's handler); returns it (None on timeout)."
        try: msg = self.inbox.get(timeout=timeout)
        except queue.Empty: return None
        if msg is None: raise RuntimeError("Chromium exited")
        if 'method' in msg and msg.get('sessionId') in self.handlers: self.handlers[msg['sessionId']](msg)
        return msg

    def call(self, method:str, params:dict|None=None, session:str|None=None, timeout:float=60) -> dict:
        i, end = self.send(method, params, session), time.time() + timeout
        while time.time() < end:
            msg = self.pump(max(0.01, end - time.time()))
            if msg and msg.get('id') == i:
                if 'error' in msg: raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get('result', {})
        raise TimeoutError(f"{method}: no answer in {timeout} s")

    def close(self):
        try: self.send('Browser.close')
        except OSError: pass
        try: self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired: self.proc.kill(); self.proc.wait()
        os.close(self.w); shutil.rmtree(self.profile, ignore_errors=True)

SETTLED = """(async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { try { await MathJax.startup.promise; } catch (e) {} }
  await new Promise(r => setTimeout(r, 200));
  return document.readyState;
})()"""

COLLECT = r"""(() => {
  const shown = el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.display !== 'none' && s.visibility !== 'hidden'; };
  const local = src => { try { return new URL(src, location.href).host === location.host || src.startsWith('data:'); }
                         catch (e) { return false; } };
  const imgs = [...document.images].map(i => ({src: (i.getAttribute('src') || '').slice(0, 120), local: local(i.src),
      ok: i.complete && i.naturalWidth > 0, fallback: !!i.closest('.pe-docs-plotly, .pe-figure')}));
  const boxes = [...document.querySelectorAll('.pe-docs-plotly, .pe-figure')];
  const loose = [...document.querySelectorAll('.plotly-graph-div')].filter(g => !g.closest('.pe-docs-plotly, .pe-figure'));
  const figs = [...boxes, ...loose].map((box, k) => {
    const gd = box.classList.contains('js-plotly-plot') ? box : box.querySelector('.js-plotly-plot, .plotly-graph-div');
    const traces = gd && gd._fullData ? gd._fullData.filter(t => t.visible !== false).length : 0;
    const drawn = !!(gd && gd.querySelector('svg.main-svg') && traces > 0);
    const fb = [...box.querySelectorAll('img')].some(i => i.naturalWidth > 0 && shown(i));
    const title = gd && gd.layout && gd.layout.title ? (gd.layout.title.text || gd.layout.title) : '';
    return {k, drawn, fallback: fb, traces, want: +(box.dataset.traces || 0), title: String(title).slice(0, 80)};
  });
  const math = [...document.querySelectorAll('span.math, div.math')];
  const col = document.querySelector('article[role=main]') || document.querySelector('.content') || document.body;
  const colW = col.getBoundingClientRect().width;
  const wide = [...boxes, ...loose].map((box, k) => {
    const parts = [box, ...box.querySelectorAll('.js-plotly-plot, .main-svg, img')].filter(shown);
    return {k, w: Math.max(0, ...parts.map(e => Math.max(e.getBoundingClientRect().width, e.scrollWidth || 0)))};
  }).filter(f => f.w > colW + 1);
  const wideImgs = [...col.querySelectorAll('img')].filter(i => shown(i) && !i.closest('.pe-docs-plotly, .pe-figure'))
    .map(i => ({src: (i.getAttribute('src') || '').slice(0, 80), w: i.getBoundingClientRect().width})).filter(i => i.w > colW + 1);
  const wideMath = [...document.querySelectorAll('mjx-container[display="true"]')].map(m => {
    const inner = m.querySelector('mjx-math');
    return {w: inner ? inner.getBoundingClientRect().width : m.scrollWidth, box: m.clientWidth,
            tex: (m.closest('.math') || m).textContent.slice(0, 60)};
  }).filter(m => m.w > Math.min(m.box, colW) + 1);
  const text = document.body ? document.body.innerText : '';
  const tables = [...col.querySelectorAll('table')];
  const verdict = tables.some(t => /verdict/i.test(t.querySelector('thead, tr') ? t.querySelector('thead, tr').innerText : '')
                                   && /holds|inconclusive|not testable/.test(t.innerText));
  const outTables = col.querySelectorAll('.cell_output table, .output table').length;
  const h1 = col.querySelector('h1') ? col.querySelector('h1').innerText.replace(/[¶#]\s*$/, '').trim() : '';
  const firstCells = tables.map(t => [...t.querySelectorAll('tr')]
    .map(r => (r.querySelector('th, td') || {}).innerText || ''));
  const hypTable = ['H1-', 'H2-', 'H3-'].every(h => firstCells.some(rows => rows.some(c => c.trim().startsWith(h))))
                   && tables.some(t => /verdict/i.test(t.innerText) && /^\s*H1-/m.test(t.innerText));
  return {status: document.readyState, text: (document.body ? document.body.innerText.trim().length : 0),
          title: document.title, imgs, figs, math: math.length,
          typeset: math.filter(m => m.querySelector('mjx-container')).length,
          merror: document.querySelectorAll('mjx-merror').length,
          mathjax: !!(window.MathJax && MathJax.startup), colW, wide, wideImgs, wideMath,
          scrollX: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          placeholders: PLACEHOLDERS.filter(p => text.includes(p)), verdict, outTables, nTables: tables.length,
          h1, hypTable,
          sidebar: [...document.querySelectorAll('.sidebar-tree li.toctree-l1 > a')].map(a => a.innerText.trim())};
})()"""

def check_page(b:Browser, url:str, host:str, timeout:float, expect:str|None=None, shot:Path|None=None,
               seen:dict|None=None) -> tuple:
    """Problems, figure count, external requests of one page; `expect`: what it must carry ('the verdict table', 'a
    committed figure', 'committed results', 'the glance digest'); `shot`: save a full-page screenshot there (and on a
    layout problem); `seen`: filled with the page's H1 heading, glance figures, sidebar entries and whether it has an
    H1-H3 table."""
    problems, external, inflight = [], [], set()
    target = b.call('Target.createTarget', {'url': 'about:blank'})['targetId']
    session = b.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
    state = {'loaded': False, 'status': None, 'last': time.time()}
    def on(msg):
        m, p = msg['method'], msg.get('params', {})
        if m == 'Fetch.requestPaused':
            req, kind = p['request']['url'], p.get('resourceType', 'Other')
            if urlsplit(req).netloc == host or not req.startswith('http'):
                b.send('Fetch.continueRequest', {'requestId': p['requestId']}, session)
            else:
                external.append((kind, req))
                b.send('Fetch.failRequest', {'requestId': p['requestId'], 'errorReason': 'BlockedByClient'}, session)
                if kind not in EXTERNAL_OK: problems.append(f"fetches {kind.lower()} from another host: {req}")
        elif m == 'Page.loadEventFired': state['loaded'] = True
        elif m == 'Network.requestWillBeSent': inflight.add(p['requestId']); state['last'] = time.time()
        elif m in ('Network.loadingFinished', 'Network.loadingFailed'):
            inflight.discard(p['requestId']); state['last'] = time.time()
            if m == 'Network.loadingFailed' and 'BLOCKED_BY_CLIENT' not in p.get('errorText', '') and not p.get('canceled'):
                problems.append(f"request failed: {p.get('type', '')} {p.get('errorText', '')}")
        elif m == 'Network.responseReceived':
            r = p['response']
            if p.get('type') == 'Document' and r['url'] == url: state['status'] = r['status']
            if r['status'] >= 400 and not r['url'].endswith('/favicon.ico'):
                problems.append(f"HTTP {r['status']} for {r['url'].split(host, 1)[-1]}")
        elif m == 'Runtime.exceptionThrown':
            d = p['exceptionDetails']
            text = (d.get('exception') or {}).get('description') or d.get('text', '')
            problems.append(f"JavaScript error: {text.splitlines()[0][:300] if text else d}"
                            f" ({d.get('url', '').split(host, 1)[-1]}:{d.get('lineNumber', '?')})")
        elif m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            args = ' '.join(str(a.get('value', a.get('description', ''))) for a in p.get('args', []))
            problems.append(f"console.{p['type']}: {args[:300]}")
        elif m == 'Log.entryAdded':
            e = p['entry']
            if e.get('level') == 'error' and e.get('source') not in ('network',) and 'favicon' not in e.get('url', ''):
                problems.append(f"browser log error ({e.get('source')}): {e.get('text', '')[:300]}")
    b.handlers[session] = on
    try:
        for domain in ('Page', 'Runtime', 'Network', 'Log'): b.call(f'{domain}.enable', session=session)
        b.call('Fetch.enable', {'patterns': [{'urlPattern': '*'}]}, session)
        nav = b.call('Page.navigate', {'url': url}, session)
        if nav.get('errorText'): return [f"does not load: {nav['errorText']}"], 0, external
        end = time.time() + timeout
        while time.time() < end and not state['loaded']: b.pump(0.1)
        if not state['loaded']: problems.append(f"no load event in {timeout:.0f} s")
        while time.time() < end and (inflight or time.time() - state['last'] < 0.3): b.pump(0.05)
        r = b.call('Runtime.evaluate', {'expression': SETTLED, 'awaitPromise': True, 'returnByValue': True},
                   session, timeout=max(5, end - time.time()))
        while time.time() < end and (inflight or time.time() - state['last'] < 0.3): b.pump(0.05)
        info = b.call('Runtime.evaluate', {'expression': f'const PLACEHOLDERS = {json.dumps(PLACEHOLDERS)};' + COLLECT,
                                           'returnByValue': True}, session)['result']['value']
        layout = layout_problems(info)
        glances = [f['title'] for f in info['figs'] if 'at a glance' in f['title']]
        if glances or expect == 'the glance digest':  # its digest states the numbers its glance figure plots
            r = b.call('Runtime.evaluate', {'expression': DIGEST_JS, 'awaitPromise': True, 'returnByValue': True},
                       session, timeout=max(5, end - time.time()))
            digest = r['result'].get('value') or dict(figs=[], items=[], tables=[])
            problems += digest_problems(digest, required=expect == 'the glance digest')
            glances = [f['title'] for f in digest['figs']]
        if seen is not None:
            seen.update(h1=info['h1'], hypTable=info['hypTable'], glances=glances, sidebar=info['sidebar'])
        if shot is not None and (layout or shot.stem in {x.removesuffix('.html').replace('/', '_') for x in SHOTS}):
            screenshot(b, session, shot)
        while not b.inbox.empty(): b.pump(0)
    finally:
        b.handlers.pop(session, None)
        try: b.call('Target.closeTarget', {'targetId': target})
        except Exception: pass
    if state['status'] not in (None, 200): problems.append(f"HTTP {state['status']}")
    if not info['text']: problems.append("renders an empty page")
    for i in info['imgs']:
        if i['local'] and not i['ok'] and not i['fallback']: problems.append(f"image not shown: {i['src']}")
    for f in info['figs']:
        if not f['drawn'] and not f['fallback']:
            problems.append(f"plotly figure {f['k'] + 1} {f['title']!r} not drawn ({f['traces']} traces) and no PNG fallback shown")
    if info['math'] and not info['mathjax']: problems.append(f"{info['math']} formulas but MathJax did not load")
    elif info['math'] > info['typeset']: problems.append(f"{info['math'] - info['typeset']} of {info['math']} formulas not typeset")
    if info['merror']: problems.append(f"{info['merror']} formulas typeset as MathJax errors")
    problems += layout + content_problems(info, expect)
    n_figs = len(info['figs']) + sum(1 for i in info['imgs'] if i['local'] and not i['fallback'])
    kinds = collections.Counter('drawn' if f['drawn'] else 'png' if f['fallback'] else 'missing' for f in info['figs'])
    kinds['images'] = n_figs - len(info['figs'])
    return problems, kinds, external

def layout_problems(info:dict) -> list:
    "Figures, images and display equations wider than the content column; a page that scrolls sideways."
    col = info['colW']
    out = [f"plotly figure {f['k'] + 1} is {f['w']:.0f} px wide in a {col:.0f} px column" for f in info['wide']]
    out += [f"image {i['src']!r} is {i['w']:.0f} px wide in a {col:.0f} px column" for i in info['wideImgs']]
    out += [f"display equation {m['tex']!r} is {m['w']:.0f} px wide in a {min(m['box'], col):.0f} px box" for m in info['wideMath']]
    if info['scrollX'] > 1: out.append(f"the page scrolls sideways by {info['scrollX']} px")
    return out

def content_problems(info:dict, expect:str|None) -> list:
    "Placeholder text; a page that must carry results and carries none."
    out = [f"placeholder text where results belong: {p!r}" for p in info['placeholders']]
    n_figs = sum(f['drawn'] or f['fallback'] for f in info['figs']) + sum(i['ok'] and i['local'] for i in info['imgs'] if not i['fallback'])
    if expect == 'the verdict table' and not info['verdict']: out.append("no verdict table (it must carry one)")
    elif expect == 'a committed figure' and not n_figs: out.append("no figure (it must carry a committed figure)")
    elif expect == 'committed results' and not (n_figs or info['outTables']):
        out.append("no results: no figure and no output table (it must carry the committed results)")
    return out

def study_page_problems(seen:dict) -> list:
    """(page, problem): the committed studies' overview pages (reports/NAME/index.html or overview.html) each have a
    title of their own; a study whose report draws the families' glance figure (or named *families*) is titled as the
    families extension, never 'The confirmatory study', and carries its H1-H3 verdict table; the sidebar names no
    two pages alike."""
    out, pages = [], {}
    for rel, s in seen.items():
        p = rel.split('/')
        if len(p) == 3 and p[0] == 'reports' and p[2] in ('index.html', 'overview.html'): pages[p[1]] = (rel, s)
    titles = collections.Counter(s.get('h1', '') for _, s in pages.values())
    for name, (rel, s) in sorted(pages.items()):
        h1 = s.get('h1', '')
        if titles[h1] > 1: out.append((rel, f"its title {h1!r} is another study's page's title too"))
        report = seen.get(f'reports/{name}/report.html', {})
        if not ('families' in name or any('hypotheses' in t for t in report.get('glances', []))): continue
        if h1.lower().startswith('the confirmatory study') or 'families' not in h1.lower():
            out.append((rel, f"the families extension's page is titled {h1!r}, not as the families extension"))
        if not s.get('hypTable'): out.append((rel, "the families extension's page shows no H1-H3 verdict table"))
    for name in {r.split('/')[1] for r in seen if r.startswith('reports/') and r.endswith('/report.html')} - set(pages):
        out.append((f'reports/{name}/report.html', "its study has no overview page (reports/NAME/index.html)"))
    side = collections.Counter(seen.get('index.html', {}).get('sidebar', []))
    out += [('index.html', f"the sidebar lists {t!r} {n} times") for t, n in side.items() if n > 1]
    return out

def screenshot(b:Browser, session:str, path:Path, max_h:int=6000):
    "A full-page PNG of the page (at most `max_h` px tall)."
    import base64
    m = b.call('Page.getLayoutMetrics', session=session)
    size = m.get('cssContentSize') or m['contentSize']
    clip = dict(x=0, y=0, width=VIEWPORT[0], height=min(max_h, int(size['height'])), scale=1)
    r = b.call('Page.captureScreenshot', {'format': 'png', 'clip': clip, 'captureBeyondViewport': True}, session, timeout=120)
    path.parent.mkdir(parents=True, exist_ok=True); path.write_bytes(base64.b64decode(r['data']))

class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('site', help='the built site (e.g. _site)')
    ap.add_argument('--verbose', action='store_true', help='print every page as it is checked')
    ap.add_argument('--page-timeout', type=float, default=90, help='seconds a page may take to load and draw')
    ap.add_argument('--screenshots', help='save full-page PNGs here: the home page, 05_fragility, pages with a layout problem')
    a = ap.parse_args(argv)
    site = Path(a.site).resolve()
    if not (site / 'index.html').is_file(): print(f"no site in {site} (no index.html)"); return 2
    pages = sorted(p for p in site.rglob('*.html') if '_static' not in p.relative_to(site).parts)
    ex = site / '_pe_docs_expect.json'
    expect = {**(json.loads(ex.read_text(encoding='utf-8')) if ex.is_file() else {}), **MUST}
    shots = Path(a.screenshots).resolve() if a.screenshots else None
    t0 = time.time()
    problems, n_links, external = check_links(site, pages)
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    host = f'127.0.0.1:{srv.server_address[1]}'
    try: b = Browser(find_chromium())
    except FileNotFoundError as e: print(e); return 2
    n_figs, ext_requests, seen = collections.Counter(), collections.defaultdict(set), {}
    try:
        b.call('Browser.getVersion', timeout=60)
        for page in pages:
            rel = page.relative_to(site).as_posix()
            t = time.time()
            shot = shots / (rel.replace('/', '_').removesuffix('.html') + '.png') if shots else None
            want = expect.get(rel) if (site / rel).is_file() else None
            seen[rel] = {}
            try: probs, kinds, ext = check_page(b, f'http://{host}/{rel}', host, a.page_timeout, want, shot, seen[rel])
            except (TimeoutError, RuntimeError) as e:
                probs, kinds, ext = [f"browser: {e}"], collections.Counter(), []
                if b.proc.poll() is not None: b.close(); b = Browser(find_chromium())
            problems[rel] += probs; n_figs.update(kinds)
            for kind, u in ext: ext_requests[u].add(rel)
            if a.verbose:
                print(f"  {rel}: {kinds['images']} images, {kinds['drawn']} plotly figures drawn, {kinds['png']} as PNG "
                      f"fallback; {len(probs)} problems; {time.time() - t:.1f} s", flush=True)
    finally:
        b.close(); srv.shutdown(); srv.server_close()
    for rel, p in study_page_problems(seen): problems[rel].append(p)
    external_all = {**{u: set(p) for u, p in external.items()}}
    for u, p in ext_requests.items(): external_all.setdefault(u, set()).update(p)
    if external_all:
        print(f"external links and resources (listed, not fetched): {len(external_all)}")
        for u in sorted(external_all): print(f"  {u}  ({len(external_all[u])} pages)")
    n_problems = sum(len(v) for v in problems.values())
    for rel in sorted(problems):
        for p in problems[rel]: print(f"PROBLEM {rel}: {p}")
    print(f"checked in {time.time() - t0:.1f} s: {n_figs['images']} images, {n_figs['drawn']} plotly figures drawn, "
          f"{n_figs['png']} shown as their PNG fallback, {n_figs['missing']} missing")
    missing = [r for r in expect if not (site / r).is_file() and r not in MUST]
    for r in missing: print(f"PROBLEM {r}: the build says it carries {expect[r]}, but the page is missing")
    n_problems += len(missing)
    print(f"docs: {len(pages)} pages ({sum(1 for r in expect if (site / r).is_file())} must carry results), "
          f"{sum(n_figs.values())} figures, {n_links} links checked, {n_problems} problems")
    return 1 if n_problems else 0

if __name__ == '__main__': sys.exit(main())
