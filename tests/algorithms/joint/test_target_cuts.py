"""The joint design under a precision target (issue 51, item 4): too-wide
pieces cut where the side within the target is fullest
(geoanon.joint.target_cuts), and the start leaving the fewest rows beyond
the target first (geoanon.joint.mondrian)."""
import numpy as np
import pandas as pd

import geoanon as ga
from geoanon._geo import row_box_extents
from geoanon.joint import cuts, mondrian, sharding, target_cuts
from geoanon.options import release_spec
from geoanon.pipeline import joint_release

from checkers import check_joint_release


def _towns(seed, towns=8, people=15):
    """``people`` in each of ``towns`` towns 3 degrees of longitude apart
    (about 250 km), within 0.05 degrees each, sex alternating: a town holds
    k = 10 people, but fewer than 10 of either sex."""
    rng = np.random.default_rng(seed)
    town = np.repeat(np.arange(towns), people)
    return pd.DataFrame({"lat": np.round(40 + rng.uniform(0, 0.05, town.size), 4),
                         "lon": np.round(-100 + 3.0 * town + rng.uniform(0, 0.05, town.size), 4),
                         "sex": np.where(np.arange(town.size) % 2, "F", "M"),
                         "age": rng.integers(20, 70, town.size)})


def test_a_category_start_does_not_cross_the_target():
    """With the location weighted low, the start cutting sex first is the
    cheapest, but each sex of a town is fewer than k: its classes span two
    towns, 250 km, where a 50 km target keeps every town a class of its
    own. Before, all 120 records were published in boxes wider than the target."""
    df = _towns(0)
    for setting in (0.0, 0.5):
        r = ga.anonymize(df, location=("lat", "lon"), qi=["sex", "age"], k=10, max_extent_km=50,
                         location_precision=setting)
        check_joint_release(df, r.in_input_order(), 10, lat="lat", lon="lon", intervals=["age"], sets=["sex"])
        d = row_box_extents(r.table, "lat", "lon", "EPSG:4326")[2]
        assert not np.isnan(d).any() and d.max() <= 50


def _pieces_beyond(df, k, max_km, cut):
    """The rows left in target pieces wider than ``max_km`` when a too-wide piece is cut by ``cut``."""
    spec = release_spec("anonymize", location=("lat", "lon"), qi=["age"], k=k, max_extent_km=max_km)
    job = joint_release.prepared(df, spec)
    problem, location, _, table = mondrian._joint_table(joint_release._problem(job, spec), np.arange(len(df)))
    kept = sharding.target_parts
    sharding.target_parts = cut
    try:
        pieces = [p for group in table for p in sharding.within_target(problem, *group, location)]
    finally:
        sharding.target_parts = kept
    assert np.array_equal(np.sort(np.concatenate([r for r, _ in pieces])), np.arange(len(df)))
    wide = problem.too_wide([st for _, st in pieces])
    return sum(r.size for (r, _), w in zip(pieces, wide) if w)


def _strip(seed, n=40):
    """``n`` points at random along a strip of one degree of longitude (about 85 km)."""
    rng = np.random.default_rng(seed)
    lon = np.round(np.sort(rng.uniform(-100, -99, n)), 4)
    return pd.DataFrame({"lat": np.round(40 + rng.uniform(0, 0.01, n), 4), "lon": lon, "age": rng.integers(20, 70, n)})


def test_target_pieces_leave_fewer_rows_beyond_the_target():
    """On points along a strip, k = 4, a 20 km target: cutting where the
    fitting side is fullest leaves fewer rows in pieces that cannot be cut
    within the target than cuts placed for the boxes' summed width (the
    cut before), in all over ten strips, and none in one where that left four."""
    assert _pieces_beyond(_strip(19), 4, 20, target_cuts.target_parts) == 0
    assert _pieces_beyond(_strip(19), 4, 20, cuts.best_parts) == 4
    fitted = sum(_pieces_beyond(_strip(seed), 4, 20, target_cuts.target_parts) for seed in range(10))
    placed = sum(_pieces_beyond(_strip(seed), 4, 20, cuts.best_parts) for seed in range(10))
    assert fitted < placed


def test_the_longest_fit_is_found_by_multisection():
    """:func:`target_cuts._longest_fit` against trying every position: the
    longest side within the target, from either end."""
    df = _strip(3, n=60)
    spec = release_spec("anonymize", location=("lat", "lon"), qi=["age"], k=3, max_extent_km=25)
    job = joint_release.prepared(df, spec)
    problem, location, _, table = mondrian._joint_table(joint_release._problem(job, spec), np.arange(len(df)))
    rows, state = table[0]
    lon = location[-1] if problem.items[location[-1]].name == "lon" else location[0]
    ordered = rows[np.argsort(problem.items[lon].rank[rows], kind="stable")]
    ranks = problem.items[lon].rank[ordered]
    positions = cuts.admissible_positions(problem.check, ordered, ranks)

    def fits(part):
        return not problem.too_wide([tuple(cuts.narrowed(d, s, part) if d.location else s
                                           for d, s in zip(problem.items, state))])[0]

    for low_side in (True, False):
        fitting = [at for at in positions.tolist() if fits(ordered[:at] if low_side else ordered[at:])]
        expected = (max(fitting) if low_side else min(fitting)) if fitting else None
        held = target_cuts._side_ranks(problem, ordered, low_side, location)
        assert target_cuts._longest_fit(problem, state, held, positions, low_side) == expected
        assert expected is not None
