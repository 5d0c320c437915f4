"""A ZIP location's designs in the joint release, side by side on the frontier benchmark's ZIP tables.

    python bench/bench_zip_places.py

Four designs of a ZIP-coded table's joint release, each at
``location_precision`` 0, 0.025, ..., 1 (:func:`frontier_releases.traced`,
no refining rounds), measured as the frontier benchmark measures them (a
record's width: its group's box of its records' ZIP centroids):

- ``frontier``: ``method="frontier"`` (the default until the rule below
  made ``places`` the default), a tiling of nested connected groups
  (:func:`geoanon.pipeline.locations.groups.group_dims`) with the default
  precision target from a typical record's k-neighbourhood;
- ``nested joint``: ``method="joint"`` over the same nested groups and
  target, each class publishing the lowest group above its records (the
  joint design before :mod:`geoanon.pipeline.locations.placed_groups`);
- ``places``: ``method="joint"`` now (the default), the regions' places cut as points
  are, each class publishing the group of its own records' regions, its
  tail priced beyond ``tail_reach`` typical k-neighbourhoods of at least the
  regions' spacing;
- ``places, no floor``: the same with the k-neighbourhood unfloored (where
  most records' ZIP code holds k records it is 0, and no tail is priced).

Against the bench's weighted Mondrian (17 weights, computed here) and the
real peers' releases (``bench_frontier.py``'s, read from its cache or
measured into it): per
peer release, a design's best release no wider at the median and the p90
over the peer's other-column NCP; the worst and median ratio; the default
release (setting 0.5), whether a peer release dominates it, and its widths
beside ``geoanon zip`` alone. Tables: tuning ``pennsylvania`` and
``patients``, on which the designs were chosen; held out ``ohio``.

The rule for a ZIP location's default design, written before ``places``
was run on the held-out table: ``places`` replaces ``frontier`` as the
default if, on every tuning case (``pennsylvania`` and ``patients`` at
k = 5, 10 and 50), its default release has a lower other-column NCP than
``frontier``'s, a median and a p90 each at most ``RULE_WIDER`` times
``frontier``'s, and no peer release dominates it where none dominates
``frontier``'s (:func:`rule_holds`).
"""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import cases_heading, cases_main, replace_section  # noqa: E402

TABLE_NAMES = ("pennsylvania", "patients", "ohio")
KS = (5, 10, 50)
DESIGNS = ("frontier", "nested joint", "places", "places, no floor")
RULE_WIDER = 1.5       # the rule: places' default median and p90 at most this many times frontier's


def rule_holds(row: dict) -> bool:
    """Whether ``places``' default release meets the rule against ``frontier``'s (the module's docstring)."""
    (pm, pp, pn), (fm, fp, fn) = row["places"]["default"], row["frontier"]["default"]
    return pn < fn and pm <= RULE_WIDER * fm and pp <= RULE_WIDER * fp and (
        not row["places"]["dominated"] or bool(row["frontier"]["dominated"]))


@contextmanager
def design(name: str):
    """The joint release as ``name`` builds it (patched in this process and the workers it forks)."""
    import geoanon.pipeline.joint_release as jr
    import geoanon.pipeline.locations.zip as zip_kind
    import geoanon.pipeline.precision_target as pt

    read, target, placed = zip_kind.ZipKind.read, pt.region_target, zip_kind.placed_group_dims
    if name == "nested joint":
        zip_kind.ZipKind.read = lambda self, df, loc, check, options, warnings: read(
            self, df, loc, check, {**options, "method": "frontier"}, warnings)
        jr.region_target = pt.region_target = lambda spec: target(spec.but(method="frontier"))
    elif name == "places, no floor":
        def unfloored(*args):
            dims, publisher = placed(*args)
            publisher.least_km = 0.0
            return dims, publisher
        zip_kind.placed_group_dims = unfloored
    try:
        yield {"method": "frontier"} if name == "frontier" else {"method": "joint"}
    finally:
        zip_kind.ZipKind.read, zip_kind.placed_group_dims = read, placed
        jr.region_target = pt.region_target = target


def peer_rows(name: str, k: int) -> dict:
    """The real peers' releases of ``name`` at ``k``, from the frontier bench's cache (measured and
    cached there first where missing, each peer in its own virtual environment)."""
    import bench_frontier
    from common import run_measurements

    jobs = [(name, k, method) for method in bench_frontier.PEERS if method != "mondrian"]
    rows = run_measurements(bench_frontier.__file__, jobs, rows_file=bench_frontier.PEER_ROWS, resume=True,
                            time_limit=bench_frontier.TIME_LIMIT, describe=bench_frontier._line)
    return {r["method"]: r["points"] for r in rows if "failed" not in r}


def case(name: str, k: int) -> dict:
    import frontier_releases as fr
    from bench_frontier import best_no_wider, dominates
    from frontier_tables import TABLES

    table = TABLES[name]
    df = table.frame()
    peers = {"mondrian": [fr.weighted_mondrian(df, table, k, w) for w in fr.WEIGHTS], **peer_rows(name, k)}
    alone = fr.alone(df, table, k)
    row = {"table": name, "k": k, "held_out": table.held_out, "peers": sorted(peers),
           "alone": [alone["median_km"], alone["p90_km"]]}
    for d in DESIGNS:
        with design(d) as options:
            points, default = fr.traced(df, table, k, rounds=0, **options)
        ratios = [best_no_wider(points, p)[1] for releases in peers.values() for p in releases]
        chosen = next(p for p in points if p["setting"] == default)
        row[d] = {"worst": float(max(ratios)), "median": float(np.median(ratios)),
                  "default": [chosen["median_km"], chosen["p90_km"], chosen["other_ncp"]],
                  "dominated": [str(p["setting"]) for releases in peers.values() for p in releases
                                if dominates(p, chosen)]}
        print(json.dumps({"table": name, "k": k, d: row[d]}), flush=True)
    return row


def write(rows: list, path: Path) -> None:
    lines = [*cases_heading("## A ZIP location's designs in the joint release (`python bench/bench_zip_places.py`)",
                            __doc__, slice(2, 6)),
             "Per table and k: each design's worst / median ratio over the peer releases (target 0.70x), then its "
             "default release (median / p90 km / other NCP; `dom`: dominated by a peer release); `alone`: "
             "`geoanon zip`'s median / p90 km.", "",
             "| table | k | held out | peers | alone | " + " | ".join(DESIGNS) + " | "
             + " | ".join(f"{d}: default" for d in DESIGNS) + " |",
             "|---|---:|---|---:|---|" + "---:|" * len(DESIGNS) + "---|" * len(DESIGNS)]
    for r in rows:
        lines.append(f"| {r['table']} | {r['k']} | {'yes' if r['held_out'] else 'no'} | {len(r['peers'])} | "
                     f"{r['alone'][0]:,.1f} / {r['alone'][1]:,.1f} | "
                     + " | ".join(f"{r[d]['worst']:.2f}x / {r[d]['median']:.2f}x" for d in DESIGNS) + " | "
                     + " | ".join(f"{r[d]['default'][0]:,.1f} / {r[d]['default'][1]:,.1f} / "
                                  f"{r[d]['default'][2]:.3f}{' dom' if r[d]['dominated'] else ''}" for d in DESIGNS)
                     + " |")
    tuning = [r for r in rows if not r["held_out"]]
    lines += ["", "The rule on the tuning cases: " + "; ".join(
        f"{r['table']} k = {r['k']} {'holds' if rule_holds(r) else 'fails'}" for r in tuning)
        + f". Places {'meets' if tuning and all(map(rule_holds, tuning)) else 'does not meet'} the rule on every "
        "tuning case."]
    replace_section(path, "zip-places", lines)


if __name__ == "__main__":
    cases_main(__doc__, TABLE_NAMES, KS, case, write)
