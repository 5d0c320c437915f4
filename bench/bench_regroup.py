"""``regroup_km`` (the package's slack step) against the releases without it, at the peers' own widths.

    python bench/bench_regroup.py [--tables city,airports7,losangeles,wide] [--ks 50] [--against mondrian,real]

The package's :mod:`geoanon.joint.regroup` is ``bench/bench_slack.py``'s
design built into the release: neighbouring classes pooled and cut again by
the search's own cuts with the location's weight 0 (so every class keeps
the model and each column its treatment), within a median and p90 box the
user gives (``regroup_km``) and ``max_extent_km``. Per table and k,
geoanon's releases (the default's trace and every variant's, as
``bench_frontier.py`` traces them, :func:`frontier_releases.traced`;
rows measured before 2026-12-03 from the default's and the tight tail's,
``tail_reach=1``, one refining round each) against the bench's weighted Mondrian (17 weights) or the real peers
(``--against real``: anonypyx's Mondrian and Project Lighthouse's five
releases, read from ``bench_frontier.py``'s cached peer rows): per peer release, the
ratio of geoanon's best release no wider (median and p90, withheld records
infinitely wide) to the peer's other NCP, without ``regroup_km`` and with it
set to the peer's median and p90 at each of the ``STARTS`` best releases no
wider (each release checked no wider again as the frontier measures it);
the worst and the median ratio, the releases it lowers, the most it lowers
one and the seconds per regrouped release; and the default release
(``location_precision`` unset) with ``regroup_km=(0, 0)``, its own widths:
its other NCP without and with, and the seconds of each.

``NEIGHBOURS`` and ``TRIPLES_FROM`` (:mod:`geoanon.joint.regroup`) are
chosen on tuning ``city`` at k = 50 (``--neighbours 8,16,32``, then
``--triples 0,4``), by the least worst ratio, a tie within 0.02 going to the
faster; ``airports7``, ``losangeles`` and ``wide`` are held out and choose
nothing.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import cases_heading, code_state, machine, replace_section, today  # noqa: E402

TABLE_NAMES = ("city", "airports7", "losangeles", "wide")
HELD_OUT = ("airports7", "losangeles", "wide")
KS = (50,)
STARTS = 2         # the best releases no wider regrouped, per peer release
AGAINST = {"mondrian": "bench's Mondrian", "real": "real peers"}
STARTED = "every variant"     # the releases regrouped: the best no wider among the frontier's every variant
REAL = ("anonypyx", "lighthouse", "lighthouse-age0.7", "lighthouse-age0.5", "lighthouse-age0.3", "lighthouse-original")
_case = {}


def _release(args) -> dict:
    """One release of the case's table (a forked worker: the case in ``_case``), measured as the frontier measures it."""
    import frontier_releases as fr
    import geoanon as ga
    from geoanon.joint import regroup

    variant, setting, widths, (neighbours, triples) = args
    df, table, k = _case["df"], _case["table"], _case["k"]
    regroup.NEIGHBOURS, regroup.TRIPLES_FROM = neighbours, triples
    options = {} if setting is None else {"location_precision": setting}
    t = time.perf_counter()
    r = ga.anonymize(df, fr.columns(table), k=k, regroup_km=widths, **options, **_options(variant))
    seconds = time.perf_counter() - t
    m = fr.Measure(df, table, k)(fr.geoanon_classes(df, r.table), fr.geoanon_km(df, table, r.table))
    return {**m, "seconds": seconds, "regrouped": r.report.details.get("regrouped", {})}


def case(name: str, k: int, designs: list, against: list) -> list:
    """The case's rows, one per (neighbours, triples) of ``designs`` and peer set of ``against``."""
    import frontier_releases as fr
    from frontier_tables import TABLES

    table = TABLES[name]
    df = table.frame()
    peers = {"mondrian": lambda: [fr.weighted_mondrian(df, table, k, w) for w in fr.WEIGHTS],
             "real": lambda: _real_peers(name, k)}
    ours = fr.traced(df, table, k)[0] + [p for name, (variant, settings, options) in fr.VARIANTS.items()
                                         if name != "geoanon-tiled" or table.zip
                                         for p in fr.traced(df, table, k, settings, 1, variant, **options)[0]]
    _case.update(df=df, table=table, k=k)
    return [_row(name, k, d, a, peers[a](), ours) for a in against for d in designs]


def _options(variant) -> dict:
    """The options of the frontier's ``variant`` (None: the default's)."""
    from frontier_releases import VARIANTS

    return next((options for label, _, options in VARIANTS.values() if label == variant), {})


def _real_peers(name: str, k: int) -> list:
    """The real peers' releases of the case, from ``bench_frontier.py``'s cached rows."""
    from bench_frontier import PEER_ROWS, _cached

    rows = _cached(PEER_ROWS, [(name, k, p) for p in REAL])
    if len(rows) < len(REAL):
        raise SystemExit(f"run bench/bench_frontier.py --only peers for {name} at k = {k} first")
    return [r["points"][0] for r in rows]


def _row(name: str, k: int, design: tuple, against: str, peers: list, ours: list) -> dict:
    from bench_frontier import no_wider

    jobs, before = [], []
    for p in peers:
        fit = sorted((o for o in ours if no_wider(o, p)), key=lambda o: o["other_ncp"])[:STARTS]
        before.append(fit[0]["other_ncp"] / p["other_ncp"] if fit else np.inf)
        jobs += [(len(before) - 1, (o["variant"], o["setting"], (p["median_km"], p["p90_km"]), design))
                 for o in fit]
    default = [(None, None, None, design), (None, None, (0.0, 0.0), design)]
    with get_context("fork").Pool(2) as pool:
        done = pool.map(_release, default + [j for _, j in jobs])
    plain, own, done = done[0], done[1], done[2:]
    after = list(before)
    wider = 0
    for (i, _), d in zip(jobs, done):
        if no_wider(d, peers[i]):
            after[i] = min(after[i], d["other_ncp"] / peers[i]["other_ncp"])
        else:
            wider += 1
    before, after = np.array(before), np.array(after)
    row = {"table": name, "k": k, "held_out": name in HELD_OUT, "design": list(design), "against": against,
           "starts": STARTS,
           "peers": len(peers), "without": [float(before.max()), float(np.median(before))],
           "with": [float(after.max()), float(np.median(after))], "lowered": int((after < before - 1e-9).sum()),
           "most": float((after / before).min()), "wider": wider,
           "seconds": float(np.median([d["seconds"] for d in done])) if done else 0.0,
           "default": [plain["other_ncp"], own["other_ncp"], plain["seconds"], own["seconds"],
                       plain["median_km"], plain["p90_km"], own["median_km"], own["p90_km"]],
           "per_peer": [[p["setting"], round(float(b), 4), round(float(a), 4)] for p, b, a in zip(peers, before, after)]}
    print(json.dumps(row), flush=True)
    return row


def write(rows: list, path: Path) -> None:
    """The section with ``rows`` in place of those of the same table, k,
    design and peers, every other row kept with the run it came from; then,
    against the real peers, each peer release's ratio without and with."""
    lines = cases_heading("## `regroup_km`: the slack step in the package (issue 51, item 4; "
                          "`python bench/bench_regroup.py`)", __doc__, slice(2, 4))
    lines[2] = "Each row measured where its last column says; the last run on " + lines[2].removeprefix("Run on ")
    run = f"{today()}, {machine().split(',')[0]}, {code_state()}"
    summary, per_peer = _rows_in(path)
    for r in rows:
        d, design, against = r["default"], f"{r['design'][0]}, {r['design'][1]}", AGAINST[r["against"]]
        summary[(r["table"], str(r["k"]), design, against, STARTED)] = (
            f"| {r['table']} | {r['k']} | {'yes' if r['held_out'] else 'no'} | {design} | "
            f"{against} ({r['peers']}) | {STARTED} | {r['without'][0]:.2f}x / {r['without'][1]:.2f}x | "
            f"{r['with'][0]:.2f}x / {r['with'][1]:.2f}x | {r['lowered']} | {r['most']:.2f}x | "
            f"{r['wider']} | {r['seconds']:.1f} | {d[0]:.4f} / {d[1]:.4f} | {d[2]:.1f} / {d[3]:.1f} | {run} |")
        if r["against"] == "real":
            per_peer[(r["table"], str(r["k"]), design)] = (
                f"| {r['table']} | {r['k']} | {'yes' if r['held_out'] else 'no'} | {design} | " + " | ".join(
                    f"{b:.2f}x -> {a:.2f}x" for _, b, a in r["per_peer"]) + f" | {run} |")
    lines += [SUMMARY_HEADER,
              "|---|---:|---|---|---|---|---|---|---:|---:|---:|---:|---|---|---|"]
    lines += [summary[key] for key in sorted(summary, key=lambda t: (-int(t[1]), t[3], t[4], t[0] not in ("city",),
                                                                       t[0], [int(n) for n in t[2].split(",")]))]
    if per_peer:
        lines += ["", "Against each real peer release, the ratio without -> with `regroup_km`:", "",
                  PER_PEER_HEADER + " | ".join(REAL) + " | measured |", "|---|---:|---|---|" + "---:|" * len(REAL) + "---|"]
        lines += [per_peer[key] for key in sorted(per_peer, key=lambda t: (-int(t[1]), t[0]))]
    replace_section(path, "regroup", lines)


SUMMARY_HEADER = ("| table | k | held out | neighbours, triples from | against (releases) | geoanon's releases | "
                  "without: worst / median ratio | "
                  "with: worst / median ratio | releases lowered | most lowered | wider than the peer | "
                  "seconds per release (median) | default: other NCP without / with (0, 0) | "
                  "seconds without / with | measured |")
PER_PEER_HEADER = "| table | k | held out | neighbours, triples from | "


def _rows_in(path: Path) -> tuple[dict, dict]:
    """The section's rows now in ``path``: the summary's by (table, k,
    design, peers, releases regrouped), the per-peer table's by (table, k, design)."""
    text = path.read_text() if path.exists() else ""
    begin, end = "<!-- regroup:begin -->", "<!-- regroup:end -->"
    section = text[text.index(begin):text.index(end)] if begin in text else ""
    summary, per_peer, table = {}, {}, None
    for line in section.splitlines():
        if line.startswith("| table"):
            table = summary if line == SUMMARY_HEADER else per_peer
        elif line.startswith("| ") and table is not None:
            cells = [c.strip() for c in line.split("|")[1:-1]]
            key = (cells[0], cells[1], cells[3])
            table[key + (cells[4].rsplit(" (", 1)[0], cells[5]) if table is summary else key] = line
    return summary, per_peer


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLE_NAMES))
    parser.add_argument("--ks", default=",".join(map(str, KS)))
    parser.add_argument("--neighbours", default="")
    parser.add_argument("--triples", default="")
    parser.add_argument("--against", default="mondrian", help="mondrian, real or both (comma-separated)")
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    from geoanon.joint.regroup import NEIGHBOURS, TRIPLES_FROM

    designs = [(int(n), int(t)) for n in (args.neighbours or str(NEIGHBOURS)).split(",")
               for t in (args.triples or str(TRIPLES_FROM)).split(",")]
    write([row for k in args.ks.split(",") for name in args.tables.split(",")
           for row in case(name, int(k), designs, args.against.split(","))],
          args.results)
