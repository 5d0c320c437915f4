"""Isolated records: the screened search finds exactly the rows a plain
search finds, chaining every row to those within the isolation reach."""
import numpy as np
from hypothesis import given, settings, strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from geoanon.points.isolated import ISOLATION, USUAL, isolated_rows


def _plain(where, k, floor_km=0.0):
    """Rows whose cluster, linking rows within the isolation reach, holds fewer than k."""
    tree = cKDTree(where)
    spread = tree.query(where, k=k)[0][:, -1]
    pairs = tree.query_pairs(ISOLATION * max(float(np.quantile(spread, USUAL)), floor_km), output_type="ndarray")
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(where),) * 2)
    cluster = connected_components(graph, directed=False)[1]
    return np.bincount(cluster)[cluster] < k


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.integers(20, 400), st.integers(0, 6),
       st.sampled_from([0.0, 0.5, 50.0]), st.integers(0, 30))
def test_screened_search_finds_what_a_plain_search_finds(seed, k, rows, far, floor_km, rural):
    rng = np.random.default_rng(seed)
    towns = rng.random((3, 2)) * 100
    where = np.r_[towns[rng.integers(0, 3, rows)] + rng.normal(0, 1, (rows, 2)),
                  rng.random((far, 2)) * 5000 - 2500, rng.random((rural, 2)) * 300]
    flagged, reach = isolated_rows(where, k, floor_km)
    expected = _plain(where, k, floor_km)
    assert (flagged == expected).all()
    assert (reach[~flagged] == 0).all() and (reach[flagged] > 0).all()


def test_sparse_records_among_their_own_kind_are_not_isolated():
    """Towns holding 94% of the records and farms scattered between them:
    many a farm's k records spread beyond ten times the towns', but each
    farm lies within that reach of other farms that chain on to the towns.
    The rule on each record's own k records withheld 82 of the 300 farms
    here; the chains withhold only the one record on an island far away."""
    rng = np.random.default_rng(51)
    towns = rng.random((40, 2)) * 1000
    people = towns[rng.integers(0, 40, 4800)] + rng.normal(0, 5, (4800, 2))
    farms = rng.random((300, 2)) * 1000
    where = np.r_[people, farms, [[5000.0, 5000.0]]]
    flagged, _ = isolated_rows(where, 25)
    assert np.flatnonzero(flagged).tolist() == [len(where) - 1]


def test_rows_without_a_position_are_never_isolated():
    where = np.r_[np.random.default_rng(1).random((100, 3)), [[np.nan] * 3, [1e4, 1e4, 1e4]]]
    flagged, _ = isolated_rows(where, 4)
    assert np.flatnonzero(flagged).tolist() == [101]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([3, 10, 90]), st.integers(2, 6))
def test_trees_split_in_threads_find_what_one_tree_finds(seed, k, threads):
    """The k-d tree over runs of the rows (up to TREES of them), each built
    in a thread, and the crowded grid counted in threads: the same rows
    isolated and the same reach, k below and above the sampled reach."""
    from geoanon import _threads

    rng = np.random.default_rng(seed)
    where = np.r_[rng.normal(0, 1, (600, 2)).round(1), rng.random((8, 2)) * 400, [[60.0, 60.0]] * 3]
    one = isolated_rows(where, k)
    before, _threads.THREADED = _threads.THREADED, 1
    try:
        split = isolated_rows(where, k, threads=threads)
    finally:
        _threads.THREADED = before
    assert one[0].any() and (one[0] == split[0]).all() and (one[1] == split[1]).all()
