"""The import graph of pe_anchor is a DAG in reading order: a module imports only modules whose library notebook comes
before its own in `nbs/lib/` (imports inside functions count). Run `python scripts/layers.py` to check the package;
`check_package(folder, order)` is what `scripts/run_tests.py` calls (also on a copy with a planted import, to show
the check can fail)."""
import ast, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def reading_order(nbs=ROOT / 'nbs' / 'lib') -> list:
    "Module names in the order of their library notebooks (each notebook's `#| default_exp`)."
    order = []
    for nb in sorted(Path(nbs).glob('*.ipynb')):
        for c in json.loads(nb.read_text())['cells']:
            m = re.match(r'#\|\s*default_exp\s+(\S+)', ''.join(c['source']))
            if m: order.append(m.group(1)); break
    return order

def imported(path:Path, modules:set) -> dict:
    "{module: line} of every pe_anchor module that `path` imports, at any depth (functions included)."
    found = {}
    for n in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(n, ast.ImportFrom):
            mod = n.module or ''
            if n.level == 1: names = [mod.split('.')[0]] if mod else [a.name for a in n.names]
            elif mod.startswith('pe_anchor.'): names = [mod.split('.')[1]]
            elif mod == 'pe_anchor': names = [a.name for a in n.names]
        elif isinstance(n, ast.Import):
            names = [a.name.split('.')[1] for a in n.names if a.name.startswith('pe_anchor.')]
        for x in names:
            if x in modules: found.setdefault(x, n.lineno)
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

def check_package(pkg=ROOT / 'pe_anchor', order=None) -> list:
    "Problems: modules without a notebook in the order, imports of a later (or the same) layer, cycles."
    order = order or reading_order()
    files = {p.stem: p for p in Path(pkg).glob('*.py') if p.stem not in ('__init__', '_modidx')}
    problems = [f"pe_anchor/{m}.py has no library notebook in nbs/lib/" for m in sorted(set(files) - set(order))]
    rank = {m: i for i, m in enumerate(order)}
    graph = {m: set() for m in files}
    for m, p in files.items():
        for dep, line in imported(p, set(files)).items():
            if dep == m: continue
            graph[m].add(dep)
            if rank.get(dep, -1) > rank.get(m, -1):
                problems.append(f"pe_anchor/{m}.py:{line} imports pe_anchor.{dep}, a later layer "
                                f"(nbs/lib order: {m} is #{rank.get(m)}, {dep} is #{rank.get(dep)})")
    cycle = find_cycle(graph)
    if cycle: problems.append('import cycle: ' + ' -> '.join(cycle))
    return problems

if __name__ == '__main__':
    bad = check_package()
    print('\n'.join(bad) or f"the import graph of {len(reading_order())} modules follows the reading order")
    sys.exit(1 if bad else 0)
