"""The notebooks run as shipped: every code cell, in order."""
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow          # every notebook, cell by cell

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    cells = json.loads(path.read_text())["cells"]
    namespace = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{path.name}:{cell['id']}", "exec"), namespace)
