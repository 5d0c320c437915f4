"""The import graph reads top-down (docs/architecture.md): every import,
at module or function level, points to the same layer or a lower one; no
module imports itself back through others; no private name crosses a
package."""
import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent / "geoanon"

LAYERS = (
    ("base", ("geoanon.errors", "geoanon.constraints", "geoanon._text", "geoanon._cells", "geoanon._codes", "geoanon._geo",
              "geoanon._outcome", "geoanon._version", "geoanon._validation", "geoanon._milp", "geoanon._forked",
              "geoanon._threads", "geoanon._counting", "geoanon._lazy",
              "geoanon.progress", "geoanon.choices",
              "geoanon.columns", "geoanon.partition", "geoanon.staging", "geoanon.io")),
    ("models", ("geoanon.criteria", "geoanon.models", "geoanon.audit", "geoanon.ncp", "geoanon.dates",
                "geoanon.datasets")),
    ("algorithms", ("geoanon.points", "geoanon.regions", "geoanon.labels", "geoanon.tables", "geoanon.joint")),
    ("options", ("geoanon.options",)),
    ("report", ("geoanon.report",)),
    ("engines", ("geoanon.pipeline", "geoanon.cluster")),
    ("front ends", ("geoanon.cli", "geoanon.jobs", "geoanon.accessor", "geoanon.__main__", "geoanon")),
)


def _modules() -> dict:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def layer(module: str) -> int:
    """The index of ``module``'s layer: the longest prefix listed."""
    best = max((p for _, prefixes in LAYERS for p in prefixes if module == p or module.startswith(p + ".")), key=len)
    return next(i for i, (_, prefixes) in enumerate(LAYERS) if best in prefixes)


def package(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def imports(module: str):
    """(imported module, imported name or None) of every import in ``module``, at any depth."""
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("geoanon"):
                    yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package(module).split(".")[: len(package(module).split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            if not base.startswith("geoanon"):
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield (full, None) if full in MODULES else (base, alias.name)


def graph() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(MODULES)
    for module in MODULES:
        for target, _ in imports(module):
            if target != module and target in MODULES:
                g.add_edge(module, target)
    return g


def test_every_module_has_a_layer():
    assert all(layer(m) >= 0 for m in MODULES)


def test_no_import_cycle():
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph()) if len(c) > 1]
    assert not cycles, cycles


def test_imports_point_down():
    upward = [(a, b) for a, b in graph().edges if layer(b) > layer(a)]
    assert not upward, upward


def test_no_private_name_crosses_a_package():
    crossing = [(m, t, name) for m in MODULES for t, name in imports(m)
                if name and name.startswith("_") and not name.startswith("__") and t in MODULES
                and package(t) != package(m)]
    assert not crossing, crossing


def public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split(".")[1:])


def test_every_public_module_defines_all():
    """``__all__`` in every module whose name has no part starting with ``_``."""
    missing = [m for m in MODULES if public(m) and not any(
        isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        for node in ast.parse(MODULES[m].read_text(encoding="utf-8")).body)]
    assert not missing, missing


def test_all_names_exist_and_imports_use_them():
    """Every name a module lists in ``__all__`` exists, once; every public name
    a module imports from another public module is in that module's ``__all__``."""
    import importlib

    listed = {m: importlib.import_module(m).__all__ for m in MODULES if public(m)}
    wrong = [(m, name) for m, names in listed.items() for name in names
             if not hasattr(importlib.import_module(m), name) or names.count(name) > 1]
    assert not wrong, wrong
    unlisted = [(m, t, name) for m in MODULES for t, name in imports(m)
                if name and not name.startswith("_") and t in listed and t != m and name not in listed[t]]
    assert not unlisted, unlisted


def test_the_command_line_starts_without_numpy_or_pandas():
    import subprocess
    import sys

    code = "import sys, geoanon.cli; geoanon.cli.build_parser(); print('numpy' in sys.modules, 'pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"], done.stdout


def test_a_points_release_loads_no_region_module():
    """The region kinds' modules (and networkx) load only for a region location."""
    import subprocess
    import sys

    code = """if True:
        import sys, numpy as np, pandas as pd, geoanon as ga
        rng = np.random.default_rng(0)
        df = pd.DataFrame({"lat": rng.uniform(30, 45, 200), "lon": rng.uniform(-120, -80, 200),
                           "age": rng.integers(18, 90, 200), "name": rng.choice(list("ABCDEF"), 200)})
        ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, identifiers=["name"])
        print("networkx" in sys.modules, "geoanon.regions.graphs" in sys.modules)
        ga.anonymize(df, location={"label": "name"}, qi=["age"], k=10, identifiers=["lat", "lon"])
        print("networkx" in sys.modules)"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False", "True"], done.stdout
