"""What the points job publishes at its edges: padded outer bounds (no published
coordinate is a record's), classes that wrap at the antimeridian (RFC 7946),
validated bounds, and the inputs it refuses or warns about."""
import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoanon as ga
from geoanon.report.maps import render_html, unwrap_antimeridian
from geoanon.points.partition import shortest_decimal_between

from checkers import (check_rectangle_partition, check_wrapped_rectangle_partition, drawn_geometries, point_weights,
                      without_context)

# US airports around the Pacific and the Caribbean, from ../shared/data/us_airports.csv
# (public domain; GUM and the CQ rows carry that file's western longitudes).
AIRPORTS = """iata,state,lat,lon
ADK,AK,51.87796389,-176.6460306
AKA,AK,52.22034833,-174.2063503
CDB,AK,55.20559972,-162.7242628
DUT,AK,53.90013889,-166.5435
FAQ,AS,14.21577583,-169.4239058
GRO,CQ,14.1743075,-145.2425353
GSN,CQ,15.11900139,-145.7293561
GUM,GU,13.48345,-144.7959825
HDH,HI,21.57947361,-158.1972814
HI01,HI,22.20919,-159.4455339
HNL,HI,21.31869111,-157.9224072
HNM,HI,20.79563722,-156.0144378
ITO,HI,19.72026306,-155.0484703
JHM,HI,20.96293639,-156.6730317
JRF,HI,21.30735389,-158.0703017
KFP,AK,54.84744583,-163.4103222
KOA,HI,19.73876583,-156.0456314
KPH,AK,54.45912028,-162.6936406
KQA,AK,54.13246694,-165.7853111
KVC,AK,55.1163475,-162.2662272
LIH,HI,21.97598306,-159.3389581
LNY,HI,20.78561111,-156.9514181
LUP,HI,21.21104028,-156.9735972
MKK,HI,21.15288583,-157.0962561
MUE,HI,20.00132694,-155.6681072
OGG,HI,20.89864972,-156.4304578
PAK,HI,21.89686833,-159.6033217
PBV,AK,56.57735278,-169.6637361
PPG,AS,14.33102278,-170.7105258
ROR,PW,7.367222,134.544167
SDP,AK,55.31502778,-160.5176944
SNP,AK,57.16733333,-170.2204444
SPN,MP,14.996111,145.621384
STT,VI,18.33730556,-64.97336111
STX,VI,17.70188889,-64.79855556
TNI,CQ,14.99685028,-145.6180383
TT01,CQ,18.12444444,-145.7686111
UPP,HI,20.26525583,-155.8599875
X66,VI,18.33856722,-64.94070111
X67,VI,17.74719528,-64.70486444
X96,VI,18.33689833,-64.79958306
YAP,FM,9.5167,138.1
Z08,AS,14.18435056,-169.6700236
Z73,AK,56.00753611,-161.1603672
"""
METHODS = ["balanced", "paper"]


def _airports():
    return pd.read_csv(io.StringIO(AIRPORTS), dtype={"iata": str})


def _widths(rect):
    """Longitude width of each (xmin, ymin, xmax, ymax), wrapped ones included."""
    return np.where(rect[:, 0] > rect[:, 2], rect[:, 2] + 360 - rect[:, 0], rect[:, 2] - rect[:, 0])


def _fiji_samoa(seed=0):
    """Synthetic records on both sides of 180: Fiji, Tonga and Samoa."""
    rng = np.random.default_rng(seed)
    fiji = np.c_[rng.uniform(177.0, 180.0, 120), rng.uniform(-19.2, -16.0, 120)]
    lau = np.c_[rng.uniform(-180.0, -178.2, 60), rng.uniform(-19.0, -16.5, 60)]
    tonga = np.c_[rng.uniform(-175.4, -173.9, 40), rng.uniform(-21.5, -18.5, 40)]
    samoa = np.c_[rng.uniform(-172.8, -171.4, 60), rng.uniform(-14.1, -13.4, 60)]
    return np.round(np.r_[fiji, lau, tonga, samoa], 4)


def _published_hits(xy, part):
    """Published x (y) coordinates that equal some record's x (y)."""
    edges = np.r_[part.rectangles[:, [0, 2]].ravel(), part.bounds[0], part.bounds[2]]
    hits = set(np.intersect1d(edges, xy[:, 0]).tolist())
    edges = np.r_[part.rectangles[:, [1, 3]].ravel(), part.bounds[1], part.bounds[3]]
    return hits | set(np.intersect1d(edges, xy[:, 1]).tolist())


# -- outer edges ---------------------------------------------------------------------

@st.composite
def tables(draw):
    """Random tables: duplicates, one spot, two records, negative coordinates,
    tiny and huge spans; longitude/latitude (strictly inside the world) or planar."""
    geographic = draw(st.booleans())
    n = draw(st.integers(1, 40))
    kind = draw(st.sampled_from(["grid", "spot", "tiny", "any"]))
    if kind == "any":
        lim = (179.999, 89.999) if geographic else (1e6, 1e6)
        xy = np.array(draw(st.lists(st.tuples(st.floats(-lim[0], lim[0]), st.floats(-lim[1], lim[1])),
                                    min_size=n, max_size=n)))
    else:
        centre = np.array([draw(st.floats(-170, 170)), draw(st.floats(-80, 80))])
        step = {"grid": draw(st.sampled_from([1.0, 0.001, 2.5])), "spot": 0.0,
                "tiny": draw(st.sampled_from([1e-9, 1e-12, 5e-15]))}[kind]
        grid = np.array(draw(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=n, max_size=n)))
        xy = centre + grid * step
    k = draw(st.integers(1, n))
    return xy.astype(float), k, "EPSG:4326" if geographic else None


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
@given(case=tables())
def test_no_published_coordinate_is_a_records(case, method):
    xy, k, crs = case
    part = ga.partition_points(xy, k, method=method, crs=crs).verify()
    assert not _published_hits(xy, part)
    check = check_wrapped_rectangle_partition if crs else check_rectangle_partition
    weights = check(xy, np.ones(len(xy)), k, part.labels, part.rectangles, part.bounds)
    assert max(weights) <= 4 * (k - 1) + _heaviest_cell(xy)   # Theorem 2


def _heaviest_cell(xy):
    """Records in the heaviest cell: coordinates one float apart are one
    (no boundary fits between them), along each axis."""
    cells = []
    for v in xy.T:
        values = np.unique(v)
        group = np.cumsum(np.r_[True, values[1:] > np.nextafter(values[:-1], np.inf)])
        cells.append(group[np.searchsorted(values, v)])
    return max(point_weights(np.column_stack(cells), np.ones(len(xy))).values())


def test_padding_rule_on_known_tables():
    # the demo's extent: 5% of the span out, then out to a multiple of 2 (lat) and 5 (lon)
    demo = np.array([[-124.6, 24.56], [-67.0, 48.9975], [-100.0, 35.0]])
    assert ga.partition_points(demo, 3).bounds == (-130.0, 22.0, -60.0, 52.0)
    # one spot: the scale is the coordinates' magnitude
    spot = np.tile([-122.6, 45.5], (12, 1))
    part = ga.partition_points(spot, 10)
    assert part.bounds == (-130.0, 42.0, -110.0, 48.0) and part.n_classes == 1
    assert part.rectangles.tolist() == [[-130.0, 42.0, -110.0, 48.0]]
    # two records at k=2: neither coordinate is published
    two = np.array([[2.3, 48.9], [2.4, 48.8]])
    part = ga.partition_points(two, 2)
    assert part.bounds == (2.29, 48.79, 2.41, 48.91) and not _published_hits(two, part)
    # planar, negative, at the world's edge (clipped)
    assert ga.partition_points([[-5.0, -5.0], [-1.0, -2.0]], 1, crs=None).bounds == (-5.2, -5.2, -0.8, -1.8)
    assert ga.partition_points([[0.0, 0.0]], 1, crs=None).bounds == (-0.1, -0.1, 0.1, 0.1)
    assert ga.partition_points([[179.5, 89.9], [170.0, 80.0]], 1).bounds == (169.5, 79.5, 180.0, 90.0)


@pytest.mark.parametrize("method", METHODS)
def test_padding_moves_outer_edges_only(method):
    rng = np.random.default_rng(5)
    xy = np.round(np.c_[rng.normal(-90, 5, 3000), rng.normal(38, 3, 3000)], 3)
    padded = ga.partition_points(xy, 10, method=method)
    tight = ga.partition_points(xy, 10, method=method, bounds=(*(xy.min(0) - 1e-4), *(xy.max(0) + 1e-4)))
    assert np.array_equal(padded.labels, tight.labels)
    outer = np.isin(tight.rectangles, tight.bounds)
    assert np.array_equal(padded.rectangles[~outer], tight.rectangles[~outer])
    assert not _published_hits(xy, padded) and not _published_hits(xy, tight)
    with pytest.raises(ga.DataError, match=r"touch 4 points: an edge on a record would publish its coordinate"):
        ga.partition_points(xy, 10, method=method, bounds=(*xy.min(0), *xy.max(0)))


def test_values_one_float_apart_are_never_cut_between():
    a = 45.123
    xy = np.array([[a, 1.0], [np.nextafter(a, 99), 1.0], [a + 1e-13, 1.0], [a + 3e-13, 1.0]])
    part = ga.partition_points(xy, 1, crs=None).verify()
    assert part.labels[0] == part.labels[1] and not _published_hits(xy, part)
    check_rectangle_partition(xy, np.ones(4), 1, part.labels, part.rectangles, part.bounds)
    # tiny magnitudes still get short decimals strictly between
    lo, hi = np.array([1e-20, -3e-30, 0.0]), np.array([3e-20, -1e-30, 5e-310])
    c = shortest_decimal_between(lo, hi)
    assert ((lo < c) & (c < hi)).all() and c[0] == 2e-20


# -- the antimeridian ----------------------------------------------------------------

@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("method", METHODS)
def test_pacific_airports_wrap_instead_of_spanning_the_globe(k, method):
    df = _airports()
    xy = df[["lon", "lat"]].to_numpy()
    part = ga.partition_points(xy, k, method=method).verify()
    check_wrapped_rectangle_partition(xy, np.ones(len(xy)), k, part.labels, part.rectangles, part.bounds)
    assert part.bounds[0] > part.bounds[2]                      # the region crosses the antimeridian
    assert (part.rectangles[:, 0] > part.rectangles[:, 2]).any()
    west_pacific = set(part.labels[xy[:, 0] > 100])             # Palau, Yap, Tinian
    assert not west_pacific & set(part.labels[df.state.eq("VI").to_numpy()])
    assert _widths(part.rectangles).max() < 120                 # was 211 before frames
    assert not _published_hits(xy, part)
    pacific = xy[df.state.ne("VI").to_numpy()]
    part = ga.partition_points(pacific, k, method=method).verify()
    check_wrapped_rectangle_partition(pacific, np.ones(len(pacific)), k, part.labels, part.rectangles, part.bounds)
    assert _widths(part.rectangles).max() <= (60 if method == "balanced" else 75)


@pytest.mark.parametrize("method", METHODS)
def test_fiji_and_samoa_get_narrow_wrapped_classes(method):
    xy = _fiji_samoa()
    part = ga.partition_points(xy, 10, method=method).verify()
    check_wrapped_rectangle_partition(xy, np.ones(len(xy)), 10, part.labels, part.rectangles, part.bounds)
    west, _, east, _ = part.bounds
    assert west > east and 170 <= west < 177 and -172 < east <= -165
    assert _widths(part.rectangles).max() <= 12 and not _published_hits(xy, part)
    lon_min, lon_max = part.rectangles[:, 0], part.rectangles[:, 2]
    assert ((-180 <= lon_min) & (lon_min < 180) & (-180 < lon_max) & (lon_max <= 180)).all()
    again = ga.partition_points(xy[::-1].copy(), 10, method=method)
    assert again.rectangles.tobytes() == part.rectangles.tobytes()
    assert np.array_equal(again.labels, part.labels[::-1])


def test_records_on_the_antimeridian_are_one_meridian():
    xy = np.array([[180.0, 10.0], [-180.0, 10.0], [179.0, 10.5], [-179.0, 9.5], [178.5, 9.0], [-178.5, 11.0]])
    part = ga.partition_points(xy, 2).verify()
    assert part.labels[0] == part.labels[1] and wrapped(part.bounds)
    check_wrapped_rectangle_partition(xy, np.ones(6), 2, part.labels, part.rectangles, part.bounds)
    # a cut next to a record at 180 is a short decimal east of it, never ±180 itself
    xy = np.array([[180.0, 0.0], [-179.5, 0.0], [170.0, 0.0], [-170.0, 0.0]])
    part = ga.partition_points(xy, 1).verify()
    assert part.n_classes == 4 and not (np.abs(part.rectangles[:, [0, 2]]) == 180).any()
    check_wrapped_rectangle_partition(xy, np.ones(4), 1, part.labels, part.rectangles, part.bounds)


def wrapped(bounds):
    return bounds[0] > bounds[2]


def test_explicit_bounds_are_used_as_given():
    xy = _fiji_samoa()
    part = ga.partition_points(xy, 10, bounds=(170, -25, -165, -10)).verify()
    assert part.bounds == (170, -25, -165, -10)
    check_wrapped_rectangle_partition(xy, np.ones(len(xy)), 10, part.labels, part.rectangles, part.bounds)
    for side in (xy[:, 0] > 0, xy[:, 0] < 0):   # records on one side of a wrapped region
        one = ga.partition_points(xy[side], 10, bounds=(170, -25, -165, -10)).verify()
        check_wrapped_rectangle_partition(xy[side], np.ones(side.sum()), 10, one.labels, one.rectangles, one.bounds)
    world = ga.partition_points(xy, 10, bounds=(-180, -90, 180, 90)).verify()   # no wrap when told so
    assert not (world.rectangles[:, 0] > world.rectangles[:, 2]).any()
    assert world.rectangles[:, [0, 2]].min() == -180 and world.rectangles[:, [0, 2]].max() == 180


@pytest.mark.parametrize("bounds, crs, error, match", [
    ((-np.inf, -np.inf, np.inf, np.inf), "EPSG:4326", ga.ParameterError, "finite"),
    ((0, 0, 1), "EPSG:4326", ga.ParameterError, "four numbers"),
    ((True, 0, 1, 1), "EPSG:4326", ga.ParameterError, "four numbers"),
    ((0, 0, "1", 1), None, ga.ParameterError, "four numbers"),
    ((0, 1, 1, 0), None, ga.ParameterError, "ymin is above ymax"),
    ((1, 0, 0, 1), None, ga.ParameterError, "needs a geographic crs"),
    ((np.float64(-190.5), 0, 0, 1), "EPSG:4326", ga.ParameterError, r"\(-190.5, 0.0, 0.0, 1.0\) must lie within"),
    ((180, 0, -170, 1), "EPSG:4326", ga.ParameterError, "write 180 as -180"),
    ((0.6, 0, 2, 2), None, ga.DataError, "must contain every point"),
    ((10, 0, 0.7, 2), "EPSG:4326", ga.DataError, r"1 point lies outside, e.g. \(1.0, 1.0\)"),
    ((0.5, 0, 2, 2), None, ga.DataError, r"touch 1 point"),
    ((0, 0, 1, 2), None, ga.DataError, r"touch 1 point"),
])
def test_bad_bounds(bounds, crs, error, match):
    with pytest.raises(error, match=match) as err:
        ga.partition_points([[0.5, 0.5], [1, 1]], 1, crs=crs, bounds=bounds)
    assert "np." not in str(err.value) and "\n" not in str(err.value)


def test_geo_outputs_cut_wrapped_classes_at_the_antimeridian(tmp_path):
    import geopandas as gpd

    xy = _fiji_samoa()
    df = pd.DataFrame({"id": range(len(xy)), "lat": xy[:, 1], "lon": xy[:, 0]})
    rel = ga.generalize_points(df, 10, identifiers=["id"])
    across = rel.in_input_order().lon_min > rel.in_input_order().lon_max
    assert across.any() and rel.notes[-1].endswith("across the antimeridian (lon_min > lon_max, RFC 7946)")
    rel.to_file(tmp_path / "out.geojson", keep_order=True)          # row i is record i
    out = gpd.read_file(tmp_path / "out.geojson")
    assert (out.geometry.geom_type[across.to_numpy()] == "MultiPolygon").all()
    assert (out.geometry.geom_type[~across.to_numpy()] == "Polygon").all()
    lon = out.geometry.bounds[["minx", "maxx"]].to_numpy()
    assert lon.min() >= -180 and lon.max() <= 180
    assert out.geometry.covers(gpd.GeoSeries.from_xy(df.lon, df.lat, index=out.index, crs=out.crs)).all()
    assert set(rel.classes.geometry.geom_type) == {"Polygon", "MultiPolygon"}
    assert rel.report["bounds"][0] > rel.report["bounds"][2]


@pytest.mark.slow
def test_map_draws_wrapped_classes_whole():
    rel = ga.generalize_points(_airports(), 3, identifiers=["iata"], keep=["state"])
    html = render_html(rel.preview())
    view = re.search(r"fitBounds\(\s*\[\[([-\d.]+), ([-\d.]+)\], \[([-\d.]+), ([-\d.]+)\]\]", html)
    south, west, north, east = map(float, view.groups())
    boxes = rel.classes.geometry.bounds                       # the published boxes, inside the bounds tiled
    assert rel.partition.bounds[0] <= west < rel.partition.bounds[0] + 30 and east <= rel.partition.bounds[2] + 360
    shapes = drawn_geometries(html)
    assert len(shapes) == len(boxes) >= rel.partition.n_classes - 1
    assert all(g["type"] == "Polygon" for g in shapes)   # each class in one piece
    xs = [c[0] for g in shapes for c in g["coordinates"][0]]
    assert min(xs) == west and max(xs) == east > 180
    html = without_context(html)
    for xy in _airports()[["lon", "lat"]].to_numpy():   # records never appear, in either frame
        assert f"{xy[0]}" not in html and f"{xy[0] + 360}" not in html


def test_unwrap_leaves_shapes_alone_when_the_gap_is_at_the_antimeridian():
    import shapely

    boxes = shapely.box([-120, -100, 10], [30, 30, 30], [-110, -90, 20], [40, 40, 40])
    assert (unwrap_antimeridian(boxes) == boxes).all()
    across = shapely.box([175, -180, 170], [0, 0, 10], [180, -175, 175], [5, 5, 20])
    drawn = unwrap_antimeridian(across)
    assert [tuple(shapely.bounds(g)) for g in drawn] == [(175, 0, 180, 5), (180, 0, 185, 5), (170, 10, 175, 20)]


# -- inputs refused or warned about --------------------------------------------------

@pytest.mark.parametrize("xy, match", [
    ([[True, 1.5], [1.0, 2.0]], "real numbers, got True at row 0"),
    (np.array([[1 + 1j, 2], [3, 4]]), "real numbers, got complex numbers"),
    (np.array([[True, False]]), "real numbers, got booleans"),
    (np.array([[1.0, np.bool_(True)]], dtype=object), "real numbers, got True at row 0"),
    (pd.DataFrame({"x": [1.0, 2.0], "y": [0.5, 2j]}), "real numbers, got complex numbers"),
    (pd.DataFrame({"x": [1.0, 2.0], "y": [0.5, True]}, dtype=object), "real numbers, got True at row 1"),
])
def test_booleans_and_complex_numbers_are_not_coordinates(xy, match):
    with pytest.raises(ga.DataError, match=match):
        ga.partition_points(xy, 1)


@pytest.mark.parametrize("column, match", [
    (pd.Series([True, False, True]), "holds booleans"),
    (pd.Series([1 + 1j, 2, 3]), "holds complex numbers"),
    (pd.Series([41.0, True, 42.0], dtype=object), r"column 'lat', row 1: True is not a coordinate"),
    (pd.Series([41.0, 42.0, 1j], dtype=object), r"column 'lat', row 2: 1j is not a coordinate"),
])
def test_generalize_points_refuses_non_real_columns(column, match):
    df = pd.DataFrame({"lat": column, "lon": [1.0, 2.0, 3.0]})
    with pytest.raises(ga.DataError, match=match):
        ga.generalize_points(df, 1)


def test_columns_given_two_roles_or_two_names():
    df = pd.DataFrame({"lat": [1.0, 2.0], "lon": [1.0, 2.0]})
    with pytest.raises(ga.ParameterError, match="'lat' is given two roles: location lat and location lon"):
        ga.generalize_points(df, 1, lat="lat", lon="lat")
    twice = pd.DataFrame([[1.0, 2.0, 3.0]], columns=["lat", "lon", "lat"])
    with pytest.raises(TypeError, match="2 columns named 'lat'"):
        ga.generalize_points(twice, 1)


def test_messages_count_rows_right_and_show_plain_values():
    df = pd.DataFrame({"lat": [np.nan, 1.0, 2.0, 3.0], "lon": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ga.DataError, match=r"^1 row has no coordinates \(first: row 0\); use missing='suppress'"):
        ga.generalize_points(df, 1)
    with pytest.raises(ga.DataError, match=r"^2 rows have no coordinates"):
        ga.generalize_points(df.assign(lon=[1.0, np.nan, 3.0, 4.0]), 1)
    with pytest.raises(ga.InfeasibleError, match=r"^1 row without coordinates cannot form"):
        ga.generalize_points(df, 2, missing="suppress")
    with pytest.raises(ga.DataError, match=r"^1 point lies outside .* lon=-180.5, lat=1.0\)$"):
        ga.partition_points(np.array([[-180.5, 1.0], [0.0, 0.0]]), 1)
    with pytest.raises(ga.DataError, match=r"^2 points have NaN or infinite coordinates \(first: row 0, x=inf"):
        ga.partition_points(np.array([[np.inf, 1.0], [0.0, np.nan]]), 1)


def test_null_island_is_reported():
    df = pd.DataFrame({"lat": [0.0, 10.0, 0.0, 11.0, 0, 0.0], "lon": [0.0, 20.0, -0.0, 21.0, 0, 0.0]},
                      index=[f"r{i}" for i in range(6)])
    rel = ga.generalize_points(df, 2)
    assert rel.warnings == rel.report["warnings"]
    (line,) = rel.warnings
    assert line.startswith("4 records at exactly (0, 0) (\"Null Island\"") and "r0" not in line
    assert "missing='suppress'" in line and "\n" not in line
    assert ga.generalize_points(df.iloc[1:3], 2).warnings == [line.replace("4 records", "1 record")]
    assert ga.generalize_points(df, 2, crs="EPSG:5070").warnings == []   # projected: (0, 0) is a place


def test_geometry_without_a_crs():
    import geopandas as gpd

    rng = np.random.default_rng(2)
    points = gpd.points_from_xy(rng.uniform(5, 6, 40), rng.uniform(45, 46, 40))
    lonlat = gpd.GeoDataFrame({"a": range(40)}, geometry=points)
    rel = ga.generalize_points(lonlat, 5, lat=None, lon=None, keep=["a"])
    assert rel.warnings == ["the input geometry has no CRS; assumed EPSG:4326 (longitude/latitude), "
                            "since every coordinate fits it"]
    assert rel.in_input_order().crs.to_epsg() == 4326 and {"lat_min", "lon_max"} <= set(rel.in_input_order().columns)
    assert "L.map(" in render_html(rel.preview())
    metres = lonlat.set_geometry(gpd.points_from_xy(rng.uniform(5e5, 6e5, 40), rng.uniform(4e6, 5e6, 40)))
    with pytest.raises(ga.DataError, match=r"^the input geometry has no CRS and row 0 at \([\d.]+, [\d.]+\) is "
                                           r"not a longitude/latitude; give the file its CRS"):
        ga.generalize_points(metres, 5, lat=None, lon=None)
