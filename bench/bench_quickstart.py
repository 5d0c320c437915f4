"""The README's quick start timed end to end, as a new user meets it.

    python bench/bench_quickstart.py          # about 3 minutes; needs the package registry

A fresh clone of this repository's HEAD in a temporary folder, a new virtual
environment, then the README's own blocks in order: its install command with
pip's cache off (every wheel downloaded, as on a fresh machine), ``geoanon demo``
(numba compiles on first use), the quick start's shell command and its Python
block, each timed by wall clock. Target (issue 27): from the clone to a released
table, its report and its map in under 5 minutes. The summary replaces the
quickstart section of bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import HERE, code_state, machine, replace_section, today

ROOT = HERE.parent
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)
TARGET_SECONDS = 300


def readme_blocks(language: str) -> list[str]:
    return [code for lang, code in FENCE.findall((ROOT / "README.md").read_text()) if lang == language]


def quick_start() -> tuple[list[str], list[str], str]:
    """The quick start's install command, its geoanon commands (the demo first) and its Python code."""
    first = readme_blocks("bash")[:3]
    lines = [line for block in first for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    install = next(line for line in lines if line.startswith("pip install"))
    commands = [line for line in lines if line.startswith("geoanon ")]
    return shlex.split(install.split("#")[0]), commands, readme_blocks("python")[0]


def timed(steps: list, label: str, argv: list[str], cwd: Path, env: dict) -> None:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{label} failed:\n{done.stderr[-2000:]}")
    steps.append((label, seconds))
    print(f"{label}: {seconds:.1f} s", flush=True)


def measure(work: Path) -> list[tuple[str, float]]:
    install, commands, python = quick_start()
    clone, venv = work / "geoanon", work / "venv"
    env = {**os.environ, "PIP_NO_CACHE_DIR": "1", "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("VIRTUAL_ENV", None)
    steps: list = []
    timed(steps, "git clone", ["git", "clone", "--quiet", str(ROOT), str(clone)], work, env)
    timed(steps, "python -m venv", [sys.executable, "-m", "venv", str(venv)], work, env)
    timed(steps, " ".join(install) + " (no pip cache)", install, clone, env)
    for command in commands:
        label = command.split(" --")[0] + (" ..." if " --" in command else "")
        timed(steps, label, shlex.split(command), clone, env)
    script = clone / "quick_start.py"
    script.write_text(python)
    timed(steps, "the README's Python block", ["python", str(script)], clone, env)
    outputs = ["released.csv", "report.json", "report.html", "map.html", "released.parquet",
               "geoanon-demo/points.csv"]
    missing = [name for name in outputs if not (clone / name).exists()]
    if missing:
        raise SystemExit(f"the quick start did not write {', '.join(missing)}")
    return steps


def write(steps: list, path: Path) -> None:
    total = sum(seconds for _, seconds in steps)
    verdict = "met" if total < TARGET_SECONDS else "missed"
    lines = [
        "## Quick start (`python bench/bench_quickstart.py`)",
        "",
        f"Run on {today()}, {machine()}, geoanon at commit {code_state()}. A fresh clone, a new virtual "
        "environment and the README's quick start in order, pip's cache off (every wheel downloaded from the "
        "package registry).",
        "",
        "| step | wall time |",
        "|---|---:|",
        *[f"| {label} | {seconds:.1f} s |" for label, seconds in steps],
        f"| **total** | **{total:.0f} s** |",
        "",
        f"- Target (issue 27): a released table, its report and its map in under {TARGET_SECONDS // 60} minutes "
        f"from a clone: {total / 60:.1f} min, **{verdict}**.",
    ]
    replace_section(path, "quickstart", lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(HERE / "RESULTS.md"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="geoanon-quickstart-") as work:
        steps = measure(Path(work))
    write(steps, Path(args.results))
    print(f"wrote {args.results}")


if __name__ == "__main__":
    main()
