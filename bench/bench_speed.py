"""Time the joint release and ``explore`` beside the code before a change, in turns.

    python bench/bench_speed.py --before DIR     # DIR: a source tree of the code before (holding geoanon/),
                                                 # e.g. git archive COMMIT geoanon | tar -x -C DIR
    python bench/bench_speed.py                  # this code alone

Cases (the issue's speed targets): the 10^6-row synthetic table of
bench_anonymize.py (lat, lon, age, sex, race, marital-status; k = 10) released
by ``ga.anonymize``'s default design in one process and with ``n_jobs=2``, as
the process's first release (which also imports the release's modules and
loads its compiled loops) and, with 2 processes, after a release of its first
``WARM_ROWS`` rows; and on bench_frontier.py's three tables (30,162 rows,
k = 10) one release in one process beside ``ga.explore``'s 8 default settings
with ``n_jobs=2`` (target: at most 3x), each after one release of the table.
Every run is a fresh process (the table made, the package imported and the
warm-up release made outside the clock); the two codes take turns,
``REPEATS`` runs each, and the best is kept. Wall time and CPU time (the process and its workers) are both given:
on a machine others share, CPU time moves less. Results replace the speed
section of bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, replace_section, today  # noqa: E402

REPEATS = 3
WARM_ROWS = 20_000
CASES = [("synthetic", "anonymize", 1, "first"), ("synthetic", "anonymize", 2, "first"),
         ("synthetic", "anonymize", 2, "warm")] + [
    (t, what, jobs, "warm") for t in ("airports", "zips", "city") for what, jobs in (("anonymize", 1), ("explore", 2))]
EXPLORE_TARGET = 3.0


def one(table: str, what: str, n_jobs: int, release: str) -> dict:
    """Wall and CPU seconds of one call in this process: the process's
    ``"first"`` release, or one after a ``"warm"``-up release (of the
    synthetic table's first ``WARM_ROWS`` rows, or of the whole small table)."""
    import geoanon as ga

    if table == "synthetic":
        from bench_anonymize import CATEGORICAL, QI, synthetic_table

        df, qi = synthetic_table()[QI], ["age", *CATEGORICAL]
    else:
        from frontier_tables import TABLES

        qi = list(TABLES[table].others)
        df = TABLES[table].frame()[["lat", "lon", *qi]]
    call = ga.explore if what == "explore" else ga.anonymize
    keywords = dict(location=("lat", "lon"), qi=qi, k=10, n_jobs=n_jobs)
    if release == "warm":                   # imports, compiled loops
        call(df.iloc[:WARM_ROWS] if table == "synthetic" else df, **keywords)
    cpu, started = _cpu(), time.perf_counter()
    call(df, **keywords)
    return {"wall": time.perf_counter() - started, "cpu": _cpu() - cpu}


def _cpu() -> float:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def measured(tree: Path, case: tuple) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, __file__, "--one", *map(str, case)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run(trees: dict, repeats: int) -> dict:
    best = {}
    for case in CASES:
        for _ in range(repeats):
            for name, tree in trees.items():
                r = measured(tree, case)
                key = (name, *case)
                best[key] = {m: min(best.get(key, r)[m], r[m]) for m in ("wall", "cpu")}
                print(name, *case, f"{r['wall']:.2f} s wall, {r['cpu']:.2f} s CPU", flush=True)
    return best


def write(best: dict, trees: dict, path: Path, repeats: int) -> None:
    names = list(trees)
    lines = ["## Speed of the joint release and `explore` (`python bench/bench_speed.py`)", "",
             f"Run on {today()}, {machine()}, geoanon at commit {code_state()}"
             + (f", beside the code before ({trees['before'].name})" if "before" in trees else "") + ". "
             f"Best of {repeats} fresh processes each, the codes in turns; wall and CPU seconds "
             "(the process and its workers).", "",
             "| table | call | processes | release | " + " | ".join(f"{n} wall s | {n} CPU s" for n in names) + " |",
             "|---|---|---:|---|" + "---:|---:|" * len(names)]
    for case in CASES:
        cells = " | ".join(f"{best[(n, *case)]['wall']:.2f} | {best[(n, *case)]['cpu']:.2f}" for n in names)
        lines.append(f"| {case[0]} | {case[1]} | {case[2]} | {case[3]} | {cells} |")
    lines.append("")
    for n in names:
        ratios = [best[(n, t, "explore", 2, "warm")]["wall"] / best[(n, t, "anonymize", 1, "warm")]["wall"]
                  for t in ("airports", "zips", "city")]
        first, warm = (best[(n, "synthetic", "anonymize", 2, r)]["wall"] for r in ("first", "warm"))
        lines.append(f"- {n}: `explore`'s 8 settings on 2 processes / one release in one process, wall: "
                     f"{min(ratios):.1f}-{max(ratios):.1f}x (target <= {EXPLORE_TARGET:.0f}x: "
                     f"{'met' if max(ratios) <= EXPLORE_TARGET else 'missed'}); 10^6 rows on 2 processes "
                     f"{warm:.1f} s after a warm-up release (target <= 10 s: {'met' if warm <= 10 else 'missed'}), "
                     f"{first:.1f} s as the process's first release ({'met' if first <= 10 else 'missed'})")
    replace_section(path, "speed51", lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a source tree of the code before (holding geoanon/)")
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        table, what, jobs, release = args.one
        print(json.dumps(one(table, what, int(jobs), release)))
    else:
        trees = {"now": HERE.parent, **({"before": args.before.resolve()} if args.before else {})}
        write(run(trees, args.repeats), trees, args.results, args.repeats)
