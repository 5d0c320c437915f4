"""What the benchmark scripts share: one measurement per fresh process (with a
time limit, rows kept in a JSON-lines file so an interrupted run can resume),
the peers' own virtual environments and their releases, the machine's
description, and replacing a script's section of RESULTS.md."""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
VENVS = {"anonymeter": ["anonymeter==1.1.0"], "anonypyx": ["anonypyx==0.2.11"],
         "lighthouse": ["project-lighthouse-anonymize==1.0.0"]}
WORKER_LIMIT = 900        # seconds for one peer release


def venv_python(name: str) -> Path:
    """The Python of ``name``'s own virtual environment (bench/out/venv-NAME), made on first use."""
    folder = HERE / "out" / f"venv-{name}"
    python = folder / "bin" / "python"
    module = {"lighthouse": "project_lighthouse_anonymize"}.get(name, name)
    if python.exists() and subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0:
        return python
    print(f"creating {folder} and installing {' '.join(VENVS[name])} (once)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", *VENVS[name]], check=True)
    return python


def versions(*names: str) -> str:
    """Each named virtual environment's package and the numpy and pandas it runs on."""
    out = []
    for name in names:
        package = VENVS[name][0].split("==")[0]
        code = ("from importlib.metadata import version as v; "
                f"print(f\"{package} {{v('{package}')}} (numpy {{v('numpy')}}, pandas {{v('pandas')}})\")")
        result = subprocess.run([venv_python(name), "-c", code], capture_output=True, text=True)
        out.append(result.stdout.strip() or f"{package} (version unknown)")
    return "; ".join(out)


def peer_release(peer: str, df, qi: list, text: list, k: int):
    """``df`` (with its ``row`` column) released by ``peer`` (``mondrian_worker.py``'s PEER, in the
    package's own virtual environment): one row per published record, in ``row`` order."""
    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        src, spec_file, out = Path(tmp) / "in.csv", Path(tmp) / "spec.json", Path(tmp) / "out.csv"
        df.to_csv(src, index=False)
        spec_file.write_text(json.dumps({"qi": qi, "text": text, "k": k}))
        result = subprocess.run([venv_python(peer.split("-")[0]), "-W", "ignore", HERE / "mondrian_worker.py", peer,
                                 src, spec_file, out], capture_output=True, text=True, timeout=WORKER_LIMIT)
        if result.returncode:
            raise RuntimeError(f"{peer}: {result.stderr.strip().splitlines()[-1]}")
        return pd.read_csv(out, dtype={c: str for c in text}, keep_default_na=False)


def machine() -> str:
    from importlib.metadata import version

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    mem = int(next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal"))) / 2**20
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM; Python {platform.python_version()}, "
            f"numpy {np.__version__}, geoanon {version('geoanon')}")


def run_measurements(script: str, jobs, *, rows_file: Path, resume: bool, time_limit: float, describe) -> list[dict]:
    """Run ``script --one *job`` in a fresh process per job; each row is printed
    with ``describe`` and appended to ``rows_file``. With ``resume``, jobs whose
    row is already in the file are not run again."""
    rows_file.parent.mkdir(parents=True, exist_ok=True)
    done = {}
    if resume and rows_file.exists():
        for line in rows_file.read_text().splitlines():
            row = json.loads(line)
            done[tuple(row["job"])] = row
    elif rows_file.exists():
        rows_file.unlink()
    rows = []
    for job in jobs:
        job = [str(x) for x in job]
        if tuple(job) in done:
            row = done[tuple(job)]
        else:
            try:
                result = subprocess.run([sys.executable, script, "--one", *job], capture_output=True, text=True,
                                        timeout=time_limit)
                if result.returncode == 0:
                    row = json.loads(result.stdout.strip().splitlines()[-1])
                else:
                    lines = result.stderr.strip().splitlines()
                    row = {"failed": lines[-1] if lines else f"crashed (exit code {result.returncode})"}
            except subprocess.TimeoutExpired:
                row = {"failed": f"no result within {time_limit:.0f} s"}
            row["job"] = job
            with rows_file.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
        rows.append(row)
        print(describe(row), flush=True)
    return rows


def replace_section(path: Path, name: str, lines: list[str]) -> None:
    """Put ``lines`` between the ``name`` markers of RESULTS.md (appended if absent)."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    section = "\n".join([begin, *lines, end])
    text = path.read_text() if path.exists() else "# Benchmark results\n\n"
    if begin in text:
        text = text[:text.index(begin)] + section + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    path.write_text(text)


def main(doc: str, *, one_args: tuple, measure, plan, quick, run, write, arguments=None) -> None:
    """The command line of a benchmark script: ``--quick``, ``--resume``,
    ``--results FILE``, and the hidden ``--one`` that measures in this process;
    with ``arguments`` (adding a script's own to the parser), ``run`` gets
    all of them (``run(jobs, args)``) instead of ``--resume`` alone."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run (RESULTS.md untouched)")
    parser.add_argument("--resume", action="store_true", help="keep the rows of an interrupted run")
    parser.add_argument("--results", default=str(HERE / "RESULTS.md"))
    parser.add_argument("--one", nargs=len(one_args), metavar=one_args, help=argparse.SUPPRESS)
    if arguments:
        arguments(parser)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one)))
        return
    jobs = quick if args.quick else plan
    rows = run(jobs, args) if arguments else run(jobs, args.resume)
    if not args.quick:
        write(rows, Path(args.results))
        print(f"wrote {args.results}")


def cases_main(doc: str, tables: tuple, ks: tuple, case, write) -> None:
    """The command line of a benchmark of cases, a table at a k (``--tables``, ``--ks``, ``--results``):
    ``case(name, k)``'s row for each, k by k, then ``write(rows, results)``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--tables", default=",".join(tables))
    parser.add_argument("--ks", default=",".join(map(str, ks)))
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    write([case(name, int(k)) for k in args.ks.split(",") for name in args.tables.split(",")], args.results)


def cases_heading(title: str, doc: str, paragraphs: slice) -> list[str]:
    """A case benchmark's RESULTS.md heading ``title``, then when, where and at what code it ran, and its
    ``doc``'s ``paragraphs`` (each on one line)."""
    return [title, "", f"Run on {today()}, {machine()}, geoanon at {code_state()}. " + " ".join(
        " ".join(p.split()) for p in doc.split("\n\n")[paragraphs]), ""]


def peak_mb() -> float:
    """This process's peak resident memory (VmHWM), in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return 0.0


def today() -> str:
    return date.today().isoformat()


def code_state(*paths: str) -> str:
    """The commit measured, and whether the given paths (default geoanon/)
    differ from it in the working tree."""
    def git(*args):
        result = subprocess.run(["git", *args], cwd=HERE.parent, capture_output=True, text=True)
        return result.stdout.strip() if result.returncode == 0 else ""

    paths = paths or ("geoanon",)
    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    dirty = git("status", "--porcelain", "--", *paths)
    return commit + (f" with uncommitted changes to {', '.join(paths)}" if dirty else "")
