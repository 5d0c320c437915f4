"""The location cut down to a precision target: at each cut, the part within
the target holds as many rows as it can.

A node of points wider than the target (``problem.too_wide``) is cut along
latitude or longitude where one side is the largest that fits within the
target: the longest run of rows in rank order from either end whose box is
no wider (a box only grows as rows join it, so the run is found by
bisection), over both axes, the longest first. On a line this greedy cover
is the least number of pieces (the interval-cover argument); on the plane it
leaves the location in fewer, fuller pieces than cuts placed for the boxes'
summed width (:func:`~geoanon.joint.cuts.best_parts`), so fewer rows end in
pieces that cannot be cut within the target and every piece holds more rows
for the other columns' cuts inside it. Measured on the frontier benchmark's
tuning tables (``bench/bench_finesearch.py``): Adult near airports, k = 10,
a 150 km target, 627 rows left in pieces wider than it against 1,700.
Where no side fits (both axes' shortest admissible runs are too wide), or
the location is not of points, the node takes :func:`best_parts`' cut.
"""
from __future__ import annotations

import numpy as np

from .cuts import admissible_positions, best_parts, child_state, narrowed
from .dims import RankDim

__all__ = ["target_parts"]


def target_parts(problem, node: tuple, location: list) -> list | None:
    """The parts ``[(rows, state)]`` of the cut of ``node`` ``(rows, state)``
    along ``location`` (positions of the location's dimensions) whose part
    within the target holds the most rows (ties: the first axis, the low
    side); :func:`best_parts` where no part fits; None where no cut is admissible."""
    rows, state = node
    if not all(isinstance(problem.items[j], RankDim) for j in location):
        return best_parts(problem, node, location)
    best = None
    for j in location:
        order = np.argsort(problem.items[j].rank[rows], kind="stable")
        sorted_ranks = problem.items[j].rank[rows[order]]
        positions = admissible_positions(problem.check, rows[order], sorted_ranks)
        for low_side in (True, False):
            at = _longest_fit(problem, state, rows[order], positions, low_side, location)
            if at is not None:
                size = at if low_side else rows.size - at
                if best is None or size > best[0]:
                    best = (size, j, order, sorted_ranks, at)
    if best is None:
        return best_parts(problem, node, location)
    _, j, order, sorted_ranks, at = best
    d = problem.items[j]
    a, b = int(sorted_ranks[at - 1]) + 1, int(sorted_ranks[at])
    boundary = int(d.central_boundary(np.array([a]), np.array([b]))[0])
    lo, hi = state[j][:2]
    left, right = rows[order[:at]], rows[order[at:]]
    return [(left, child_state(problem, state, j, (lo, boundary), left)),
            (right, child_state(problem, state, j, (boundary, hi), right))]


def _longest_fit(problem, state, ordered: np.ndarray, positions: np.ndarray, low_side: bool, location) -> int | None:
    """The admissible cut position (among ``positions`` of the rows
    ``ordered`` by one axis) whose low side (else high side) is the longest
    within the target; None where even the shortest is too wide."""
    def fits(at) -> bool:
        part = ordered[:at] if low_side else ordered[at:]
        located = list(state)
        for j in location:
            located[j] = narrowed(problem.items[j], state[j], part)
        return not bool(problem.too_wide([tuple(located)])[0])

    if not positions.size or not fits(positions[0 if low_side else -1]):
        return None
    lo, hi = 0, positions.size - 1           # bisection: the side's rows grow as the position moves away from it
    while lo < hi:
        if low_side:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if fits(positions[mid]) else (lo, mid - 1)
        else:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if fits(positions[mid]) else (mid + 1, hi)
    return int(positions[lo])
