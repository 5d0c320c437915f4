"""The joint search's result: classes of rows, what each publishes, and
the location class each lies in (:class:`JointPartition`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import VerificationError
from .dims import state_columns

__all__ = ["JointPartition", "partition_of"]


@dataclass
class JointPartition:
    """Classes of rows from a joint search.

    ``row_class``: class of every row (0..C-1, numbered in the order of the classes' states);
    ``states``: the published state of every class (one entry per dimension);
    ``location_class``: the location class each class lies in; ``cost``: the
    summed NCP of all cells (per dimension); ``design`` and ``evaluated``
    (location nodes whose inner partition was computed); ``suppressed``: the
    class of the records published fully suppressed (:mod:`geoanon.joint.outliers`), -1 for none;
    ``pooled_rows``: how many rows were partitioned apart (:mod:`geoanon.joint.pooling`);
    ``regrouped``: what ``regroup_km`` changed (:mod:`geoanon.joint.regroup`; empty: not asked).
    """

    row_class: np.ndarray
    states: list
    location_class: np.ndarray
    cost: np.ndarray
    design: str
    evaluated: int = 0
    location_classes: int = 0
    location_states: list = field(default_factory=list)
    suppressed: int = -1
    pooled_rows: int = 0
    regrouped: dict = field(default_factory=dict)

    @cached_property
    def columns(self) -> list:
        """Every dimension's states of the classes as one array
        (:func:`~geoanon.joint.dims.state_columns`), found once; read only."""
        return state_columns(self.states)

    def with_columns(self, columns: list) -> JointPartition:
        """This partition, its :attr:`columns` known already (they must be
        :func:`~geoanon.joint.dims.state_columns` of its states). Returns ``self``."""
        vars(self)["columns"] = columns
        return self

    def leaves(self) -> list:
        """The classes as ``(rows, state)``, in class order."""
        held = np.flatnonzero(self.row_class >= 0)
        order = held[np.argsort(self.row_class[held], kind="stable")]
        bounds = np.searchsorted(self.row_class[order], np.arange(len(self.states) + 1))
        return [(order[a:b], state) for a, b, state in zip(bounds[:-1], bounds[1:], self.states)]

    @property
    def shared_location(self) -> bool:
        """Whether classes share their location class's location (a tiling
        design's), rather than each publishing its own (the joint design's)."""
        return self.design != "joint"

    def verify(self, problem) -> JointPartition:
        """Check the partition's rules for ``problem`` (a
        :class:`~geoanon.joint.problem.SearchProblem`); raise
        :class:`~geoanon.errors.VerificationError` if one fails.

        Every row is in at most one class (-1: none), class ids are
        contiguous with a state each, every class meets the model, and every
        class publishes its location class's location (one state per
        location class). Returns ``self``.
        """
        check, n_classes = problem.check, len(self.states)
        row_class = np.asarray(self.row_class)
        if row_class.shape != (check.codes.size,):
            raise VerificationError(f"{row_class.size} rows have a class; the table has {check.codes.size}")
        if row_class.size and (row_class.min() < -1 or row_class.max() >= n_classes):
            raise VerificationError(f"class ids run outside -1..{n_classes - 1}")
        held = row_class >= 0
        hist = np.zeros((n_classes, check.n_values), dtype=np.int64)
        np.add.at(hist, (row_class[held], check.codes[held]), 1)
        empty = np.flatnonzero(hist.sum(axis=1) == 0)
        if empty.size:
            raise VerificationError(f"class ids are not contiguous: class {int(empty[0])} is empty")
        missed = np.flatnonzero(~check.holds(hist)) if n_classes else empty
        if missed.size:
            raise VerificationError(f"{missed.size} classes miss {check.describe()} (class {int(missed[0])})")
        self._verify_locations(problem)
        return self

    def _verify_locations(self, problem) -> None:
        """Every class lies in one location class and publishes its location."""
        place = np.asarray(self.location_class)
        if place.shape != (len(self.states),) or len(self.location_states) != self.location_classes:
            raise VerificationError("location classes and classes do not match in number")
        if place.size and (place.min() < 0 or place.max() >= self.location_classes):
            raise VerificationError(f"location class ids run outside 0..{self.location_classes - 1}")
        location = [j for j, d in enumerate(problem.items) if d.location]
        for c, (state, p) in enumerate(zip(self.states, place.tolist())):
            if any(state[j] != self.location_states[p][j] for j in location):
                raise VerificationError(f"class {c} does not publish the location of its location class {p}")


def partition_of(problem, leaves, owner, design, evaluated, loc_states, weights=None) -> JointPartition:
    """Classes numbered in the order of their states (what they publish, by
    rank), not of their rows, so that ids say nothing about row order;
    ``owner`` None: each class its own location class; the cost under
    ``weights`` (default the dimensions')."""
    row_class = np.full(problem.check.codes.size, -1, dtype=np.int64)
    columns = state_columns([st for _, st in leaves])
    order = _by_state(leaves, columns)
    if leaves:                      # the leaves' rows are disjoint: each row takes its leaf's class
        sizes = np.array([r.size for r, _ in leaves], dtype=np.int64)
        class_of = np.empty(len(leaves), dtype=np.int64)
        class_of[order] = np.arange(len(leaves))
        row_class[np.concatenate([r for r, _ in leaves])] = np.repeat(class_of, sizes)
    states = [leaves[i][1] for i in order.tolist()]
    columns = [column[order] for column in columns]
    location_class = np.arange(len(leaves), dtype=np.int64) if owner is None else \
        np.asarray(owner, dtype=np.int64)[order]
    cost = problem.summed_costs(states, [leaves[i][0].size for i in order.tolist()], weights, columns)
    if owner is None:
        loc_states = states
    return JointPartition(row_class=row_class, states=states, location_class=location_class, cost=cost,
                          design=design, evaluated=evaluated, location_classes=len(loc_states),
                          location_states=loc_states).with_columns(columns)


def _by_state(leaves: list, columns: list) -> np.ndarray:
    """The order of ``leaves`` ``(rows, state)`` by state, then by least row
    (as Python orders the tuples), by one lexsort over the states' integers
    (``columns``: every dimension's states, :func:`~geoanon.joint.dims.state_columns`)
    where every dimension's are integers, else by sorting the tuples."""
    if not leaves:
        return np.zeros(0, dtype=np.int64)
    sizes = np.array([r.size for r, _ in leaves], dtype=np.int64)
    least = np.minimum.reduceat(np.concatenate([r for r, _ in leaves]), np.r_[0, np.cumsum(sizes)[:-1]])
    if any(column.dtype.kind not in "iu" for column in columns):     # other than integers of at most 64 bits
        return np.array(sorted(range(len(leaves)), key=lambda i: (leaves[i][1], int(least[i]))), dtype=np.int64)
    keys = [key for column in columns for key in column.reshape(len(leaves), -1).T]
    return np.lexsort([least, *keys[::-1]])
