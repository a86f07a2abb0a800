"""Put a committed part's final weights into the part, after its runs were trained again and proved byte-identical.

    python scripts/recompute_part.py reports/cpu-parts/seed-100 --conditions none,ape,sincos,rope,rpt > seed-100.log
    python scripts/commit_weights.py reports/cpu-parts/seed-100 --log seed-100.log

The committed parts were computed before parts kept their weights, and the run cache that held them is gone. Training
is deterministic, so a run trained again on the kind of CPU that trained it must give the committed per-run results
byte for byte. `recompute_part.py` trains the runs again (into the run cache) and compares every table; this script
reads its log and, for every run of the part whose tables are all byte-identical (and whose final test accuracy equals
the one the part recorded), writes the run's final weights and config into `<part>/weights/`
(`pe_anchor.weights.save_weights`), records them under the run in the part's manifest (`part.runs[i].weights`), and
binds each of the run's per-run results to them: `weights_sha256` and `config_sha256` are added to the result's
`record.json` and to its copy in the manifest (the tables and their hashes are not touched). A run with any differing
or missing table is left unbound and named. Writes only inside the part."""
import argparse, json, re, sys
from pathlib import Path


def verified_runs(log:str) -> tuple:
    "({run: number of byte-identical tables}, {runs with a differing table}) from a `recompute_part.py` log."
    same, bad = {}, set()
    for verdict, analysis, run in re.findall(r'^(same|DIFFERS) results/([^/\s]+)/([^/\s]+)/\S+\.csv$', log, re.M):
        if verdict == 'same': same[run] = same.get(run, 0) + 1
        else: bad.add(run)
    return {r: n for r, n in same.items() if r not in bad}, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('part', help='a committed part folder')
    ap.add_argument('--log', required=True, help="the log of `recompute_part.py` on this part (every table compared)")
    ap.add_argument('--cache-root', default=None, help='the run cache holding the retrained runs (default: the usual)')
    a = ap.parse_args()
    from pe_anchor.files import save_json, load_json
    from pe_anchor.study import study_from_dict
    from pe_anchor.cache import Run, run_dir
    from pe_anchor.weights import save_weights, WEIGHTS
    part = Path(a.part)
    man = load_json(part / 'manifest.json', 'Part manifest', kind=dict)
    study = study_from_dict(man['plan']['study'])
    ok, bad = verified_runs(Path(a.log).read_text())
    results = man['part']['results']
    for r in man['part']['runs']:
        name = r['run']
        want = sum(1 for k in results if k.split('/')[1] == name)
        tables = sum(len(v['files']) for k, v in results.items() if k.split('/')[1] == name)
        if name in bad or ok.get(name, 0) != tables or not want:
            print(f"left unbound: {name} ({ok.get(name, 0)} of {tables} tables byte-identical"
                  f"{', some differ' if name in bad else ''})")
            continue
        run = Run(run_dir(study.config(r['condition'], r['seed']), a.cache_root))
        if run.test_acc != r['test_acc']:
            print(f"left unbound: {name} (retrained test_acc {run.test_acc!r} != committed {r['test_acc']!r})")
            continue
        entry = save_weights(run, part / WEIGHTS)
        r['weights'] = entry
        ident = dict(weights_sha256=entry['weights_sha256'], config_sha256=entry['config_sha256'])
        for key, rec in results.items():
            if key.split('/')[1] != name: continue
            path = part / 'results' / key / 'record.json'
            stored = load_json(path, 'Result record', kind=dict)
            if stored != rec: sys.exit(f"{path} differs from its copy in {part / 'manifest.json'}: not binding")
            rec.update(ident)
            save_json(rec, path)
        print(f"bound: {name} ({tables} tables byte-identical, test_acc {run.test_acc}, weights "
              f"{entry['weights_sha256'][:12]}, {(part / entry['file']).stat().st_size / 1e6:.2f} MB)")
    save_json(man, part / 'manifest.json')


if __name__ == '__main__': main()
