"""Benchmark the points job (``geoanon points``), the code before a change beside the code now.

    python bench/bench_points_job.py --baseline /path/to/a/checkout/of/the/code/before
    python bench/bench_points_job.py --scale --repeats 3   # the current code alone at 10^7 and 2*10^7
                                                  # points, in one process and with n_jobs=2 (with
                                                  # --baseline, the code before both ways too), the
                                                  # fastest of 3 runs each

Each measurement runs :func:`geoanon.generalize_points` (method ``gaps``, the
job's default) in a fresh process, the baseline's just before the current
code's on the same table; the baseline is imported from the checkout given.
Tables: bench_dask's clustered points (12 Gaussian clusters, 5 decimals, seed
1) and bench_points' clustered, zip_jitter and households (seed 7), the
tables the points path was tuned on; and two held out, chosen before any
figure on them was seen: records around the world's populated places and
near US airports (``datasets.places_jitter``, ``datasets.airports_jitter``,
seed 7, 140,180 rows at k = 25, the size of the held-out table of issue 51).
The held-out tables run again with ``max_extent_km`` (the current code
alone): the widest box against the records it withholds. Reported: wall
time, classes, the largest located class over the lower bound, the records
published without a location, and the published boxes' diagonal in km
(median, p90, max over the boxed records); the load average says whether
other work shared the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, replace_section, today  # noqa: E402

PLAN = [("dask_clustered", 1_000_000, 10), ("clustered", 200_000, 10), ("zip_jitter", 200_000, 10),
        ("households", 200_000, 10), ("places_jitter", 140_180, 25), ("airports_jitter", 140_180, 25),
        ("places_jitter", 140_180, 10), ("airports_jitter", 140_180, 5),
        ("places_jitter", 140_180, 25, 3000), ("places_jitter", 140_180, 25, 1500),
        ("airports_jitter", 140_180, 25, 1000)]
SCALE = [("dask_clustered", 10_000_000, 10), ("dask_clustered", 20_000_000, 10)]


def table(dataset: str, n: int):
    import pandas as pd

    import datasets
    if dataset == "dask_clustered":
        from bench_dask import clustered
        xy = clustered(n, 1)
    elif dataset in datasets.DATASETS:
        xy = datasets.DATASETS[dataset](n, 7)
    else:
        return getattr(datasets, dataset)(n, 7)
    return pd.DataFrame({"lat": xy[:, 1], "lon": xy[:, 0]})


def measure(dataset: str, n: str, k: str, max_km: str, code: str, jobs: str = "1") -> dict:
    """One run of the points job, with geoanon imported from ``code`` (``max_km``: its max_extent_km, or "";
    ``jobs``: its n_jobs, passed where it is not 1)."""
    sys.path.insert(0, code)
    import geoanon as ga
    from geoanon._geo import row_box_extents

    n, k, extent = int(n), int(k), {"max_extent_km": float(max_km)} if max_km else {}
    if int(jobs) != 1:
        extent["n_jobs"] = int(jobs)
    df = table(dataset, n)
    ga.generalize_points(df.head(5000), k)                     # warm-up: imports, compiled kernels
    start = time.perf_counter()
    release = ga.generalize_points(df, k, **extent)
    seconds = time.perf_counter() - start
    t = release.table
    km = row_box_extents(t, "lat", "lon", "EPSG:4326")[2]
    boxed = ~np.isnan(km)
    sizes = t.loc[boxed, "class_id"].value_counts()
    return {"dataset": dataset, "n": n, "k": k, "max_extent_km": extent.get("max_extent_km"), "jobs": int(jobs),
            "seconds": seconds,
            "classes": int(sizes.size),
            "largest_over_lb": float(sizes.max() / release.report["lower_bound"]),
            "withheld": int((~boxed).sum()), "median_km": float(np.median(km[boxed])),
            "p90_km": float(np.quantile(km[boxed], 0.9)), "max_km": float(km[boxed].max()),
            "load": os.getloadavg()[0]}


def run(jobs, codes: dict, repeats: int = 1) -> list[dict]:
    """Each table of ``jobs`` with each code of ``codes`` (name: (path, n_jobs)), in a fresh process,
    ``repeats`` times in turns; the fastest run's row kept, with every run's seconds (``runs``)."""
    rows = []
    for dataset, n, k, *extent in jobs:
        best = {}
        for _ in range(repeats):
            for name, (code, processes) in codes.items():
                if extent and name != "now":
                    continue
                result = subprocess.run([sys.executable, __file__, "--one", dataset, str(n), str(k),
                                         str(extent[0]) if extent else "", code, str(processes)],
                                        capture_output=True, text=True)
                if result.returncode:
                    raise SystemExit(result.stderr.strip().splitlines()[-1])
                row = json.loads(result.stdout.strip().splitlines()[-1]) | {"code": name}
                print(json.dumps(row), flush=True)
                runs = best.get(name, {}).get("runs", []) + [row["seconds"]]
                best[name] = min(best.get(name, row), row, key=lambda r: r["seconds"]) | {"runs": runs}
        rows += best.values()
    return rows


def write(rows: list[dict], path: Path, baseline: str | None, section: str) -> None:
    title = "The points path at scale (`python bench/bench_points_job.py --scale`)" if section == "points-scale" \
        else "The points path (`python bench/bench_points_job.py`)"
    lines = [f"## {title}", "",
             f"{today()}, {machine()}; geoanon at {code_state()}"
             + (f", beside {baseline} (before)" if baseline else " alone") + ". "
             + (f"Each row the fastest of {len(rows[0]['runs'])} fresh processes, the codes in turns (every run's "
                "seconds in the last column); the" if len(rows[0]["runs"]) > 1 else "The")
             + " load average (of the fastest run) says whether other work shared the 2 cores.", "",
             "| table | n | k | max_extent_km | code | n_jobs | seconds | classes | largest / LB | withheld | "
             "median km | p90 km | max km | load | runs, s |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        extent = f"{r['max_extent_km']:,.0f}" if r.get("max_extent_km") else ""
        lines.append(f"| {r['dataset']} | {r['n']:,} | {r['k']} | {extent} | {r['code']} | {r['jobs']} | "
                     f"{r['seconds']:.2f} | "
                     f"{r['classes']:,} | "
                     f"{r['largest_over_lb']:.2f} | {r['withheld']:,} ({100 * r['withheld'] / r['n']:.2f}%) | "
                     f"{r['median_km']:.1f} | {r['p90_km']:.1f} | {r['max_km']:,.0f} | {r['load']:.1f} | "
                     f"{', '.join(f'{t:.1f}' for t in r['runs'])} |")
    replace_section(path, section, lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a checkout of the code before, run beside the current one")
    parser.add_argument("--scale", action="store_true", help="the current code alone at 10^7 and 2*10^7 points")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each measurement; the fastest kept")
    parser.add_argument("--results", default=str(HERE / "RESULTS.md"))
    parser.add_argument("--one", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one)))
        return
    codes = {"now": (str(HERE.parent), 1)}
    if args.scale:
        codes["now, 2 processes"] = (str(HERE.parent), 2)
    if args.baseline:                              # run from its path, named by its commit
        before = {"before": (args.baseline, 1)} | ({"before, 2 processes": (args.baseline, 2)} if args.scale else {})
        codes = before | codes
        found = subprocess.run(["git", "-C", args.baseline, "rev-parse", "--short", "HEAD"], capture_output=True,
                               text=True)
        args.baseline = found.stdout.strip() if found.returncode == 0 else args.baseline
    rows = run(SCALE if args.scale else PLAN, codes, args.repeats)
    write(rows, Path(args.results), args.baseline, "points-scale" if args.scale else "points-path")


if __name__ == "__main__":
    main()
