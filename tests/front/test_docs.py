"""Every example of the README, the guides in docs/ and the docstrings runs."""
import doctest
import importlib
import inspect
import os
import pkgutil
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import geoanon

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


def blocks(page: str, language: str) -> list:
    return [code for lang, code in FENCE.findall((ROOT / page).read_text()) if lang == language]


def commands(code: str) -> list:
    """The ``geoanon`` command lines of a shell block (continuations joined);
    the demo runs in CI's own step."""
    lines = code.replace("\\\n", " ").splitlines()
    argvs = [shlex.split(line) for line in lines if line.startswith("geoanon ")]
    return [argv for argv in argvs if argv[1] != "demo"]


def _run_python(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    code = blocks(page, "python")
    assert code, page
    for i, block in enumerate(code):
        exec(compile(block, f"{page} block {i + 1}", "exec"), namespace)
    return namespace


@pytest.mark.slow
def test_readme_quick_start_runs(tmp_path, monkeypatch):
    (tmp_path / "data").symlink_to(ROOT / "data")
    shell = [c for block in blocks("README.md", "bash") for c in commands(block)]
    assert shell, "the quick start's command"
    for argv in shell:
        done = subprocess.run([sys.executable, "-m", "geoanon.cli", *argv[1:]], cwd=tmp_path, capture_output=True,
                              text=True)
        assert done.returncode == 0, (argv, done.stderr)
    assert (tmp_path / "released.csv").exists() and (tmp_path / "map.html").exists()
    namespace = _run_python("README.md", tmp_path, monkeypatch)
    assert namespace["release"].report["audit"]["k"] >= 10
    assert (tmp_path / "released.parquet").exists()


@pytest.mark.slow
def test_python_guide_runs(tmp_path, monkeypatch):
    namespace = _run_python("docs/python.md", tmp_path, monkeypatch)
    assert namespace["part"] is not None and (tmp_path / "points.parquet").exists()


def test_the_safety_guide_runs(tmp_path, monkeypatch):
    namespace = _run_python("docs/safety.md", tmp_path, monkeypatch)
    assert namespace["release"].report.details["isolated"]["withheld_rows"] >= 1


def test_the_guides_job_file_is_valid(tmp_path, cli):
    """docs/command-line.md's job file, run on a table with its columns."""
    (job,) = blocks("docs/command-line.md", "toml")
    rng = np.random.default_rng(0)
    n = 400
    table = pd.DataFrame({"name": [f"p{i}" for i in range(n)], "ssn": [f"{i:09d}" for i in range(n)],
                          "lat": (40 + rng.normal(0, 1, n)).round(4), "lon": (-75 + rng.normal(0, 1, n)).round(4),
                          "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
                          "diagnosis": rng.choice(["flu", "copd", "asthma", "cancer"], n),
                          "visit": rng.choice(["mon", "tue"], n)})
    text = table.to_csv(sep=";", index=False)
    (tmp_path / "patients.csv").write_text(re.sub(r"(\d)\.(\d)", r"\1,\2", text))    # decimal = ","
    (tmp_path / "job.toml").write_text(job)
    code, out, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    released = pd.read_csv(tmp_path / "released.csv")
    assert len(released) == n and "name" not in released.columns


def _modules_with_examples():
    """Every module of geoanon whose source holds a ``>>>`` line (geoanon.cluster's too)."""
    for info in pkgutil.walk_packages(geoanon.__path__, "geoanon."):
        spec = importlib.util.find_spec(info.name)
        if spec and spec.origin and ">>>" in Path(spec.origin).read_text(encoding="utf-8"):
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules_with_examples()))
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    if name.startswith("geoanon.cluster."):
        pytest.importorskip("distributed")       # the dask extra
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted and not result.failed


def _public_api():
    """(name, object) of every function and class ``geoanon`` and ``geoanon.cluster`` export."""
    import geoanon.cluster

    for package in (geoanon, geoanon.cluster):
        for name in package.__all__:
            obj = getattr(package, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield f"{package.__name__}.{name}", obj


EXAMPLES = re.compile(r"^Examples\n-{8}\n(.*\n)*>>> ", re.M)


def test_every_public_function_and_class_has_examples():
    """A numpydoc Examples section with doctest lines on every function and
    class of ``geoanon.__all__`` and ``geoanon.cluster.__all__``: a new public
    name without one fails here."""
    missing = [name for name, obj in _public_api() if not EXAMPLES.search(inspect.getdoc(obj) or "")]
    assert not missing, missing


def test_every_module_with_examples_is_found():
    found = set(_modules_with_examples())
    homes = {obj.__module__ for _, obj in _public_api()}
    assert "geoanon.staging" in found and homes <= found, sorted(homes - found)
    assert os.path.exists(ROOT / "docs" / "python.md")
