"""Benchmark the joint release side by side with anonypy's Mondrian and with
chaining the column jobs by hand.

    pip install ".[bench]"
    python bench/bench_anonymize.py            # about 20 minutes; --quick for a smoke run

The table: UCI Adult's 30,162 rows placed at real US ZIP centroids (shipped
``us_zip_delaunay_nodes.csv.gz``, one drawn per row, seed 0) with Gaussian
jitter of 0.01 degrees; quasi-identifiers lat, lon, age, sex, race,
marital-status; sensitive occupation. Also 10^6 synthetic rows (lat, lon and
four QIs), and issue 26's airports table: Adult's rows near real US airports
(shipped ``us_airports.csv.gz``, seed 0, 0.03 degrees of jitter), with and
without a visit date, where each design's location is measured in km (box
diagonals; medians over the records published with a box) beside ``points``
alone and Mondrian (``+spread``, ``+range``: that ``location_loss``;
``+baseN``: the spacing loss's base N; ``+wN``: location weight N; ``+eN``:
``max_extent_km=N``; ``+supN``: ``max_suppressed=N/100``).
Every measurement runs in a fresh process.

- ``anonypy``: anonypy 0.2.1's Mondrian (categorical columns as pandas
  categories) on all six QIs; its NCP from its partitions as it publishes them:
  the members' range per numeric column (the members' bounding box for the
  location), the set of the members' values per categorical column;
- ``chained``: ``geoanon points`` at k, then ``suppress`` (lattice) over the
  published rectangle and the other QIs (age suppressed like the others);
- ``geoanon_<design>[+sets][+tile]``: :func:`geoanon.anonymize` with each
  design (frontier, location-first, greedy, and joint, whose classes'
  rectangles may overlap as Mondrian's do, the default); age as an
  interval; sex, race and marital-status suppressed (``suppress=``) or,
  with ``+sets``, published as value sets (the default, what Mondrian
  publishes); the location as records' boxes
  rounded on a grid (the default ``extent="box"``) or, with ``+tile``, as
  tiles covering the bounds.

Reported: NCP overall and per column (lat and lon count as two columns),
classes, largest class, time (at k=10 without l, anonypy and the command:
the best of three runs, the two sides of the speed target) of the call (the data in memory; for
``geoanon_cli`` the whole command, reading a CSV and writing the release), and
the peak memory (with ``+jobs2``, two worker processes: the parent's peak
plus twice the workers' largest, an upper bound). Results replace the anonymize section of
bench/RESULTS.md.
"""
from __future__ import annotations

import sys
import time
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, peak_mb, replace_section, run_measurements, today  # noqa: E402

QI = ["lat", "lon", "age", "sex", "race", "marital-status"]
CATEGORICAL = ["sex", "race", "marital-status"]
OURS = "geoanon_frontier+sets"        # the configuration compared with Mondrian (both publish value sets)
JOINT = "geoanon_joint+sets"          # location cuts anywhere, as Mondrian: overlapping rectangles
NCP_OURS = OURS + "+range"            # the frontier design with NCP over the range as its location loss
DESIGNS = ["geoanon_frontier", OURS, NCP_OURS, "geoanon_location-first+sets", "geoanon_greedy+sets", JOINT,
           "geoanon_frontier+sets+tile"]
CLI = "geoanon_cli+sets"              # the whole `geoanon anonymize` command on the table as CSV
SPEED_REPEATS = 3                     # anonypy and the command at k=10 (the speed target): best of this many runs
PLAN = ([("adult", k, "none", m) for k in (5, 10, 50) for m in ["anonypy", "chained", *DESIGNS]]
        + [("adult", 10, "none", CLI)]
        + [("adult", 10, "2", m) for m in ["anonypy", "chained", "geoanon_frontier", OURS, NCP_OURS, JOINT]]
        + [("synthetic", 10, "none", m) for m in [OURS, OURS + "+jobs2", NCP_OURS, JOINT, JOINT + "+jobs2"]])
PRECISION = ["points", "points+balanced", "anonypy", "geoanon_frontier",
             "geoanon_frontier+raw", "geoanon_frontier+spread", "geoanon_frontier+range",
             "geoanon_frontier+base4", "geoanon_frontier+base16", OURS, NCP_OURS, JOINT, OURS + "+w4",
             NCP_OURS + "+w16", OURS + "+e100", OURS + "+e100+sup2", OURS + "+e250", "geoanon_frontier+sup2"]
PLAN += ([("airports", k, "none", m) for k in (5, 10, 50) for m in PRECISION]
         + [("airports+visit", 10, "none", m) for m in ["geoanon_frontier", OURS, NCP_OURS]])
QUICK = [("adult", 50, "none", m) for m in ["chained", OURS]] + [("airports", 50, "none", m) for m in ("points", OURS)]
TIME_LIMIT = 1800


def adult_table() -> pd.DataFrame:
    from geoanon.datasets import adult, data_path

    return _placed(adult(), pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype={"zip": str}), 0.01)[0]


def _placed(a: pd.DataFrame, places: pd.DataFrame, jitter: float):
    """Adult's rows each at one of ``places`` (lat, lon; drawn with seed 0)
    with Gaussian jitter in degrees, age as numbers; and the generator, to draw on."""
    rng = np.random.default_rng(0)
    pick = rng.integers(0, len(places), len(a))
    a["lat"] = np.round(places["lat"].to_numpy()[pick] + rng.normal(0, jitter, len(a)), 5)
    a["lon"] = np.round(places["lon"].to_numpy()[pick] + rng.normal(0, jitter, len(a)), 5)
    a["age"] = a["age"].astype(int)
    return a, rng


def airports_table(visit: bool = False) -> pd.DataFrame:
    """Adult's rows placed near real US airports (shipped ``us_airports.csv.gz``,
    one drawn per row, seed 0) with a few km of jitter (0.03 degrees);
    ``visit``: and a visit date drawn over 2023-2024."""
    from geoanon.datasets import adult, data_path

    a, rng = _placed(adult(), pd.read_csv(data_path("us_airports.csv.gz"), dtype={"iata": str}), 0.03)
    if visit:
        days = rng.integers(0, 731, len(a)).astype("timedelta64[D]")
        a["visit"] = np.datetime_as_string(np.datetime64("2023-01-01") + days, unit="D")
    return a


def _km(lat_a, lon_a, lat_b, lon_b) -> np.ndarray:
    """Great-circle distance between two corners, per row."""
    p, q = np.radians(lat_a), np.radians(lat_b)
    h = np.sin((q - p) / 2) ** 2 + np.cos(p) * np.cos(q) * np.sin(np.radians(lon_b - lon_a) / 2) ** 2
    return 2 * 6371.0088 * np.arcsin(np.sqrt(np.clip(h, 0, 1)))


def _location_loss(options) -> str | None:
    """``+spread`` and ``+range``: that location loss; ``+baseN``: the spacing
    loss with ``SPACING_BASE`` N (this process only); else the default."""
    base = next((float(o[4:]) for o in options if o.startswith("base")), None)
    if base is not None:
        import geoanon.joint.location_loss as location_loss

        location_loss.SPACING_BASE = base
    return next((o for o in options if o in ("spread", "range")), None)


def _precision(lat_lo, lat_hi, lon_lo, lon_hi, age_width, stars, boxes) -> dict:
    """Location classes, the median and p90 box diagonal per record (km), the median age width, stars."""
    d = _km(lat_lo, lon_lo, lat_hi, lon_hi)
    return {"location_classes": int(boxes), "median_km": float(np.nanmedian(d)),
            "p90_km": float(np.nanquantile(d, 0.9)), "within_100": float(np.mean(d <= 100)),
            "within_100_boxed": float(np.mean(d[~np.isnan(d)] <= 100)),
            "age_width": None if age_width is None else float(np.nanmedian(age_width)), "stars": int(stars)}


def _measure_precision(method: str, data: str, k: int) -> dict:
    """Issue 26's table: what the location keeps, per design, on the airports table."""
    import geoanon as ga

    visit = data.endswith("+visit")
    df = airports_table(visit)[QI + (["visit"] if visit else [])]
    started = time.perf_counter()
    if method.startswith("points"):
        t = ga.generalize_points(df[["lat", "lon"]], k, lat="lat", lon="lon",
                                 method="balanced" if method.endswith("+balanced") else "gaps").table
        seconds = time.perf_counter() - started
        boxes = t[["lat_min", "lat_max", "lon_min", "lon_max"]].drop_duplicates().shape[0]
        prec = _precision(t.lat_min, t.lat_max, t.lon_min, t.lon_max, None, 0, boxes)
        prec["withheld"] = int(t.lat_min.isna().sum())
        columns = ga.information_loss(df, t, {"lat": ("interval", ("lat_min", "lat_max")),
                                              "lon": ("interval", ("lon_min", "lon_max"))}, reach=k)["columns"]
        classes = int(t["class_id"].nunique())
    elif method == "anonypy":
        seconds, parts = _mondrian(df, k, None, None)
        box = np.empty((len(df), 4))
        age = np.empty(len(df))
        for p in parts:
            box[p] = [df.lat.iloc[p].min(), df.lat.iloc[p].max(), df.lon.iloc[p].min(), df.lon.iloc[p].max()]
            age[p] = df.age.iloc[p].max() - df.age.iloc[p].min()
        prec = _precision(box[:, 0], box[:, 1], box[:, 2], box[:, 3], age, 0, len(parts))
        columns, classes = _mondrian_ncp(df, parts, k), len(parts)
    else:
        design, *options = method.split("_", 1)[1].split("+")
        _as_before(options)
        weight = next((float(o[1:]) for o in options if o.startswith("w")), None)
        extent = next((float(o[1:]) for o in options if o.startswith("e")), None)
        budget = next((float(o[3:]) / 100 for o in options if o.startswith("sup")), None)
        release = ga.anonymize(df, location=("lat", "lon"), qi=["age", *CATEGORICAL, *(["visit"] if visit else [])],
                               k=k, method=design, sets=CATEGORICAL if "sets" in options else None,
                               suppress=None if "sets" in options else CATEGORICAL,
                               weights={"location": weight} if weight else None, max_extent_km=extent,
                               location_loss=_location_loss(options), max_suppressed=budget)
        seconds = time.perf_counter() - started
        t = release.table
        stars = int(sum((t[c].astype(str) == "*").sum() for c in CATEGORICAL))
        prec = _precision(t.lat_min, t.lat_max, t.lon_min, t.lon_max, t.age_max - t.age_min, stars,
                          release.report.details["location_classes"])
        prec["suppressed"] = release.report.details.get("suppressed_records", 0)
        prec["withheld"] = int(t.lat_min.isna().sum()) - prec["suppressed"]
        columns, classes = release.report["ncp"]["columns"], release.report.classes
    return {"method": method, "data": data, "n": len(df), "k": k, "l": None, "seconds": seconds,
            "peak_mb": peak_mb(), "classes": classes, "max_class": 0,
            "ncp": float(np.mean(list(columns.values()))), "columns": columns, "precision": prec}


def _as_before(options) -> None:
    """``+raw``: interval ends on the records' values (no round grid, no
    floor at 0, no open ends), as before issue 33 (this process only)."""
    if "raw" in options:
        import geoanon.joint.dims as dims
        import geoanon.pipeline.quasi_identifiers as joint

        dims.ROUNDING_COST = 0.0
        plain = joint.interval_dim
        joint.interval_dim = lambda *a, **kw: replace(plain(*a, **kw), floor=-np.inf, tails=(-np.inf, np.inf))


def synthetic_table(n=1_000_000) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame({
        "lat": np.round(rng.normal(40, 4, n), 5), "lon": np.round(rng.normal(-90, 10, n), 5),
        "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
        "race": rng.choice(["A", "B", "C", "D", "E"], n, p=[0.7, 0.15, 0.08, 0.05, 0.02]),
        "marital-status": rng.choice(["m", "n", "d", "w", "s"], n, p=[0.45, 0.3, 0.15, 0.06, 0.04]),
        "occupation": rng.choice([f"o{i}" for i in range(12)], n),
    })


def _children_peak_mb() -> float:
    """The largest peak of a finished child process (forked workers share pages with the parent,
    so parent + 2 x this over-counts: an upper bound)."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def measure(method: str, data: str, k, l) -> dict:
    import geoanon as ga

    k = int(k)
    if data.startswith("airports"):
        return _measure_precision(method, data, k)
    l = None if l == "none" else float(l)
    sensitive = "occupation" if l is not None else None
    df = (adult_table() if data == "adult" else synthetic_table())[QI + ([sensitive] if sensitive else [])]
    repeats = SPEED_REPEATS if (data, k, l) == ("adult", 10, None) else 1   # the speed target's two sides
    started = time.perf_counter()
    if method == "anonypy":
        seconds, parts = min((_mondrian(df, k, l, sensitive) for _ in range(repeats)), key=lambda r: r[0])
        columns, sizes = _mondrian_ncp(df, parts, k), [len(p) for p in parts]
    elif method == "chained":
        others = [c for c in df.columns if c not in ("lat", "lon")]
        points = ga.generalize_points(df, k, lat="lat", lon="lon", keep=others).table.drop(columns="class_id")
        rect = ["lat_min", "lat_max", "lon_min", "lon_max"]
        release = ga.suppress(points, rect + ["age", *CATEGORICAL], k=k, l=l, sensitive=sensitive, method="lattice")
        seconds = time.perf_counter() - started
        treat = {"lat": ("interval", ("lat_min", "lat_max")), "lon": ("interval", ("lon_min", "lon_max")),
                 **{c: ("suppress", c) for c in ["age", *CATEGORICAL]}}
        # a starred rectangle column publishes no location: its cell costs 1
        table = release.table.copy()
        for a, b in (("lat_min", "lat_max"), ("lon_min", "lon_max")):
            starred = (table[a].astype(str) == "*") | (table[b].astype(str) == "*")
            table[a] = pd.to_numeric(table[a].where(~starred), errors="coerce")
            table[b] = pd.to_numeric(table[b].where(~starred), errors="coerce")
        columns = ga.information_loss(df, table, treat, reach=k)["columns"]
        sizes = np.bincount(release.table["class_id"].to_numpy())
    elif method == CLI:
        return min((_measure_cli(df, data, k) for _ in range(repeats)), key=lambda r: r["seconds"])
    else:
        design, *options = method.split("_", 1)[1].split("+")
        release = ga.anonymize(df, location=("lat", "lon"), qi=["age", *CATEGORICAL], k=k, l=l,
                               sensitive=sensitive, method=design, sets=CATEGORICAL if "sets" in options else None,
                               suppress=None if "sets" in options else CATEGORICAL,
                               extent="tile" if "tile" in options else "box", n_jobs=2 if "jobs2" in options else 1,
                               location_loss=_location_loss(options))
        seconds = time.perf_counter() - started
        columns = release.report["ncp"]["columns"]
        sizes = np.bincount(release.table["class_id"].to_numpy())
    return {"method": method, "data": data, "n": len(df), "k": k, "l": l, "seconds": seconds,
            "peak_mb": peak_mb() + (2 * _children_peak_mb() if method.endswith("jobs2") else 0),
            "classes": int(len(sizes)), "max_class": int(max(sizes)),
            "ncp": float(np.mean(list(columns.values()))), "columns": columns}


def _mondrian(df, k, l, sensitive) -> tuple:
    """(seconds, partitions) of anonypy's partition call."""
    from anonypy.mondrian import Mondrian

    frame = df[QI].copy()
    for c in CATEGORICAL:
        frame[c] = frame[c].astype("category")
    if sensitive:
        frame[sensitive] = df[sensitive]
    started = time.perf_counter()
    parts = Mondrian(frame, QI, sensitive).partition(k=k, l=int(l or 0))
    return time.perf_counter() - started, parts


def _measure_cli(df, data, k) -> dict:
    """Time ``geoanon anonymize`` as a user runs it: a fresh process reading
    the table as CSV and writing the release and its report."""
    import json
    import resource
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        src, out, report = Path(folder) / "in.csv", Path(folder) / "out.csv", Path(folder) / "r.json"
        df.to_csv(src, index=False)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "geoanon.cli", "anonymize", str(src), "--lat", "lat", "--lon", "lon",
                        "--qi", ",".join(["age", *CATEGORICAL]), "--sets", ",".join(CATEGORICAL), "-k", str(k),
                        "-o", str(out), "--report", str(report)], check=True, capture_output=True)
        seconds = time.perf_counter() - started
        r = json.loads(report.read_text())
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    columns = r["ncp"]["columns"]
    return {"method": CLI, "data": data, "n": len(df), "k": k, "l": None, "seconds": seconds, "peak_mb": peak,
            "classes": r["classes"], "max_class": r["max_class"], "ncp": float(np.mean(list(columns.values()))),
            "columns": columns}


def _mondrian_ncp(df, parts, k: int) -> dict:
    """Mondrian's NCP per column, as geoanon's report measures its own: a
    number over the range between the values k records reach."""
    n = len(df)
    out = {}
    for c in QI:
        values = df[c].to_numpy()
        if c in CATEGORICAL:
            codes, uniques = pd.factorize(df[c])
            d = len(uniques)
            out[c] = sum(len(p) * (np.unique(codes[p]).size - 1) / (d - 1) for p in parts) / n
        else:
            ordered = np.sort(values)
            low, high = ordered[k - 1], ordered[-k]
            out[c] = sum(len(p) * max(min(values[p].max(), high) - max(values[p].min(), low), 0) for p in parts) / (
                n * (high - low))
    return out


def run_plan(plan, resume: bool = False) -> list[dict]:
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "anonymize_rows.jsonl", resume=resume,
                            time_limit=TIME_LIMIT, describe=_line)


def _line(r) -> str:
    if "failed" in r:
        data, k, l, method = r["job"]
        return f"{data:>9} k={k:<3} l={l:<4} {method:>24}  FAILED: {r['failed'][:100]}"
    return (f"{r['data']:>9} k={r['k']:<3} l={str(r['l']):<4} {r['method']:>24} {r['seconds']:8.2f} s "
            f"{r['peak_mb']:7.0f} MB  NCP {r['ncp']:.4f}  classes {r['classes']:6}  max {r['max_class']}")


def _precision_table(rows) -> list[str]:
    out = ["| data | k | method | location classes | box diagonal median | p90 | within 100 km | age width (median) | "
           "NCP | NCP lat / lon / age | NCP visit | stars | suppressed records | withheld locations | time |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "failed" in r:
            data, k, _, method = r["job"]
            out.append(f"| {data} | {k} | {method} | {r['failed'][:80]} |" + " |" * 11)
            continue
        p, c = r["precision"], r["columns"]
        width = "-" if p["age_width"] is None else f"{p['age_width']:g}"
        ncp = " / ".join("-" if col not in c else f"{c[col]:.3f}" for col in ("lat", "lon", "age"))
        visit = f"{c['visit']:.3f}" if "visit" in c else "-"
        out.append(f"| {r['data']} | {r['k']} | {r['method']} | {p['location_classes']:,} | {p['median_km']:,.0f} km | "
                   f"{p['p90_km']:,.0f} km | {p['within_100']:.1%} | {width} | {r['ncp']:.3f} | {ncp} | {visit} | "
                   f"{p['stars']:,} | {p.get('suppressed', 0):,} | {p.get('withheld', 0):,} | {r['seconds']:.2f} s |")
    return out


def _precision_targets(rows) -> list[str]:
    ok = {(r["data"], r["k"], r["method"]): r for r in rows if "failed" not in r}
    points, ours = ok.get(("airports", 10, "points")), ok.get(("airports", 10, "geoanon_frontier"))
    lines = []
    if points and ours:
        x = ours["precision"]["median_km"] / points["precision"]["median_km"]
        lines.append(f"- airports, k=10: the frontier design's (issue 26's default) median box diagonal {ours['precision']['median_km']:,.0f} km "
                     f"= {x:.1f}x `points` alone ({points['precision']['median_km']:,.0f} km); target <= 3x: "
                     f"{'met' if x <= 3 else 'MISSED'}")
    for name, what in ((OURS + "+e100", "value sets, max_extent_km=100"),
                       (OURS + "+e100+sup2", "value sets, max_extent_km=100, max_suppressed=0.02")):
        capped = ok.get(("airports", 10, name))
        if capped:
            p = capped["precision"]
            lines.append(f"- airports, k=10, {what}: median {p['median_km']:,.0f} km, {p['within_100']:.1%} of all "
                         f"records in boxes within 100 km ({p.get('suppressed', 0):,} suppressed count as beyond; "
                         f"{p['within_100_boxed']:.1%} of those published with a box)"
                         + ("; target >= 95%: " + ("met" if p["within_100"] >= 0.95 else "MISSED")
                            if name.endswith("sup2") else ""))
    for k in (5, 10, 50):
        now, raw = (ok.get(("airports", k, m)) for m in ("geoanon_frontier", "geoanon_frontier+raw"))
        if now and raw:
            p, r = now["precision"], raw["precision"]
            lines.append(f"- airports, k={k}: round, bounded, top-coded interval ends cost NCP {raw['ncp']:.3f} -> "
                         f"{now['ncp']:.3f} ({now['ncp'] / raw['ncp'] - 1:+.1%}; median age width {r['age_width']:g} "
                         f"-> {p['age_width']:g} years); {p['withheld']:,} records ({p['withheld'] / now['n']:.2%}) "
                         "published without a location (isolated)")
    alone = ok.get(("airports", 10, "points"))
    if alone:
        lines.append(f"  - `points` alone: {alone['precision']['within_100']:.1%} within 100 km")
    dated = ok.get(("airports+visit", 10, "geoanon_frontier"))
    if dated:
        v = dated["columns"]["visit"]
        lines.append(f"- airports with a visit date, k=10: the visit published as ISO intervals, NCP {v:.3f} (the "
                     f"location's median box {dated['precision']['median_km']:,.0f} km); target < 0.2: "
                     f"{'met' if v < 0.2 else 'MISSED'}")
    ranged = ok.get(("airports+visit", 10, NCP_OURS))
    if ranged:
        lines.append(f"  - with `location_loss=\"range\"` and sets: NCP {ranged['columns']['visit']:.3f} (boxes of "
                     f"{ranged['precision']['median_km']:,.0f} km)")
    return lines


def _table(rows) -> str:
    cols = QI
    out = ["| data | k | l | method | NCP | " + " | ".join(cols) + " | classes | largest | time | peak memory |",
           "|---|---:|---|---|---:|" + "---:|" * len(cols) + "---:|---:|---:|---:|"]
    for r in rows:
        if "failed" in r:
            data, k, l, method = r["job"]
            out.append(f"| {data} | {k} | {l} | {method} | {r['failed']} |" + " |" * (len(cols) + 4))
            continue
        per = " | ".join(f"{r['columns'][c]:.4f}" for c in cols)
        out.append(f"| {r['data']} ({r['n']:,}) | {r['k']} | {r['l'] or ''} | {r['method']} | {r['ncp']:.4f} | {per} | "
                   f"{r['classes']:,} | {r['max_class']:,} | {r['seconds']:.2f} s | {r['peak_mb']:,.0f} MB |")
    return "\n".join(out)


def _targets(rows) -> list[str]:
    ok = [r for r in rows if "failed" not in r]
    lines = []
    for k in (5, 10, 50):
        mond = next((r for r in ok if r["method"] == "anonypy" and r["k"] == k and r["l"] is None), None)
        ours = next((r for r in ok if r["method"] == OURS and r["k"] == k and r["l"] is None), None)
        joint = next((r for r in ok if r["method"] == JOINT and r["k"] == k and r["l"] is None), None)
        ranged = next((r for r in ok if r["method"] == NCP_OURS and r["k"] == k and r["l"] is None), None)
        if mond and ours:
            lines.append(f"- k={k}: NCP of the frontier design with value sets (issue 11's default) {ours['ncp']:.4f} vs anonypy's "
                         f"Mondrian {mond['ncp']:.4f}; target below Mondrian: "
                         f"{'met' if ours['ncp'] < mond['ncp'] else 'MISSED'}")
        for other, what in ((ranged, "the frontier design with NCP as its location loss (`location_loss=\"range\"`)"),
                            (joint, "the joint design (rectangles may overlap, as Mondrian's)")):
            if mond and other:
                lines.append(f"  - {what}: {other['ncp']:.4f}, {other['ncp'] / mond['ncp']:.2f}x Mondrian's")
        cli = next((r for r in ok if r["method"] == CLI and r["k"] == k), None)
        if mond and cli and k == 10:
            x = mond["seconds"] / cli["seconds"]
            lines.append(f"- k=10: anonypy's partition call {mond['seconds']:.1f} s / the whole `geoanon anonymize` "
                         f"command {cli['seconds']:.1f} s (both best of {SPEED_REPEATS}) = {x:.2f}x (the call alone: "
                         f"{ours['seconds']:.1f} s); "
                         f"target >= 10x: {'met' if x >= 10 else 'MISSED'}")
    for big in (r for r in ok if r["data"] == "synthetic"):
        how = ("2 processes" if big["method"].endswith("jobs2") else "1 process") \
            + (", joint design" if big["method"].startswith(JOINT) else "") \
            + (", NCP's range as the location loss" if big["method"] == NCP_OURS else "")
        lines.append(f"- 10^6 rows, k=10, {how}: {big['seconds']:.1f} s, peak {big['peak_mb']:,.0f} MB; target "
                     f"< 90 s and < 4 GB: {'met' if big['seconds'] < 90 and big['peak_mb'] < 4096 else 'MISSED'}"
                     + (f"; the joint release on 2 cores <= 20 s (issue 35): {'met' if big['seconds'] <= 20 else 'MISSED'}"
                        if big["method"] == JOINT + "+jobs2" else ""))
    return lines


def write_results(rows, path: Path) -> None:
    replace_section(path, "anonymize", [
        "## Joint release over all quasi-identifiers (`python bench/bench_anonymize.py`)",
        "",
        f"Run on {today()}, {machine()}, geoanon at commit {code_state()}, anonypy {version('anonypy')}. "
        "NCP: `geoanon.information_loss` averaged over the six QI columns (intervals by Xu et al. 2006, each over "
        "the range between the values k records reach, as geoanon's report measures it; value sets by Iyengar's "
        "(c - 1) / (|A| - 1)); Mondrian's from its members' ranges and value sets (its location boxes overlap, "
        "their edges its members' coordinates), geoanon's from what it publishes: location boxes (records' box "
        f"rounded outward on a grid of its width over k) or tiles (`+tile`), "
        f"class ranges, and `*` or value sets (`+sets`); `{JOINT}` cuts the location anywhere, as Mondrian "
        f"does, so its classes' boxes may overlap. The frontier and location-first designs cost the location against "
        f"the records' local spacing (the default `location_loss=\"spacing\"`), `+range` by NCP over the range; "
        f"the greedy and joint designs (the joint one now the default) in km (`location_loss=\"km\"`). "
        f"Issue 11's targets compare `{OURS}` (the frontier design, the default when they were set, publishing "
        f"value sets as Mondrian does); issue 26's `geoanon_frontier` (`*` where a class's categories differ, then "
        f"the default).",
        "",
        _table([r for r in rows if not _airports(r)]),
        "",
        "Targets (issue 11):",
        "",
        *_targets([r for r in rows if not _airports(r)]),
        "",
        "Location precision (issue 26): Adult's rows near real US airports (`us_airports.csv.gz`, 3,376 airports "
        "from Thailand and Guam to Alaska, 0.03 degrees of jitter), QIs as above; `airports+visit` adds a visit date "
        "over 2023-2024. Box diagonal: the great-circle diagonal of the box each record publishes (Mondrian: its "
        "class's members' box), median and p90 over the records. `points`: `geoanon points` on the location "
        "alone. `+spread` and `+range`: `location_loss` (default: `spacing`); `+baseN`: the spacing loss with "
        "`SPACING_BASE` N (default 8); `+wN`: `weights={\"location\": N}`; `+eN`: `max_extent_km=N`; `+supN`: "
        "`max_suppressed=N/100`.",
        "",
        *_precision_table([r for r in rows if _airports(r)]),
        "",
        *_precision_targets([r for r in rows if _airports(r)]),
    ])


def _airports(row) -> bool:
    return (row.get("data") or row["job"][0]).startswith("airports")


if __name__ == "__main__":
    main(__doc__, one_args=("DATA", "K", "L", "METHOD"), measure=lambda data, k, l, method: measure(method, data, k, l),
         plan=PLAN, quick=QUICK, run=run_plan, write=write_results)
