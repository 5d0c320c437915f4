"""What a class's location costs the joint search: one strategy per ``location_loss``.

Every strategy answers the same questions, so the search never asks which
one it holds:

- ``column(d, states)`` and ``cell(d, state)``: a location dimension's cost
  for an array of its states, or for one (unweighted);
- ``pair``: the dimensions priced together (none, or a box's two axes),
  whose cost under their summed weight is ``pair_cost``;
- ``node_losses(problem, tree)``: the location's loss of every node of a
  location tree, summed over its rows (the tiling designs' frontier), and
  ``relocated``: an inner partition's cost with that loss in place of its
  location's NCP.

:class:`NcpLoss` prices each location column by its NCP (``"range"``,
``"spread"``, and a ZIP or label group's Iyengar loss); :class:`SpacingLoss`
the boxes against the records' local spacing in the location tree;
:class:`BoxKmLoss` a box's diagonal in km on a log scale
(:class:`~geoanon.joint.km_loss.KmLoss`); :class:`TreeKmLoss` a group of
regions by its nodes' diameters in km
(:func:`~geoanon.joint.km_loss.tree_km_costs`).
"""
from __future__ import annotations

import numpy as np

from .dims import dim_costs, tree_node_costs

__all__ = ["NCP", "SPACING_BASE", "BoxKmLoss", "NcpLoss", "SpacingLoss", "TreeKmLoss"]


class NcpLoss:
    """Each location column costs its NCP, as any other column."""

    pair: tuple = ()

    def column(self, d, states: np.ndarray) -> np.ndarray:
        return dim_costs(d, states)

    def cell(self, d, state) -> float:
        return d.cost(state)

    def pair_cost(self, dims, xs: np.ndarray, ys: np.ndarray, weight) -> np.ndarray:
        """The pair's cost per row of each state (``xs``, ``ys``) under each
        summed weight of its two dimensions (``weight``: weightings x states)."""
        raise TypeError(f"{type(self).__name__} prices no pair of dimensions")

    def node_losses(self, problem, tree) -> np.ndarray:
        """Every node's location cost, its state's, times its rows."""
        return np.array([r.size * problem.location_cost(st) for r, st in zip(tree.rows, tree.state)], dtype=float)

    def relocated(self, problem, tree, node: int, cost: float, located: np.ndarray) -> float:
        """An inner partition's cost ``cost`` of ``node`` with the location's
        loss ``located`` (:meth:`node_losses`) in place of its NCP: the same here."""
        return cost


NCP = NcpLoss()

SPACING_BASE = 8.0   # the spacing loss: a box this many times as wide as its records' finest costs 1 per column


class SpacingLoss(NcpLoss):
    """A points location against its records' local spacing
    (``location_loss="spacing"``); ``diagonal``: location states -> their
    boxes' diagonals in km. The search's cuts still price the location by
    its NCP; only the location tree's nodes are judged by spacing."""

    def __init__(self, diagonal):
        self.diagonal = diagonal

    def node_losses(self, problem, tree) -> np.ndarray:
        """The location's cost of every node of the location tree, summed
        over its rows, against the records' local spacing.

        A row whose finest location class (its leaf of the tree: the smallest
        box the model allows around it) has diagonal ``d`` loses
        ``log(D / d) / log(SPACING_BASE)`` in a box of diagonal ``D``: nothing
        as precise as the location alone allows, 1/3 at twice that width, 1 at
        eight times, and more beyond, without bound, so that no other column's
        loss outweighs a box far wider than its records' neighbourhood. Far
        records (an island, a remote state) change only their own rows' loss,
        not the scale of everyone's, as they do the min-max range of NCP. Rows
        without a location lose 1 in a box with located rows. The loss counts
        once per location column (two for lat and lon), times the location's
        weight. Located rows in a node that publishes no location (it holds rows
        without one too) lose what a box one base wider than the widest does.

        ``SPACING_BASE`` was chosen on ``bench/bench_anonymize.py``'s airports
        table (Adult placed near the US airports, k = 10) among 4, 8 and 16:
        median boxes 0.6x, 1.5x and 5.1x the location alone's (83 km), NCP
        0.485, 0.326 and 0.144; 8 is the round base that keeps the location
        within 3x of its own partition.
        """
        n = np.array([r.size for r in tree.rows], dtype=np.float64)
        diagonal = self.diagonal(tree.state)
        known = np.isfinite(diagonal) & (diagonal > 0)
        scale = np.log(np.where(known, diagonal, 1.0)) / np.log(SPACING_BASE)
        leaf = np.array([not kids for kids in tree.children]) & known
        finest, located = np.where(leaf, n * scale, 0.0), np.where(leaf, n, 0.0)
        for node in range(n.size - 1, 0, -1):          # children after their parents: sums flow up
            parent = tree.parent[node]
            if parent >= 0:
                finest[parent] += finest[node]
                located[parent] += located[node]
        widest = float(scale[known].max()) + 1.0 if known.any() else 1.0   # no location: lost as beyond the widest box
        lost = np.where(known, located * scale - finest + (n - located), located * widest - finest)
        return sum(w for d, w in zip(problem.items, problem.weights) if d.location) * np.maximum(lost, 0.0)

    def relocated(self, problem, tree, node: int, cost: float, located: np.ndarray) -> float:
        return cost - tree.rows[node].size * problem.location_cost(tree.state[node]) + float(located[node])


class BoxKmLoss(NcpLoss):
    """A points location's box priced by its diagonal in km on a log scale
    (``location_loss="km"``; :class:`~geoanon.joint.km_loss.KmLoss` ``km``),
    once for both axes, shared by them."""

    def __init__(self, km):
        self.km = km
        self.pair = (km.x, km.y)

    def pair_cost(self, dims, xs: np.ndarray, ys: np.ndarray, weight) -> np.ndarray:
        return self.km.cost(dims, xs, ys, weight)


class TreeKmLoss(NcpLoss):
    """A group of regions priced by its node's diameter in km
    (``location_loss="km"`` for a ZIP location): ``node_cost[j]``, every
    node of level j's cost (:func:`~geoanon.joint.km_loss.tree_km_costs`),
    in place of the hierarchy's Iyengar loss."""

    def __init__(self, node_cost: list):
        self.node_cost = node_cost

    def column(self, d, states: np.ndarray) -> np.ndarray:
        return tree_node_costs(self.node_cost, states)

    def cell(self, d, state) -> float:
        return float(self.node_cost[state[0]][state[1]])
