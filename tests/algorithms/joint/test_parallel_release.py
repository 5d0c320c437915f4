"""The joint release's work beside the search and after it, in forked
workers with ``n_jobs`` > 1 (:func:`geoanon._forked.beside`): the same
release as in one process."""
import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon._forked import beside, forked
from geoanon.errors import AuditError
from geoanon.joint.partition import JointPartition
from geoanon.pipeline.locations.classes import location_classes


def _table(n=400, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"lat": np.round(35 + rng.normal(0, 1.0, n), 4), "lon": np.round(-80 + rng.normal(0, 1.0, n), 4),
                       "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n)})
    df.loc[:2, ["lat", "lon"]] = [[48.0, -60.0], [47.9, -60.1], [48.1, -59.9]]      # three records far out
    return df


def _same(one, two):
    assert one.table.equals(two.table) and one.warnings == two.warnings
    assert {**one.report.to_dict(), "seconds": 0} == {**two.report.to_dict(), "seconds": 0}
    assert one.classes.drop(columns="geometry").equals(two.classes.drop(columns="geometry"))
    assert one.classes.geometry.geom_equals(two.classes.geometry).all()


@pytest.mark.parametrize("budgets", [{"max_withheld": 0.01}, {"max_withheld": 0.01, "max_suppressed": 0.02}])
def test_two_processes_release_what_one_does(budgets):
    """With records suppressed, the isolated records measured beside the
    search (every row placed) are measured again, for the rows placed."""
    df = _table()
    kw = dict(location=("lat", "lon"), qi=["age", "sex"], k=5, **budgets)
    one, two = ga.anonymize(df, **kw), ga.anonymize(df, **kw, n_jobs=2)
    _same(one, two)
    if "max_suppressed" in budgets:       # the far records go as outliers
        assert two.report.details["suppressed_records"] >= 3
    else:                                   # as isolated records, with two more their class needs
        assert two.report.details["isolated"]["withheld_rows"] == 5


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_forked_runs_from_the_start_and_raises_the_workers_error(n_jobs):
    """With one job the function runs at once, before the body; with two,
    in a worker, and its error reaches the caller when it asks."""
    ran = []
    with forked(lambda: ran.append(1) or len(ran), n_jobs) as result:
        assert ran == ([1] if n_jobs == 1 else [])      # a worker's changes stay in the worker
        assert result() == 1

    def refused():
        raise AuditError("refusing to release")

    with pytest.raises(AuditError, match="refusing to release"):
        with forked(refused, n_jobs) as result:
            result()


def test_beside_runs_both_and_raises_the_workers_error():
    assert beside(lambda: 1, lambda: 2, 2) == (1, 2) == beside(lambda: 1, lambda: 2, 1)

    def refused():
        raise AuditError("refusing to release")

    with pytest.raises(AuditError, match="refusing to release"):
        beside(refused, lambda: 2, 2)


def test_location_classes_list_their_first_classes():
    """Location class 0 holds classes 0, 2, 3, ..., 8 (seven), class 1 holds
    class 1 of one record, whose age is empty."""
    owner = np.array([0, 1, 0, 0, 0, 0, 0, 0, 0])
    row_class = np.r_[np.repeat(np.r_[0, 2:9], 2), 1]
    table = pd.DataFrame({"age_min": np.where(row_class == 1, np.nan, row_class * 10.0),
                          "sex": np.where(row_class % 2, "F", "*")})
    part = JointPartition(row_class=row_class, location_class=owner, location_classes=2, states=[()] * 9, cost=np.zeros(9),
                          design="joint", evaluated=0)
    out = location_classes(table, part, ["lat_min", "age_min", "sex"])
    assert out["weight"].tolist() == [16, 1] and out["classes"].tolist() == [8, 1]
    assert out["label"][1] == "age_min empty, sex F (1 record)"
    assert out["label"][0] == "; ".join(f"age_min {c * 10}, sex {'F' if c % 2 else '*'} (2 records)"
                                        for c in (0, 2, 3, 4, 5, 6)) + "; and 2 more"


def test_a_workers_leaves_travel_packed_and_come_back_the_same():
    """A worker sends its leaves' rows as one array with their sizes; the
    parent gets the leaves back: the same rows and states, in order."""
    import pickle

    from geoanon.joint.sharding import _packed, _unpacked

    rng = np.random.default_rng(0)
    rows = np.split(rng.permutation(50), [3, 10, 11, 30])
    leaves = [(r, ((int(r.min()), 9, 0, 1), 5, (1, int(r.size)))) for r in rows]
    for found in (leaves, []):
        back = _unpacked(*pickle.loads(pickle.dumps(_packed(found))))
        assert len(back) == len(found)
        for (a, sa), (b, sb) in zip(found, back):
            assert b.dtype == np.int64 and np.array_equal(a, b) and sa == sb
