"""Benchmark the rectangle partitioner side by side with its peers, in one run.

    pip install ".[bench]"
    python bench/bench_points.py            # about 5 minutes; --quick for a smoke run

Every measurement runs in a fresh process on the same seeded points and k:
geoanon ("balanced", the default, and "paper", Theorem 2's rule), anonypy 0.2.1's
Mondrian, a plain numpy Mondrian with median cuts, and one ``np.lexsort`` of the
coordinates as the practical floor (for geoanon's rows the ratio's lexsort is
timed in the same process just before, best of the same number of runs).
Reported: best wall time, peak memory of
the process (its interpreter and the input included), classes, largest class / k,
largest class / lower bound
max(k, heaviest point, ceil(W / floor(W / k))), and the normalized certainty
penalty (mean over records of the published region's width and height relative
to the data's, halved; lower is more precise). The results replace the points
section of bench/RESULTS.md, with the machine and the date.
"""
from __future__ import annotations

import os
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, replace_section, run_measurements, today  # noqa: E402

PLAN = [  # (dataset, n, k, methods)
    ("clustered", 30_000, 10, ["lexsort", "numpy_mondrian", "anonypy", "paper", "balanced"]),
    ("clustered", 100_000, 10, ["lexsort", "numpy_mondrian", "anonypy", "paper", "balanced"]),
    ("clustered", 1_000_000, 10, ["lexsort", "numpy_mondrian", "paper", "balanced"]),
    ("clustered", 2_000_000, 10, ["lexsort", "numpy_mondrian", "paper", "balanced"]),
    ("clustered", 10_000_000, 10, ["lexsort", "balanced"]),
    ("clustered", 1_000_000, 5, ["numpy_mondrian", "paper", "balanced"]),
    ("clustered", 1_000_000, 50, ["numpy_mondrian", "paper", "balanced"]),
    ("households", 100_000, 10, ["lexsort", "numpy_mondrian", "anonypy", "paper", "balanced"]),
    ("households", 1_000_000, 10, ["lexsort", "numpy_mondrian", "paper", "balanced"]),
    ("zip_jitter", 100_000, 10, ["lexsort", "numpy_mondrian", "anonypy", "paper", "balanced"]),
    ("zip_jitter", 1_000_000, 10, ["lexsort", "numpy_mondrian", "paper", "balanced"]),
    ("lattice", 100_000, 10, ["lexsort", "numpy_mondrian", "anonypy", "paper", "balanced"]),
    ("lattice", 100_000, 50, ["numpy_mondrian", "paper", "balanced"]),
]
QUICK = [("clustered", 30_000, 10, ["lexsort", "numpy_mondrian", "anonypy", "paper", "balanced"]),
         ("lattice", 30_000, 10, ["lexsort", "paper", "balanced"])]


def _status(key: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return 0


def measure(method: str, dataset: str, n, k) -> dict:
    """One measurement, in this process."""
    n, k = int(n), int(k)
    from datasets import DATASETS

    import geoanon as ga
    from geoanon.partition import count_lower_bound

    xy = DATASETS[dataset](n)
    _, counts = np.unique(xy, axis=0, return_counts=True)
    lower_bound = count_lower_bound(n, k, int(counts.max()))
    slow = method in ("anonypy", "numpy_mondrian")
    repeats = 1 if n > 2_000_000 or (slow and n >= 100_000) else 3 if slow or n > 100_000 else 7
    if method == "anonypy":
        from anonypy.mondrian import Mondrian
    _run(method, xy[:200], min(k, 20), Mondrian if method == "anonypy" else None)   # warm-up: imports, caches
    sort_seconds = None
    if method in ("balanced", "paper"):                 # the floor, timed the same way in this process, just before
        sort_seconds = min(_timed(lambda: _run("lexsort", xy, k)) for _ in range(repeats))
    Path("/proc/self/clear_refs").write_text("5")   # reset the peak-RSS counter
    base = xy.nbytes
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = _run(method, xy, k, Mondrian if method == "anonypy" else None)
        times.append(time.perf_counter() - start)
    row = {"dataset": dataset, "n": n, "k": k, "method": method, "seconds": min(times),
           "load": os.getloadavg()[0],
           "peak_mb": _status("VmHWM") / 2**20, "input_mb": base / 2**20, "lower_bound": lower_bound,
           "lexsort_seconds": sort_seconds}
    if result is None:
        return row
    if isinstance(result, ga.Partition):
        labels, regions = result.labels, result.rectangles[result.labels]
    else:
        labels = result
        regions = _tight_boxes(xy, labels)[labels]
    sizes = np.bincount(labels)
    extent = np.ptp(xy, axis=0)
    ncp = float(np.mean(((regions[:, 2] - regions[:, 0]) / extent[0] + (regions[:, 3] - regions[:, 1]) / extent[1]) / 2))
    row.update(classes=int(sizes.size), min_class=int(sizes.min()), max_class=int(sizes.max()),
               max_over_k=sizes.max() / k, max_over_lb=sizes.max() / lower_bound, ncp=ncp)
    return row


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _run(method, xy, k, Mondrian=None):
    """Partition ``xy``: labels per row, a geoanon Partition, or None (lexsort)."""
    import geoanon as ga

    if method == "lexsort":
        np.lexsort((xy[:, 1], xy[:, 0]))
        return None
    if method == "numpy_mondrian":
        from baselines import mondrian_median
        return mondrian_median(xy, k)
    if method == "anonypy":
        import pandas as pd

        parts = Mondrian(pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1]}), ["x", "y"]).partition(k=k)
        labels = np.empty(len(xy), dtype=np.int64)
        for c, index in enumerate(parts):
            labels[index.to_numpy()] = c
        return labels
    return ga.partition_points(xy, k, method=method)


def _tight_boxes(xy, labels):
    """Per class, the bounding box of its points (what Mondrian publishes)."""
    c = labels.max() + 1
    lo = np.full((c, 2), np.inf)
    hi = np.full((c, 2), -np.inf)
    np.minimum.at(lo, labels, xy)
    np.maximum.at(hi, labels, xy)
    return np.c_[lo, hi]


def run_plan(plan, resume: bool = False) -> list[dict]:
    jobs = [(method, dataset, n, k) for dataset, n, k, methods in plan for method in methods]
    done = []

    def describe(row):
        done.append(row)
        return _line(row, done)

    return run_measurements(__file__, jobs, rows_file=HERE / "out" / "points_rows.jsonl", resume=resume,
                            time_limit=3600, describe=describe)


def _floor(row, rows):
    """One np.lexsort of the same points: timed in the row's own process where it was, else its own row."""
    if row.get("lexsort_seconds"):
        return row["lexsort_seconds"]
    for r in rows:
        if r["method"] == "lexsort" and (r["dataset"], r["n"]) == (row["dataset"], row["n"]):
            return r["seconds"]
    return None


def _line(row, rows) -> str:
    if "failed" in row:
        return f"{' '.join(row['job'])}: FAILED {row['failed']}"
    floor = _floor(row, rows)
    rel = f"{row['seconds'] / floor:6.1f}x" if floor else "      -"
    if "classes" not in row:
        return f"{row['dataset']:>10} {row['n']:>10,} k={row['k']:<3} {row['method']:>14} {row['seconds']:8.3f}s {rel} " \
               f"{row['peak_mb']:8.1f} MB"
    return (f"{row['dataset']:>10} {row['n']:>10,} k={row['k']:<3} {row['method']:>14} {row['seconds']:8.3f}s {rel} "
            f"{row['peak_mb']:8.1f} MB  classes {row['classes']:>8,}  max/k {row['max_over_k']:5.2f}  "
            f"max/LB {row['max_over_lb']:5.3f}  NCP {row['ncp']:.5f}")


def _table(rows) -> str:
    out = ["| data | n | k | method | seconds | x lexsort | peak MB | classes | max class | max/k | max/LB | NCP |",
           "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        floor = _floor(r, rows)
        rel = f"{r['seconds'] / floor:.2f}" if floor else ""
        if "classes" in r:
            tail = (f"{r['classes']:,} | {r['max_class']} | {r['max_over_k']:.2f} | {r['max_over_lb']:.3f} | "
                    f"{r['ncp']:.5f}")
        else:
            tail = " | | | | "
        out.append(f"| {r['dataset']} | {r['n']:,} | {r['k']} | {r['method']} | {r['seconds']:.3f} | {rel} | "
                   f"{r['peak_mb']:.0f} | {tail} |")
    return "\n".join(out)


def _targets(rows) -> list[str]:
    def get(method, dataset, n, k=10):
        for r in rows:
            if (r["method"], r["dataset"], r["n"], r["k"]) == (method, dataset, n, k):
                return r
        return None

    lines = []
    big = get("balanced", "clustered", 2_000_000)
    if big and big.get("lexsort_seconds"):
        x = big["seconds"] / big["lexsort_seconds"]
        lines.append(f"- 2e6 clustered points, k=10: {big['seconds']:.2f} s = {x:.2f}x one np.lexsort "
                     f"({big['lexsort_seconds']:.2f} s, best of the same number of runs, same process, just before); "
                     f"target <= 4x: {'met' if x <= 4 else 'MISSED'}; issue 12's <= 3x: "
                     f"{'met' if x <= 3 else 'MISSED'}")
    ours, peer = get("balanced", "clustered", 30_000), get("anonypy", "clustered", 30_000)
    if ours and peer:
        x = peer["seconds"] / ours["seconds"]
        ok = x >= 100 and ours["max_class"] <= peer["max_class"]
        lines.append(f"- 3e4 points: anonypy {peer['seconds']:.2f} s vs geoanon {ours['seconds']:.4f} s = {x:.0f}x "
                     f"faster; largest class {ours['max_class']} vs {peer['max_class']}; "
                     f"target >= 100x and no larger: {'met' if ok else 'MISSED'}")
    for r in rows:
        if r["method"] == "balanced" and r["dataset"] in ("clustered", "zip_jitter") and r["k"] == 10:
            lines.append(f"- {r['dataset']} {r['n']:,}, k={r['k']}: largest class / lower bound "
                         f"{r['max_over_lb']:.3f}; target <= 1.10: {'met' if r['max_over_lb'] <= 1.1 else 'MISSED'}")
    huge = get("balanced", "clustered", 10_000_000)
    if huge:
        lines.append(f"- 1e7 points: {huge['seconds']:.1f} s, peak resident memory {huge['peak_mb']:.0f} MB "
                     f"(the input array alone is {huge['input_mb']:.0f} MB) on a 24 GiB machine")
    return lines


def write_results(rows, path: Path) -> None:
    rows = [r for r in rows if "failed" not in r]
    replace_section(path, "points", [
        "## GPS points: rectangle partitions (`python bench/bench_points.py`)",
        "",
        f"Run on {today()}, {machine()}, anonypy {version('anonypy')}; geoanon at commit {code_state('geoanon/points', 'geoanon/partition.py')}; "
        f"1-minute load average up to {max(r.get('load', 0) for r in rows):.1f} during the measurements "
        "(other jobs shared the machine when it exceeds the cores).",
        "",
        _table(rows),
        "",
        "Targets (issue 2):",
        "",
        *_targets(rows),
    ])


if __name__ == "__main__":
    main(__doc__, one_args=("METHOD", "DATASET", "N", "K"), measure=measure, plan=PLAN, quick=QUICK,
         run=run_plan, write=write_results)
