"""The dimensions of a joint release and what a class publishes in each.

Every quasi-identifier becomes one dimension the top-down search can cut:

- :class:`RankDim`: an ordered column (a coordinate axis, an interval
  quasi-identifier). Rows carry dense ranks of their values; a class holds a
  *tile*, the ranks ``lo <= r < hi``, published as the interval between the
  tile's edges. Tiles of sibling classes never overlap, and their edges are
  cut positions placed between the values on both sides, never a record's
  value by construction. Missing values take one extra rank after all values.
- :class:`TreeDim`: a categorical column with a hierarchy of its values (a
  suppressed column is the two-level hierarchy value -> ``*``; a ZIP code's
  nested connected groups are one too). A class publishes the lowest node
  above all its rows' values.

The cost of a published cell is its Normalized Certainty Penalty (Xu et al.,
2006): the tile's width over the column's range, or (leaves under the node
present in the data - 1) / (distinct values - 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(eq=False)
class RankDim:
    """An ordered dimension.

    ``rank`` is each row's rank (0..D-1 for values, D for a missing value when
    ``missing`` rows exist); ``edges`` (length D + 1) the position of every
    boundary, ``edges[0]`` and ``edges[D]`` the outer ones; ``unit`` is 1 for
    a column of integers published as closed intervals ``[lo, hi - 1]``, else
    0 (half-open ``[lo, hi)``, closed at the outer edge); ``span`` the
    column's range in the input (NCP's denominator).
    """

    name: str
    rank: np.ndarray
    edges: np.ndarray
    span: float
    unit: int = 0
    location: bool = False
    missing: bool = False

    @property
    def size(self) -> int:
        """Ranks of values (the missing rank, if any, is ``size``)."""
        return self.edges.size - 1

    def root(self) -> tuple:
        return (0, self.size + (1 if self.missing else 0))

    def cost(self, tile: tuple) -> float:
        """NCP of one cell published for ``tile``: 0 for only missing values,
        1 for values mixed with missing ones, else width / span."""
        lo, hi = tile
        d = self.size
        if lo >= d:
            return 0.0
        if hi > d:
            return 1.0
        if self.span <= 0:
            return 0.0
        return (self.edges[hi] - self.edges[lo] - self.unit) / self.span


@dataclass(eq=False)
class TreeDim:
    """A categorical dimension with a hierarchy over its values.

    ``leaf`` is each row's leaf id; ``ancestors[j]`` maps a leaf to its
    ancestor at level j (level 0: the leaf itself; the last level: the root);
    ``node_cost[j]`` the NCP of every node of level j; ``strict`` (locations)
    lets a node split only into all of its children, since a location group
    must not contain another.
    """

    name: str
    leaf: np.ndarray
    ancestors: list
    node_cost: list
    labels: list                      # labels[j][node]: the published text of a node
    location: bool = False
    strict: bool = False

    @property
    def height(self) -> int:
        return len(self.ancestors) - 1

    def node_of(self, rows: np.ndarray) -> tuple:
        """The lowest node above the leaves of ``rows``: (level, node id)."""
        leaves = self.leaf[rows]
        for j, up in enumerate(self.ancestors):
            a = up[leaves]
            if (a == a[0]).all():
                return (j, int(a[0]))
        raise AssertionError("a hierarchy without one root")   # the constructor guarantees one root

    def cost(self, node: tuple) -> float:
        return float(self.node_cost[node[0]][node[1]])


def tree_from_paths(name: str, leaf: np.ndarray, paths: list, present: np.ndarray, *, location=False,
                    strict=False) -> TreeDim:
    """A :class:`TreeDim` from each leaf's path to the root (lists of equal
    length of node labels, leaf first) and which leaves the data holds.

    Nodes are told apart by their whole path, so one label under two parents
    is two nodes; a node's cost counts the present leaves under it."""
    height = len(paths[0]) - 1
    ancestors, node_cost, labels = [], [], []
    n_present = max(int(present.sum()), 1)
    for j in range(height + 1):
        keys = ["\x1f".join(map(str, p[j:])) for p in paths]
        ids, first = _factorize(keys)
        ancestors.append(ids)
        under = np.bincount(ids, weights=present.astype(float), minlength=len(first))
        node_cost.append(np.maximum(under - 1, 0) / max(n_present - 1, 1))
        labels.append([paths[i][j] for i in first])
    return TreeDim(name=name, leaf=leaf, ancestors=ancestors, node_cost=node_cost, labels=labels,
                   location=location, strict=strict)


def _factorize(keys: list) -> tuple[np.ndarray, list]:
    seen: dict = {}
    ids = np.empty(len(keys), dtype=np.int64)
    first = []
    for i, key in enumerate(keys):
        if key not in seen:
            seen[key] = len(seen)
            first.append(i)
        ids[i] = seen[key]
    return ids, first


@dataclass(eq=False)
class Dims:
    """All dimensions of a release, location ones first."""

    items: list = field(default_factory=list)

    def root(self, rows: np.ndarray) -> tuple:
        return tuple(d.root() if isinstance(d, RankDim) else d.node_of(rows) for d in self.items)

    def cell_costs(self, state: tuple) -> np.ndarray:
        return np.array([d.cost(s) for d, s in zip(self.items, state)])

    def location_cost(self, state: tuple) -> float:
        return float(sum(d.cost(s) for d, s in zip(self.items, state) if d.location))

    def cost(self, state: tuple) -> float:
        return float(sum(d.cost(s) for d, s in zip(self.items, state)))
