"""Benchmark one state's ZIP codes on the shipped national ZIP map against the same table on a map cut to the state.

    python bench/bench_zip_one_state.py          # about 5 minutes; --quick for a smoke run

Data: a table of one state's patients (``TX`` or ``NC``), 5,000 records drawn here (numpy seed
2026) over the state's ZIP codes of the shipped map with lognormal weights (sigma 2: a few ZIP
codes hold hundreds of records, many hold 1 to k - 1, most none), with an age (18-89) and a sex.
Each row releases it at k = 10 on one of two maps:

- ``national``: the shipped map as the README gives it (``us_zip_delaunay_nodes.csv.gz`` and
  its edges, 29,442 ZIP codes of the 48 states and DC);
- ``state``: the same nodes and edges cut to the state,

by one job: ``zip`` (:func:`geoanon.generalize_regions`, the ZIP column alone, age and sex
kept), or the joint release of the ZIP code, age and sex (:func:`geoanon.anonymize`) under its
default ``frontier`` design or the ``joint`` one.

Reported: groups; each record's group diameter (``location_km``: the diagonal of the box of the
centroids of its group's ZIP codes that hold records, km; median, p90, max, and the mean per
record); the share of records published with their own ZIP code (``units.location.exact``); the
records whose published label names a place outside the state (a ZIP code, ZIP3 area, county
or state: at a19b1a4 Texas rows read ``47010+20509``), and the ZIP codes outside the state the
``zip`` job's map draws; the report's two km figures (``units.location.median_km`` and
``location_km.median``) whether they agree; seconds. Each row is measured in a fresh process. The
results replace the zip_one_state section of bench/RESULTS.md.
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, replace_section, run_measurements, today  # noqa: E402

K = 10
ROWS = 5000
STATES = ("TX", "NC")
MAPS = ("national", "state")
JOBS = ("zip", "frontier", "joint")
PLAN = [(state, m, job) for state in STATES for job in JOBS for m in MAPS]
QUICK = [("NC", m, "zip") for m in MAPS]
TIME_LIMIT = 600


def zip_map(state: str, cut: bool):
    """The shipped ZIP map, or its nodes and edges within ``state``."""
    import pandas as pd

    from geoanon.datasets import data_path

    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str, keep_default_na=False)
    edges = pd.read_csv(data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)
    if not cut:
        return nodes, edges
    mine = set(nodes.loc[nodes["state"] == state, "zip"])
    return nodes[nodes["zip"].isin(mine)], edges[edges["zip_a"].isin(mine) & edges["zip_b"].isin(mine)]


def patients(nodes, state: str):
    """The benchmark's table of one state: ``ROWS`` records over its ZIP codes, lognormal weights."""
    import pandas as pd

    zips = nodes.loc[nodes["state"] == state, "zip"].to_numpy()
    rng = np.random.default_rng(2026)
    weight = rng.lognormal(0, 2, zips.size)
    return pd.DataFrame({"id": np.arange(ROWS).astype(str), "zip": rng.choice(zips, ROWS, p=weight / weight.sum()),
                         "age": rng.integers(18, 90, ROWS), "sex": rng.choice(["F", "M"], ROWS)})


def outside_names(labels, nodes, state: str) -> int:
    """Records whose label names a place outside ``state`` (any name that is not one of its ZIP codes,
    ``NNNxx`` / ``NNN`` ZIP3 areas, ``STATE/County`` counties or the state)."""
    mine = nodes[nodes["state"] == state]
    places = {*mine["zip"], *(z[:3] for z in mine["zip"]), *(z[:3] + "xx" for z in mine["zip"]),
              *(state + "/" + mine["county"]), state}
    names = {text: re.split(r"(?<!\\)\|", text.split(" #")[0].rsplit("+", 1)[0]) for text in set(labels) - {"*"}}
    bad = {text for text, shown in names.items() if not set(shown) <= places}
    return int(labels.isin(bad).sum())


def measure(state: str, which: str, job: str) -> dict:
    """One release, in this process."""
    import geoanon as ga

    nodes, edges = zip_map(state, which == "state")
    df = patients(zip_map(state, False)[0], state)
    start = time.perf_counter()
    if job == "zip":
        rel = ga.generalize_regions(df, K, column="zip", regions=nodes, region_id="zip", edges=edges,
                                    keep=["id", "age", "sex"])
        groups, drawn = rel.report["classes"], {v for m in rel.classes["members"] for v in m.split(",")}
    else:
        rel = ga.anonymize(df, location={"zip": "zip", "regions": nodes, "region_id": "zip", "edges": edges},
                           qi=["age", "sex"], identifiers=["id"], k=K, method=job)
        groups, drawn = rel.report["location_classes"], None
    seconds = time.perf_counter() - start
    km, units = rel.report["location_km"], rel.report["units"]["location"]
    state_of = dict(zip(nodes["zip"], nodes["state"]))
    return {"state": state, "map": which, "release": job, "groups": groups, "km_median": km["median"],
            "km_p90": km["p90"], "km_max": km.get("max"), "km_mean": km.get("mean"), "exact": units["exact"],
            "outside_rows": outside_names(rel.table["zip"], nodes, state),
            "outside_drawn": None if drawn is None else sum(state_of[v] != state for v in drawn),
            "agree": units["median_km"] == km["median"] and units["p90_km"] == km["p90"],
            "audit_k": rel.report.audit["k"], "seconds": round(seconds, 2)}


def _describe(row) -> str:
    if "failed" in row:
        return f"{' '.join(row['job'])}: failed ({row['failed']})"
    return (f"{row['state']} {row['map']:8s} {row['release']:8s} groups {row['groups']:>4,}  median {row['km_median']:7.1f} "
            f"p90 {row['km_p90']:7.1f} max {_km(row['km_max'])} km  exact {row['exact']:.1%}  outside "
            f"{row['outside_rows']} rows  {row['seconds']:.1f} s")


def _km(v) -> str:
    return "" if v is None else f"{v:,.1f}"


def run(plan, resume) -> list:
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "zip_one_state_rows.jsonl", resume=resume,
                            time_limit=TIME_LIMIT, describe=_describe)


def table(rows) -> list[str]:
    out = ["| state | map | release | groups | median km | p90 km | max km | mean km | exact ZIP | rows named "
           "outside the state | ZIPs drawn outside | km figures agree | audited k | s |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        if "failed" in r:
            out.append(f"| {' | '.join(r['job'])} | failed: {r['failed']} |")
            continue
        drawn = "" if r["outside_drawn"] is None else f"{r['outside_drawn']:,}"
        out.append(f"| {r['state']} | {r['map']} | {r['release']} | {r['groups']:,} | {r['km_median']:,.1f} | "
                   f"{r['km_p90']:,.1f} | {_km(r['km_max'])} | {_km(r['km_mean'])} | {r['exact']:.1%} | "
                   f"{r['outside_rows']:,} | {drawn} | {'yes' if r['agree'] else 'no'} | {r['audit_k']} | "
                   f"{r['seconds']:.1f} |")
    return out


def write(rows, path: Path) -> None:
    lines = ["## One state's ZIP codes on the national map (`python bench/bench_zip_one_state.py`)", "",
             f"Measured {today()} on {machine()}, {code_state()}. `python bench/bench_zip_one_state.py`: "
             f"{ROWS:,} records of one state (lognormal weights over its ZIP codes, with an age and a sex; see the "
             f"script's docstring) at k = {K} on the shipped national ZIP map and on the same map cut to the state, "
             "by `geoanon zip` and by the joint release (frontier and joint designs). km: each record's group "
             "diameter (the box of the centroids of its group's ZIP codes that hold records).", "", *table(rows)]
    replace_section(path, "zip_one_state", lines)


def _run_and_print(plan, resume):
    rows = run(plan, resume)
    print("\n".join(["", *table(rows)]))
    return rows


if __name__ == "__main__":
    main(__doc__, one_args=("STATE", "MAP", "JOB"), measure=measure, plan=PLAN, quick=QUICK, run=_run_and_print,
         write=write)
