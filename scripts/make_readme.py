"""Write README.md from nbs/00_index.ipynb (Quarto, and so nbdev_readme, is not available here).
`python scripts/make_readme.py --check` exits 1 if README.md is out of step with the notebook."""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def readme_text() -> str:
    "Markdown cells as they are, code cells as python blocks."
    cells = json.loads((ROOT / 'nbs' / '00_index.ipynb').read_text())['cells']
    parts = [''.join(c['source']) if c['cell_type'] == 'markdown' else f"```python\n{''.join(c['source'])}\n```" for c in cells]
    return '<!-- generated from nbs/00_index.ipynb by scripts/make_readme.py: edit the notebook, not this file -->\n\n' + '\n\n'.join(parts) + '\n'

if __name__ == '__main__':
    text, path = readme_text(), ROOT / 'README.md'
    if '--check' in sys.argv: sys.exit(0 if path.exists() and path.read_text() == text else 1)
    path.write_text(text)
