"""The node table of the array search (:mod:`geoanon.joint.batch`): every
node still to cut, its rows laid end to end, its state in every dimension
carried as arrays; and every node's key, by which the searches of one
release know the nodes they meet again (:mod:`geoanon.joint.solved`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .plan_loops import by_node_and_rank, destinations

__all__ = ["Nodes"]


@dataclass
class Nodes:
    """Nodes of a search round.

    ``perm``: the rows of every node, node after node (the node table's
    positions); ``values``: every position's row of
    :meth:`~geoanon.joint.dims.Dims.row_values`, in that order, so that the
    cuts read them in order; ``start`` and ``size``: each node's segment of
    them; ``origin``: the group it descends from; ``mask``: the weightings
    it is cut under (bits); ``state``: per dimension carried, every node's
    state (n x 4 ranks, n x 2 hierarchy nodes, or n bit masks);
    ``node_id``: its id in the recorded tree (None when no tree is recorded);
    ``by_rank``: per rank dimension, the positions node after node, each
    node's by rank, and their ranks (:func:`~geoanon.joint.plans.rank_plan`
    orders them once; the nodes cut from them inherit them in one pass)."""

    perm: np.ndarray
    values: np.ndarray
    start: np.ndarray
    size: np.ndarray
    origin: np.ndarray
    mask: np.ndarray
    state: dict
    node_id: np.ndarray | None = None
    by_rank: dict = field(default_factory=dict)
    _node: np.ndarray | None = field(default=None, init=False, repr=False)

    @classmethod
    def of_parts(cls, rows: list, size: np.ndarray, origin, mask, state: dict, row_values: np.ndarray) -> Nodes:
        """Nodes of ``rows`` (one array per node) of a table whose
        :meth:`~geoanon.joint.dims.Dims.row_values` are ``row_values``."""
        perm = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        return cls(perm, np.take(row_values, perm, axis=0), _starts(size), size, origin, mask, state)

    @classmethod
    def of_positions(cls, nodes: Nodes, positions: np.ndarray, size: np.ndarray, origin, mask, state: dict) -> Nodes:
        """Nodes of the rows at ``positions`` of ``nodes``, node after node, ``size`` each."""
        out = cls(nodes.perm[positions], np.take(nodes.values, positions, axis=0), _starts(size), size, origin, mask,
                  state)
        out.by_rank = nodes.ranks_at(positions, out.start, size)
        return out

    def ranks_at(self, positions: np.ndarray, start: np.ndarray, size: np.ndarray) -> dict:
        """:attr:`by_rank` of the nodes of ``positions`` (node after node, from
        ``start``, ``size`` each): each node's positions in the order of its
        rows' here; none where a position comes twice."""
        if not self.by_rank or not size.size:
            return {}
        dest, once = destinations(positions, size, self.perm.size)
        if not once:
            return {}
        return {j: by_node_and_rank(order, ranks, dest, start, size)[:2] for j, (order, ranks) in self.by_rank.items()}

    @property
    def count(self) -> int:
        return self.size.size

    def rows(self, n: int) -> np.ndarray:
        """The rows of node ``n`` (a view)."""
        return self.perm[self.start[n]:self.start[n] + self.size[n]]

    def position_node(self) -> np.ndarray:
        """The node of every position of ``perm`` (computed once; read only)."""
        if self._node is None:
            self._node = np.repeat(np.arange(self.count), self.size)
            self._node.flags.writeable = False
        return self._node

    def keep(self, keep: np.ndarray) -> None:
        """Drop every node but those of the boolean mask ``keep``."""
        if keep.all():
            return
        idx = np.flatnonzero(keep)
        kept = np.repeat(keep, self.size)
        self.size = self.size[idx]
        self.start = _starts(self.size)
        self.by_rank = self.ranks_at(np.flatnonzero(kept), self.start, self.size)
        self.perm, self.values = self.perm[kept], np.compress(kept, self.values, axis=0)
        self.origin = self.origin[idx]
        self.mask = self.mask[idx]
        if self.node_id is not None:
            self.node_id = self.node_id[idx]
        self.state = {j: s[idx] for j, s in self.state.items()}
        self._node = None

    def row_sums(self, n_rows: int) -> np.ndarray:
        """Every node's rows as one number, the sum of their random keys
        (:func:`_row_keys` of a table of ``n_rows``): nodes of the same rows
        have the same sum."""
        return np.add.reduceat(_row_keys(n_rows)[self.perm], self.start)

    def state_matrix(self) -> np.ndarray:
        """Every node's state in the dimensions carried, a row of integers per node."""
        return np.column_stack([s.reshape(self.count, -1).astype(np.int64, copy=False) for s in self.state.values()])

    def keys(self, n_rows: int) -> list:
        """Every node's key: the same for nodes of the same rows (of a table
        of ``n_rows``) in the same state, whichever search reached them."""
        if not self.count:
            return []
        states = np.ascontiguousarray(self.state_matrix())
        as_bytes = states.view(np.dtype((np.void, states.shape[1] * 8))).ravel().tolist()
        return list(zip(self.row_sums(n_rows).tolist(), self.size.tolist(), as_bytes))


def _starts(size: np.ndarray) -> np.ndarray:
    return np.r_[0, np.cumsum(size)[:-1]].astype(np.int64)


@lru_cache(maxsize=2)
def _row_keys(n_rows: int) -> np.ndarray:
    """A random 62-bit key per row of a table of ``n_rows``, the same for
    every search of it (read only)."""
    keys = np.random.default_rng(0).integers(0, 1 << 62, n_rows, dtype=np.int64)
    keys.flags.writeable = False
    return keys
