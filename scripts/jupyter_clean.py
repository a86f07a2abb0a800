"""Write the notebooks as JupyterLab saves them, so that they open without the unsaved-changes mark; check it.

    python scripts/jupyter_clean.py [NOTEBOOK ...]          # rewrite nbs/ (or the notebooks named) in place
    python scripts/jupyter_clean.py --check [NOTEBOOK ...]  # change nothing; exit 1 naming those it would change
    python scripts/jupyter_clean.py --check --lab           # ... and open them in a real JupyterLab (see below)

What JupyterLab 4.6 rewrites, measured with --lab (a notebook opened in headless Chromium, its tab's `jp-mod-dirty`
read once the kernel is idle, then saved with Ctrl+S and the saved JSON compared): when the kernel connects, JupyterLab
copies the kernel's reply to kernel_info into `metadata.language_info` and the kernel spec into `metadata.kernelspec`;
a notebook whose copy differs (no `language_info`, another Python version, another display name) is dirty at once.
Saving also writes every source as a list of lines. Neither missing cell ids (nbformat 4.4), untrusted cells nor the
`jupytext` metadata mark a notebook dirty. So this script writes `kernelspec` and `language_info` as the notebooks'
kernel (`python3`, asked once) reports them and every source as lines; `allowed_metadata_keys = kernelspec
language_info` in settings.ini makes nbdev_clean keep them. Run it after nbdev_clean; nbdev_clean then changes nothing.
`language_info` records the kernel's Python version: JupyterLab on another Python still marks the notebooks dirty, so
--check compares the rest there and says so.

--lab: a Jupyter server on a free port serves a temporary copy of nbs/ (its config, runtime and workspaces in a
temporary folder too); every notebook is read and written back through its contents API (GET, then PUT as JupyterLab
saves) and must come back byte for byte; 00_index and 05_fragility are opened in headless Chromium (as
scripts/check_docs.py drives it), must show no dirty mark once their kernel is idle, and Ctrl+S must write them back
byte for byte. Without Chromium that part is skipped with a note. The last line: `jupyter: N notebooks, N problems`.
"""
import argparse, copy, functools, json, os, secrets, shutil, socket, subprocess, sys, tempfile, time
import urllib.error, urllib.request, warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT / 'nbs'
OPENED = ('00_index.ipynb', '05_fragility.ipynb')  # opened in the browser by --lab

def notebooks_in(root:Path) -> list:
    "The notebooks under `root` that nbdev_clean cleans (folders starting with `_` or `.` skipped)."
    return sorted(p for p in root.rglob('*.ipynb')
                  if not any(d.startswith(('_', '.')) for d in p.relative_to(root).parts[:-1]))

@functools.lru_cache(maxsize=None)
def kernel_metadata(name:str) -> dict:
    "The `kernelspec` and `language_info` JupyterLab writes for kernel `name` (asked from the kernel itself)."
    from jupyter_client.manager import start_new_kernel
    km, kc = start_new_kernel(kernel_name=name, stderr=subprocess.DEVNULL)
    try: info = kc.kernel_info(reply=True, timeout=60)['content']['language_info']
    finally: kc.stop_channels(); km.shutdown_kernel(now=True)
    spec = km.kernel_spec
    if spec.display_name != name:
        sys.exit(f"kernel {name!r} is displayed as {spec.display_name!r}, but nbdev_clean writes the kernel's name as "
                 f"display name: python -m ipykernel install --sys-prefix --name {name} --display-name {name}")
    return dict(kernelspec=dict(display_name=name, language=spec.language, name=name), language_info=info)

def jupyter_form(text:str, meta:dict) -> str:
    "Notebook `text` as JupyterLab saves it after opening it with a kernel that reports `meta`."
    import nbformat
    with warnings.catch_warnings():  # a cell without an id gets one, as JupyterLab's save gives it
        warnings.filterwarnings('ignore', message='Cell is missing an id field')
        nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    nb.metadata.update(copy.deepcopy(meta))
    s = nbformat.writes(nb, version=nbformat.NO_CONVERT)  # what the Jupyter server writes (sources split into lines)
    return s if s.endswith('\n') else s + '\n'

def expected(text:str, keep_version:bool) -> tuple:
    """(`text` as JupyterLab here saves it, a note or ''); `keep_version`: compare with the Python version the notebook
    records where only that differs from this kernel's."""
    meta = kernel_metadata(json.loads(text).get('metadata', {}).get('kernelspec', {}).get('name', 'python3'))
    recorded = json.loads(text).get('metadata', {}).get('language_info', {}).get('version')
    here = meta['language_info']['version']
    if not keep_version or recorded in (None, here): return jupyter_form(text, meta), ''
    meta = {**meta, 'language_info': {**meta['language_info'], 'version': recorded}}
    return jupyter_form(text, meta), (f"note: the notebooks record Python {recorded}, this kernel runs {here}: "
                                      "JupyterLab here marks them dirty until saved (language_info.version)")

def clean(paths:list, check:bool) -> tuple:
    "([notebooks not (or, unless `check`, no longer) as JupyterLab saves them], {notes})."
    changed, notes = [], set()
    for p in paths:
        text = p.read_text(encoding='utf-8')
        new, note = expected(text, keep_version=check)
        if note: notes.add(note)
        if new == text: continue
        changed.append(p)
        if not check: p.write_text(new, encoding='utf-8')
    return changed, notes

# ---------------------------------------------------------------- --lab: a real Jupyter server and JupyterLab
def free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

class Server:
    "A Jupyter server (JupyterLab) serving `root`, its config, runtime and workspaces under `home`."
    def __init__(self, root:Path, home:Path, timeout:float=60):
        self.token, port = secrets.token_hex(16), free_port()
        self.base, self.log = f'http://127.0.0.1:{port}', (home / 'server.log').open('w')
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / 'config'), JUPYTER_RUNTIME_DIR=str(home / 'runtime'),
                   JUPYTERLAB_WORKSPACES_DIR=str(home / 'workspaces'), IPYTHONDIR=str(home / 'ipython'))
        cmd = [sys.executable, '-m', 'jupyterlab', '--no-browser', '--ServerApp.ip=127.0.0.1', f'--port={port}',
               '--ServerApp.port_retries=0', f'--IdentityProvider.token={self.token}', f'--ServerApp.root_dir={root}',
               '--NotebookNotary.db_file=:memory:', *(['--allow-root'] if os.geteuid() == 0 else [])]
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        end = time.time() + timeout
        while time.time() < end and self.proc.poll() is None:
            try: self.api('GET', 'api/status'); return
            except (urllib.error.URLError, ConnectionError): time.sleep(0.3)
        self.close(); raise RuntimeError(f"the Jupyter server did not start in {timeout:.0f} s: see {self.log.name}")

    def api(self, method:str, path:str, body:dict|None=None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        headers = {'Authorization': f'token {self.token}', 'Content-Type': 'application/json'}
        req = urllib.request.Request(f'{self.base}/{path}', data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=60) as r: return json.loads(r.read() or b'{}')

    def modified(self, rel:str) -> str: return self.api('GET', f'api/contents/{rel}?content=0')['last_modified']

    def close(self):
        "Stop the server (it shuts its kernels down)."
        if self.proc.poll() is None:
            self.proc.terminate()
            try: self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired: self.proc.kill(); self.proc.wait()
        self.log.close()

def roundtrip(server:Server, rel:str) -> None:
    "Read notebook `rel` through the contents API and write it back, as JupyterLab loads and saves it."
    m = server.api('GET', f'api/contents/{rel}?type=notebook&content=1')
    server.api('PUT', f'api/contents/{rel}', {'type': 'notebook', 'format': 'json', 'content': m['content']})

STATE = """(() => { const tab = [...document.querySelectorAll('.lm-TabBar-tab')].find(t => t.innerText.trim() === NAME);
  const ind = document.querySelector('.jp-Notebook-ExecutionIndicator');
  return {tab: !!tab, dirty: !!tab && tab.classList.contains('jp-mod-dirty'),
          kernel: (document.querySelector('.jp-Toolbar-kernelName') || {}).innerText || '',
          status: ind ? ind.getAttribute('data-status') : ''}; })()"""

def lab_state(b, session:str, name:str, kernel:str, timeout:float=60, settle:float=1.5) -> dict:
    "The state of notebook tab `name` once its kernel `kernel` has been idle for `settle` s (or at `timeout`)."
    expr, end, idle = STATE.replace('NAME', json.dumps(name)), time.time() + timeout, None
    while time.time() < end:
        b.pump(0.1)
        st = b.call('Runtime.evaluate', {'expression': expr, 'returnByValue': True}, session)['result']['value']
        ready = st['tab'] and st['kernel'] == kernel and st['status'] == 'idle'
        idle = (idle or time.time()) if ready else None
        if idle and time.time() - idle >= settle: return st
    return {**st, 'timeout': True}

def save_keys(b, session:str) -> None:
    "Press Ctrl+S in the page."
    for kind in ('rawKeyDown', 'keyUp'):
        b.call('Input.dispatchKeyEvent', {'type': kind, 'modifiers': 2, 'key': 's', 'code': 'KeyS',
                                          'windowsVirtualKeyCode': 83}, session)

def open_and_save(b, server:Server, rel:str, path:Path) -> list:
    "Problems of notebook `rel` (file `path`) in JupyterLab: dirty once its kernel is idle, changed by Ctrl+S."
    before, kernel = path.read_bytes(), json.loads(path.read_bytes())['metadata']['kernelspec']['display_name']
    target = b.call('Target.createTarget', {'url': 'about:blank'})['targetId']
    session = b.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
    try:
        b.call('Page.navigate', {'url': f'{server.base}/lab/workspaces/check-{secrets.token_hex(4)}/tree/{rel}'
                                        f'?token={server.token}&reset'}, session)
        st = lab_state(b, session, Path(rel).name, kernel)
        if st.get('timeout'): return [f"{rel}: JupyterLab did not open it with kernel {kernel!r} idle in 60 s ({st})"]
        problems = [f"{rel}: opened with unsaved changes (the tab's dirty mark)"] if st['dirty'] else []
        stamp, end = server.modified(rel), time.time() + 20
        save_keys(b, session)
        while time.time() < end and server.modified(rel) == stamp: b.pump(0.2)
        if server.modified(rel) == stamp: return problems + [f"{rel}: Ctrl+S did not save it in 20 s"]
        if path.read_bytes() != before: problems.append(f"{rel}: JupyterLab's save changed the file")
        return problems
    finally: b.call('Target.closeTarget', {'targetId': target})

def this_python(paths:list) -> list:
    "Notes; the notebooks in `paths` that record another Python version than this kernel's now record this one."
    here, moved = kernel_metadata('python3')['language_info']['version'], 0
    for p in paths:
        text = p.read_text(encoding='utf-8')
        recorded = json.loads(text).get('metadata', {}).get('language_info', {}).get('version')
        if recorded in (None, here): continue
        p.write_text(text.replace(f'"version": "{recorded}"', f'"version": "{here}"'), encoding='utf-8'); moved += 1
    return [f"note: in the copy, {moved} notebooks' Python version set to this kernel's {here}"] if moved else []

def lab(opened=OPENED) -> tuple:
    "([problems], [notes], number of notebooks): the contents-API round trip of every notebook, the browser check."
    sys.path.insert(0, str(ROOT / 'scripts'))
    from check_docs import Browser, find_chromium
    problems, notes = [], []
    with tempfile.TemporaryDirectory(prefix='pe_anchor-jupyter-') as d:
        copy_root, home = Path(d) / 'nbs', Path(d) / 'home'
        shutil.copytree(NBS, copy_root, ignore=shutil.ignore_patterns('.ipynb_checkpoints')); home.mkdir()
        paths = notebooks_in(copy_root)
        notes += this_python(paths)
        before = {p: p.read_bytes() for p in paths}
        server = Server(copy_root, home)
        try:
            for p in paths: roundtrip(server, p.relative_to(copy_root).as_posix())
            problems += [f"{p.relative_to(copy_root)}: the contents API round trip changed it" for p in paths
                         if p.read_bytes() != before[p]]
            try: chromium = find_chromium()
            except FileNotFoundError as e: return problems, notes + [f"note: browser check skipped: {e}"], len(paths)
            b = Browser(chromium)
            try:
                for rel in opened: problems += open_and_save(b, server, rel, copy_root / rel)
            finally: b.close()
        finally: server.close()
    return problems, notes, len(paths)

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('notebooks', nargs='*', help='notebooks (default: every notebook nbdev_clean cleans)')
    ap.add_argument('--check', action='store_true', help='change nothing; exit 1 naming the notebooks it would change')
    ap.add_argument('--lab', action='store_true', help='also open them in JupyterLab (a server, headless Chromium)')
    a = ap.parse_args(argv)
    paths = [Path(p).resolve() for p in a.notebooks] or notebooks_in(NBS)
    changed, notes = clean(paths, a.check)
    problems = [f"{p.relative_to(ROOT)}: not as JupyterLab saves it (python scripts/jupyter_clean.py)" for p in changed]
    if not a.check: problems = []; print('\n'.join(f"rewritten: {p.relative_to(ROOT)}" for p in changed) or 'no change')
    n = len(paths)
    if a.lab:
        more, lab_notes, n = lab()
        problems += more; notes |= set(lab_notes)
    print('\n'.join(sorted(notes) + problems + [f"jupyter: {n} notebooks, {len(problems)} problems"]))
    return 1 if problems else 0

if __name__ == '__main__': sys.exit(main())
