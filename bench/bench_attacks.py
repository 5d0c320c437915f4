"""An independent attacker: anonymeter's attacks on geoanon's releases and on the peers' releases of the same tables.

    pip install ".[bench]"
    python bench/bench_attacks.py              # about 6 minutes on 2 cores; --quick for a smoke run

anonymeter (Giomi et al., PoPETs 2023) measures three risks of a released
table, the Article 29 Working Party's: singling out (a query that the
release makes the attacker believe matches exactly one record, and that
does in the original rows), linkability (the release joins two halves of a
record, the location columns and the others, as the same person: both
halves' 10 nearest released records share one) and inference (the released
record nearest a target's quasi-identifiers gives away its sensitive
value). Each attack runs on the rows that were released and, the same way,
on control rows drawn from the same source that were not; the risk is what
the release gives away beyond what the population's patterns give anyone:
(attack success - control success) / (1 - control success).

Tables, each released from 3,000 rows drawn from its source (seed 0) and
attacked beside 3,000 further rows of the same source as the control
(anonymeter's singling out corrects a control of another size by a curve it
fits to random subsamples of the control, unseeded; equal sizes need none):

- ``airports``: UCI Adult's rows placed near real US airports (bench_anonymize.py's
  table, 30,162 rows); quasi-identifiers lat, lon, age, sex, race,
  marital-status; sensitive occupation (14 values);
- ``patients``: the shipped synthetic patients (``data/demo_patients.csv``,
  20,000 rows at ZIP centroids); quasi-identifiers lat, lon, cost_usd;
  sensitive diagnosis (8 values).

Releases: ``raw`` (the rows as they are: the attacks' sanity check);
``rounded`` (the location's 0.1-degree grid cell, about 11 km, the other
columns as they are); ``points-k10`` (``geoanon.generalize_points``, the
location alone at k = 10, the other columns as they are);
``geoanon-kK[-l2]`` (``geoanon.anonymize``'s default release of the location
and the other quasi-identifiers, k = 5 and 10, alone and with l = 2);
``anonypyx-kK`` (anonypyx's Mondrian: numbers as their class's range,
categories as value sets) and ``lighthouse-kK`` (Project Lighthouse's Core
Mondrian: numbers as their class's mean, categories as the value or ``*``,
a few records suppressed), each in its own virtual environment
(``mondrian_worker.py``).

anonymeter attacks records, not classes, so every release is turned into one
record per published row, placed inside what the row publishes (seed 0): a
point drawn uniformly inside its box (across the antimeridian where the box
wraps), a number drawn inside its interval (whole numbers for a column of
whole numbers; an open end reaches the least or greatest bound the release
publishes for the column), one of the values of its value set, for ``*`` one
of the values the release shows in the column (weighted by how often it
shows each), a published value (a raw cell, Project Lighthouse's mean) as it
is. A row published without a location gets a point inside the box of a
published row drawn at random (seeded). The published columns are read
generically: a ``{col}_min`` / ``{col}_max`` pair is an interval, any other
published quasi-identifier a value, a value set ("a|b") or ``*``.

anonymeter 1.1.0 runs in its own virtual environment
(``anonymeter_worker.py``): ``SinglingOutEvaluator`` univariate and
multivariate (3 columns, at most 100,000 candidate queries),
``LinkabilityEvaluator`` (aux: the location against the other
quasi-identifiers, 10 neighbours) and ``InferenceEvaluator`` (aux: every
quasi-identifier, secret: the sensitive column), 500 attacks each, seed 0
(the worker's docstring says how its randomness is fixed).

Beside them, on each release as published: ``geoanon.audit``'s prosecutor
risk (1 / the record's class size: the largest and the mean), and with the
whole source table as the population its journalist risk (1 / the population
rows its class's published cells hold) and marketer risk (the mean of
class rows / population rows over the records). The population in published
form: each published class's cells repeated once per source row they hold (a
source row inside two classes' cells counts in both); Project Lighthouse's
mean stands for its class's members' range, which is what its data holder
knows. What each release keeps: the median box diagonal per record (km; a
point 0, a record published without a box or suppressed counts as infinitely
wide) and the other quasi-identifiers' mean NCP (``geoanon.information_loss``;
a suppressed record loses everything).

Every measurement runs in a fresh process; the results replace the section
"attacks" of bench/RESULTS.md.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_anonymize import _km  # noqa: E402  (great-circle km between corners)
import common  # noqa: E402
from common import (VENVS, WORKER_LIMIT, code_state, machine, main, replace_section, run_measurements,  # noqa: E402
                    today, venv_python, versions)

LOCATION = ("lat", "lon")
TABLES = {
    "airports": {"qi": ["age", "sex", "race", "marital-status"], "text": ["sex", "race", "marital-status"],
                 "sensitive": "occupation"},
    "patients": {"qi": ["cost_usd"], "text": [], "sensitive": "diagnosis"},
}
ROWS = 3000               # released, and as many control rows
SEED = 0
ATTACKS = {"n_attacks": 500, "n_cols": 3, "n_neighbors": 10, "max_attempts": 100_000, "seed": SEED, "n_jobs": 2}
GRID = 0.1                # ``rounded``: the location's grid cell, degrees
RELEASES = ("raw", "rounded", "points-k10", "geoanon-k5", "geoanon-k5-l2", "geoanon-k10", "geoanon-k10-l2",
            "anonypyx-k5", "anonypyx-k10", "lighthouse-k5", "lighthouse-k10")
PLAN = [(t, ROWS, r) for t in TABLES for r in RELEASES]
QUICK = [("airports", 600, r) for r in ("raw", "geoanon-k10-l2", "anonypyx-k10", "lighthouse-k10")]
TIME_LIMIT = 1200
ATTACK_NAMES = {"singling_out_univariate": "singling out, univariate",
                "singling_out_multivariate": "singling out, multivariate",
                "linkability": "linkability", "inference": "inference"}


# ---------------------------------------------------------------- tables and releases

def source(name: str) -> pd.DataFrame:
    spec = TABLES[name]
    columns = [*LOCATION, *spec["qi"], spec["sensitive"]]
    if name == "airports":
        from bench_anonymize import airports_table

        return airports_table()[columns]
    from geoanon.datasets import data_path

    return pd.read_csv(data_path("demo_patients.csv"))[columns]


def samples(name: str, rows: int):
    """The source table, the rows released (with their number, ``row``) and as many control rows (seed 0)."""
    df = source(name)
    order = np.random.default_rng(SEED).permutation(len(df))
    released = df.iloc[order[:rows]].reset_index(drop=True)
    released.insert(0, "row", np.arange(rows))
    return df, released, df.iloc[order[rows:2 * rows]].reset_index(drop=True)


def publish(name: str, how: str, released: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The release of ``released`` by ``how``, one row per published record with its ``row`` (in row
    order; suppressed records absent), and its cells as its data holder reads them (the same table, but
    Project Lighthouse's means as their class's members' range)."""
    import geoanon as ga

    spec = TABLES[name]
    kind, *levels = how.split("-")
    k = int(levels[0][1:]) if levels else None
    l = int(levels[1][1:]) if len(levels) > 1 else None
    others = [*spec["qi"], spec["sensitive"], "row"]
    if kind == "raw":
        table = released.copy()
    elif kind == "rounded":
        table = released.drop(columns=list(LOCATION))
        for c in LOCATION:
            low = np.floor(released[c].to_numpy() / GRID) * GRID
            table[f"{c}_min"], table[f"{c}_max"] = np.round(low, 6), np.round(low + GRID, 6)
    elif kind == "points":
        table = ga.generalize_points(released, k, lat=LOCATION[0], lon=LOCATION[1], keep=others).table
    elif kind == "geoanon":
        columns = ga.Columns(location=LOCATION, qi=spec["qi"], sensitive=spec["sensitive"], keep=["row"])
        table = ga.anonymize(released, columns, k=k, l=l).table
    else:
        table = peer_release(kind, released, spec, k)
    table = table.sort_values("row").reset_index(drop=True)
    return table, (members_ranges(table, released, spec) if kind == "lighthouse" else table)


def peer_release(peer: str, released: pd.DataFrame, spec: dict, k: int) -> pd.DataFrame:
    return common.peer_release(peer, released, [*LOCATION, *spec["qi"]], spec["text"], k)


def members_ranges(table: pd.DataFrame, released: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """Project Lighthouse's release with each number published as a class mean replaced by its class's
    members' range (``{col}_min``, ``{col}_max``)."""
    qi = published_qi(table, spec)
    numbers = [c for c in [*LOCATION, *spec["qi"]] if c not in spec["text"]]
    members = released.set_index("row").loc[table["row"], numbers].reset_index(drop=True)
    classes = table.groupby(qi, sort=False, dropna=False).ngroup().to_numpy()
    out = table.drop(columns=numbers)
    for c in numbers:
        grouped = members[c].groupby(classes)
        out[f"{c}_min"], out[f"{c}_max"] = grouped.transform("min"), grouped.transform("max")
    return out


def published_qi(table: pd.DataFrame, spec: dict) -> list[str]:
    """The published quasi-identifier columns: all but the sensitive column and ``row``."""
    return [c for c in table.columns if c not in (spec["sensitive"], "row")]


# ---------------------------------------------------------------- records placed inside the cells

def records(table: pd.DataFrame, released: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """One record per published row, in the source's columns, placed inside what the row publishes (see
    the module), in a random order: anonymeter's inference baseline pairs its random guesses with the
    targets by row label, so records in the released rows' order would hand it their own values."""
    rng = np.random.default_rng(SEED)
    out = pd.DataFrame(index=table.index)
    lat, lon = LOCATION
    if f"{lat}_min" in table:
        box = table[[f"{lat}_min", f"{lat}_max", f"{lon}_min", f"{lon}_max"]].to_numpy(float, copy=True)
        without = np.isnan(box).any(axis=1)
        box[without] = box[rng.choice(np.flatnonzero(~without), int(without.sum()))]
        width = (box[:, 3] - box[:, 2]) % 360          # a box across the antimeridian has lon_min > lon_max
        out[lat] = rng.uniform(box[:, 0], box[:, 1])
        out[lon] = (box[:, 2] + rng.uniform(0, 1, len(box)) * width + 180) % 360 - 180
    else:
        out[lat], out[lon] = table[lat], table[lon]
    for c in spec["qi"]:
        if f"{c}_min" in table:
            out[c] = _inside(table[f"{c}_min"], table[f"{c}_max"], pd.api.types.is_integer_dtype(released[c]), rng)
        elif c in spec["text"]:
            out[c] = _value(table[c].astype(str), rng)
        else:
            out[c] = table[c]
    out[spec["sensitive"]] = table[spec["sensitive"]]
    return out.iloc[rng.permutation(len(out))].reset_index(drop=True)


def _inside(low: pd.Series, high: pd.Series, whole: bool, rng) -> np.ndarray:
    a, b = low.to_numpy(float), high.to_numpy(float)
    ends = np.concatenate([a, b])
    ends = ends[np.isfinite(ends)]
    a = np.where(np.isfinite(a), a, ends.min())             # an open end (empty or infinite): the release's
    b = np.where(np.isfinite(b), b, ends.max())             # least or greatest finite bound
    if not whole:
        return rng.uniform(a, b)
    a = np.ceil(a)
    b = np.maximum(np.floor(b), a)                          # no whole number inside: the one above its lower end
    return np.floor(rng.uniform(a, b + 1)).astype(int)


def _value(cells: pd.Series, rng) -> np.ndarray:
    shown = cells[cells != "*"].str.split("|").explode().value_counts()
    out = cells.to_numpy(dtype=object).copy()
    for cell in np.unique(out):
        at = np.flatnonzero(cells.to_numpy() == cell)
        if cell == "*":
            out[at] = rng.choice(shown.index.to_numpy(dtype=object), at.size, p=(shown / shown.sum()).to_numpy())
        elif "|" in cell:
            out[at] = rng.choice(np.array(cell.split("|"), dtype=object), at.size)
    return out


# ---------------------------------------------------------------- the audit's risks and what a release keeps

def risks(table: pd.DataFrame, cells: pd.DataFrame, population: pd.DataFrame, spec: dict) -> dict:
    """``geoanon.audit``'s prosecutor, marketer and journalist risk, the population in published form."""
    import geoanon as ga

    qi = published_qi(table, spec)
    classes = table.groupby(qi, sort=False, dropna=False).ngroup().to_numpy()
    first = np.unique(classes, return_index=True)[1]
    values = {c: population[c].astype(str).to_numpy() if c in spec["text"] else population[c].to_numpy(float)
              for c in [*LOCATION, *spec["qi"]]}
    held = np.array([_held(cells.iloc[i], values, len(population)) for i in first])
    published = table[qi].iloc[first].reset_index(drop=True)
    report = ga.audit(table[qi], qi, population=published.loc[published.index.repeat(held)])
    return {"k": report["k"], "classes": report["classes"], **report["risk"]}


def _held(cell: pd.Series, values: dict, n: int) -> int:
    """How many population rows (``values``: column -> array) lie inside one published row's cells."""
    inside = np.ones(n, dtype=bool)
    for c, v in values.items():
        if f"{c}_min" in cell.index:
            a, b = cell[f"{c}_min"], cell[f"{c}_max"]
            if pd.isna(a) and pd.isna(b):
                continue
            a, b = (-np.inf if pd.isna(a) else float(a)), (np.inf if pd.isna(b) else float(b))
            inside &= ((v >= a) | (v <= b)) if c == LOCATION[1] and a > b else ((v >= a) & (v <= b))
        elif v.dtype == object:
            if cell[c] != "*":
                inside &= np.isin(v, str(cell[c]).split("|"))
        else:
            inside &= v == float(cell[c])
    return int(inside.sum())


def utility(cells: pd.DataFrame, released: pd.DataFrame, spec: dict) -> dict:
    """The median and p90 box diagonal per released record (km) and the other quasi-identifiers' mean NCP."""
    import geoanon as ga
    from geoanon.ncp import infer_treatments

    n, lat, lon = len(released), *LOCATION
    km = np.full(n, np.inf)
    if f"{lat}_min" in cells:
        d = _km(*cells[[f"{lat}_min", f"{lon}_min", f"{lat}_max", f"{lon}_max"]].to_numpy(float).T)
        km[cells["row"]] = np.where(np.isnan(d), np.inf, d)
    else:
        km[cells["row"]] = 0.0
    original = released.set_index("row").loc[cells["row"]].reset_index(drop=True)
    columns = ga.information_loss(original, cells, infer_treatments(original, cells, spec["qi"]))["columns"]
    kept = len(cells) / n                                       # a suppressed record loses everything
    return {"median_km": float(np.median(km)), "p90_km": float(np.quantile(km, 0.9)),
            "other_ncp": float(np.mean([v * kept + (1 - kept) for v in columns.values()])),
            "suppressed": n - len(cells), "without_location": int(np.isinf(km).sum()) - (n - len(cells))}


def attack(released: pd.DataFrame, control: pd.DataFrame, synthetic: pd.DataFrame, spec: dict, rows: int) -> dict:
    """anonymeter's attacks (``anonymeter_worker.py`` in its own virtual environment)."""
    qi = [*LOCATION, *spec["qi"]]
    config = {**ATTACKS, "n_attacks": min(ATTACKS["n_attacks"], rows // 2), "aux": [list(LOCATION), spec["qi"]],
              "qi": qi, "secret": spec["sensitive"]}
    with tempfile.TemporaryDirectory() as tmp:
        for name, frame in (("ori", released), ("control", control), ("syn", synthetic)):
            frame[[*qi, spec["sensitive"]]].to_csv(Path(tmp) / f"{name}.csv", index=False)
        (Path(tmp) / "spec.json").write_text(json.dumps(config))
        result = subprocess.run([venv_python("anonymeter"), "-W", "ignore", HERE / "anonymeter_worker.py", tmp,
                                 Path(tmp) / "spec.json", Path(tmp) / "out.json"], capture_output=True, text=True,
                                timeout=WORKER_LIMIT)
        if result.returncode:
            raise RuntimeError(f"anonymeter: {result.stderr.strip().splitlines()[-1]}")
        return json.loads((Path(tmp) / "out.json").read_text())


def measure(name: str, rows, how: str) -> dict:
    rows, spec = int(rows), TABLES[name]
    population, released, control = samples(name, rows)
    table, cells = publish(name, how, released)
    synthetic = records(table, released, spec)
    return {"table": name, "rows": rows, "release": how,
            "risk": risks(table, cells, population, spec), "utility": utility(cells, released, spec),
            "attacks": attack(released, control, synthetic, spec, rows), "population": len(population)}


# ---------------------------------------------------------------- running and reporting

def run_plan(plan, resume: bool = False) -> list[dict]:
    for name in VENVS:
        venv_python(name)
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "attacks_rows.jsonl", resume=resume,
                            time_limit=TIME_LIMIT, describe=_line)


def _risk(a: dict) -> str:
    return f"{a['risk']:.3f} ({a['ci'][0]:.2f}-{a['ci'][1]:.2f})"


def _line(r) -> str:
    if "failed" in r:
        return f"{' '.join(r['job'])}: FAILED {r['failed']}"
    u, p = r["utility"], r["risk"]
    return (f"{r['table']:>8} {r['release']:>15}: k {p['k']:>3}, median {u['median_km']:8.1f} km, other NCP "
            f"{u['other_ncp']:.3f}, prosecutor {p['prosecutor']['max']:.3f}, journalist {p['journalist']['max']:.3f}; "
            + ", ".join(f"{n.split('_')[-1][:5]} {_risk(a)}" for n, a in r["attacks"].items()))


def _paragraphs(texts: list) -> list[str]:
    """The module's paragraphs as lines of RESULTS.md (a list's items each on its own line)."""
    out = []
    for text in texts:
        items = [" ".join(item.split()) for item in ("\n" + text).split("\n- ")]
        out += [items[0]] if items[0] else []
        out += [f"- {item}" for item in items[1:]] + [""]
    return out


def _rate(rate: list) -> str:
    return f"{rate[0]:.3f} ± {rate[1]:.3f}"


def write_results(rows, path: Path) -> None:
    ok = [r for r in rows if "failed" not in r]
    lines = ["## An independent attacker: anonymeter (`python bench/bench_attacks.py`)", "",
             f"Run on {today()}, {machine()}, geoanon at commit {code_state()}; {versions(*VENVS)}, each in its own "
             "virtual environment.", "", *_paragraphs(__doc__.split("\n\n")[2:9])]
    for name in TABLES:
        mine = [r for r in ok if r["table"] == name]
        if not mine:
            continue
        first = mine[0]
        lines += [f"### {name} ({first['rows']:,} rows released, {first['rows']:,} control, population "
                  f"{first['population']:,})", "",
                  "| release | classes | smallest | median km | p90 km | other NCP | prosecutor max / mean | marketer | "
                  "journalist max / mean | " + " | ".join(ATTACK_NAMES.values()) + " |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(ATTACK_NAMES)]
        for r in mine:
            u, p = r["utility"], r["risk"]
            lines.append(f"| {r['release']} | {p['classes']:,} | {p['k']} | {u['median_km']:,.1f} | {u['p90_km']:,.1f} | "
                         f"{u['other_ncp']:.3f} | {p['prosecutor']['max']:.3f} / {p['prosecutor']['mean']:.3f} | "
                         f"{p['marketer']:.3f} | {p['journalist']['max']:.3f} / {p['journalist']['mean']:.3f} | "
                         + " | ".join(_risk(r["attacks"][a]) for a in ATTACK_NAMES) + " |")
        lines += ["", "The attacks' success rates (attack on the released rows / control rows / random-guess "
                      "baseline, each ± its 95% error):", "",
                  "| release | " + " | ".join(ATTACK_NAMES.values()) + " |", "|---|" + "---|" * len(ATTACK_NAMES)]
        for r in mine:
            lines.append(f"| {r['release']} | " + " | ".join(
                f"{_rate(a['attack'])} / {_rate(a['control'])} / {_rate(a['baseline'])}"
                for a in (r["attacks"][n] for n in ATTACK_NAMES)) + " |")
        notes = [f"{r['release']} " + " and ".join(f"{r['utility'][key]} {what}" for key, what in (
            ("suppressed", "suppressed"), ("without_location", "published without a location")) if r["utility"][key])
            for r in mine if r["utility"]["suppressed"] or r["utility"]["without_location"]]
        lines += ["", "Records published without a box: " + ("; ".join(notes) or "none") + ".", ""]
    failed = [r for r in rows if "failed" in r]
    if failed:
        lines += ["Failed: " + "; ".join(f"{' '.join(r['job'])}: {r['failed']}" for r in failed) + ".", ""]
    lines += ["### Reading the attack figures", "", READING]
    replace_section(path, "attacks", lines)


READING = (
    "Each anonymeter figure is a risk with its 95% confidence interval: (attack success on the released rows - "
    "success on the control rows) / (1 - success on the control rows), 0 when the release tells the attacker "
    "nothing about the released rows that it does not tell about anyone else of the same population, 1 when every "
    "attack succeeds on the released rows and none beyond chance on the control rows; with 500 attacks, "
    "differences of a few hundredths are noise. Singling out counts, out of the 500 asked for, the queries built "
    "from the release (univariate: a rare value, a least or greatest number; multivariate: three columns bounded "
    "by a released record's values) that match exactly one of the released rows; records drawn inside cells "
    "carry values no original row has, so few of their queries single anyone out. Linkability counts the targets "
    "whose location and whose other quasi-identifiers have a released record in common among their 10 nearest "
    "(Gower distance; ties among equally near records keep even a raw table below 1). Inference counts the "
    "targets whose sensitive value is that of the released record nearest them. The rates show why: the control "
    "success is what the population's patterns give (an inference rate of 0.13 on the controls is how well the "
    "quasi-identifiers predict the sensitive value anyway), the random-guess baseline what chance gives; an attack "
    "no better than its control is no risk of this release, whatever its rate. anonymeter 1.1.0 pairs its random "
    "inference guesses with the targets by row label (pandas' `reindex_like`), so only about a sixth of the "
    "targets get a guess and that baseline is about a sixth of chance; no risk uses it. The audit's figures are "
    "what the published classes guarantee: prosecutor risk 1 / the class size of a record known to be in the "
    "release (at most 1/k), journalist risk 1 / the population rows that the record's class holds (an attacker "
    "who does not know who is in the release), marketer risk the expected share of records re-identified by "
    "matching everyone. anonymeter's risks measure one attacker who reads the release as records; the audit's "
    "bound what any attacker matching on the published cells can do.")


if __name__ == "__main__":
    main(__doc__, one_args=("TABLE", "ROWS", "RELEASE"), measure=measure, plan=PLAN, quick=QUICK, run=run_plan,
         write=write_results)
