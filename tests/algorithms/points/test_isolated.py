"""Isolated records: the screened search finds exactly the rows a plain
k-nearest search over every row finds."""
import numpy as np
from hypothesis import given, settings, strategies as st
from scipy.spatial import cKDTree

from geoanon.points.isolated import ISOLATION, USUAL, isolated_rows


def _plain(where, k, floor_km=0.0):
    spread = cKDTree(where).query(where, k=k)[0][:, -1]
    return spread > ISOLATION * max(float(np.quantile(spread, USUAL)), floor_km)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.integers(20, 400), st.integers(0, 6),
       st.sampled_from([0.0, 0.5, 50.0]))
def test_screened_search_finds_what_a_plain_search_finds(seed, k, rows, far, floor_km):
    rng = np.random.default_rng(seed)
    towns = rng.random((3, 2)) * 100
    where = np.r_[towns[rng.integers(0, 3, rows)] + rng.normal(0, 1, (rows, 2)),
                  rng.random((far, 2)) * 5000 - 2500]
    flagged, reach = isolated_rows(where, k, floor_km)
    expected = _plain(where, k, floor_km)
    assert (flagged == expected).all()
    assert (reach[~flagged] == 0).all() and (reach[flagged] > 0).all()


def test_rows_without_a_position_are_never_isolated():
    where = np.r_[np.random.default_rng(1).random((100, 3)), [[np.nan] * 3, [1e4, 1e4, 1e4]]]
    flagged, _ = isolated_rows(where, 4)
    assert np.flatnonzero(flagged).tolist() == [101]
