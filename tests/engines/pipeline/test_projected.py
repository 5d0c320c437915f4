"""Projected coordinates (issue 50): the same points in longitude/latitude and
in a projected CRS (UTM, a state plane in US survey feet, Web Mercator, a
local grid in metres or km) give releases of the same quality, published in
the input's CRS and measured on the ground; small and degenerate extents
give a release or a typed one-line error.

How close two releases of the same points can be: the search cuts ranks of
different coordinates (a projection turns the grid a little), and box edges
snap to round numbers of different units (0.05 degrees against 5 km or
20,000 US survey feet), so one release's median or p90 box differs from
another's by up to ±40% either way (as the releases of two seeds of one
table do; the p90 sits on a plateau of box sizes that the unit's round steps
set). Each release is held to the invariants, to the rows withheld and to a
factor of two; their geometric mean box and their median box, averaged over
seeds, to 5% and 10% (``bench/crs.py`` measures more)."""
import functools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from checkers import check_joint_release, check_published_boxes
from projected import ground_km, projected, texas_visits, towns, uniform_square

K = 5
KINDS = ("points", "joint", "frontier")

# (CRS, a place in its area): UTM zones on four continents, a state plane in US survey feet, Web Mercator
# at 52 degrees north (a unit of 0.62 m on the ground), a local grid in metres and one in km
PLACES = (("EPSG:32610", 37.6, -122.3), ("EPSG:32614", 30.3, -97.7), ("EPSG:32633", 48.2, 16.4),
          ("EPSG:32636", 31.6, 32.5), ("EPSG:32755", -37.8, 145.0), ("EPSG:2277", 30.3, -97.7),
          ("EPSG:3857", 52.5, 13.4), ("+proj=aeqd +lat_0=-1.3 +lon_0=36.8 +units=m +datum=WGS84", -1.3, 36.8),
          ("+proj=tmerc +lat_0=60 +lon_0=25 +k=1 +x_0=0 +y_0=0 +units=km +ellps=GRS80", 60.2, 24.9))
TEXAS_KM = "+proj=tmerc +lat_0=30 +lon_0=-98 +k=1 +x_0=0 +y_0=0 +units=km +ellps=GRS80"


def lonlat(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its lon/lat columns named x/y, as :func:`projected` names them."""
    return df.rename(columns={"lon": "x", "lat": "y"})


def release(kind: str, df: pd.DataFrame, crs, qi=("age",), k: int = K):
    """The ``points`` job or the ``anonymize`` job (the joint design or the
    frontier) of ``df``'s x and y in ``crs`` and its columns ``qi``."""
    others = [c for c in df.columns if c not in ("x", "y", *qi)]
    if kind == "points":
        return ga.generalize_points(df, k, lat="y", lon="x", crs=crs, identifiers=[*others, *qi])
    return ga.anonymize(df, location=("y", "x"), qi=list(qi), identifiers=others, k=k, crs=crs,
                        **({} if kind == "joint" else {"method": kind}))


def checked(kind: str, df: pd.DataFrame, rel, crs, qi=("age",), k: int = K) -> np.ndarray:
    """Assert that ``rel`` passes the independent checkers (every row inside
    its box in the input's CRS, edges on their grid, classes of k) and the
    audit, and that its report measures the boxes on the ground; return each
    row's box diagonal in km on the ground, NaN where it is published
    without a location."""
    t = rel.in_input_order()
    boxes = ["x_min", "y_min", "x_max", "y_max"]
    if kind == "points":
        check_published_boxes(df[["x", "y"]].to_numpy(), t["class_id"].to_numpy(), t[boxes].to_numpy(), k)
    else:
        check_joint_release(df[["x", "y", *qi]], t[[c for c in t.columns if c not in df.columns or c in qi]], k,
                            lat="y", lon="x", intervals=[c for c in qi if c == "age"],
                            sets=[c for c in qi if c != "age"])
    published = [c for c in t.columns if c != "class_id" and c not in df.columns]
    assert ga.audit(t, published, k=k)["k"] >= k and rel.report["audit"]["ok"]
    km = ground_km(t, "y", "x", crs)
    units = (rel.report["units"] if kind == "points" else rel.report.details["units"])["location"]
    held = km[~np.isnan(km)]
    assert units["median_km"] == pytest.approx(np.median(held), rel=0.01, abs=1e-3)
    assert units["p90_km"] == pytest.approx(np.quantile(held, 0.9), rel=0.01, abs=1e-3)
    assert units["without"] == pytest.approx(np.isnan(km).mean(), abs=1e-6)
    return km


def quality(km: np.ndarray) -> np.ndarray:
    """The share of rows published without a location, the median, p90 and
    geometric mean box (km), and the mean of the 40th-60th percentile boxes
    (the middle, off the step between two plateaus where a median can sit)."""
    held = km[~np.isnan(km)]
    return np.array([np.isnan(km).mean(), np.median(held), np.quantile(held, 0.9),
                     np.exp(np.mean(np.log(np.maximum(held, 1e-3)))),
                     np.quantile(held, np.linspace(0.4, 0.6, 5)).mean()])


def assert_alike(projected_q, lonlat_q, n: int, k: int = K):
    """Withheld shares within 5% of each other, or 4k rows (an isolated
    record leaves with the rest of its class where that class would fall
    short of k, up to 2k - 1 rows: two partitions may differ by two such
    classes); boxes (median, p90 and geometric mean) within a factor of two,
    a release's spread (see the module's docstring)."""
    assert abs(projected_q[0] - lonlat_q[0]) <= max(0.05 * lonlat_q[0], 4 * k / n), (projected_q, lonlat_q)
    assert (np.abs(np.log(projected_q[1:] / lonlat_q[1:])) < np.log(2)).all(), (projected_q, lonlat_q)


# -- the issue's cases --------------------------------------------------------------------------------------------

def test_the_issue_s_utm_square_releases_as_its_lonlat_copy_on_the_command_line(tmp_path, cli):
    """2,000 uniform points in a 100 km square in UTM 36N: ``anonymize``
    published 42% of the rows without a location (the lat/lon copy: none),
    ``points`` withheld 177 rows (the copy: 6); the boxes were then moved 360
    m west of their records (the longitude rules applied to eastings)."""
    df = uniform_square(2000, 31.6, 32.5, 100)
    tables = {"EPSG:4326": lonlat(df), "EPSG:32636": projected(df, "EPSG:32636")}
    for job, extra in (("anonymize", ["--qi", "age", "--identifiers", "id"]), ("points", ["--identifiers", "id,age"])):
        found = {}
        for crs, table in tables.items():
            table.to_csv(tmp_path / "in.csv", index=False)
            code, _, err = cli(job, tmp_path / "in.csv", "--lat", "y", "--lon", "x", "--crs", crs, *extra, "-k", K,
                               "--keep-order", "-o", tmp_path / f"{job}.csv")
            assert code == 0, err
            out = pd.read_csv(tmp_path / f"{job}.csv")
            boxes = out[["x_min", "y_min", "x_max", "y_max"]].to_numpy()
            check_published_boxes(table[["x", "y"]].to_numpy(), out["class_id"].to_numpy(), boxes, K)
            found[crs] = quality(ground_km(out, "y", "x", crs))
        assert_alike(found["EPSG:32636"], found["EPSG:4326"], len(df))


@pytest.mark.parametrize("job", ["anonymize", "points"])
def test_a_km_grid_declared_in_metres_releases_on_its_own_grid(tmp_path, cli, job):
    """Burkitt's lymphoma table (libpysal's ``burkitt``: 188 cases on an
    integer km grid, X 255-335, Y 250-400) given as ``--crs EPSG:32636``, its
    km read as metres: it crashed (``_shrunk``: zero-size array), then
    published X wrapped as longitudes (255 as -105). Now a release of boxes
    metres wide on the grid, holding their records."""
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"ID": np.arange(1, 189), "X": rng.integers(255, 336, 188).astype(float),
                       "Y": rng.integers(250, 401, 188).astype(float), "AGE": rng.integers(2, 37, 188)})
    df.to_csv(tmp_path / "burkitt.csv", index=False)
    extra = ["--qi", "AGE", "--identifiers", "ID"] if job == "anonymize" else ["--identifiers", "ID,AGE"]
    code, _, err = cli(job, tmp_path / "burkitt.csv", "--lat", "Y", "--lon", "X", "--crs", "EPSG:32636", *extra,
                       "-k", K, "--keep-order", "-o", tmp_path / "out.csv")
    assert code == 0, err
    out = pd.read_csv(tmp_path / "out.csv")
    check_published_boxes(df[["X", "Y"]].to_numpy(), out["class_id"].to_numpy(),
                          out[["X_min", "Y_min", "X_max", "Y_max"]].to_numpy(), K)
    held = out.dropna(subset=["X_min"])
    assert held["X_min"].min() >= 200 and held["X_max"].max() <= 400 and held["Y_max"].max() <= 500


def test_a_10_km_square_at_500_000_m_releases(tmp_path, cli):
    """2,000 points in a 10 km square at x = 500,000 m crashed in ``_shrunk``."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"id": np.arange(2000), "x": 500_000 + rng.uniform(0, 10_000, 2000),
                       "y": 3_500_000 + rng.uniform(0, 10_000, 2000), "age": rng.integers(18, 90, 2000)})
    df.to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "y", "--lon", "x", "--crs", "EPSG:32636", "--qi",
                       "age", "--identifiers", "id", "-k", K, "--keep-order", "-o", tmp_path / "out.csv")
    assert code == 0, err
    out = pd.read_csv(tmp_path / "out.csv")
    check_joint_release(df[["x", "y", "age"]], out.drop(columns=["id"], errors="ignore"), K, lat="y", lon="x",
                        intervals=["age"])
    assert out["x_min"].notna().mean() > 0.95


@pytest.mark.slow
def test_the_texas_visits_withhold_as_many_rows_in_utm_14n_as_in_lonlat():
    """Patients' visits over Texas, 5% of homes rural: in UTM 14N ``points``
    withheld 794 rows against 134 in lat/lon (of 50,000); here 6,000 visits,
    ``points`` and the default ``anonymize``, with age, sex and race."""
    df = texas_visits(6000, seed=1).rename(columns={"visit_id": "id"})
    qi = ("age", "sex", "race")
    for kind in ("points", "joint"):
        found = []
        for crs, table in (("EPSG:4326", lonlat(df)), ("EPSG:32614", projected(df, "EPSG:32614"))):
            found.append(quality(checked(kind, table, release(kind, table, crs, qi), crs, qi)))
        assert found[1][0] > 0 and found[0][0] > 0            # rural records are withheld, in both
        assert_alike(found[1], found[0], len(df))


# -- small and degenerate extents, and points a CRS cannot map ---------------------------------------------------

def _degenerate(name: str, n: int = 300):
    rng = np.random.default_rng(11)
    x, y = 500_000 + rng.uniform(0, 1000, n), 3_500_000 + rng.uniform(0, 1000, n)
    return {"all equal": (np.full(n, 500_000.0), np.full(n, 3_500_000.0), "EPSG:32636"),
            "a 10 m square": (500_000 + rng.uniform(0, 10, n), 3_500_000 + rng.uniform(0, 10, n), "EPSG:32636"),
            "x constant": (np.full(n, 500_000.0), y, "EPSG:32636"),
            "y constant": (x, np.full(n, 3_500_000.0), "EPSG:32636"),
            "a 1 km square far out": (x + 19_000_000, y + 15_000_000, "EPSG:3857"),
            "two points a metre apart": (500_000 + rng.integers(0, 2, n).astype(float), np.full(n, 3.5e6),
                                         "EPSG:32636")}[name]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["all equal", "a 10 m square", "x constant", "y constant", "a 1 km square far out",
                                  "two points a metre apart"])
def test_small_and_degenerate_extents_release_or_refuse_in_one_line(name, kind):
    x, y, crs = _degenerate(name)
    df = pd.DataFrame({"x": x, "y": y, "age": np.random.default_rng(0).integers(20, 80, len(x))})
    try:
        rel = release(kind, df, crs)
    except ga.GeoanonError as exc:
        assert "\n" not in str(exc)
        return
    km = checked(kind, df, rel, crs)
    assert np.isnan(km).mean() <= 0.05 and np.nanmax(km) < 2.0


def test_points_a_projected_crs_cannot_map_are_refused(tmp_path, cli):
    df = pd.DataFrame({"x": [5e5, 5.1e5, 9e12, 5.2e5], "y": [3.5e6, 3.6e6, 3.5e6, 3.7e6], "age": [30, 40, 50, 60]})
    with pytest.raises(ga.DataError, match=r"1 point lies outside the area that crs 'EPSG:32636' maps \(first: row 2"):
        release("joint", df, "EPSG:32636", k=2)
    df.to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli("points", tmp_path / "in.csv", "--lat", "y", "--lon", "x", "--crs", "EPSG:32636",
                       "--identifiers", "age", "-k", 2, "-o", tmp_path / "out.csv")
    assert code == 2 and "outside the area that crs" in err and not (tmp_path / "out.csv").exists()


def test_web_mercator_boxes_are_measured_on_the_ground():
    """At 60 degrees north a Web Mercator metre is half a metre on the ground:
    the report and the search measured its boxes twice as wide as they are."""
    df = towns(1500, 60.2, 24.9, count=4, reach_km=40, core=0.05)
    mercator, lonlat_km = projected(df, "EPSG:3857"), None
    for kind in ("points", "joint"):
        km = checked(kind, mercator, release(kind, mercator, "EPSG:3857"), "EPSG:3857")
        lonlat_km = checked(kind, lonlat(df), release(kind, lonlat(df), "EPSG:4326"), "EPSG:4326")
        assert_alike(quality(km), quality(lonlat_km), len(df))


# -- every CRS, the same quality ---------------------------------------------------------------------------------

@settings(max_examples=5, deadline=None)
@given(st.sampled_from(PLACES), st.integers(0, 2**16), st.floats(-0.5, 0.5), st.floats(-0.5, 0.5))
def test_a_projected_release_has_the_quality_of_the_lonlat_one(place, seed, north, east):
    """Towns near a place of each CRS's area, given in lat/lon and projected
    with pyproj: both releases pass the checkers and the audit, their reports
    measure on the ground, and they withhold as many rows and publish boxes
    as wide (within a release's spread, :func:`assert_alike`)."""
    crs, lat, lon = place
    df = towns(1000, lat + north, lon + east, count=6, reach_km=60, seed=seed, core=0.05)
    for kind in KINDS:
        lonlat_q = quality(checked(kind, lonlat(df), release(kind, lonlat(df), "EPSG:4326"), "EPSG:4326"))
        table = projected(df, crs)
        assert_alike(quality(checked(kind, table, release(kind, table, crs), crs)), lonlat_q, len(df))


@functools.lru_cache(maxsize=None)
def _lonlat_quality(seed: int, kind: str, qi: tuple) -> np.ndarray:
    """:func:`quality` of the lat/lon release of the Texas visits of ``seed``
    (the same for every CRS it is compared with)."""
    df = texas_visits(3000, seed=seed).rename(columns={"visit_id": "id"})
    return quality(ground_km(release(kind, lonlat(df), "EPSG:4326", qi).table, "y", "x", "EPSG:4326"))


@pytest.mark.slow
@pytest.mark.parametrize("crs, finer", [("EPSG:32614", 0.05), ("EPSG:2277", 0.15), ("EPSG:3857", 0.05),
                                        (TEXAS_KM, 0.05)])
def test_on_average_a_projected_release_is_as_precise_as_the_lonlat_one(crs, finer):
    """Over eight tables of Texas visits (3,000 rows each), per design: the
    geometric mean box within 5% of the lat/lon releases', the middle boxes
    (40th-60th percentile) within 10%, averaged over the tables; each release
    as :func:`assert_alike`. (Boxes come in plateaus of the grid's steps, and
    a median can fall on the step between two: 10.6 against 12.6 km, where
    the 45th and 55th percentiles of the two releases agree.) In US survey
    feet boxes may be up to 15% finer (the middle 20%): the default
    grid of box edges is never coarser on the ground than a metric one, and
    the round numbers of feet below a km fall at 610 m (2,000 ft) where
    degrees give 1.1 km (0.01)."""
    qi = ("age", "sex", "race")
    ratios = {kind: [] for kind in KINDS}
    for seed in range(8):
        df = texas_visits(3000, seed=seed).rename(columns={"visit_id": "id"})
        table = projected(df, crs)
        for kind in KINDS:
            lonlat_q = _lonlat_quality(seed, kind, qi)
            q = quality(ground_km(release(kind, table, crs, qi).table, "y", "x", crs))
            assert_alike(q, lonlat_q, len(df))
            ratios[kind].append(q / lonlat_q)
    for kind, r in ratios.items():
        mean = np.mean(r, axis=0)
        assert 1 - finer <= mean[3] <= 1.05 and 0.95 - finer <= mean[4] <= 1.10, (kind, mean)
