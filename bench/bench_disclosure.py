"""What an attacker who has read the docs learns: row order, box edges and isolated records, design beside design.

    python bench/bench_disclosure.py           # about 5 minutes on 2 cores; --quick for a smoke run

Row order (a table of 3,000 rows from ``airports``, sorted by occupation as a
table sorted by a dropped name would be; the location and age, sex, race and
marital status released at k = 5 and k = 10 by ``geoanon.anonymize``). Three
designs write the same release's rows in different orders:

- ``seeded``: ``default_rng(seed).permutation(n)`` with the documented seed
  0 (geoanon up to issue 48);
- ``entropy``: a permutation drawn from the operating system's entropy;
- ``published`` (the default): rows sorted by their published cells, ties
  (identical rows) in any order.

Measured: *restored*, the share of rows that the attacker puts back at their
input position, trying the permutations of the seeds 0-19 and the order as
written (the best of them); *aligned*, the share of positions that hold the
same record in the k = 5 and the k = 10 release, and *singled out*, the
records that joining the two releases row by row singles out truly (the row
holds one record in both, and its joined cells no other joined row);
*repeatable*, whether two runs write the same bytes.

Box edges and isolated records (the location alone). Each design publishes
the same table's classes:

- ``points``: ``generalize_points`` (the default for points): boxes on a grid
  of their width over k - 2, held to the cuts between classes that lie on
  it, isolated records withheld within 2% of the rows;
- ``points-all``: the same with ``max_withheld=0``: every record located;
- ``anonymize-box``: ``anonymize`` of the location alone (``extent="box"``):
  both edges of every box on its grid, boxes may overlap;
- ``anonymize-tile``: the same with ``extent="tile"``: each class's tile,
  its edges the cuts of the partition and the padded frame;
- ``margin``: the classes of ``points`` published as geoanon did up to
  issue 48: each side the class's extreme record moved out by a margin of
  5-10% of the class's range.

Measured: each record's box diagonal (km: median, p90, max); for every side
of every box, the window to which an attacker who knows the rule narrows the
class's extreme record along that axis, over the box's width divided by
max(k, 3): an edge on a grid of step s leaves the record within s of it, a
cut (the shortest decimal between two records) within the coarsest round
step it is a multiple of, at most the step the box's width allows; a margin
of 5-10% of the range within 5% of the range. *Narrowed* is the share of
sides whose window is below 1 (the box over k), *least* the smallest ratio.
The far records are 7 records planted far from any other (Bermuda; the
Azores and Greenland; three within a kilometre in Iceland, fewer than k):
how many are published inside a box, and the least window ratio of their
boxes' sides.

Tables: ``clustered`` and ``zip_jitter`` (20,000 synthetic points,
``bench/datasets.py``) are the tables the isolation threshold and the grid
share were chosen on; ``airports`` (30,162 rows) and ``patients`` (the
shipped 20,000 demo records) were not, each with the far records added.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_anonymize import _km  # noqa: E402
from common import code_state, machine, main, replace_section, run_measurements, today  # noqa: E402

ORDER_ROWS = 3000
ORDER_QI = ["age", "sex", "race", "marital-status"]
SEEDS = range(20)
ORDERS = ("seeded", "entropy", "published")
DESIGNS = ("points", "points-all", "anonymize-box", "anonymize-tile", "margin")
TABLES = ("clustered", "zip_jitter", "airports", "patients")
TUNING = ("clustered", "zip_jitter")
FAR = [(32.30141, -64.78383), (37.74103, -25.67577), (64.18137, -51.69413),
       (64.14712, -21.94203), (64.14931, -21.93811), (64.14388, -21.94977), (32.29411, -64.77907)]
PLAN = [("order", k, "-") for k in (5, 10)] + [(t, k, d) for t in TABLES for k in (5, 10) for d in DESIGNS]
QUICK = [("order", 5, "-"), ("patients", 10, "points"), ("patients", 10, "margin")]
TIME_LIMIT = 900


# ---------------------------------------------------------------- row order

def _order_source() -> pd.DataFrame:
    from bench_anonymize import airports_table

    df = airports_table()
    df = df.iloc[np.random.default_rng(0).permutation(len(df))[:ORDER_ROWS]]
    return df.sort_values(["occupation", "age"], kind="stable").reset_index(drop=True)[
        ["lat", "lon", *ORDER_QI, "occupation"]]


def _release(df: pd.DataFrame, k: int):
    import geoanon as ga

    return ga.anonymize(df, location=("lat", "lon"), qi=ORDER_QI, k=k, keep=["occupation"])


def _written(release, design: str, rng=None) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows as ``design`` writes them and each one's input position."""
    if design == "published":
        return release.table, np.asarray(release.input_rows)
    n = len(release.table)
    order = np.random.default_rng(0 if design == "seeded" else rng).permutation(n)
    return release.in_input_order().reset_index(drop=True).iloc[order].reset_index(drop=True), order


def _restored(position: np.ndarray) -> float:
    """The best share of rows put back by a documented seed's permutation or the written order itself."""
    n = position.size
    guesses = [np.arange(n)] + [np.random.default_rng(s).permutation(n) for s in SEEDS]
    return max(float(np.mean(g == position)) for g in guesses)


def measure_order(k: int) -> dict:
    df = _order_source()
    other_k = 10 if k == 5 else 5
    first, second, again = _release(df, k), _release(df, other_k), _release(df, k)
    out = {}
    for design in ORDERS:
        a, pa = _written(first, design)
        b, pb = _written(second, design)
        c, _ = _written(again, design)
        joined = pd.concat([a.reset_index(drop=True).astype(str), b.reset_index(drop=True).astype(str)
                            .add_prefix("other_")], axis=1)
        unique = ~joined.duplicated(keep=False).to_numpy()
        out[design] = {"restored": _restored(pa), "aligned": float(np.mean(pa == pb)),
                       "singled_out": int(np.sum(unique & (pa == pb))),
                       "repeatable": _digest(a) == _digest(c)}
    return {"table": "order", "k": k, "other_k": other_k, "rows": len(df), "orders": out}


def _digest(table: pd.DataFrame) -> str:
    return hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()


# ---------------------------------------------------------------- box edges and isolated records

def location_table(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The table's points (``lat``, ``lon``) and which rows are planted far records."""
    if name in TUNING:
        from datasets import DATASETS

        xy = DATASETS[name](20_000, 0)
        return pd.DataFrame({"lat": xy[:, 1], "lon": xy[:, 0]}), np.zeros(len(xy), dtype=bool)
    if name == "airports":
        from bench_anonymize import airports_table

        df = airports_table()[["lat", "lon"]]
    else:
        from geoanon.datasets import data_path

        df = pd.read_csv(data_path("demo_patients.csv"), usecols=["lat", "lon"])
    far = pd.DataFrame(FAR, columns=["lat", "lon"])
    return (pd.concat([df, far], ignore_index=True),
            np.r_[np.zeros(len(df), dtype=bool), np.ones(len(far), dtype=bool)])


def publish(df: pd.DataFrame, k: int, design: str) -> pd.DataFrame:
    """Each record's box (``lat_min`` ... ``lon_max``, NaN when withheld) in input order, and its class."""
    import geoanon as ga

    if design.startswith("points") or design == "margin":
        release = ga.generalize_points(df, k, max_withheld=0 if design == "points-all" else 0.02)
    else:
        release = ga.anonymize(df, location=("lat", "lon"), k=k, extent=design.split("-")[1])
    t = release.in_input_order().reset_index(drop=True)
    boxes = t[["lat_min", "lat_max", "lon_min", "lon_max"]].astype(float)
    boxes["class"] = boxes.groupby(list(boxes.columns), dropna=False).ngroup()
    return _margins(df, boxes) if design == "margin" else boxes


def _margins(df: pd.DataFrame, boxes: pd.DataFrame) -> pd.DataFrame:
    """The same classes, each side their extreme record moved out by 5-10% of their range (seed 0)."""
    rng = np.random.default_rng(0)
    out = boxes.copy()
    kept = boxes["lat_min"].notna()
    for axis in ("lat", "lon"):
        grouped = df.loc[kept, axis].groupby(boxes.loc[kept, "class"])
        low, high = grouped.transform("min"), grouped.transform("max")
        span = (high - low).to_numpy()
        share = pd.Series(rng.uniform(0.05, 0.10, (boxes["class"].max() + 1, 2)).tolist())
        pair = np.array(share.loc[boxes.loc[kept, "class"]].tolist())
        out.loc[kept, f"{axis}_min"] = low.to_numpy() - pair[:, 0] * span
        out.loc[kept, f"{axis}_max"] = high.to_numpy() + pair[:, 1] * span
    return out


def windows(boxes: pd.DataFrame, k: int, design: str) -> np.ndarray:
    """Per class and side, the attacker's window over the box's width / max(k, 3) (see the module)."""
    from geoanon.points.edges import coarsest_step, snap_steps

    b = boxes.dropna().drop_duplicates("class")
    ratios = []
    for axis in ("lat", "lon"):
        low, high = b[f"{axis}_min"].to_numpy(), b[f"{axis}_max"].to_numpy()
        width = (high - low) % 360 if axis == "lon" else high - low
        least = width / max(k, 3)
        if design == "margin":                        # the range: the box less two margins of 7.5% on average
            ratios += [np.divide(0.05 * width / 1.15, least, out=np.zeros(len(b)), where=least > 0)] * 2
            continue
        allowed = snap_steps(width, k, 1e-12)
        for edge in (low, high):
            ratios.append(np.minimum(coarsest_step(edge, allowed), allowed) / least)
    return np.concatenate(ratios) if ratios else np.zeros(0)


def measure_edges(name: str, k: int, design: str) -> dict:
    df, far = location_table(name)
    boxes = publish(df, k, design)
    located = boxes["lat_min"].notna().to_numpy()
    km = _km(boxes["lat_min"], boxes["lon_min"], boxes["lat_max"], boxes["lon_max"])[located]
    ratio = windows(boxes, k, design)
    far_boxes = boxes[far & located]
    far_ratio = windows(far_boxes, k, design) if len(far_boxes) else np.zeros(0)
    return {"table": name, "k": k, "design": design, "rows": len(df),
            "median_km": float(np.median(km)), "p90_km": float(np.quantile(km, 0.9)), "max_km": float(km.max()),
            "withheld": int((~located).sum()), "narrowed": float(np.mean(ratio < 1 - 1e-9)),
            "least": float(ratio.min()), "far": int(far.sum()), "far_located": int((far & located).sum()),
            "far_least": float(far_ratio.min()) if far_ratio.size else None}


def measure(name: str, k, design: str) -> dict:
    return measure_order(int(k)) if name == "order" else measure_edges(name, int(k), design)


# ---------------------------------------------------------------- running and reporting

def run_plan(plan, resume: bool = False) -> list[dict]:
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "disclosure_rows.jsonl", resume=resume,
                            time_limit=TIME_LIMIT, describe=_line)


def _line(r) -> str:
    if "failed" in r:
        return f"{' '.join(r['job'])}: FAILED {r['failed']}"
    if r["table"] == "order":
        return f"order k={r['k']}: " + "; ".join(
            f"{d} restored {o['restored']:.3f} aligned {o['aligned']:.3f} singled out {o['singled_out']}"
            for d, o in r["orders"].items())
    return (f"{r['table']:>10} k={r['k']:>2} {r['design']:>14}: median {r['median_km']:.2f} km, p90 "
            f"{r['p90_km']:.2f}, max {r['max_km']:.0f}, withheld {r['withheld']}, narrowed {r['narrowed']:.3f}, "
            f"least {r['least']:.3f}, far located {r['far_located']}/{r['far']}")


def write_results(rows, path: Path) -> None:
    ok = [r for r in rows if "failed" not in r]
    paragraphs = [" ".join(p.split()) if not p.lstrip().startswith("- ") else
                  "\n".join("- " + " ".join(item.split()) for item in p.strip()[2:].split("\n- "))
                  for p in __doc__.split("\n\n")[2:]]
    lines = ["## What a reader of the docs learns (`python bench/bench_disclosure.py`)", "",
             f"Run on {today()}, {machine()}, geoanon at commit {code_state()}.", ""]
    for p in paragraphs:
        lines += [p, ""]
    lines += ["### Row order", "",
              "| k (other release) | order | restored | aligned | singled out by the join | repeatable |",
              "|---|---|---:|---:|---:|---|"]
    for r in (r for r in ok if r["table"] == "order"):
        for d, o in r["orders"].items():
            lines.append(f"| {r['k']} ({r['other_k']}) | {d} | {o['restored']:.3f} | {o['aligned']:.3f} | "
                         f"{o['singled_out']:,} of {r['rows']:,} | {'yes' if o['repeatable'] else 'no'} |")
    lines += ["", "### Box edges and isolated records", "",
              "| table | k | design | median km | p90 km | max km | withheld | sides narrowed | least window | "
              "far records located | their least window |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in (r for r in ok if r["table"] != "order"):
        far = f"{r['far_located']} of {r['far']}" if r["far"] else "-"
        least_far = f"{r['far_least']:.2f}" if r["far_least"] is not None else "-"
        name = r["table"] + (" (tuning)" if r["table"] in TUNING else "")
        lines.append(f"| {name} | {r['k']} | {r['design']} | {r['median_km']:.2f} | {r['p90_km']:.2f} | "
                     f"{r['max_km']:,.0f} | {r['withheld']:,} | {r['narrowed']:.3f} | {r['least']:.2f} | {far} | "
                     f"{least_far} |")
    lines += ["", "### Reading the disclosure figures", "", *_reading(ok)]
    failed = [r for r in rows if "failed" in r]
    if failed:
        lines += ["", "Failed: " + "; ".join(f"{' '.join(r['job'])}: {r['failed']}" for r in failed) + "."]
    replace_section(path, "disclosure", lines)


def _reading(rows: list) -> list[str]:
    """What each design cost beside the default, per table and k, from the rows."""
    edges = {(r["table"], r["k"], r["design"]): r for r in rows if r["table"] != "order"}
    out = []
    for table in TABLES:
        parts = []
        for k in (5, 10):
            base, tile = (edges.get((table, k, d)) for d in ("points", "anonymize-tile"))
            if not (base and tile):
                continue
            parts.append(f"k = {k}: tiles narrow {tile['narrowed']:.0%} of their sides, at "
                         f"{tile['median_km'] / base['median_km']:.2f}x the default's median km")
        if parts:
            out.append(f"- {table}{' (tuning)' if table in TUNING else ''}: " + "; ".join(parts) + ".")
    return out + ["", "Every default box (``points``, ``anonymize-box``) leaves every record a window of at least its "
                  "box over k along each axis; the designs that narrow a side (``anonymize-tile``, "
                  "``margin``) tell a record beside a cut or an edge more precisely than that. The far records: "
                  "withheld by the default rule."]


if __name__ == "__main__":
    main(__doc__, one_args=("TABLE", "K", "DESIGN"), measure=measure, plan=PLAN, quick=QUICK, run=run_plan,
         write=write_results)
