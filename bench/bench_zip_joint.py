"""Benchmark the joint release of a ZIP location against the ZIP codes released alone.

    python bench/bench_zip_joint.py            # about 15 minutes; --quick for a smoke run

Data: the shipped ``data/demo_patients.csv`` (20,000 synthetic patients at real ZIP
centroids of the contiguous US; 57 name a ZIP that the shipped map collapsed into a
lower one, published as ``*``), by ZIP code over the shipped ZIP map
(``us_zip_delaunay_nodes.csv.gz`` and its edges, ``unknown="suppress"``), with
``diagnosis`` sensitive (l = 2). Two sets of other quasi-identifiers:

- ``cost``: ``cost_usd``;
- ``cost+3``: ``cost_usd`` and three columns drawn here (numpy seed 2026, independent of
  everything else): ``age`` (whole years 18-90, uniform), ``sex`` (F or M, even) and
  ``visit`` (an ISO date of 2024, uniform), published as intervals, ``*`` and date ranges.

Each row releases one of them at k = 5, 10 or 50 and ZIP level ``zip``, ``zip3``, ``county``
or ``state`` (``zip_level``) as:

- ``alone``: ``geoanon zip`` of the ZIP column by itself (:func:`geoanon.generalize_regions`,
  the same level);
- ``range``: the joint release (:func:`geoanon.anonymize`) with the location judged by
  Iyengar's loss, (regions covered - 1) / (distinct - 1) (``location_loss="range"``, the
  default before km);
- ``km``: the default joint release, the location judged in km (``location_loss="km"``,
  :func:`geoanon.joint.km_loss.log_km` of the group's diameter). At ZIP level its design is
  ``"joint"``: the regions' places cut as points are, each class publishing the group of
  its own records' regions, the tail priced beyond 4 typical k-neighbourhoods
  (:mod:`geoanon.pipeline.locations.placed_groups`); rolled up, ``"frontier"``: the tiling
  of nested connected groups, kept within its default precision target of 4 k-neighbourhoods
  (:func:`geoanon.pipeline.precision_target.extent_target`);
- ``tiled`` (ZIP level only): the tiling there too (``method="frontier"``), the default
  before the places design;
- ``cost+3`` only, the designs measured against that default: ``km-free``, no target
  (``max_extent_km`` 40,000); ``km-x6`` and ``km-x8``, the tail's reach (and the tiling's
  target) at 6 and 8 neighbourhoods (``tail_reach``); ``km-w8-free``, no target and the
  location weighing 8 times a column (``weights={"location": 8}``), the knob's way of
  keeping it local.

Reported: location groups; their diameter per record (``location_km``: the diagonal of the
box of the group's ZIP centroids, km; median and p90) and its ratio to ``alone``'s median
(the target: within 3x); the report's km loss of the ZIP column (``ncp.km_loss``) and its
Iyengar NCP; each other column's NCP and the overall NCP; seconds. Each row is measured in
a fresh process. The results replace the zip_joint section of bench/RESULTS.md.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, replace_section, run_measurements, today  # noqa: E402

KS = (5, 10, 50)
LEVELS = ("zip", "zip3", "county", "state")
QIS = {"cost": ["cost_usd"], "cost+3": ["cost_usd", "age", "sex", "visit"]}
VARIANTS = ("alone", "range", "km", "tiled", "km-free", "km-x6", "km-x8", "km-w8-free")
LOCATION_WEIGHT = 8.0  # km-w8-free's weight of the location
UNBOUNDED_KM = 40_000.0  # the -free variants' max_extent_km: no target


def planned(qi: str, level: str, variant: str) -> bool:
    """Whether the plan runs ``variant``: range and km always; tiled at ZIP
    level (rolled up, the default is the tiling); alone once per level and k
    (with ``cost``); the other variants with ``cost+3``."""
    if variant in ("range", "km"):
        return True
    if variant == "tiled":
        return level == "zip"
    return (variant == "alone") == (qi == "cost")


PLAN = [(q, level, k, v) for q in QIS for level in LEVELS for k in KS for v in VARIANTS if planned(q, level, v)]
QUICK = [("cost", "zip", 10, v) for v in VARIANTS[:3]]
TARGET = 3.0          # the joint release's median group diameter within this many times the zip job's
TIME_LIMIT = 600


def patients():
    """The shipped patients with the benchmark's seeded age, sex and visit date."""
    import pandas as pd

    import geoanon as ga

    df = ga.datasets.demo_records()
    rng = np.random.default_rng(2026)
    n = len(df)
    df["age"] = rng.integers(18, 91, n)
    df["sex"] = rng.choice(["F", "M"], n)
    df["visit"] = (pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 366, n), unit="D")).strftime("%Y-%m-%d")
    return df


def measure(qi: str, level: str, k, variant: str) -> dict:
    """One release, in this process."""
    import pandas as pd

    import geoanon as ga
    from geoanon.datasets import data_path

    k = int(k)
    df = patients()
    regions = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str, keep_default_na=False)
    edges = pd.read_csv(data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)
    start = time.perf_counter()
    if variant == "alone":
        rel = ga.generalize_regions(df[["zip"]], k, column="zip", regions=regions, region_id="zip", edges=edges,
                                    unknown="suppress", zip_level=level)
        classes = rel.report["classes"]
    else:
        columns = QIS[qi]
        rel = ga.anonymize(df, location={"zip": "zip", "regions": regions, "region_id": "zip", "edges": edges,
                                         "unknown": "suppress"},
                           qi=columns, sensitive="diagnosis", k=k, l=2, zip_level=level,
                           location_loss="range" if variant == "range" else "km",
                           method="frontier" if variant == "tiled" else None,
                           weights={"location": LOCATION_WEIGHT} if "-w8" in variant else None,
                           max_extent_km=UNBOUNDED_KM if variant.endswith("-free") else None,
                           **({"tail_reach": float(variant[-1])} if variant in ("km-x6", "km-x8") else {}),
                           identifiers=["record_id", "lat", "lon", *[c for c in QIS["cost+3"] if c not in columns]])
        classes = rel.report["location_classes"]
    seconds = time.perf_counter() - start
    row = {"qi": qi, "level": level, "k": k, "variant": variant, "groups": classes, "seconds": round(seconds, 2),
           "km_median": rel.report["location_km"]["median"], "km_p90": rel.report["location_km"]["p90"],
           "audit_k": rel.report.audit["k"]}
    if variant != "alone":
        ncp = rel.report["ncp"]
        row.update(km_loss=round(ncp["km_loss"]["zip"], 4), ncp={c: round(v, 4) for c, v in ncp["columns"].items()},
                   ncp_overall=round(ncp["overall"], 4))
    return row


def _describe(row) -> str:
    if "failed" in row:
        return f"{' '.join(row['job'])}: failed ({row['failed']})"
    ncp = ", ".join(f"{c} {v:.3f}" for c, v in row.get("ncp", {}).items())
    return (f"{row['qi']:7s} {row['level']:6s} k={row['k']:<3d} {row['variant']:6s} groups {row['groups']:>5,}  "
            f"median {row['km_median']:8.1f} km  p90 {row['km_p90']:8.1f} km"
            + (f"  km loss {row['km_loss']:.3f}  NCP {ncp}" if ncp else "") + f"  {row['seconds']:.1f} s")


def run(plan, resume) -> list:
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "zip_joint_rows.jsonl", resume=resume,
                            time_limit=TIME_LIMIT, describe=_describe)


def table(rows) -> list[str]:
    """The results as a markdown table, each joint row's median against ``alone``'s at its level and k."""
    alone = {(r["level"], r["k"]): r["km_median"] for r in rows if r.get("variant") == "alone" and "failed" not in r}
    out = ["| QIs | level | k | release | location groups | median km | p90 km | / alone | km loss | ZIP NCP | "
           "other columns' NCP | NCP | s |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        if "failed" in r:
            out.append(f"| {' | '.join(r['job'])} | failed: {r['failed']} |")
            continue
        base = alone.get((r["level"], r["k"]))
        ratio = f"{r['km_median'] / base:.2f}" if base else ""
        ncp = r.get("ncp", {})
        others = ", ".join(f"{c} {v:.3f}" for c, v in ncp.items() if c != "zip")
        out.append(f"| {r['qi'] if r['variant'] != 'alone' else '-'} | {r['level']} | {r['k']} | {r['variant']} | "
                   f"{r['groups']:,} | {r['km_median']:,.1f} | {r['km_p90']:,.1f} | {ratio} | "
                   f"{r.get('km_loss', '')} | {ncp.get('zip', '')} | {others} | {r.get('ncp_overall', '')} | "
                   f"{r['seconds']:.1f} |")
    return out


def verdicts(rows) -> list[str]:
    alone = {(r["level"], r["k"]): r["km_median"] for r in rows if r.get("variant") == "alone" and "failed" not in r}
    out = []
    for r in rows:
        if r.get("variant") not in ("alone", "range") and (r["level"], r["k"]) in alone:
            ratio = r["km_median"] / alone[(r["level"], r["k"])]
            out.append(f"- {r['qi']}, {r['level']}, k = {r['k']}, {r['variant']}: median {ratio:.2f}x the zip job's; "
                       f"target <= "
                       f"{TARGET:g}x: {'met' if ratio <= TARGET else 'missed'}")
    return out


def write(rows, path: Path) -> None:
    lines = [f"Measured {today()} on {machine()}, {code_state()}. `python bench/bench_zip_joint.py`: the shipped "
             "20,000 patients by ZIP code (l = 2 on diagnosis; `cost+3` adds a seeded age, sex and visit date), "
             "the joint release with the location judged by Iyengar's loss (`range`) and in km (`km`, the default: "
             "at ZIP level the regions' places cut as points are, rolled up the tiling within 4 k-neighbourhoods; "
             "`tiled` the tiling at ZIP level too; `km-free` without a target, `km-x6` / `km-x8` with the tail's "
             "reach at 6 / 8 neighbourhoods, `km-w8-free` without a target and the location weighing 8) "
             "against `geoanon zip` alone, per ZIP level (see the script's docstring). Median / p90 km: each "
             "record's group diameter (the diagonal of the box of its ZIP centroids).", "", *table(rows), "",
             *verdicts(rows)]
    replace_section(path, "zip_joint", lines)


def _run_and_print(plan, resume):
    rows = run(plan, resume)
    print("\n".join(["", *table(rows), "", *verdicts(rows)]))
    return rows


if __name__ == "__main__":
    main(__doc__, one_args=("QI", "LEVEL", "K", "VARIANT"), measure=measure, plan=PLAN, quick=QUICK,
         run=_run_and_print, write=write)
