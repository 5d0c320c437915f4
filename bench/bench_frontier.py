"""Benchmark the joint release's trade-off against a weighted Mondrian's whole frontier.

    pip install ".[bench]"
    python bench/bench_frontier.py             # about 20 minutes; --quick for a smoke run

A user judges a joint release by two things at once: how wide the published
location is (km) and how much of the other columns survives. Both sides are
traced along their knob and compared point by point, on three tables:

- ``airports``: UCI Adult's 30,162 rows placed near real US airports
  (bench_anonymize.py's table: national, clustered);
- ``zips``: the same rows at real US ZIP centroids (bench_anonymize.py's
  Adult table: national, spread over 29,000 places);
- ``city``: the same rows at the ZIP centroids within 40 km of downtown
  Chicago with 0.005 degrees of jitter (city-scale: boxes of a few km).

Quasi-identifiers lat, lon, age, sex, race, marital-status; k = 5, 10, 50.

- ``mondrian``: a strict multidimensional Mondrian written here (about 40
  lines, :func:`mondrian`): at each node the widest dimension, the
  location's span (latitude and longitude, each over its range) weighted by
  ``w``, age over its range, a category by its (values - 1) / (distinct - 1);
  median cuts for numbers, the frequency-ordered half of the values for
  categories; every part at least k. It publishes its members' box on the
  grid geoanon puts its own on (:mod:`geoanon.points.edges`: each axis on
  the least round step of at least its range over k - 2, and at least k
  times the coordinates' resolution, the edges strictly outside its
  members), its members' age range and value sets, the age's loss measured
  as geoanon's report measures it (over the range between the ages k
  records reach). ``w`` = 1, 1.414, 2, ..., 256 (17 weights a factor sqrt(2) apart)
  traces its frontier.
- ``geoanon``: :func:`geoanon.explore` at ``location_precision`` 0, 0.025,
  ..., 1 (41 settings, the default release, 0.5, among them), then, three
  rounds at most, halfway between every two neighbouring settings whose
  releases differ by more than 3% in median km or 10% in other NCP (the
  knob is continuous; settings down to 1/320 apart), each release measured
  as published; ``geoanon+kneeX``: the same with the km loss's u = X F
  (:data:`geoanon.joint.km_loss.KNEE`, 0.1 by default; 1e-4 makes every
  tenfold of width cost the same, as before).

Measured per release: the median and p90 box diagonal per record (km; a
record published without a box counts as infinitely wide) and the other
columns' loss, the mean NCP of age, sex, race and marital-status. The checks:
no Mondrian release dominates geoanon's default (no wider and no lossier,
one of them strictly); and for every Mondrian release whose median box lies
in the window (airports and zips: 40-700 km, the issue's; city: 2-40 km),
geoanon's best release no wider has an other-column NCP at most 0.70x
Mondrian's. Speed: one default release (in one process, without first cuts, and on
2 processes) against ``explore``'s 8 default settings (target <= 3x), in
one process and with ``n_jobs=2`` (this process and one worker, each
searching a run of neighbouring settings together), each the best of
five runs; and the same as the command
(``geoanon anonymize ... --html-report --jobs 2`` against the same with
``--explore``, a fresh process each, the best of three).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_anonymize import _km  # noqa: E402  (great-circle km between corners)
from common import code_state, machine, main, replace_section, run_measurements, today  # noqa: E402

QI = ["lat", "lon", "age", "sex", "race", "marital-status"]
OTHER = ["age", "sex", "race", "marital-status"]
CATEGORICAL = ["sex", "race", "marital-status"]
TABLES = ("airports", "zips", "city")
KS = (5, 10, 50)
WEIGHTS = tuple(round(2 ** (i / 2), 3) for i in range(17))
SETTINGS = tuple(np.round(np.linspace(0, 1, 41), 3))
REFINE_ROUNDS = 3      # then settings halfway between neighbours that differ by more than:
STEP_KM = 1.03         # this factor in median km,
STEP_NCP = 1.10        # or this factor in other NCP
WINDOWS = {"airports": (40, 700), "zips": (40, 700), "city": (2, 40)}
TARGET = 0.70
SPEED_TARGET = 3.0   # explore's 8 settings within this many times one release
REPEATS = 5          # speed: the best of this many runs of each
COMMAND_REPEATS = 3  # ... and of the command's
KNEES = (1e-4, 0.2)    # the km loss's u / F measured beside the default (geoanon.joint.km_loss.KNEE)
PLAN = ([(t, k, m) for t in TABLES for k in KS for m in ("mondrian", "geoanon", *(f"geoanon+knee{u:g}" for u in KNEES))]
        + [(t, 10, "speed") for t in TABLES])
QUICK = [("airports", 50, "mondrian"), ("airports", 50, "geoanon")]
TIME_LIMIT = 3600


def table(name: str) -> pd.DataFrame:
    import bench_anonymize as b

    if name == "airports":
        return b.airports_table()[QI]
    if name == "zips":
        return b.adult_table()[QI]
    from geoanon.datasets import adult, data_path

    places = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype={"zip": str})
    near = _km(places["lat"].to_numpy(), places["lon"].to_numpy(), 41.8781, -87.6298) <= 40
    return b._placed(adult(), places[near].reset_index(drop=True), 0.005)[0][QI]


def mondrian(df: pd.DataFrame, k: int, w: float) -> list:
    """A strict multidimensional Mondrian with the location's span weighted by ``w``: the classes' rows."""
    num = [df[c].to_numpy(float) for c in ("lat", "lon", "age")]
    cats = [pd.factorize(df[c])[0] for c in CATEGORICAL]
    spans = [np.ptp(x) or 1.0 for x in num]
    distinct = [c.max() + 1 for c in cats]
    weight = [w, w, 1.0]
    parts, stack = [], [np.arange(len(df))]
    while stack:
        rows = stack.pop()
        widths = [weight[j] * np.ptp(num[j][rows]) / spans[j] for j in range(3)]
        widths += [(np.unique(c[rows]).size - 1) / max(d - 1, 1) for c, d in zip(cats, distinct)]
        chosen = None
        for j in np.argsort(widths, kind="stable")[::-1]:
            if widths[j] <= 0:
                break
            if j < 3:
                v = num[j][rows]
                left = v <= np.median(v)
                if left.all():
                    left = v < np.median(v)
            else:
                c = cats[j - 3][rows]
                values, counts = np.unique(c, return_counts=True)
                by_count = np.argsort(-counts, kind="stable")
                cut = int(np.argmin(np.abs(np.cumsum(counts[by_count])[:-1] - rows.size / 2))) + 1
                left = np.isin(c, values[by_count[:cut]])
            if k <= left.sum() <= rows.size - k:
                chosen = left
                break
        if chosen is None:
            parts.append(rows)
        else:
            stack += [rows[~chosen], rows[chosen]]
    return parts


def _mondrian_point(df: pd.DataFrame, parts: list, w: float, k: int) -> dict:
    from geoanon.points.edges import coordinate_resolution, snap_steps, snapped

    lat, lon, age = (df[c].to_numpy(float) for c in ("lat", "lon", "age"))
    cats = [pd.factorize(df[c])[0] for c in CATEGORICAL]
    floor = {axis: max(k * coordinate_resolution(v), 1e-9) for axis, v in (("lat", lat), ("lon", lon))}
    ages = np.sort(age)
    low, high = ages[k - 1], ages[-k]                     # the range k records reach from either end
    n = len(df)
    d, other = np.empty(n), np.zeros(n)
    for p in parts:
        (a, b), (c, e) = ((snapped(v[p].min(), v[p].max(), snap_steps(np.ptp(v[p]), k, floor[axis])))
                          for axis, v in (("lat", lat), ("lon", lon)))
        d[p] = _km(a, c, b, e)
        loss = max(min(age[p].max(), high) - max(age[p].min(), low), 0.0) / (high - low)
        loss += sum((np.unique(x[p]).size - 1) / (x.max()) for x in cats)
        other[p] = loss / len(OTHER)
    return {"setting": w, "median_km": float(np.median(d)), "p90_km": float(np.quantile(d, 0.9)),
            "other_ncp": float(other.mean()), "classes": len(parts)}


def measure(name: str, k, method: str) -> dict:
    import geoanon as ga

    k = int(k)
    df = table(name)
    row = {"table": name, "k": k, "method": method, "n": len(df)}
    started = time.perf_counter()
    if method == "mondrian":
        row["points"] = [_mondrian_point(df, mondrian(df, k, w), w, k) for w in WEIGHTS]
    elif method.startswith("geoanon"):
        if "+knee" in method:                 # forked workers inherit it
            import geoanon.joint.km_loss as km_loss

            km_loss.KNEE = float(method.split("+knee")[1])
        row["points"] = _traced(df, k)
    else:
        kw = dict(location=("lat", "lon"), qi=OTHER, k=k)
        row["one_s"] = min(_timed(lambda: ga.anonymize(df, **kw)) for _ in range(REPEATS))
        row["plain_s"] = _without_first_cuts(lambda: min(_timed(lambda: ga.anonymize(df, **kw))
                                                           for _ in range(REPEATS)))
        row["one2_s"] = min(_timed(lambda: ga.anonymize(df, **kw, n_jobs=2)) for _ in range(REPEATS))
        row["explore_s"] = min(_timed(lambda: ga.explore(df, **kw)) for _ in range(REPEATS))
        row["explore2_s"] = min(_timed(lambda: ga.explore(df, **kw, n_jobs=2)) for _ in range(REPEATS))
        row.update(_commands(df, k))
    row["seconds"] = time.perf_counter() - started
    return row


def _traced(df, k) -> list:
    """geoanon's releases at ``SETTINGS``, then, for ``REFINE_ROUNDS`` rounds, at
    the middle of every two neighbouring settings whose releases differ by more
    than ``STEP_KM`` in median km or ``STEP_NCP`` in other NCP (the knob is
    continuous; a sampled frontier must not leave gaps where it moves fast)."""
    import geoanon as ga

    points, todo = {}, list(SETTINGS)
    for _ in range(REFINE_ROUNDS + 1):
        if not todo:
            break
        r = ga.explore(df, location=("lat", "lon"), qi=OTHER, k=k, settings=todo, n_jobs=2)
        for p in r.report.details["frontier"]["points"]:
            points[p["location_precision"]] = {"setting": p["location_precision"], "median_km": p["median_km"],
                                               "p90_km": p["p90_km"], "other_ncp": p["other_ncp"],
                                               "classes": p["classes"]}
        ordered = [points[s] for s in sorted(points)]
        todo = [round((a["setting"] + b["setting"]) / 2, 6) for a, b in zip(ordered, ordered[1:])
                if a["median_km"] > b["median_km"] * STEP_KM or b["other_ncp"] > a["other_ncp"] * STEP_NCP]
    return [points[s] for s in sorted(points)]


def _without_first_cuts(f):
    """``f()`` with the joint search's first cuts off (:data:`geoanon.joint.first_cuts.FIRST_CUT_ROWS` 0)."""
    import geoanon.joint.mondrian as mondrian

    kept = mondrian.FIRST_CUT_ROWS
    mondrian.FIRST_CUT_ROWS = 0
    try:
        return f()
    finally:
        mondrian.FIRST_CUT_ROWS = kept


def _commands(df, k) -> dict:
    """The command as a user runs it, a fresh process each time (start-up, reading the CSV, writing the
    table and the HTML report included), on 2 processes: one release, and ``--explore``; best of
    ``COMMAND_REPEATS`` each."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.csv"
        df.to_csv(src, index=False)
        base = [sys.executable, "-m", "geoanon.cli", "anonymize", str(src), "-o", str(Path(tmp) / "out.csv"),
                "-k", str(k), "--lat", "lat", "--lon", "lon", "--qi", ",".join(OTHER),
                "--html-report", str(Path(tmp) / "report.html"), "-q", "--jobs", "2"]
        runs = {"command_one_s": base, "command_explore_s": base + ["--explore"]}
        return {key: min(_timed(lambda: subprocess.run(args, check=True)) for _ in range(COMMAND_REPEATS))
                for key, args in runs.items()}


def _timed(f) -> float:
    started = time.perf_counter()
    f()
    return time.perf_counter() - started


def run_plan(plan, resume: bool = False) -> list[dict]:
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "frontier_rows.jsonl", resume=resume,
                            time_limit=TIME_LIMIT, describe=_line)


def _line(r) -> str:
    if "failed" in r:
        return f"{' '.join(r['job'])}: FAILED {r['failed']}"
    if "points" in r:
        return f"{r['table']} k={r['k']} {r['method']}: " + " ".join(
            f"{p['setting']:g}:{p['median_km']:.0f}km/{p['other_ncp']:.3f}" for p in r["points"])
    return f"{r['table']} k={r['k']}: one {r['one_s']:.2f} s, explore {r['explore_s']:.2f} s, 2 processes {r['explore2_s']:.2f} s"


def compare(peer: list, ours: list, window: tuple) -> dict:
    """The checks of the module for one table and k."""
    default = next(p for p in ours if p["setting"] == 0.5)
    dominated = [p for p in peer if p["median_km"] <= default["median_km"] and p["other_ncp"] <= default["other_ncp"]
                 and (p["median_km"] < default["median_km"] or p["other_ncp"] < default["other_ncp"])]
    ratios = []
    for p in peer:
        if window[0] <= p["median_km"] <= window[1]:
            fit = [o for o in ours if o["median_km"] <= p["median_km"]]
            best = min(fit, key=lambda o: o["other_ncp"]) if fit else None
            ratios.append((p, best, best["other_ncp"] / p["other_ncp"] if best else np.inf))
    return {"default": default, "dominated_by": dominated, "ratios": ratios}


def write_results(rows, path: Path) -> None:
    by = {(r["table"], r["k"], r["method"]): r for r in rows if "failed" not in r}
    lines = ["## The trade-off against a weighted Mondrian's frontier (`python bench/bench_frontier.py`)", "",
             f"Run on {today()}, {machine()}, geoanon at commit {code_state()}. " + " ".join(
                 __doc__.split("\n\n")[2:4]).replace("\n", " "), ""]
    worst = {}
    for name in TABLES:
        for k in KS:
            peer, ours = by.get((name, k, "mondrian")), by.get((name, k, "geoanon"))
            if peer is None or ours is None:
                continue
            c = compare(peer["points"], ours["points"], WINDOWS[name])
            d = c["default"]
            lines += [f"### {name}, k = {k}", "",
                      "| Mondrian w | median km | p90 km | other NCP | geoanon's best no wider: setting | median km | "
                      "p90 km | other NCP | ratio |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for p, best, ratio in c["ratios"]:
                b = ("| - | - | - | - |" if best is None else
                     f"| {best['setting']:g} | {best['median_km']:,.1f} | {best['p90_km']:,.1f} | {best['other_ncp']:.4f} |")
                lines.append(f"| {p['setting']:g} | {p['median_km']:,.1f} | {p['p90_km']:,.1f} | {p['other_ncp']:.4f} "
                             f"{b} {ratio:.2f}x |")
            ratios = [r for _, _, r in c["ratios"]]
            worst[(name, k)] = max(ratios) if ratios else None
            lines += ["", f"geoanon's default (location_precision 0.5): median {d['median_km']:,.1f} km, p90 "
                          f"{d['p90_km']:,.1f} km, other NCP {d['other_ncp']:.4f}; dominated by "
                          + (", ".join(f"w={p['setting']:g}" for p in c["dominated_by"]) or "no Mondrian release")
                          + (f"; worst ratio in the window {worst[(name, k)]:.2f}x (target <= {TARGET:.2f}x: "
                             f"{'met' if worst[(name, k)] <= TARGET else 'MISSED'})" if ratios else "")
                          + ".", "",
                      "All of geoanon's releases (setting: median km / p90 km / other NCP): " + "; ".join(
                          f"{p['setting']:g}: {p['median_km']:,.0f} / {p['p90_km']:,.0f} / {p['other_ncp']:.3f}"
                          for p in ours["points"]) + ".", "",
                      "Mondrian's (w: median km / p90 km / other NCP): " + "; ".join(
                          f"{p['setting']:g}: {p['median_km']:,.0f} / {p['p90_km']:,.0f} / {p['other_ncp']:.3f}"
                          for p in peer["points"]) + ".", ""]
    lines += ["### The km loss's knee", "", "The worst ratio in the window (and the default's median km / other NCP) "
              "with the km loss's u = X F, X the default 0.1 and the alternatives:", "",
              "| table | k | " + " | ".join(f"u = {u:g} F" for u in (0.1, *KNEES)) + " |",
              "|---|---:|" + "---:|" * (1 + len(KNEES))]
    for name in TABLES:
        for k in KS:
            peer = by.get((name, k, "mondrian"))
            if peer is None:
                continue
            cells = []
            for method in ("geoanon", *(f"geoanon+knee{u:g}" for u in KNEES)):
                ours = by.get((name, k, method))
                if ours is None:
                    cells.append("-")
                    continue
                c = compare(peer["points"], ours["points"], WINDOWS[name])
                ratios = [r for _, _, r in c["ratios"]]
                cells.append((f"{max(ratios):.2f}x" if ratios else "-")
                             + f" ({c['default']['median_km']:,.1f} km / {c['default']['other_ncp']:.3f})")
            lines.append(f"| {name} | {k} | " + " | ".join(cells) + " |")
    lines += [""]
    lines += ["### Speed of `explore`", "", "One release (`ga.anonymize`, k = 10), the same without first cuts "
              "(`FIRST_CUT_ROWS` 0) and on 2 processes (`n_jobs=2`), and `ga.explore`'s 8 default settings, in "
              "one process and on 2 (ratios to one release in one process; last column: explore on 2 processes "
              "to one release on 2), best of five each:", "",
              "| table | rows | one release s | without first cuts s | on 2 processes s | explore, 8 settings s | "
              "ratio | explore, 2 processes s | ratio | ratio on 2 |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name in TABLES:
        r = by.get((name, 10, "speed"))
        if r:
            lines.append(f"| {name} | {r['n']:,} | {r['one_s']:.2f} | {r['plain_s']:.2f} | {r['one2_s']:.2f} | "
                         f"{r['explore_s']:.2f} | {r['explore_s'] / r['one_s']:.1f}x | {r['explore2_s']:.2f} | "
                         f"{r['explore2_s'] / r['one_s']:.1f}x | {r['explore2_s'] / r['one2_s']:.1f}x |")
    speed = [r["explore2_s"] / r["one_s"] for name in TABLES if (r := by.get((name, 10, "speed")))]
    if speed:
        lines += ["", f"`ga.explore`'s 8 settings on 2 processes: {min(speed):.1f}-{max(speed):.1f}x one "
                      f"`ga.anonymize` ({'within' if max(speed) <= SPEED_TARGET else 'above'} the "
                      f"{SPEED_TARGET:.0f}x the issue sets for `--explore`, the command, below)."]
    timed = [(name, r) for name in TABLES if (r := by.get((name, 10, "speed"))) and "command_one_s" in r]
    if timed:
        lines += ["", "The command, a fresh process each run (start-up, reading the CSV, writing the table and the "
                      "HTML report included; best of 3): `geoanon anonymize IN -o OUT -k 10 --lat lat --lon lon "
                      "--qi age,sex,race,marital-status --html-report R --jobs 2`, and the same with `--explore`.", "",
                  "| table | one release s | `--explore` s | ratio |", "|---|---:|---:|---:|"]
        lines += [f"| {name} | {r['command_one_s']:.2f} | {r['command_explore_s']:.2f} | "
                  f"{r['command_explore_s'] / r['command_one_s']:.1f}x |" for name, r in timed]
        ratios = [r["command_explore_s"] / r["command_one_s"] for _, r in timed]
        span = f"{min(ratios):.1f}" if f"{min(ratios):.1f}" == f"{max(ratios):.1f}" else \
            f"{min(ratios):.1f}-{max(ratios):.1f}"
        lines += ["", f"`--explore` with 8 settings: {span}x one release "
                      f"(target <= {SPEED_TARGET:.0f}x: {'met' if max(ratios) <= SPEED_TARGET else 'MISSED'})."]
    replace_section(path, "frontier", lines)


if __name__ == "__main__":
    main(__doc__, one_args=("TABLE", "K", "METHOD"), measure=measure, plan=PLAN, quick=QUICK, run=run_plan,
         write=write_results)
