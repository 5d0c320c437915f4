"""Audit and suppression of table quasi-identifiers side by side with pycanon and anonypy.

    pip install ".[bench]"
    python bench/bench_tables.py             # about 10 minutes on 2 cores; --quick for a smoke run

Tables. Adult (30,162 rows, ``geoanon.datasets.adult()``, age as a number):
quasi-identifiers sex, race, marital-status, workclass;
sensitive occupation (text, equal ground) and age (numeric, ordered ground).
Synthetic, seeded, 10^5 and 10^6 rows: quasi-identifiers sex, edu, region, job
with 2, 8, 16 and 40 Zipf-skewed values; sensitive diagnosis (12 values, 30% of
rows tied to edu and region) and income (57 even values, rising with edu).

Audit, every table raw and as released by ``geoanon.suppress(k=10, method="lattice")`` (its
quasi-identifier columns: the published view): ``geoanon.audit`` beside
pycanon's ``k_anonymity``, ``l_diversity`` (distinct l: our ``l_distinct``) and
``t_closeness`` (EMD over the sorted distinct values for a numeric column, equal
ground for text: our ``ground="ordered"`` / ``"equal"``). pycanon pins older
numpy and pandas, so it runs in its own virtual environment
(bench/out/venv-pycanon, made on first run) through ``pycanon_worker.py``, the
table passed as CSV, with a time limit. Times are wall times of the calls on a
table already in memory, after one warm-up call on 1,000 rows: ours one
``audit`` call (k, both l and t together), pycanon's the sum of its three calls
(each groups the table again); reading the CSV and starting its interpreter
are not included.

Suppression (cost = cells published as ``*``, Liang and Yuan):
``geoanon.suppress`` (the default lattice heuristic; ``method="approx"``,
Theorem 10, for k alone), anonypy's Mondrian (``Mondrian(df, qi,
sensitive).partition(k, l, p)``, its partition-level call, timed alone on
category columns; each group published under the suppression model costs its
size times the columns on which its rows differ) and the all-suppressed table
(n x m stars), on Adult (k = 5 and 10, alone and with distinct l, Liang-Yuan
l = 2, 3 and t = 0.2, 0.3; sensitive occupation) and on the 10^6-row table (the
same with k = 5, and k = 10 alone; sensitive diagnosis). Every grouping is
audited with ``geoanon.audit`` (equal ground): does it meet the level it
claims? anonypy's l is distinct l; its t-closeness test is not the EMD (see the
notes written with the results).

The time limit (issue 10): ``geoanon.suppress(k=10)`` on the 10^6-row table
with the default ``method="auto"`` (which picks Theorem 9's program there)
and ``time_limit`` 5, 20 and 60 s, beside ``method="lattice"``: wall time of
the call, and peak memory of the measuring process (table in memory) and of
the HiGHS child process (``resource.getrusage``). Target: each within T plus
the lattice run's time. ``python bench/bench_tables.py --time-limit`` runs
this part alone and replaces only its section.

Every measurement runs in a fresh process with a time limit. The summary
replaces the tables section of bench/RESULTS.md.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, peak_mb, replace_section, run_measurements, today  # noqa: E402

ADULT_QI = ["sex", "race", "marital-status", "workclass"]
ADULT_SENSITIVE = {"occupation": "equal", "age": "ordered"}
SYNTHETIC_QI = {"sex": 2, "edu": 8, "region": 16, "job": 40}
SYNTHETIC_SENSITIVE = {"diagnosis": "equal", "income": "ordered"}
SEED = 5

OUT = HERE / "out"
PYCANON = "pycanon==1.3.6"
PYCANON_VENV = OUT / "venv-pycanon"
PYCANON_LIMIT = 300          # seconds for pycanon's three calls on one table (both sensitive columns)
JOB_LIMIT = 240              # seconds for one suppression measurement (process start to result)
T_TOLERANCE = 1e-9

SENSITIVE_MODELS = ["ld2", "l2", "ld3", "l3", "t0.2", "t0.3"]       # ld: distinct l; l: Liang-Yuan


def parse_model(model: str) -> dict:
    """"k5-ld2" -> {"k": 5, "l_distinct": 2}; "l" is Liang-Yuan l, "t" t-closeness."""
    levels = {}
    for part in model.split("-"):
        for prefix, name, kind in (("ld", "l_distinct", int), ("k", "k", int), ("l", "l", float), ("t", "t", float)):
            if part.startswith(prefix):
                levels[name] = kind(part[len(prefix):])
                break
    return levels


def _grid(table, ks):
    """Suppression jobs on one table: every model for each k, the methods that take it."""
    jobs = []
    for k in ks:
        for model in [f"k{k}"] + [f"k{k}-{m}" for m in SENSITIVE_MODELS]:
            jobs.append(("geoanon", table, model))
            if "-" not in model:
                jobs.append(("geoanon_approx", table, model))
            if "l" not in parse_model(model):       # anonypy has distinct l only
                jobs.append(("anonypy", table, model))
    return jobs + [("all_stars", table, "any")]


PLAN = {
    "name": "tables",
    "audit": [("pycanon", table, version) for table in ("adult", "synthetic-100000", "synthetic-1000000")
              for version in ("raw", "k10")],
    "suppress": _grid("adult", (5, 10)) + [job for job in _grid("synthetic-1000000", (5, 10))
                                           if job[2] in ("k10", "any") or job[2].startswith("k5")],
}
QUICK = {
    "name": "tables_quick",
    "audit": [("pycanon", "adult", "raw"), ("pycanon", "synthetic-10000", "k10")],
    "suppress": ([j for j in _grid("synthetic-10000", (5,)) if j[2] in ("k5", "k5-ld2", "k5-t0.2", "any")]
                 + [("geoanon", "adult", "k10"), ("anonypy", "adult", "k10")]),
}


# ---------------------------------------------------------------- tables

def synthetic(n: int, seed: int = SEED) -> pd.DataFrame:
    """The seeded synthetic table (see the module docstring)."""
    rng = np.random.default_rng(seed)
    cols, codes = {}, {}
    for name, m in SYNTHETIC_QI.items():
        w = 1.0 / np.arange(1, m + 1) ** 1.1
        codes[name] = rng.choice(m, size=n, p=w / w.sum())
        cols[name] = np.array([f"{name[0]}{i:02d}" for i in range(m)], dtype=object)[codes[name]]
    w = 1.0 / np.arange(1, 13) ** 0.8
    diagnosis = rng.choice(12, size=n, p=w / w.sum())
    diagnosis = np.where(rng.random(n) < 0.3, (codes["region"] + codes["edu"]) % 12, diagnosis)
    cols["diagnosis"] = np.array([f"d{i:02d}" for i in range(12)], dtype=object)[diagnosis]
    income = np.clip(np.round(rng.lognormal(2.7 + 0.06 * codes["edu"], 0.45, n)), 4, 60).astype(np.int64)
    cols["income"] = 2 * income
    return pd.DataFrame(cols)


def load(table: str):
    """(DataFrame, quasi-identifiers, {sensitive column: ground})."""
    if table == "adult":
        from geoanon.datasets import adult

        return adult().astype({"age": "int64"}), list(ADULT_QI), dict(ADULT_SENSITIVE)
    return synthetic(int(table.split("-")[1])), list(SYNTHETIC_QI), dict(SYNTHETIC_SENSITIVE)


def released(df: pd.DataFrame, qi, k: int) -> pd.DataFrame:
    """The table as geoanon.suppress(k) publishes it, without its class_id
    column; the other columns are kept as they are (the strict default
    refuses columns without a role)."""
    import geoanon as ga

    others = [c for c in df.columns if c not in qi]
    return ga.suppress(df, qi, k=k, method="lattice", keep=others).table.drop(columns="class_id")


# ---------------------------------------------------------------- audit against pycanon

def pycanon_python() -> Path:
    """pycanon's own virtual environment, made (python -m venv; pip install) on first use."""
    python = PYCANON_VENV / "bin" / "python"
    if python.exists() and subprocess.run([python, "-c", "import pycanon"], capture_output=True).returncode == 0:
        return python
    print(f"creating {PYCANON_VENV} and installing {PYCANON} (once)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(PYCANON_VENV)], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", PYCANON], check=True)
    return python


def pycanon_versions() -> str:
    code = ("from importlib.metadata import version as v; "
            "print(f\"pycanon {v('pycanon')} (pandas {v('pandas')}, numpy {v('numpy')})\")")
    result = subprocess.run([pycanon_python(), "-c", code], capture_output=True, text=True)
    return result.stdout.strip() or "pycanon (version unknown)"


def run_pycanon(df: pd.DataFrame, qi, sensitive: dict, name: str, calls: str = "levels") -> dict:
    """pycanon's k, l and t per sensitive column, or with ``calls="models"``
    its entropy l, recursive (c, l), both betas and delta (whatever it
    finished within the limit)."""
    work = OUT / "tables"
    work.mkdir(parents=True, exist_ok=True)
    csv, spec, out = (work / f"{name}.{ext}" for ext in ("csv", "json", "jsonl"))
    df[qi + list(sensitive)].to_csv(csv, index=False)
    types = {s: "numeric" if ground == "ordered" else "string" for s, ground in sensitive.items()}
    spec.write_text(json.dumps({"qi": qi, "sensitive": list(sensitive), "types": types, "calls": calls}))
    out.unlink(missing_ok=True)
    failed = None
    started = time.perf_counter()
    try:
        result = subprocess.run([pycanon_python(), HERE / "pycanon_worker.py", csv, spec, out],
                                capture_output=True, text=True, timeout=PYCANON_LIMIT)
        if result.returncode:
            lines = result.stderr.strip().splitlines()
            failed = lines[-1] if lines else f"exit code {result.returncode}"
    except subprocess.TimeoutExpired:
        failed = f"no result within {PYCANON_LIMIT} s"
    wall = time.perf_counter() - started
    results = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    csv.unlink()
    return {"results": results, "failed": failed, "wall": wall}


def measure_audit(table: str, version: str) -> dict:
    import geoanon as ga

    df, qi, sensitive = load(table)
    if version != "raw":
        df = released(df, qi, int(version[1:]))
    row = {"table": table, "version": version, "rows": len(df), "classes": ga.audit(df, qi)["classes"],
           "ours": {}}
    for s, ground in sensitive.items():
        ga.audit(df.head(1000), qi, s, ground=ground)                      # warm-up
        started = time.perf_counter()
        report = ga.audit(df, qi, s, ground=ground)
        seconds = time.perf_counter() - started
        row["ours"][s] = {"ground": ground, "seconds": seconds,
                          **{m: report[m] for m in ("k", "l", "l_distinct", "t")}}
    row["pycanon"] = run_pycanon(df, qi, sensitive, f"{table}-{version}")
    return row


# ---------------------------------------------------------------- suppression

def describe_model(model: str) -> str:
    if model == "any":
        return "any"
    return ", ".join(f"{name}={value:g}" for name, value in parse_model(model).items())


def publish(df: pd.DataFrame, qi, sensitive: str, labels: np.ndarray):
    """A grouping published under the suppression model: (stars, table with class_id)."""
    codes = pd.DataFrame({c: pd.factorize(df[c], use_na_sentinel=False)[0] for c in qi})
    differs = (codes.groupby(labels).nunique() > 1).to_numpy()         # groups x columns, groups 0..G-1
    sizes = np.bincount(labels)
    table = df[qi + [sensitive]].copy()
    for j, col in enumerate(qi):
        table[col] = df[col].astype(object).where(~differs[labels, j], "*")
    table["class_id"] = labels
    return int((sizes[:, None] * differs).sum()), table


def anonypy_closeness(labels: np.ndarray, values: pd.Series) -> float:
    """anonypy's t-closeness measure of a grouping: the largest |share in the
    group - share in the table| over the values present in the group."""
    codes, _ = pd.factorize(values)
    q = np.bincount(codes) / codes.size
    pairs, counts = np.unique(labels.astype(np.int64) * (q.size + 1) + codes, return_counts=True)
    group, value = pairs // (q.size + 1), pairs % (q.size + 1)
    return float(np.abs(counts / np.bincount(labels)[group] - q[value]).max())


def group_labels(n: int, partitions) -> np.ndarray:
    """Row labels from anonypy's list of index arrays (each row in exactly one)."""
    labels = np.full(n, -1, dtype=np.int64)
    for i, part in enumerate(partitions):
        labels[np.asarray(part)] = i
    if (labels < 0).any() or sum(len(p) for p in partitions) != n:
        raise AssertionError("anonypy's partitions do not cover every row exactly once")
    return labels


def measure_suppress(tool: str, table: str, model: str) -> dict:
    import geoanon as ga

    df, qi, sensitive = load(table)
    s = next(iter(sensitive))                           # the text sensitive column, equal ground
    levels = parse_model(model)
    row = {"tool": tool, "table": table, "model": model, "rows": len(df), "m": len(qi), "seconds": None}
    if tool.startswith("geoanon"):
        extra = {"sensitive": s, "ground": "equal"} if set(levels) - {"k"} else {}
        method = "approx" if tool == "geoanon_approx" else "lattice"
        suppress = ga.suppress                              # imported before the clock starts
        started = time.perf_counter()
        release = suppress(df, qi, method=method, **levels, **extra,
                           keep=[c for c in df.columns if c not in qi and c != extra.get("sensitive")])
        row["seconds"] = time.perf_counter() - started
        labels = release.in_input_order()["class_id"].to_numpy()   # rows as in df
        row.update(reported_cost=release.report["cost"], lower_bound=release.report["lower_bound"])
    elif tool == "anonypy":
        import anonypy

        frame = df[qi + [s]].copy()
        for col in qi:
            frame[col] = frame[col].astype("category")
        mondrian = anonypy.Mondrian(frame, qi, s)
        started = time.perf_counter()
        partitions = mondrian.partition(levels["k"], levels.get("l_distinct", 0), levels.get("t", 0.0))
        row["seconds"] = time.perf_counter() - started
        labels = group_labels(len(df), partitions)
        row["own_t"] = anonypy_closeness(labels, df[s])
    else:                                               # all_stars: one class, every cell suppressed
        labels = np.zeros(len(df), dtype=np.int64)
        levels = {}
    row["peak_mb"] = peak_mb()                         # the table, its generation and the call
    row["cost"], published = publish(df, qi, s, labels)
    report = ga.audit(published, qi + ["class_id"], s, ground="equal", **levels)
    row.update({name: report[name] for name in ("classes", "k", "l", "l_distinct", "t", "ok")})
    row["violations"] = {name: v["classes"] for name, v in report["violations"].items() if v["classes"]}
    return row


def measure(tool: str, table: str, model: str) -> dict:
    """One measurement, in this process."""
    if tool == "pycanon":
        return measure_audit(table, model)
    if tool == "limit":
        return measure_limit(table, model)
    return measure_suppress(tool, table, model)


# ---------------------------------------------------------------- the time limit (issue 10)

LIMITS = (5, 20, 60)
LIMIT_JOBS = [("limit", "synthetic-1000000", "lattice")] + [("limit", "synthetic-1000000", f"auto-T{t}")
                                                            for t in LIMITS]
LIMIT_JOB_SECONDS = 240


def measure_limit(table: str, run: str) -> dict:
    """suppress(k=10) with method="lattice", or "auto" under time_limit T ("auto-T5")."""
    import resource

    import geoanon as ga

    df, qi, _ = load(table)
    method, limit = ("lattice", 60.0) if run == "lattice" else ("auto", float(run.split("-T")[1]))
    mib = 1024.0                                           # ru_maxrss is in KiB on Linux
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / mib
    suppress = ga.suppress                                 # imported before the clock starts
    started = time.perf_counter()
    release = suppress(df, qi, k=10, method=method, time_limit=limit, keep=[c for c in df.columns if c not in qi])
    seconds = time.perf_counter() - started
    r = release.report
    return {"table": table, "run": run, "rows": len(df), "limit": limit, "seconds": seconds,
            "memory_before": before, "memory": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / mib,
            "child_memory": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / mib,
            "cost": r["cost"], "lower_bound": r["lower_bound"], "optimal": r["optimal"], "solver": r["solver"],
            "method": r["method"], "program": r.get("program"), "warnings": r["warnings"],
            "costs_tried": r["costs_tried"], "load": os.getloadavg()[0]}


def run_limit(resume: bool = False) -> list:
    return run_measurements(__file__, LIMIT_JOBS, rows_file=OUT / "tables_limit_rows.jsonl", resume=resume,
                            time_limit=LIMIT_JOB_SECONDS, describe=_limit_line)


def _limit_line(r) -> str:
    if "failed" in r:
        return f"{' '.join(r['job'][1:]):>30}  FAILED: {r['failed'][:100]}"
    return (f"{r['table']:>18} {r['run']:>8} {_seconds(r['seconds']):>10}  memory {r['memory']:,.0f} MiB"
            f" (child {r['child_memory']:,.0f} MiB)  stars {r['cost']:,} (kept {r['method']})")


def _program_note(r) -> str:
    program = r.get("program") or {}
    if "skipped" in program:
        return f"skipped: {program['skipped']}"
    if program:
        return (f"HiGHS {program['status']}, {program['seconds']:.1f} s; {program['variables']:,} variables, "
                f"{program['nonzeros']:,} nonzeros")
    return ""


def write_limit(rows, path: Path) -> None:
    ok = [r for r in rows if "failed" not in r]
    lattice = next((r for r in ok if r["run"] == "lattice"), None)
    lines = [
        "## Tables: the time limit (`python bench/bench_tables.py --time-limit`)",
        "",
        f"Run on {today()}, {machine()}; code measured: {code_state()}. `geoanon.suppress(df, qi, k=10)` on the "
        "synthetic 1,000,000-row table (4 quasi-identifiers), table in memory, each run in a fresh process. "
        "Memory: peak resident set of the measuring process (the table and its generation take the first "
        f"{lattice['memory_before']:,.0f} MiB) and of the HiGHS child process. The machine was shared: 1-minute "
        f"load average up to {max(r.get('load', 0) for r in ok):.1f} at the end of a run." if lattice else "",
        "",
        "| method | time_limit | wall time | peak memory (process) | peak memory (HiGHS child) | stars | "
        "lower bound | kept | program |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        if "failed" in r:
            lines.append(f"| {r['job'][2]} | | failed: {r['failed']} | | | | | | |")
            continue
        method = "lattice" if r["run"] == "lattice" else "auto"
        limit = "" if method == "lattice" else f"{r['limit']:.0f} s"
        child = f"{r['child_memory']:,.0f} MiB" if r["child_memory"] else ""
        lines.append(f"| {method} | {limit} | {_seconds(r['seconds'])} | {r['memory']:,.0f} MiB | {child} | "
                     f"{r['cost']:,} | {r['lower_bound']:,} | {r['method']} | {_program_note(r)} |")
    lines += ["", "Target (issue 10):", ""]
    for r in ok:
        if r["run"] == "lattice" or lattice is None:
            continue
        bound = r["limit"] + lattice["seconds"]
        lines.append(f"- suppress, time_limit {r['limit']:.0f} s: {r['seconds']:.2f} s wall, target <= "
                     f"{r['limit']:.0f} + {lattice['seconds']:.2f} (lattice) = {bound:.2f} s: "
                     f"{'met' if r['seconds'] <= bound else 'MISSED'}")
    if lattice is None or len(ok) < len(rows):
        lines.append("- some runs failed: MISSED")
    lines += ["", *LIMIT_NOTES]
    outside = [r["seconds"] - r["program"]["seconds"] for r in ok if "seconds" in (r.get("program") or {})]
    if outside and lattice:
        lines.append(f"- Outside HiGHS each auto run spent {min(outside):.1f}-{max(outside):.1f} s: the heuristics, "
                     f"building the program and the audit of the release; the lattice run, which also audits, "
                     f"took {lattice['seconds']:.1f} s in all.")
    replace_section(path, "tables-time-limit", lines)


LIMIT_NOTES = [
    "Notes:",
    "",
    "- `time_limit` counts from the start of the call: the lattice heuristic and Theorem 10 (run next to the",
    "  program) and their costing, the program's size estimate and its building all count. The program gets",
    "  what is left, less twice the time one heuristic answer took to cost (to place and cost its own answer);",
    "  HiGHS runs in a child process whose own limit ends up to 1 s earlier, so that it hands back what a",
    "  running heuristic found, and which is killed at the deadline (its last improving solution and bound kept).",
    "- Before this change (commit c979d62), `geoanon suppress` on this table as CSV with the default 60 s took",
    "  73.7 s and 1.49 GB here (the issue reports 122 s and 2.15 GB on another machine): the 60 s went to HiGHS",
    "  alone, after the heuristic, and HiGHS overran its limit.",
    "- The HiGHS child's memory grows with its search (the table: after 5, 20 and 60 s); the 2 GiB budget by",
    "  which a program is skipped bounds the program as built (estimated at 160 bytes per nonzero and 500 per",
    "  row or column: 0.2 GiB here), not the search. The measuring process peaks in the audit, after the child",
    "  has ended.",
]


# ---------------------------------------------------------------- running and reporting

def run_plan(plan, resume: bool = False) -> dict:
    pycanon_python()
    rows = {}
    for part, limit in (("audit", PYCANON_LIMIT + 180), ("suppress", JOB_LIMIT)):
        rows[part] = run_measurements(__file__, plan[part], rows_file=OUT / f"{plan['name']}_{part}_rows.jsonl",
                                      resume=resume, time_limit=limit, describe=_line)
    if plan is PLAN:
        rows["limit"] = run_limit(resume)
    return rows


def _seconds(t) -> str:
    if t is None:
        return ""
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def _line(r) -> str:
    if "failed" in r:
        tool, table, model = r["job"]
        return f"{table:>18} {model:>8} {tool:>14}  FAILED: {r['failed'][:100]}"
    if "pycanon" in r:
        parts = []
        for s, ours in r["ours"].items():
            theirs = _pycanon_figures(r, s)
            parts.append(f"{s}: ours k={ours['k']} ld={ours['l_distinct']} t={ours['t']:.6f} "
                         f"{_seconds(ours['seconds'])} | pycanon " + (
                             f"k={theirs.get('k')} ld={theirs.get('l_distinct')} t={theirs.get('t')} "
                             f"{_seconds(theirs.get('seconds'))}" if theirs else r["pycanon"]["failed"]))
        return f"{r['table']:>18} {r['version']:>4} " + "; ".join(parts)
    return (f"{r['table']:>18} {r['model']:>8} {r['tool']:>14} {_seconds(r['seconds']):>10}  stars {r['cost']:>9,}"
            f"  classes {r['classes']:>6}  k={r['k']} ld={r['l_distinct']} l={r['l']:.3f} t={r['t']:.4f}  "
            f"{'ok' if r['ok'] else 'VIOLATES ' + str(r['violations'])}")


def _pycanon_figures(row, sensitive) -> dict:
    """pycanon's k, l_distinct, t for one sensitive column and the sum of the
    three calls' seconds; empty if any of the three is missing."""
    got = {(r["measure"], r["sensitive"]): r for r in row["pycanon"]["results"]}
    need = [("k", None), ("l_distinct", sensitive), ("t", sensitive)]
    if not all(key in got for key in need):
        return {}
    out = {measure: got[(measure, s)]["value"] for measure, s in need}
    out["seconds"] = sum(got[key]["seconds"] for key in need)
    return out


def _table_name(table: str) -> str:
    return "Adult" if table == "adult" else f"synthetic {int(table.split('-')[1]):,}"


def _audit_table(rows) -> list[str]:
    out = ["| table | version | rows | classes | sensitive (ground) | k | l_distinct | t | Liang-Yuan l (ours) | "
           "geoanon | pycanon (k + l + t) | x faster |",
           "|---|---|---:|---:|---|---|---|---|---:|---:|---:|---:|"]
    for r in rows:
        if "failed" in r:
            tool, table, version = r["job"]
            out.append(f"| {_table_name(table)} | {version} | | | | | | | | | {r['failed']} | |")
            continue
        version = "raw" if r["version"] == "raw" else f"released, k={r['version'][1:]}"
        for s, ours in r["ours"].items():
            theirs = _pycanon_figures(r, s)
            cells = [f"{_table_name(r['table'])} | {version} | {r['rows']:,} | {r['classes']:,} | "
                     f"{s} ({ours['ground']})"]
            if theirs:
                same = (ours["k"] == theirs["k"], ours["l_distinct"] == theirs["l_distinct"],
                        abs(ours["t"] - theirs["t"]) <= T_TOLERANCE)
                cells += [f"{ours['k']} / {theirs['k']}{'' if same[0] else ' DIFFER'}",
                          f"{ours['l_distinct']} / {theirs['l_distinct']}{'' if same[1] else ' DIFFER'}",
                          f"{ours['t']:.9f} / {theirs['t']:.9f}{'' if same[2] else ' DIFFER'}",
                          f"{ours['l']:.4f}", _seconds(ours["seconds"]), _seconds(theirs["seconds"]),
                          f"{theirs['seconds'] / ours['seconds']:,.0f}"]
            else:
                failed = r["pycanon"]["failed"] or "incomplete"
                cells += [f"{ours['k']} / -", f"{ours['l_distinct']} / -", f"{ours['t']:.9f} / -",
                          f"{ours['l']:.4f}", _seconds(ours["seconds"]), failed,
                          f">= {PYCANON_LIMIT / ours['seconds']:,.0f}" if "within" in failed else ""]
            out.append("| " + " | ".join(cells) + " |")
    return out


METHOD_NAMES = {"geoanon": "geoanon (lattice)", "geoanon_approx": "geoanon approx (Thm 10)",
                "anonypy": "anonypy Mondrian", "all_stars": "all suppressed"}


def _suppress_table(rows) -> list[str]:
    bounds = {(r["table"], r["model"]): r["lower_bound"] for r in rows
              if r.get("tool") == "geoanon" and "failed" not in r}
    out = ["| table | model | method | time | stars | stars / LB | classes | k | l_distinct | l | t (EMD) | "
           "meets the model (geoanon.audit) |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if "failed" in r:
            tool, table, model = r["job"]
            out.append(f"| {_table_name(table)} | {describe_model(model)} | {METHOD_NAMES[tool]} | {r['failed']} "
                       f"| | | | | | | | |")
            continue
        bound = bounds.get((r["table"], r["model"]))
        ratio = f"{r['cost'] / bound:.2f}" if bound else ("" if bound is None else "-")
        if r["tool"] == "all_stars":
            meets = "(every feasible model)"
        else:
            meets = "yes" if r["ok"] else "NO: " + ", ".join(f"{n} in {c} classes" for n, c in r["violations"].items())
        if "own_t" in r and "t" in parse_model(r["model"]):
            meets += f"; anonypy's own measure {r['own_t']:.3f}"
        lb = f" (LB {bound:,})" if r["tool"] == "geoanon" else ""
        out.append(f"| {_table_name(r['table'])} | {describe_model(r['model'])} | {METHOD_NAMES[r['tool']]} | "
                   f"{_seconds(r['seconds'])} | {r['cost']:,}{lb} | {ratio} | {r['classes']:,} | {r['k']} | "
                   f"{r['l_distinct']} | {r['l']:.3f} | {r['t']:.4f} | {meets} |")
    return out


def _targets(audits, suppress) -> list[str]:
    lines = []
    compared, differ, missing = 0, [], []
    speed = []
    for r in audits:
        if "failed" in r:
            missing.append(" ".join(r["job"][1:]))
            continue
        for s, ours in r["ours"].items():
            theirs = _pycanon_figures(r, s)
            where = f"{_table_name(r['table'])} {r['version']} / {s}"
            if not theirs:
                missing.append(where)
                if r["rows"] >= 10**6:
                    speed.append((where, PYCANON_LIMIT / ours["seconds"], True))
                continue
            compared += 1
            if (ours["k"], ours["l_distinct"]) != (theirs["k"], theirs["l_distinct"]) or \
                    abs(ours["t"] - theirs["t"]) > T_TOLERANCE:
                differ.append(where)
            if r["rows"] >= 10**6:
                speed.append((where, theirs["seconds"] / ours["seconds"], False))
    lines.append(f"- audit gives pycanon's k, distinct l and t (|difference| <= {T_TOLERANCE:g}) on every table: "
                 f"{compared - len(differ)} of {compared} table/sensitive pairs agree"
                 + (f"; DIFFER: {', '.join(differ)}" if differ else "")
                 + (f"; not compared (no pycanon result): {', '.join(missing)}" if missing else "")
                 + f"; {'MISSED' if differ or not compared else 'met' if not missing else 'met where compared'}")
    if speed:
        worst = min(speed, key=lambda x: x[1])
        lines.append("- audit >= 20x faster than pycanon at 10^6 rows: "
                     + ", ".join(f"{w} {x:,.0f}x{' (lower bound: pycanon timed out)' if lower else ''}"
                                 for w, x, lower in speed)
                     + f"; {'met' if worst[1] >= 20 else 'MISSED'}")
    else:
        lines.append("- audit >= 20x faster than pycanon at 10^6 rows: no 10^6-row audit measured; MISSED")
    big = [r for r in suppress if "failed" not in r and r["tool"] == "geoanon" and r["model"] == "k10"
           and r["rows"] >= 10**6]
    for r in big:
        lines.append(f"- suppress k=10, {r['rows']:,} rows, {r['m']} quasi-identifiers: {r['seconds']:.2f} s; "
                     f"target < 30 s: {'met' if r['seconds'] < 30 else 'MISSED'}")
    if not big:
        lines.append("- suppress k=10 on 10^6 rows under 30 s: no result; MISSED")
    diverse = [r for r in suppress if "failed" not in r and r["tool"] == "geoanon" and r["model"] == "k5-l3"
               and r["rows"] >= 10**6]
    for r in diverse:
        ratio = r["cost"] / max(r["lower_bound"], 1)
        ok = r["seconds"] < 120 and r.get("peak_mb", 0) < 1536 and ratio <= 3
        lines.append(f"- suppress k=5, l=3, {r['rows']:,} rows (issue 12): {r['seconds']:.1f} s, peak "
                     f"{r.get('peak_mb', 0):,.0f} MB (the process, table included), {r['cost']:,} stars = "
                     f"{ratio:.2f}x the lower bound; target < 120 s, < 1.5 GB, <= 3x: {'met' if ok else 'MISSED'}")
    return lines


def _observations(suppress) -> list[str]:
    """Stars against anonypy, and whether anonypy's groupings meet what they claim."""
    ok = [r for r in suppress if "failed" not in r]
    index = {(r["tool"], r["table"], r["model"]): r for r in ok}
    lines = []
    fewer, total = 0, 0
    for r in ok:
        if r["tool"] != "anonypy":
            continue
        ours = index.get(("geoanon", r["table"], r["model"]))
        if ours:
            total += 1
            fewer += ours["cost"] < r["cost"]
    if total:
        lines.append(f"- geoanon's stars below anonypy's in {fewer} of {total} settings compared.")
    bad = [f"{_table_name(r['table'])} {describe_model(r['model'])} ({', '.join(r['violations'])})"
           for r in ok if r["tool"] == "anonypy" and not r["ok"]]
    lines.append("- anonypy groupings that miss the model asked of them, by geoanon.audit (t as the EMD): "
                 + (", ".join(bad) if bad else "none"))
    own = [r for r in ok if r["tool"] == "anonypy" and "t" in parse_model(r["model"])]
    if own:
        lines.append("- anonypy's own t measure (largest |share in a group - share in the table| of a value present in "
                     "the group) on its t groupings: " + ", ".join(
                         f"{_table_name(r['table'])} {describe_model(r['model'])} {r['own_t']:.3f}"
                         f"{'' if r['own_t'] <= parse_model(r['model'])['t'] + 1e-12 else ' (ABOVE t)'}"
                         for r in own) + ".")
    for table in sorted({r["table"] for r in own}):
        pair = [index.get(("anonypy", table, m)) for m in ("k5-t0.2", "k5-t0.3")]
        if all(pair):
            same = pair[0]["cost"] == pair[1]["cost"] and pair[0]["classes"] == pair[1]["classes"]
            lines.append(f"- anonypy {_table_name(table)}, k=5: t=0.2 and t=0.3 give "
                         f"{'the same grouping size and cost' if same else 'different groupings'} "
                         f"({pair[0]['classes']} / {pair[1]['classes']} groups).")
    return lines


NOTES = [
    "Definitions, read in the peers' source:",
    "",
    "- pycanon 1.3.6: `l_diversity` counts the distinct sensitive values of a class (our `l_distinct`);",
    "  `t_closeness` is, for a numeric column, (1 / (m - 1)) * sum of |cumulative differences| over the",
    "  sorted distinct values (our ordered ground) and, for a text column, half the L1 distance (our equal",
    "  ground); its numeric sum has one term more than ours, zero up to rounding. Its classes come from",
    "  `DataFrame.groupby(qi)`, which drops rows with a missing quasi-identifier, while geoanon counts a",
    "  missing value as a value: for a = [x, x, NaN, y, y] pycanon says k = 2, geoanon k = 1 (the NaN row",
    "  is a class of one). No table here has missing values, so the figures above agree.",
    "- anonypy 0.2.1: l-diversity is distinct l. Its t-closeness test (`anonymity.is_t_close`) is not an",
    "  EMD: it takes the largest |share in the group - share in the table| over the values present in the",
    "  group. And its loop assigns each value's share to `p`, the name of the threshold parameter, so the",
    "  test compares against the share of the group's last sensitive value (sorted), whatever t was asked:",
    "  t only switches the test on. For s = aaaaabbbbb, `is_t_close(df, df.index[[0, 1, 2, 3, 5]], \"s\",",
    "  get_global_freq(df, \"s\"), 0.9)` is False (it tests 0.3 <= 0.2, b's share in the group), as it is",
    "  with 0.01. So t = 0.2 and t = 0.3 run the same splits and give the same grouping.",
    "- anonypy's Mondrian splits a text column by halving its list of values (order of appearance), so a",
    "  group is a union of whole types; its stars come from mixing types on every column that differs.",
]


def write_results(rows, path: Path) -> None:
    from importlib.metadata import version

    replace_section(path, "tables", [
        "## Tables: audit and suppression (`python bench/bench_tables.py`)",
        "",
        f"Run on {today()}, {machine()}, pandas {version('pandas')}, anonypy {version('anonypy')}, geoanon at "
        f"commit {code_state()}; "
        f"{pycanon_versions()} in its own virtual environment. Adult is `geoanon.datasets.adult()`.",
        "",
        f"Audit: `geoanon.audit` against pycanon (time limit {PYCANON_LIMIT} s per table). Each figure is "
        "ours / pycanon's; times are of the calls on a table in memory after a warm-up (ours: one audit call "
        "giving k, both l and t; pycanon: its k_anonymity + l_diversity + t_closeness calls, each of which "
        "groups the table again). Released versions are audited on their published quasi-identifier columns.",
        "",
        *_audit_table(rows["audit"]),
        "",
        f"Suppression: stars (cells published as `*`) for the sensitive column occupation (Adult) or diagnosis "
        f"(synthetic). LB: geoanon's lower bound on the optimum. anonypy's time is its partition call alone "
        f"(categorical columns prepared), geoanon's the whole suppress call (with the audit it runs on its "
        f"release); every measurement had {JOB_LIMIT} s. k, l_distinct, l and t are what geoanon.audit measures "
        "on the grouping (t: EMD, equal ground).",
        "",
        *_suppress_table(rows["suppress"]),
        "",
        "Targets (issue 5):",
        "",
        *_targets(rows["audit"], rows["suppress"]),
        "",
        "Observations:",
        "",
        *_observations(rows["suppress"]),
        "",
        *NOTES,
    ])
    if "limit" in rows:
        write_limit(rows["limit"], path)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--time-limit"]:
        write_limit(run_limit(resume=sys.argv[2:] == ["--resume"]), HERE / "RESULTS.md")
        sys.exit()
    main(__doc__, one_args=("TOOL", "TABLE", "MODEL"), measure=measure, plan=PLAN, quick=QUICK,
         run=run_plan, write=write_results)
