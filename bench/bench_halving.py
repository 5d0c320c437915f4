"""Halving the many-valued value sets: the joint search's cut of a category, peeled or halved, side by side.

    python bench/bench_halving.py

A category's own cut in the joint search peels it: every value that holds k
records becomes a part of its own, the rest stay together
(:func:`geoanon.joint.cuts.set_cut`). A value set of more than
``HALVED_ABOVE`` values is halved instead, Mondrian's categorical cut: its
values, the most held first, split in two at the most even position where
both sides meet the model (:func:`geoanon.joint.cuts.halve_cut`). Per table
and k = 5, 10, 50, geoanon's releases at ``location_precision`` 0, 0.025,
..., 1 (:func:`frontier_releases.traced`, no refining rounds) under each
threshold, measured as the frontier benchmark measures them, against the
peers' releases (the bench's weighted Mondrian, computed here; the real
peers' cached rows of ``bench_frontier.py``): per peer release, geoanon's
best release no wider at the median and the p90 over the peer's other-column
NCP; the worst and the median of those ratios; and the default release
(setting 0.5). A threshold that halves no column of a table gives peeling's
releases there, measured once. Thresholds: peeling alone (none), 0, 6, 8 and
16 values. Tables: tuning ``airports``, ``zips``, ``city``, ``pennsylvania``
(4 other quasi-identifiers: sex 2 values, race 5, marital-status 7) and
``airports-wide`` (:data:`frontier_tables.WIDE_TUNING`: also education 16,
workclass 7, native-country 41); held out ``wide``, peeling and the threshold
kept only.

THE RULE, stated before the held-out table was run: the threshold kept is
the one of least mean worst ratio over the tuning cases among those whose
worst ratio rises by at most ``SLACK`` over peeling's on every tuning case
(:func:`chosen`).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import cases_main, code_state, machine, replace_section, today  # noqa: E402

TABLE_NAMES = ("airports", "zips", "city", "pennsylvania", "airports-wide", "wide")
KS = (5, 10, 50)
NEVER = 10**9                         # a threshold no value set passes: peeling alone
THRESHOLDS = (NEVER, 0, 6, 8, 16)
KEPT = 8                              # geoanon.joint.cuts.HALVED_ABOVE, by the rule
SLACK = 0.02


def peer_rows(name: str, k: int) -> dict:
    """The real peers' cached releases of ``name`` at ``k``, as the frontier bench keeps them."""
    from bench_frontier import PEER_ROWS, PEERS, _cached

    rows = _cached(PEER_ROWS, [(name, k, method) for method in PEERS if method != "mondrian"])
    return {r["method"]: r["points"] for r in rows}


def halved_columns(df, table, threshold: int) -> tuple:
    """The table's categories of more than ``threshold`` values in ``df`` (the ZIP code, the location, never)."""
    return tuple(c for c in table.text if df[c].nunique() > threshold)


def case(name: str, k: int) -> dict:
    import frontier_releases as fr
    import geoanon.joint.cuts as cuts
    from bench_frontier import best_no_wider
    from frontier_tables import TABLES, WIDE_TUNING

    table = WIDE_TUNING if name == WIDE_TUNING.name else TABLES[name]
    df = table.frame()
    peers = {"mondrian": [fr.weighted_mondrian(df, table, k, w) for w in fr.WEIGHTS], **peer_rows(name, k)}
    row = {"table": name, "k": k, "held_out": table.held_out, "peers": sorted(peers), "thresholds": {}}
    measured = {}
    for threshold in (NEVER, KEPT) if table.held_out else THRESHOLDS:
        halved = halved_columns(df, table, threshold)
        if halved not in measured:
            cuts.HALVED_ABOVE = threshold
            points, default = fr.traced(df, table, k, rounds=0)
            ratios = {m: [best_no_wider(points, p)[1] for p in releases] for m, releases in peers.items()}
            every = [r for peer in ratios.values() for r in peer]
            d = next(p for p in points if p["setting"] == default)
            measured[halved] = {"worst": float(max(every)), "median": float(np.median(every)),
                                "per_peer": {m: float(max(v)) for m, v in ratios.items()},
                                "default": [d["median_km"], d["p90_km"], d["other_ncp"]]}
        row["thresholds"][str(threshold)] = {**measured[halved], "halved": list(halved)}
        print(json.dumps({"table": name, "k": k, "threshold": threshold, **row["thresholds"][str(threshold)]}),
              flush=True)
    cuts.HALVED_ABOVE = KEPT
    return row


def chosen(rows: list) -> int:
    """The rule's threshold over the tuning rows."""
    tuning = [r for r in rows if not r["held_out"]]
    base = [r["thresholds"][str(NEVER)]["worst"] for r in tuning]
    fit = [t for t in THRESHOLDS
           if all(r["thresholds"][str(t)]["worst"] <= b + SLACK for r, b in zip(tuning, base))]
    return min(fit, key=lambda t: (np.mean([r["thresholds"][str(t)]["worst"] for r in tuning]), t))


def _name(threshold) -> str:
    return "peeling" if int(threshold) == NEVER else f"above {threshold}"


def write(rows: list, path: Path) -> None:
    tuning = [r for r in rows if not r["held_out"]]
    lines = ["## Halving the many-valued value sets (`python bench/bench_halving.py`)", "",
             f"Run on {today()}, {machine()}, geoanon at {code_state()}. " + " ".join(
                 " ".join(p.split()) for p in __doc__.split("\n\n")[2:4]), "",
             "| table | k | held out | peers | threshold | columns halved | worst / median ratio | "
             "worst per peer | default median / p90 km / NCP |",
             "|---|---:|---|---:|---|---|---:|---|---|"]
    for r in rows:
        for t, v in r["thresholds"].items():
            per_peer = ", ".join(f"{m} {x:.2f}x" for m, x in v["per_peer"].items())
            lines.append(f"| {r['table']} | {r['k']} | {'yes' if r['held_out'] else 'no'} | {len(r['peers'])} | "
                         f"{_name(t)} | {', '.join(v['halved']) or '-'} | {v['worst']:.2f}x / {v['median']:.2f}x | "
                         f"{per_peer} | {v['default'][0]:,.1f} / {v['default'][1]:,.1f} / {v['default'][2]:.3f} |")
    if tuning:
        means = {t: np.mean([r["thresholds"][str(t)]["worst"] for r in tuning]) for t in THRESHOLDS}
        lines += ["", "Mean worst ratio over the tuning cases: " + "; ".join(
            f"{_name(t)} {m:.3f}" for t, m in means.items()) + f". The rule's choice: {_name(chosen(rows))} "
            f"(the code's `HALVED_ABOVE`: {KEPT})."]
    replace_section(path, "halving", lines)


if __name__ == "__main__":
    cases_main(__doc__, TABLE_NAMES, KS, case, write)
