"""The import graph of pe_anchor is a DAG in reading order: a module imports only modules whose library notebook comes
before its own in `nbs/lib/` (imports inside functions count), and only from its own room or a room listed before it
in `ROOMS` (a room is a sub-package, or a module at the top of the package). Run `python scripts/layers.py` to check
the package; `check_package(folder, order)` is what `scripts/run_tests.py` calls (also on a copy with a planted import,
to show the check can fail)."""
import ast, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ROOMS = {  # the rooms of pe_anchor, lowest first: a module may import its own room and the rooms above it here
    'base': "registries, configs, checked values, files the project owns, parameters, machines, figures",
    'vision': "images, augmentation, the data sets, the paper's ViT and its encodings, timm models",
    'families': "the encodings beyond the paper's, a plug-in registered on import (`--import pe_anchor.families`)",
    'metrics': "SSDC, the one evaluation loop, per-layer SSDC plain and under RPI",
    'runs': "the run cache, final weights, training, where runs and tasks execute",
    'analyses': "the study's settings, corruptions and every analysis, each a registered unit",
    'verdicts': "claims C1-C7, their tables and the pre-registered decisions",
    'engine': "plans, parts, stored results, the merge, the report notebooks, amendments and upkeep",
    'cli': "the command lines",
    'report': "the results as a reader sees them: tables, the glance figure, the ladder, the study pages",
}

def reading_order(nbs=ROOT / 'nbs' / 'lib') -> list:
    "Module names (dotted below `pe_anchor`) in the order of their library notebooks (each one's `#| default_exp`)."
    order = []
    for nb in sorted(Path(nbs).glob('*.ipynb')):
        for c in json.loads(nb.read_text())['cells']:
            m = re.match(r'#\|\s*default_exp\s+(\S+)', ''.join(c['source']))
            if m: order.append(m.group(1)); break
    return order

def room(module:str) -> str:
    "The room of a dotted module name: its sub-package, or the module itself at the top of the package."
    return module.split('.')[0]

def targets(n:ast.AST, here:str, modules:set) -> list:
    "The pe_anchor modules one import statement of module `here` names (relative imports resolved)."
    if isinstance(n, ast.Import):
        return [a.name[len('pe_anchor.'):] for a in n.names if a.name.startswith('pe_anchor.')]
    if not isinstance(n, ast.ImportFrom): return []
    mod = n.module or ''
    if n.level:
        pkg = here.split('.')[:-1][:len(here.split('.')) - n.level]
        base = '.'.join(pkg + ([mod] if mod else []))
    elif mod == 'pe_anchor' or mod.startswith('pe_anchor.'): base = mod[len('pe_anchor.'):] if '.' in mod else ''
    else: return []
    found = []
    for a in n.names:
        sub = f'{base}.{a.name}' if base else a.name
        if sub in modules: found.append(sub)
        elif base in modules: found.append(base)
    return found

def imported(path:Path, here:str, modules:set) -> dict:
    "{module: line} of every pe_anchor module that `path` (module `here`) imports, at any depth (functions included)."
    found = {}
    for n in ast.walk(ast.parse(path.read_text())):
        for x in targets(n, here, modules): found.setdefault(x, n.lineno)
    return found

def find_cycle(graph:dict) -> list:
    "One cycle of `graph` ({node: set of nodes}) as a list of nodes, or []."
    state, stack = {}, []
    def visit(u):
        state[u] = 1; stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1: return stack[stack.index(v):] + [v]
            if not state.get(v) and (c := visit(v)): return c
        state[u] = 2; stack.pop(); return []
    for u in sorted(graph):
        if not state.get(u) and (c := visit(u)): return c
    return []

def package_modules(pkg=ROOT / 'pe_anchor') -> dict:
    "{dotted module name: file} of the package (`__init__.py` and the generated `_modidx.py` aside)."
    files = sorted(p for p in Path(pkg).rglob('*.py') if p.name not in ('__init__.py', '_modidx.py'))
    return {'.'.join(p.relative_to(pkg).with_suffix('').parts): p for p in files}

def check_package(pkg=ROOT / 'pe_anchor', order=None) -> list:
    "Problems: modules without a notebook or a room, imports of a later layer or a later room, cycles."
    order, files = order or reading_order(), package_modules(pkg)
    problems = [f"pe_anchor.{m} has no library notebook in nbs/lib/" for m in sorted(set(files) - set(order))]
    problems += [f"pe_anchor.{m} is in no room of scripts/layers.py's ROOMS" for m in sorted(files) if room(m) not in ROOMS]
    rank, rooms = {m: i for i, m in enumerate(order)}, {r: i for i, r in enumerate(ROOMS)}
    graph = {m: set() for m in files}
    for m, p in files.items():
        for dep, line in imported(p, m, set(files)).items():
            if dep == m: continue
            graph[m].add(dep)
            if rank.get(dep, -1) > rank.get(m, -1):
                problems.append(f"pe_anchor.{m}:{line} imports pe_anchor.{dep}, a later layer "
                                f"(nbs/lib order: {m} is #{rank.get(m)}, {dep} is #{rank.get(dep)})")
            if rooms.get(room(dep), -1) > rooms.get(room(m), -1):
                problems.append(f"pe_anchor.{m}:{line} imports pe_anchor.{dep}, a later room "
                                f"({room(m)} may import {', '.join(list(ROOMS)[:rooms.get(room(m), -1) + 1])})")
    cycle = find_cycle(graph)
    if cycle: problems.append('import cycle: ' + ' -> '.join(cycle))
    return problems

if __name__ == '__main__':
    bad = check_package()
    print('\n'.join(bad) or f"the import graph of {len(reading_order())} modules in {len(ROOMS)} rooms follows the "
                            "reading order")
    sys.exit(1 if bad else 0)
