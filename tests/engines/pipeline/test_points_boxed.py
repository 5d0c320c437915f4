"""The points job boxes every record but the isolated ones its budget names,
in classes near the lower bound (issue 51), on a table it was not tuned on."""
import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.errors import InfeasibleError
from geoanon.datasets import data_path
from geoanon.pipeline.locations.points import points_location


def _airport_visits(n, seed):
    """Records near the shipped US airports (territories and Alaska
    included), lognormal shares, jittered by 1 to tens of km, 5 decimals."""
    airports = pd.read_csv(data_path("us_airports.csv.gz"))
    rng = np.random.default_rng(seed)
    share = rng.lognormal(0, 1.2, len(airports))
    which = rng.choice(len(airports), n, p=share / share.sum())
    spread = (0.01 + rng.exponential(0.08, len(airports)))[which]
    return pd.DataFrame({"lat": np.round(airports["lat"].to_numpy()[which] + rng.normal(size=n) * spread, 5),
                         "lon": np.round(airports["lon"].to_numpy()[which] + rng.normal(size=n) * spread, 5)})


def test_every_record_is_boxed_but_the_isolated_ones_the_budget_names():
    """The job withheld each isolated record's classmates with it and aimed
    its classes at 2k - 1 (1.9 times the lower bound); now the partition runs
    without the isolated records and boxes every other one, near the lower
    bound."""
    k = 25
    df = _airport_visits(40_000, 51)
    release = ga.generalize_points(df, k)
    table = release.in_input_order()
    withheld = table["lat_min"].isna().to_numpy()
    dims, publisher = points_location(df, {"lat": "lat", "lon": "lon"}, "error", "EPSG:4326", None, [], "box", None, k)
    isolated, _ = publisher.isolated(dims, np.zeros(len(df), dtype=np.int64), k)
    named = (withheld & isolated).sum()       # and, fewer than k, the records nearest them, to make a class of k
    assert 0 < withheld.sum() <= 0.001 * len(df) and (withheld & ~isolated).sum() == max(0, k - named)
    sizes = table.loc[~withheld, "class_id"].value_counts()
    assert sizes.min() >= k and sizes.max() <= 1.1 * release.report["lower_bound"]


def test_evenly_spaced_points_cost_no_grid_search(monkeypatch):
    """300,000 evenly spaced points with all-distinct coordinates took 241 s
    (4.5 s for random ones): every grid point of the joint search's grid ends
    was a record's coordinate, and each of the ends stepped past them one at
    a time. The points job reads no such end now, and the joint search steps
    each distinct end once, to the same place."""
    from geoanon.joint.dims import RankDim, grid_above, grid_below

    i = np.arange(3000)
    df = pd.DataFrame({"lat": 35 + i * 1e-4, "lon": -100 + i * 1e-4})
    with monkeypatch.context() as patch:
        patch.setattr(RankDim, "_off_values", lambda *a: (_ for _ in ()).throw(AssertionError("grid ends computed")))
        assert ga.generalize_points(df, 10).report["audit"]["k"] >= 10
    values = np.round(35 + i[:300] * 1e-4, 4)
    dim = RankDim(name="lat", rank=i[:300], edges=np.r_[values, 36.0], low=values, high=values, span=0.03,
                  location=True, extent="grid", resolution=0.001)
    held = set(values.tolist())

    def stepped(edge, step):                 # the ends one at a time, as they were
        while edge in held:
            edge = step(np.array([edge]), 0.001)[0]
        return edge

    assert dim.grid_low.tolist() == [stepped(e, grid_below) for e in grid_below(values, 0.001)]
    assert dim.grid_high.tolist() == [stepped(e, grid_above) for e in grid_above(values, 0.001)]


def test_max_extent_bounds_every_published_box():
    """The airport visits at k = 25 publish a box across the Pacific (a
    remote group of k or more); with ``max_extent_km`` at a third of it,
    every box is within it, its records published without a location
    within the budget, and the release passes the checkers."""
    from checkers import check_published_boxes
    from geoanon._geo import ground

    k, df = 25, _airport_visits(40_000, 52)

    def widths(release):
        t = release.in_input_order()
        boxes = t[["lon_min", "lat_min", "lon_max", "lat_max"]].to_numpy()
        across = boxes[:, 0] > boxes[:, 2]            # read eastward across the antimeridian for the checker
        east = boxes + np.where(across, 360, 0)[:, None] * [0, 0, 1, 0]
        lon = df["lon"].to_numpy() + np.where(across & (df["lon"].to_numpy() < boxes[:, 0]), 360, 0)
        check_published_boxes(np.c_[lon, df["lat"].to_numpy()], t["class_id"].to_numpy(), east, k)
        assert ga.audit(t, ["lat_min", "lat_max", "lon_min", "lon_max"], k=k)["k"] >= k
        return ground("EPSG:4326").extents(*boxes.T)[2]

    free = widths(ga.generalize_points(df, k))
    cap = float(np.nanmax(free)) / 3
    release = ga.generalize_points(df, k, max_extent_km=cap)
    km = widths(release)
    extent = release.report["max_extent"]["withheld_rows"]
    assert np.nanmax(km) <= cap < np.nanmax(free)
    assert 0 < extent <= np.isnan(km).sum() <= release.report["isolated"]["budget_rows"]
    assert release.report["withheld_rows"] == np.isnan(km).sum()
    assert any(f"max_extent_km={cap:g}" in note for note in release.notes)


def test_a_max_extent_beyond_the_budget_is_refused_and_writes_nothing(tmp_path, cli):
    df = _airport_visits(5_000, 53)
    with pytest.raises(InfeasibleError, match="raise max_extent_km or max_withheld"):
        ga.generalize_points(df, 25, max_extent_km=5, max_withheld=0.01)
    df.to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli("points", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "-k", 25, "--max-extent", "5km", "--max-withheld", "1%",
                       "-o", tmp_path / "out.csv")
    assert code == 2 and "max_extent_km=5" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


@pytest.mark.parametrize("method", ["joint", "frontier"])
def test_a_partition_keeps_its_state_columns_through_withholding(method):
    """A release keeps every dimension's states as arrays beside the
    classes' tuples, found once, and changes them with the states where it
    withholds isolated records (here classes keep the rest of their rows, so
    boxes shrink, the frontier's for classes beside them too, and ages
    narrow): they are what the tuples give."""
    from geoanon.joint.dims import state_columns

    rng = np.random.default_rng(1)
    parts = []
    for lat, lon in [(35, -80), (39, -74), (42, -90), (33, -100)]:           # towns, and strays tens of km out
        parts += [np.c_[lat + rng.random(40) * 0.01, lon + rng.random(40) * 0.01],
                  np.c_[lat + 0.3 * rng.normal(size=3), lon + 0.3 * rng.normal(size=3)]]
    xy = np.concatenate(parts)
    df = pd.DataFrame({"lat": xy[:, 0], "lon": xy[:, 1], "age": rng.integers(20, 60, len(xy))})
    release = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=5, max_withheld=0.2,
                           method=method)
    part, moved = release.partition, release.report.details["isolated"]["withheld_rows"]
    kept = np.bincount(part.row_class[part.row_class >= 0])
    assert 0 < moved and (kept > 5).any()
    for primed, found in zip(part.columns, state_columns(part.states)):
        assert primed.dtype == found.dtype and np.array_equal(primed, found)


@pytest.mark.parametrize("extra", [{}, {"max_extent_km": 600.0, "max_withheld": 0.05}, {"geometry": True}])
def test_two_processes_publish_what_one_does(extra, monkeypatch):
    """With ``n_jobs=2`` the points are sorted, the isolated records searched
    and the kd levels and the rectangles' edges cut in two threads (here at
    any size), a forked process checks the partition from when it is cut,
    and another audits and measures the NCP while this one measures the
    units, draws the classes and orders the rows: the same table, report,
    classes and row shapes."""
    from geoanon import _threads

    monkeypatch.setattr(_threads, "THREADED", 1)
    df = _airport_visits(6000, 11)
    df.loc[:2, ["lat", "lon"]] = [[40.0, -40.0], [40.1, -40.2], [39.9, -40.1]]     # three records far out at sea
    df["visits"] = np.arange(len(df)) % 5
    extra = dict(extra)
    if extra.pop("geometry", False):
        import geopandas as gpd

        df = gpd.GeoDataFrame(df[["visits"]], geometry=gpd.points_from_xy(df["lon"], df["lat"]), crs="EPSG:4326")
    one, two = (ga.generalize_points(df, 10, keep=["visits"], n_jobs=n, **extra) for n in (1, 2))
    assert one.table.to_csv() == two.table.to_csv() and one.warnings == two.warnings and one.notes == two.notes
    assert {**one.report.to_dict(), "seconds": 0} == {**two.report.to_dict(), "seconds": 0}
    assert one.report["withheld_rows"] > 0 and one.report["audit"]["k"] >= 10
    assert one.classes.drop(columns="geometry").equals(two.classes.drop(columns="geometry"))
    assert one.classes.geometry.geom_equals(two.classes.geometry).all()
    assert one.row_shapes().to_wkt().equals(two.row_shapes().to_wkt())
    assert one.in_input_order().to_csv() == two.in_input_order().to_csv()    # rows that tie may swap
