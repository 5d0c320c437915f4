"""The gain ratio against the plain gain: the joint search's two rankings of a node's cuts, side by side.

    python bench/bench_gain_ratio.py

The default, ``gain_ratio=True`` (:func:`geoanon.joint.cuts.per_bit`), ranks
a cut by its gain over its bits of split information beyond the first, so
that a category's split into all of its values ranks as the cuts it
replaces; ``gain_ratio=False`` by the gain alone. Per table and k = 5, 10, 50,
geoanon's releases at ``location_precision`` 0, 0.025, ..., 1
(:func:`frontier_releases.traced`, no refining rounds) under each ranking,
measured as the frontier benchmark measures them, against the peers' releases
(the bench's weighted Mondrian, computed here; the real peers' cached rows of
``bench_frontier.py`` where it ran them): per peer release, geoanon's best
release no wider at the median and the p90 over the peer's other-column NCP;
the worst and the median of those ratios; and the default release (setting
0.5) of each ranking. Tables: tuning ``airports``, ``city`` and
``airports-wide`` (:data:`frontier_tables.WIDE_TUNING`, wide's shape: 7
other quasi-identifiers), on which the ranking was chosen; held out
``airports7`` and ``wide``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import cases_main, code_state, machine, replace_section, today  # noqa: E402

TABLE_NAMES = ("airports", "city", "airports-wide", "airports7", "wide")
KS = (5, 10, 50)


def peer_rows(name: str, k: int) -> dict:
    """The real peers' cached releases of ``name`` at ``k`` (method: points), as the frontier bench keeps them."""
    from bench_frontier import PEER_ROWS, PEERS, _cached

    rows = _cached(PEER_ROWS, [(name, k, method) for method in PEERS if method != "mondrian"])
    return {r["method"]: r["points"] for r in rows}


def case(name: str, k: int) -> dict:
    import frontier_releases as fr
    from bench_frontier import best_no_wider
    from frontier_tables import TABLES, WIDE_TUNING

    table = WIDE_TUNING if name == WIDE_TUNING.name else TABLES[name]
    df = table.frame()
    peers = {"mondrian": [fr.weighted_mondrian(df, table, k, w) for w in fr.WEIGHTS], **peer_rows(name, k)}
    row = {"table": name, "k": k, "held_out": table.held_out, "peers": sorted(peers)}
    for ranking, ratio in (("gain", False), ("gain ratio", True)):
        points, default = fr.traced(df, table, k, rounds=0, gain_ratio=ratio)
        ratios = [best_no_wider(points, p)[1] for releases in peers.values() for p in releases]
        d = next(p for p in points if p["setting"] == default)
        row[ranking] = {"worst": float(max(ratios)), "median": float(np.median(ratios)),
                        "default": [d["median_km"], d["p90_km"], d["other_ncp"]]}
        print(json.dumps(row), flush=True)
    return row


def write(rows: list, path: Path) -> None:
    lines = ["## Gain ratio (`python bench/bench_gain_ratio.py`)", "",
             f"Run on {today()}, {machine()}, geoanon at {code_state()}. " + __doc__.split("\n\n", 2)[2]
             .replace("\n", " ").strip(), "",
             "| table | k | held out | peers | gain: worst / median ratio | gain ratio: worst / median ratio | "
             "gain: default median / p90 km / NCP | gain ratio: default median / p90 km / NCP |",
             "|---|---:|---|---:|---:|---:|---|---|"]
    for r in rows:
        g, q = r["gain"], r["gain ratio"]
        lines.append(f"| {r['table']} | {r['k']} | {'yes' if r['held_out'] else 'no'} | {len(r['peers'])} | "
                     f"{g['worst']:.2f}x / {g['median']:.2f}x | {q['worst']:.2f}x / {q['median']:.2f}x | "
                     + " | ".join(f"{v['default'][0]:,.1f} / {v['default'][1]:,.1f} / {v['default'][2]:.3f}"
                                  for v in (g, q)) + " |")
    replace_section(path, "gain-ratio", lines)


if __name__ == "__main__":
    cases_main(__doc__, TABLE_NAMES, KS, case, write)
