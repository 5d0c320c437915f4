"""A record suppression budget for the joint release (ARX's suppression limit).

A few records can force wide classes on their neighbours: an island far
from the mainland, a sparse region whose records share one box hundreds of
kilometres wide. With a budget of ``b`` records, the classes that generalize
their records the most are chosen whole (their rows are at least k and meet
the model, so their union does too: :func:`suppressed_rows` checks it), their
records are published fully suppressed (every quasi-identifier ``*`` or
empty) as one class of their own, and the other records are partitioned
again without them (:func:`with_suppressed_class`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .dims import RankDim, SetDim, TreeDim

__all__ = ["suppressed_rows", "whole_classes", "with_suppressed_class"]


def suppressed_rows(problem, part, budget: int, widths=None) -> np.ndarray:
    """The rows of whole classes of ``part`` published suppressed: the classes
    with the widest location (``widths``: states -> box diagonals, for a points
    location; else the highest weighted NCP of a record, :meth:`~geoanon.joint.problem.SearchProblem.cost`)
    first (:func:`whole_classes`). Sorted row numbers."""
    score = widths(part.states) if widths is not None else [problem.cost(st) for st in part.states]
    return whole_classes(problem, part, score, budget)


def whole_classes(problem, part, score, budget: int) -> np.ndarray:
    """The rows of whole classes of ``part``, the highest ``score`` (one per
    class; NaN, 0 or less: never) first, ties the class first in state order,
    each taken while the chosen rows stay within ``budget``; the last ones
    dropped again while the chosen rows together miss the model (a union of
    classes can miss delta-disclosure). Sorted row numbers."""
    sizes = np.bincount(part.row_class[part.row_class >= 0], minlength=len(part.states))
    score = np.nan_to_num(np.asarray(score, dtype=np.float64), nan=-np.inf)
    chosen, used = [], 0
    for c in np.lexsort((np.arange(score.size), -score)).tolist():
        if score[c] <= 0:
            break
        if used + sizes[c] <= budget:
            chosen.append(c)
            used += int(sizes[c])
    while chosen:
        rows = np.flatnonzero(np.isin(part.row_class, chosen))
        if problem.check.holds(problem.check.histogram(rows)[None, :])[0]:
            return rows
        chosen.pop()
    return np.zeros(0, dtype=np.int64)


def with_suppressed_class(problem, part, rows: np.ndarray):
    """``part`` (a partition of the other rows) with ``rows`` as one more
    class, last, in a location class of its own, publishing nothing: the
    missing rank of every ordered dimension (empty cells), the root of every
    hierarchy (``*`` for a suppressed column), every value of a set (``*``)."""
    state = tuple(_blank(d) for d in problem.items)
    row_class = part.row_class.copy()
    row_class[rows] = len(part.states)
    return replace(part, row_class=row_class, states=[*part.states, state],
                   location_class=np.r_[part.location_class, part.location_classes],
                   location_states=[*part.location_states, state], location_classes=part.location_classes + 1,
                   suppressed=len(part.states),
                   cost=part.cost + rows.size * np.array(problem.weights))     # every cell costs 1


def _blank(d):
    if isinstance(d, RankDim):
        return (d.size, d.size + 1, d.size, d.size + 1)
    if isinstance(d, TreeDim):
        return (d.height, int(d.ancestors[-1][0]))
    if isinstance(d, SetDim):
        return (1 << len(d.names)) - 1
    raise TypeError(f"no blank state for {type(d).__name__}")
