"""The privacy models of geoanon.criteria beside pycanon's, on the same tables.

    pip install ".[bench]"
    python bench/bench_models.py          # a few minutes

Tables: Adult (``geoanon.datasets.adult()``, quasi-identifiers sex, race,
marital-status, workclass; sensitive occupation) raw and as
``geoanon.suppress(k=10, method="lattice")`` publishes it, and the seeded
synthetic table of bench_tables.py at 10^4 rows (sensitive diagnosis), raw and
released. pycanon 1.3.6 runs in its own virtual environment
(bench_tables.pycanon_python) through ``pycanon_worker.py``.

For each table: geoanon's figure (one ``geoanon.audit``, recursive (c, l) at
pycanon's l, the fewest distinct values in a class) and pycanon's, and whether
they agree. Where pycanon's definition differs from the paper's, the row also
gives the paper's figure put through pycanon's convention, computed here from
the table's class counts: entropy l truncated to an integer; recursive c as
floor(r_1 / (r_l + ... + r_m) + 1) with the counts sorted increasing (r_1 the
rarest); enhanced beta as min(basic beta, -ln of the rarest share in the
table). Times: geoanon's audit (every model at once) and the sum of pycanon's
five calls, on the table in memory.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_tables import load, pycanon_python, pycanon_versions, released, run_pycanon  # noqa: E402
from common import code_state, machine, replace_section, today  # noqa: E402

TABLES = [("adult", "occupation"), ("synthetic-10000", "diagnosis")]
TOLERANCE = 1e-9


def ours(df, qi, sensitive) -> dict:
    import geoanon as ga

    ga.audit(df.head(1000), qi, sensitive)                               # warm-up
    started = time.perf_counter()
    plain = ga.audit(df, qi, sensitive)
    at_l = ga.audit(df, qi, model=ga.Model(k=None, sensitive=sensitive, recursive=(1.0, plain.l_distinct)))
    seconds = time.perf_counter() - started
    return {"l_entropy": plain.l_entropy, "recursive": at_l.recursive, "beta": plain.beta,
            "beta_enhanced": plain.beta_enhanced, "delta": plain.delta, "l_distinct": plain.l_distinct,
            "seconds": seconds}


def pycanon_conventions(df, qi, sensitive, figures) -> dict:
    """The paper's figures in pycanon's conventions (see the module)."""
    counts = df.groupby([*qi, sensitive], dropna=False, observed=True).size()
    per_class = counts.groupby(level=list(range(len(qi))), dropna=False, observed=True)
    l = figures["l_distinct"]
    c = None
    if l > 1:
        c = max(math.floor(r[0] / r[l - 1:].sum() + 1) for r in (np.sort(g.to_numpy()) for _, g in per_class))
    q = df[sensitive].value_counts(normalize=True)
    return {"l_entropy": int(figures["l_entropy"]), "recursive": [c, l] if c is not None else [None, l],
            "beta_enhanced": min(figures["beta"], -math.log(q.min()))}


def measure(table: str, sensitive: str, version: str) -> dict:
    df, qi, grounds = load(table)
    if version != "raw":
        df = released(df, qi, int(version[1:]))
    mine = ours(df, qi, sensitive)
    theirs = run_pycanon(df, qi, {sensitive: grounds[sensitive]}, f"models-{table}-{version}", calls="models")
    got = {r["measure"]: r for r in theirs["results"]}
    return {"table": table, "version": version, "rows": len(df), "sensitive": sensitive, "ours": mine,
            "converted": pycanon_conventions(df, qi, sensitive, mine),
            "pycanon": {m: r["value"] for m, r in got.items()},
            "pycanon_seconds": sum(r["seconds"] for r in got.values()) if len(got) == 5 else None,
            "failed": theirs["failed"]}


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return abs(float(a) - float(b)) <= TOLERANCE * max(1.0, abs(float(b)))


def show(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, (list, tuple)):
        return "(" + ", ".join(show(x) for x in v) + ")"
    if isinstance(v, dict):
        return f"c {show(v['c'])} at l {v['l']}"
    return f"{v:,}" if isinstance(v, int) else f"{v:.6g}"


def write(rows: list, path: Path) -> None:
    lines = ["## Privacy models beside pycanon (`python bench/bench_models.py`)", "",
             f"Run on {today()}, {machine()}, geoanon at commit {code_state()}; {pycanon_versions()} in its own "
             "virtual environment. geoanon's figures follow the papers (`geoanon.criteria`); `in pycanon's "
             "convention` puts geoanon's counts through pycanon's definition where it differs (entropy l "
             "truncated; recursive c with the counts sorted increasing; enhanced beta as min(basic beta, "
             "-ln of the rarest share)).", "",
             "| table | rows | model | geoanon | in pycanon's convention | pycanon | agree |",
             "|---|---:|---|---:|---:|---:|---|"]
    agree, total = 0, 0
    for r in rows:
        name = f"{r['table']} {r['version']}"
        o, c, p = r["ours"], r["converted"], r["pycanon"]
        cells = [("entropy l", "l_entropy", o["l_entropy"], c["l_entropy"]),
                 ("recursive (c, l)", "recursive", o["recursive"], c["recursive"]),
                 ("basic beta", "beta", o["beta"], o["beta"]),
                 ("enhanced beta", "beta_enhanced", o["beta_enhanced"], c["beta_enhanced"]),
                 ("delta", "delta", o["delta"], o["delta"])]
        for model, key, mine, converted in cells:
            ok = key in p and same(converted, p[key])
            agree += ok
            total += 1
            lines.append(f"| {name} | {r['rows']:,} | {model} | {show(mine)} | {show(converted)} | "
                         f"{show(p[key]) if key in p else r['failed'] or 'missing'} | {'yes' if ok else 'NO'} |")
    lines += ["", "| table | geoanon audit (every model) | pycanon (five calls) |", "|---|---:|---:|"]
    for r in rows:
        theirs = "-" if r["pycanon_seconds"] is None else f"{r['pycanon_seconds']:.2f} s"
        lines.append(f"| {r['table']} {r['version']} | {r['ours']['seconds']:.3f} s | {theirs} |")
    lines += ["", f"Target (issue 26): entropy l, recursive (c, l), beta-likeness and delta-disclosure equal "
              f"pycanon's: {agree} of {total} figures agree {'(met)' if agree == total else '(MISSED)'}, five per table, "
              "in pycanon's conventions where its definitions differ from the papers'."]
    replace_section(path, "models", lines)


def run() -> list:
    pycanon_python()
    rows = []
    for table, sensitive in TABLES:
        for version in ("raw", "k10"):
            row = measure(table, sensitive, version)
            print(row, flush=True)
            rows.append(row)
    return rows


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(HERE / "RESULTS.md"))
    write(run(), Path(parser.parse_args().results))
