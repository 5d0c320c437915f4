"""Benchmark the default location against `geoanon points` alone, and the designs that bound it (issue 51, item 7).

    python bench/bench_target.py            # about 30 minutes; --quick for a smoke run

Tuning tables only (bench_frontier.py's ``airports``, ``zips`` and ``city``; Adult's lat, lon, age, sex,
race, marital-status), k = 5, 10, 50. Each row is one release of the joint design at the default
``location_precision`` (0.5) in a fresh process, beside ``geoanon points`` of the same coordinates:

- ``before``: the km loss without its tail (``OVERREACH`` 0), the default before issue 51;
- ``tail-R-P``: the tail-aware km loss, a box wider than R typical k-neighbourhoods paying P per row for each
  further such width (R: ``tail_reach``, P: :data:`geoanon.joint.km_loss.OVERREACH`; ``tail-4-1`` is the default), with
  ``explore`` at settings 0 and 0.25 beside the default one (what trades the location back);
- ``global-C``: no tail, a hard target of C typical k-neighbourhoods for every class (``max_extent_km``, the
  ZIP location's rule; classes that cannot be cut within it withheld within a budget of 50%);
- ``relative-C``: no tail, the location cut first down to pieces each within C times its own records' median
  k-neighbourhood (a per-record bound: sparse places keep wide pieces, dense ones narrow).

Measured per release: the box diagonal per record (km; a record published without a box counts as infinitely
wide), its median, p90 and max (over the boxes published), the median over `points` alone's median, the p90 over
the median, the other columns' mean NCP and the seconds. The results replace the target section of RESULTS.md.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, replace_section, run_measurements, today  # noqa: E402

TABLES = ("airports", "zips", "city")
KS = (5, 10, 50)
DESIGNS = ("before", "tail-4-1", "tail-4-0.3", "tail-6-1", "global-6", "global-10", "relative-4", "relative-8")
PLAN = [(t, k, d) for t in TABLES for k in KS for d in DESIGNS]
QUICK = [("city", 10, "tail-4-1")]
TIME_LIMIT = 900


def _widths(table) -> np.ndarray:
    from geoanon._geo import row_box_extents

    d = row_box_extents(table, "lat", "lon", "EPSG:4326")[2]
    return np.where(np.isnan(d), np.inf, d)


def _figures(d: np.ndarray) -> dict:
    boxed = d[np.isfinite(d)]
    return {"median_km": round(float(np.quantile(d, 0.5, method="higher")), 1),
            "p90_km": round(float(np.quantile(d, 0.9, method="higher")), 1),
            "max_km": round(float(boxed.max()), 1) if boxed.size else None}


def _scale(df, k) -> float:
    """A typical record's k-neighbourhood in km (geoanon.joint.km_loss.k_spacing)."""
    from geoanon._geo import ground
    from geoanon.joint.km_loss import k_spacing

    places, counts = np.unique(df[["lon", "lat"]].to_numpy(float), axis=0, return_counts=True)
    return k_spacing(places, counts, k, ground("EPSG:4326"))


def _relative(df, k, factor: float) -> None:
    """Pieces within ``factor`` times their records' median k-neighbourhood (this process only)."""
    from dataclasses import replace

    from scipy.spatial import cKDTree

    import geoanon.joint.mondrian as mondrian
    import geoanon.pipeline.joint_release as joint_release
    from geoanon._geo import ground
    from geoanon.joint.sharding import _location_cuts

    where = ground("EPSG:4326").positions(df["lon"].to_numpy(float), df["lat"].to_numpy(float))
    reach = 2 * cKDTree(where).query(where, k=k)[0][:, -1]
    searched = joint_release._problem
    diagonal = {}

    def problem(job, spec):
        diagonal["of"] = joint_release._diagonals(job.dims, "EPSG:4326")
        return replace(searched(job, spec), too_wide=lambda state: False)

    def within(problem, rows, root, location):
        return _location_cuts(problem, rows, root, location,
                              lambda r, st: diagonal["of"]([st])[0] > factor * np.median(reach[r]))

    joint_release._problem, mondrian.within_target = problem, within


def measure(name: str, k, design: str) -> dict:
    import geoanon as ga
    import geoanon.joint.km_loss as km_loss
    from frontier_tables import TABLES

    k, others = int(k), list(TABLES[name].others)
    df = TABLES[name].frame()[["lat", "lon", *others]]
    kind, *args = design.split("-")
    options = {}
    if kind == "tail":
        options["tail_reach"], km_loss.OVERREACH = float(args[0]), float(args[1])
    else:
        km_loss.OVERREACH = 0.0
    if kind == "global":
        options = {"max_extent_km": float(args[0]) * _scale(df, k), "max_withheld": 0.5}
    elif kind == "relative":
        _relative(df, k, float(args[0]))
    alone = _figures(_widths(ga.generalize_points(df[["lat", "lon"]], k=k, lat="lat", lon="lon").table))
    started = time.perf_counter()
    rel = ga.anonymize(df, location=("lat", "lon"), qi=others, k=k, **options)
    seconds = time.perf_counter() - started
    ncp = rel.report["ncp"]["columns"]
    row = {"table": name, "k": k, "design": design, "alone": alone, **_figures(_widths(rel.table)),
           "other_ncp": round(float(np.mean([ncp[c] for c in others])), 4), "seconds": round(seconds, 1)}
    if design == "tail-4-1":
        points = ga.explore(df, location=("lat", "lon"), qi=others, k=k, settings=[0, 0.25, 0.5]
                            ).report.details["frontier"]["points"]
        row["explore"] = [{key: p[key] for key in ("location_precision", "median_km", "p90_km", "max_km")}
                          | {"other_ncp": round(p["other_ncp"], 4)} for p in points]
    return row


def _describe(row) -> str:
    if "failed" in row:
        return f"{' '.join(row['job'])}: failed ({row['failed']})"
    return (f"{row['table']:8s} k={row['k']:<3d} {row['design']:11s} median {row['median_km']:8.1f} km "
            f"({row['median_km'] / row['alone']['median_km']:.2f}x alone)  p90 {row['p90_km']:8.1f}  "
            f"other NCP {row['other_ncp']:.4f}  {row['seconds']:.1f} s")


def run(plan, resume) -> list:
    rows = run_measurements(__file__, plan, rows_file=HERE / "out" / "target_rows.jsonl", resume=resume,
                            time_limit=TIME_LIMIT, describe=_describe)
    print("\n".join(["", *table(rows)]))
    return rows


def table(rows) -> list[str]:
    """The results as a markdown table, and explore's settings beside the default."""
    out = ["| table | k | design | points alone: median / p90 / max km | median km | p90 km | max km | / alone | "
           "p90 / median | other NCP | s |", "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    trade = []
    for r in rows:
        if "failed" in r:
            out.append(f"| {' | '.join(r['job'])} | failed: {r['failed']} |")
            continue
        a = r["alone"]
        out.append(f"| {r['table']} | {r['k']} | {r['design']} | {a['median_km']:,} / {a['p90_km']:,} / "
                   f"{a['max_km']:,} | {r['median_km']:,} | {r['p90_km']:,} | {r['max_km']:,} | "
                   f"{r['median_km'] / a['median_km']:.2f} | {r['p90_km'] / r['median_km']:.2f} | "
                   f"{r['other_ncp']:.4f} | {r['seconds']:.1f} |")
        for p in r.get("explore", []):
            trade.append(f"- {r['table']}, k = {r['k']}, location_precision {p['location_precision']:g}: median "
                         f"{p['median_km']:,.1f} km, p90 {p['p90_km']:,.1f}, max {p['max_km']:,.1f}, other NCP "
                         f"{p['other_ncp']:.4f}")
    return out + ["", *trade]


def write(rows, path: Path) -> None:
    lines = [f"Measured {today()} on {machine()}, {code_state()}. `python bench/bench_target.py` (see its "
             "docstring): tuning tables only.", "", *table(rows)]
    replace_section(path, "target", lines)


if __name__ == "__main__":
    main(__doc__, one_args=("TABLE", "K", "DESIGN"), measure=measure, plan=PLAN, quick=QUICK, run=run, write=write)
