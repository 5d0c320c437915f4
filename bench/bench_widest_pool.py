"""A pool of the widest classes, searched again location first: measured against the releases without it.

    python bench/bench_widest_pool.py [--tables airports,zips,city] [--ks 50,10]

Where a peer's p90 box is near its median, geoanon's best release no wider is
often held by its p90, not its median (bench/RESULTS.md, the frontier
sections): its widest tenth of records spend width on the other columns. The
design measured here: after the search, the whole classes with the widest
boxes, up to a share of the rows, are searched again apart at
``location_precision`` ``WIDEST_PRECISION`` (the location first), and the two
partitions are one release, as ``max_pooled`` with ``pool_by="classes"``
joins its pool (:mod:`geoanon.joint.pooling`) but choosing the widest boxes
(:func:`widest_rows`) instead of the costliest other columns. It is not in
the package: this script puts it in place of ``pool_by="classes"``'s choice
and precision while it measures, and restores them.

Per tuning table and k, geoanon's releases without the design (the default's
trace and the tight tail's, ``tail_reach=1``, at ``location_precision`` 0,
0.025, ..., 1 and one refining round, :func:`frontier_releases.traced`), then
the same with each share's trace (0.25, 0.275, ..., 0.75, one refining round)
added, against the peers' releases (the bench's weighted Mondrian, computed
here, and the real peers' cached rows of ``bench_frontier.py`` where there
are any): per peer release, geoanon's best release no wider at the median and
the p90 over the peer's other NCP; the worst and the median of those ratios,
and how many peer releases the design's trace lowers.
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

TABLE_NAMES = ("airports", "zips", "city")
KS = (50, 10)
SHARES = (0.1, 0.15, 0.2)
WIDEST_PRECISION = 1.0
MID = tuple(np.round(np.linspace(0.25, 0.75, 21), 3))


def widest_rows(problem, part, share: float) -> np.ndarray:
    """The rows of whole classes of ``part``, the widest box diagonal first, while at most ``share`` of the rows."""
    from geoanon.joint.outliers import whole_classes
    from geoanon.pipeline.joint_release import _diagonals

    diagonal = _diagonals(problem.dims, "EPSG:4326")(part.states) if part.states else np.zeros(0)
    rows = whole_classes(problem, part, diagonal, int(np.floor(share * problem.check.codes.size)))
    return rows if rows.size >= problem.check.model.k else np.zeros(0, dtype=np.int64)


@contextmanager
def widest_pool():
    """``pool_by="classes"`` choosing the widest classes and searching them location first, meanwhile."""
    import geoanon.pipeline.joint_release as jr

    kept = jr.costliest_rows, jr.POOL_PRECISION
    jr.costliest_rows, jr.POOL_PRECISION = widest_rows, WIDEST_PRECISION
    try:
        yield
    finally:
        jr.costliest_rows, jr.POOL_PRECISION = kept


def case(name: str, k: int) -> dict:
    import frontier_releases as fr
    from bench_frontier import best_no_wider
    from bench_halving import peer_rows
    from frontier_tables import TABLES

    table = TABLES[name]
    df = table.frame()
    peers = [p for releases in ({"mondrian": [fr.weighted_mondrian(df, table, k, w) for w in fr.WEIGHTS]}
                                | peer_rows(name, k)).values() for p in releases]
    ours = fr.traced(df, table, k, rounds=1)[0] + fr.traced(df, table, k, rounds=1, variant="tight tail",
                                                            tail_reach=1.0)[0]
    before = np.array([best_no_wider(ours, p)[1] for p in peers])
    row = {"table": name, "k": k, "peers": len(peers), "without": [float(before.max()), float(np.median(before))]}
    for share in SHARES:
        with widest_pool():
            pool = fr.traced(df, table, k, MID, 1, "widest", max_pooled=share, pool_by="classes")[0]
        after = np.array([best_no_wider(ours + pool, p)[1] for p in peers])
        row[str(share)] = [float(after.max()), float(np.median(after)), int((after < before - 1e-9).sum()),
                           float((after / before).min())]
    print(json.dumps(row), flush=True)
    return row


def write(rows: list, path: Path) -> None:
    lines = cases_heading("## A pool of the widest classes, location first (issue 51, item 4; measured, not kept; "
                          "`python bench/bench_widest_pool.py`)", __doc__, slice(2, 4))
    lines += ["| table | k | peer releases | without: worst / median ratio | "
              + " | ".join(f"+ widest {s:.0%}: worst / median, releases lowered, most lowered" for s in SHARES) + " |",
              "|---|---:|---:|---|" + "---|" * len(SHARES)]
    for r in rows:
        cells = [f"{r[str(s)][0]:.2f}x / {r[str(s)][1]:.2f}x, {r[str(s)][2]}, {r[str(s)][3]:.2f}x" for s in SHARES]
        lines.append(f"| {r['table']} | {r['k']} | {r['peers']} | {r['without'][0]:.2f}x / {r['without'][1]:.2f}x | "
                     + " | ".join(cells) + " |")
    replace_section(path, "widest-pool", lines)


if __name__ == "__main__":
    cases_main(__doc__, TABLE_NAMES, KS, case, write)
