"""The compiled loops of the array search order rows as the sort they
replace, and refuse where one pass cannot; classes are numbered by state as
sorting their tuples numbers them."""
import numpy as np
import pytest

from geoanon.joint.dims import state_columns
from geoanon.joint.partition import _by_state
from geoanon.joint.plan_loops import by_node_and_rank


def _nodes(rng, n_rows, sizes):
    """Disjoint nodes of random rows: (perm, start, size, each position's node)."""
    size = np.array(sizes, dtype=np.int64)
    perm = rng.permutation(n_rows)[:size.sum()]
    return perm, np.r_[0, np.cumsum(size)[:-1]].astype(np.int64), size, np.repeat(np.arange(size.size), size)


@pytest.mark.parametrize("seed", range(3))
def test_rows_of_each_node_by_rank(seed):
    rng = np.random.default_rng(seed)
    rank = rng.integers(0, 15, 300)                       # many ties
    perm, start, size, node = _nodes(rng, 300, [90, 1, 40, 100])
    order = np.argsort(rank, kind="stable")
    row_at = np.full(300, -1, dtype=np.int64)
    row_at[perm] = node << 32 | np.arange(perm.size)
    positions, sr, complete = by_node_and_rank(order, rank[order], row_at, start, size)
    assert complete
    rows = perm[positions]
    for a, z in zip(start.tolist(), size.tolist()):
        assert sorted(rows[a:a + z].tolist()) == sorted(perm[a:a + z].tolist())
        assert (np.diff(sr[a:a + z]) >= 0).all() and (sr[a:a + z] == rank[rows[a:a + z]]).all()
        expected = perm[a:a + z][np.argsort(rank[perm[a:a + z]], kind="stable")]
        assert (rank[rows[a:a + z]] == rank[expected]).all()


def test_nodes_sharing_rows_are_left_to_the_sort():
    rank = np.arange(10)[::-1].copy()
    perm = np.r_[np.arange(6), np.arange(4, 10)]          # rows 4 and 5 in both nodes (two weightings')
    node = np.repeat([0, 1], 6)
    row_at = np.full(10, -1, dtype=np.int64)
    row_at[perm] = node << 32 | np.arange(perm.size)
    order = np.argsort(rank, kind="stable")
    *_, complete = by_node_and_rank(order, rank[order], row_at, np.array([0, 6]), np.array([6, 6]))
    assert not complete


def _sorted(leaves):
    return sorted(range(len(leaves)), key=lambda i: (leaves[i][1], int(leaves[i][0].min())))


@pytest.mark.parametrize("seed", range(3))
def test_classes_by_state_as_their_tuples_sort(seed):
    rng = np.random.default_rng(seed)
    rows = np.split(rng.permutation(400), np.cumsum(rng.integers(1, 6, 100)))[:-1]
    leaves = [(r, ((int(a), int(b), 0, 1), int(c), (1, int(d)))) for r, a, b, c, d in
              zip(rows, *rng.integers(0, 3, (4, len(rows))))]          # equal states: the least row decides
    assert _by_state(leaves, state_columns([st for _, st in leaves])).tolist() == _sorted(leaves)
    wide = [(r, (st[0], st[1] << 70, st[2])) for r, st in leaves]     # beyond 64 bits: the tuples sorted
    assert _by_state(wide, state_columns([st for _, st in wide])).tolist() == _sorted(wide)


@pytest.mark.parametrize("seed", range(2))
def test_nodes_kept_or_cut_inherit_their_rows_by_rank(seed):
    from geoanon.joint.nodes import Nodes

    rng = np.random.default_rng(seed)
    rank = rng.integers(0, 9, 200)
    perm, start, size, node = _nodes(rng, 200, [60, 30, 50, 40])
    values = rank[:, None]
    nodes = Nodes.of_parts(np.split(perm, np.cumsum(size)[:-1]), size, np.zeros(4, dtype=np.int64),
                           np.ones(4, dtype=np.int64), {}, values)
    order = np.lexsort((rank[perm], node))
    nodes.by_rank[0] = (order, rank[perm][order])

    def check(table):
        got, ranks = table.by_rank[0]
        for a, z in zip(table.start.tolist(), table.size.tolist()):
            assert sorted(got[a:a + z].tolist()) == list(range(a, a + z))
            assert (ranks[a:a + z] == values[table.perm[got[a:a + z]], 0]).all()
            assert (np.diff(ranks[a:a + z]) >= 0).all()

    parts = np.r_[rng.permutation(np.arange(60))[:25], 60 + rng.permutation(30), 140 + rng.permutation(40)[:10]]
    check(Nodes.of_positions(nodes, parts, np.array([25, 30, 10]), np.zeros(3, dtype=np.int64),
                             np.ones(3, dtype=np.int64), {}))
    nodes.keep(np.array([True, False, True, True]))
    check(nodes)
    twice = Nodes.of_positions(nodes, np.r_[np.arange(20), np.arange(20)], np.array([20, 20]),
                               np.zeros(2, dtype=np.int64), np.ones(2, dtype=np.int64), {})
    assert twice.by_rank == {}                   # shared rows: ordered anew when asked
