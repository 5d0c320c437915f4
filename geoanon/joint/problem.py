"""The joint search's problem: what the engine hands the search, once, whole.

A :class:`SearchProblem` holds the dimensions, the model check, every
dimension's weight, how the location is priced (a strategy of
:mod:`geoanon.joint.location_loss`), the precision target and the rule of
the location classes. It is immutable: a search under other weights, or
by another design's rule, is another problem (:meth:`SearchProblem.weighted`,
``dataclasses.replace``), and every problem remembers the costs of the
states its searches compare afresh.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from .dims import Dims, SetDim, dim_costs, state_columns
from .location_loss import NCP, NcpLoss

__all__ = ["COST_MEMORY", "SearchProblem"]

COST_MEMORY = 200_000       # states whose cost a problem remembers (a few tens of MB)


@dataclass(frozen=True, eq=False)
class SearchProblem:
    """The joint search of ``dims`` under the model ``check``.

    ``weights``: every dimension's weight in the objective (default 1 each);
    ``location_loss``: how a class's location is priced (default its NCP);
    ``too_wide``: states -> whether each one's location is wider than the
    precision target (a bool array; None: no target); ``shared_location``: the classes
    below a non-location cut share their node's location (the location
    classes never overlap), else every cut narrows the location too, as any
    other dimension; ``compact_cuts``: the other columns' rank cuts fall in
    their widest gap (:func:`~geoanon.joint.cuts.compact_choice`), not
    balanced (the joint design's); ``gain_ratio``: the search ranks a node's
    cuts by their gain over their split information beyond the first bit
    (:func:`~geoanon.joint.cuts.per_bit`; the releases' default, False here
    the gain alone).
    """

    dims: Dims
    check: object
    weights: tuple = None
    location_loss: NcpLoss = NCP
    too_wide: Callable | None = None
    shared_location: bool = True
    compact_cuts: bool = False
    gain_ratio: bool = False
    _seen: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        weights = [1.0] * len(self.dims.items) if self.weights is None else self.weights
        object.__setattr__(self, "weights", tuple(float(w) for w in weights))

    @property
    def items(self) -> list:
        """The dimensions, location ones first."""
        return self.dims.items

    def weighted(self, weights) -> SearchProblem:
        """This problem under ``weights`` (every dimension's)."""
        return replace(self, weights=weights)

    def root(self, rows: np.ndarray) -> tuple:
        """The state of ``rows`` alone."""
        return self.dims.root(rows)

    def dim_costs(self, j: int, states: np.ndarray) -> np.ndarray:
        """Dimension ``j``'s unweighted cost for an array of its states (a
        location's as :attr:`location_loss` prices it)."""
        d = self.dims.items[j]
        return self.location_loss.column(d, states) if d.location else dim_costs(d, states)

    def cell_cost(self, j: int, state) -> float:
        """Dimension ``j``'s unweighted cost of one state."""
        d = self.dims.items[j]
        return self.location_loss.cell(d, state) if d.location else d.cost(state)

    def summed_costs(self, states: list, sizes: np.ndarray, weights=None, columns=None) -> np.ndarray:
        """Each dimension's weighted cost summed over classes of ``states``
        holding ``sizes`` rows, one array operation per dimension; a priced
        pair's cost is shared by its two dimensions. ``weights``: every
        dimension's weight (default the problem's); ``columns``: the states
        as :func:`~geoanon.joint.dims.state_columns` gives them, if known."""
        if not len(states):
            return np.zeros(len(self.items))
        return np.asarray(sizes, dtype=np.float64) @ self.cost_rows(states, weights, columns)

    def class_costs(self, states: list, sizes: np.ndarray, weights=None) -> np.ndarray:
        """The weighted cost of each class of ``states`` holding ``sizes`` rows
        (as :meth:`summed_costs`, summed over dimensions instead of classes)."""
        if not len(states):
            return np.zeros(0)
        return np.asarray(sizes, dtype=np.float64) * self.cost_rows(states, weights).sum(axis=1)

    def cost_rows(self, states: list, weights=None, columns=None) -> np.ndarray:
        """Every class's weighted cost per row, per dimension (classes x
        dimensions); ``columns`` as :meth:`summed_costs` takes them."""
        columns = state_columns(states) if columns is None else columns
        costs = np.empty((len(states), len(self.items)))
        for j, d in enumerate(self.items):
            if isinstance(d, SetDim) and d.bits is None:
                costs[:, j] = [self.cell_cost(j, s) for s in columns[j].tolist()]
            else:
                costs[:, j] = self.dim_costs(j, columns[j])
        weights = np.array(self.weights if weights is None else weights, dtype=np.float64)
        costs *= weights
        if self.location_loss.pair:
            x, y = self.location_loss.pair
            weight = weights[x] + weights[y]
            costs[:, [x, y]] = (self.location_loss.pair_cost(self.dims, columns[x], columns[y], [weight])[0] / 2)[:, None]
        return costs

    def location_cost(self, state: tuple, weights=None) -> float:
        """The weighted cost of a class's location: its dimensions' costs, or
        its priced pair's. ``weights``: every dimension's (default the problem's)."""
        weights = self.weights if weights is None else weights
        if self.location_loss.pair:
            x, y = self.location_loss.pair
            return float(self.location_loss.pair_cost(self.dims, state[x], state[y], [weights[x] + weights[y]])[0, 0])
        return float(sum(w * self.cell_cost(j, s) for j, (d, s, w) in enumerate(zip(self.items, state, weights))
                         if d.location))

    def cost(self, state: tuple) -> float:
        """The weighted sum of the costs of a class's cells (the location's as
        :meth:`location_cost`; remembered: states recur while the search
        compares cuts)."""
        cost = self._seen.get(state)
        if cost is None:
            if len(self._seen) >= COST_MEMORY:
                self._seen.clear()
            cost = self._seen[state] = self.location_cost(state) + float(
                sum(w * d.cost(s) for d, s, w in zip(self.items, state, self.weights) if not d.location))
        return cost

