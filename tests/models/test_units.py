"""The loss in plain units (geoanon.ncp.plain_units) on small tables computed
by hand: interval widths in the column's unit (days for dates), open and
suppressed intervals apart, the share of category cells published exactly,
the location's box diagonal or group diameter in km; and NCP, an interval
clipped to the input's range, never above 1."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoanon as ga
from geoanon.ncp import plain_units

ONE_DEGREE_KM = 2 * np.pi * 6371.0088 / 360      # along a meridian


def _interval(col):
    return {col: ("interval", (f"{col}_min", f"{col}_max"))}


def test_interval_widths_by_hand_with_open_and_suppressed_intervals():
    # five closed intervals (widths 5, 10, 10, 20, 40), one top-coded (90+), one suppressed, one missing input
    original = pd.DataFrame({"age": [31, 42, 45, 60, 50, 93, 70, None]})
    released = pd.DataFrame({"age_min": [30, 40, 40, 50, 30, 90, None, None],
                             "age_max": [35, 50, 50, 70, 70, None, None, None]})
    age = plain_units(original, released, _interval("age"))["columns"]["age"]
    # median of 5, 10, 10, 20, 40 is 10; p90 at 0.9 * 4 = 3.6 between 20 and 40: 20 + 0.6 * 20
    assert age == {"median_width": 10.0, "p90_width": 32.0, "unit": None, "open": 0.125, "suppressed": 0.125}


def test_date_widths_in_days_and_an_open_date():
    original = pd.DataFrame({"visit": ["2024-01-15", "2024-02-10", "2024-07-04", "2024-06-20"]})
    released = pd.DataFrame({"visit_min": ["2024-01-01", "2024-02-01", "2024-01-01", "2024-06-01"],
                             "visit_max": ["2024-01-31", "2024-02-29", "2024-12-31", None]})
    visit = plain_units(original, released, {"visit": ("date", ("visit_min", "visit_max"))})["columns"]["visit"]
    # 30, 28 (2024 is a leap year) and 365 days; p90 at 1.8: 30 + 0.8 * (365 - 30)
    assert visit == {"median_width": 30.0, "p90_width": 298.0, "unit": "days", "open": 0.25, "suppressed": 0.0}
    stamps = pd.DataFrame({"t_min": ["2024-03-01T00:00:00", "2024-03-01T06:00:00"],
                           "t_max": ["2024-03-01T12:00:00", "2024-03-02T06:00:00"]})
    t = plain_units(pd.DataFrame({"t": ["2024-03-01T08:00:00"] * 2}), stamps,
                    {"t": ("date", ("t_min", "t_max"))})["columns"]["t"]
    assert t["unit"] == "days" and t["median_width"] == 0.75      # half a day and a day


def test_a_longitude_interval_across_the_antimeridian_is_as_wide_as_it_reaches():
    released = pd.DataFrame({"lon_min": [179.0, 10.0], "lon_max": [-179.0, 12.0]})
    lon = plain_units(pd.DataFrame({"lon": [179.5, 11.0]}), released,
                      {"lon": ("longitude", ("lon_min", "lon_max"))})["columns"]["lon"]
    assert lon["median_width"] == 2.0 and lon["p90_width"] == 2.0


def test_share_of_category_cells_published_exactly():
    original = pd.DataFrame({"sex": ["F", "M", "F", None], "code": ["=x", "b", "c", "d"],
                             "n": [30, 31, 32, 33], "marital": ["married", "single", "widowed", "single"]})
    released = pd.DataFrame({"sex": ["F", "*", "F", None],          # a missing value published missing is exact
                             "code": ["'=x", "b|c", "b|c", "*"],   # a formula escaped is still the value
                             "n": ["30", "*", "*", "*"],           # a number published as text
                             "marital": ["married", "unmarried", "unmarried", "single"]})
    units = plain_units(original, released, {"sex": ("suppress", "sex"), "code": ("set", "code"),
                                             "n": ("suppress", "n"), "marital": ("hierarchy", "marital")})
    assert units["columns"] == {"sex": {"exact": 0.75}, "code": {"exact": 0.25}, "n": {"exact": 0.25},
                                "marital": {"exact": 0.5}}
    assert "location" not in units


def test_box_diagonal_in_km():
    # boxes along a meridian: the diagonal is the height, one or two degrees; the last row has no box
    released = pd.DataFrame({"lat_min": [0.0, 10.0, 20.0, None], "lat_max": [1.0, 11.0, 22.0, None],
                             "lon_min": [5.0, 5.0, 5.0, None], "lon_max": [5.0, 5.0, 5.0, None]})
    original = pd.DataFrame({"lat": [0.5, 10.5, 21.0, 30.0], "lon": [5.0, 5.0, 5.0, 5.0]})
    treatments = {**_interval("lat"), "lon": ("longitude", ("lon_min", "lon_max"))}
    units = plain_units(original, released, treatments, location=("lat", "lon"), crs="EPSG:4326")
    assert units["columns"] == {}
    loc = units["location"]
    assert loc["measure"] == "box diagonal" and loc["without"] == 0.25
    assert loc["median_km"] == pytest.approx(ONE_DEGREE_KM, abs=1e-3)
    assert loc["p90_km"] == pytest.approx(1.8 * ONE_DEGREE_KM, abs=1e-3)    # 1 + 0.8 * (2 - 1) degrees
    # the diagonal of a box one degree square at the equator
    square = pd.DataFrame({"lat_min": [0.0], "lat_max": [1.0], "lon_min": [0.0], "lon_max": [1.0]})
    one = plain_units(pd.DataFrame({"lat": [0.5], "lon": [0.5]}), square, treatments, location=("lat", "lon"),
                      crs="EPSG:4326")
    assert one["location"]["median_km"] == pytest.approx(157.25, abs=0.01)
    # without a CRS the coordinates are intervals in their own unit
    plain = plain_units(original, released, treatments, location=("lat", "lon"))
    assert "location" not in plain and plain["columns"]["lat"]["median_width"] == 1.0


def test_group_diameter_per_row():
    original = pd.DataFrame({"zip": ["A", "B", "C", "D"]})
    released = pd.DataFrame({"zip": ["A|B", "A|B", "C", "*"]})
    # per row: its group's diameter, one degree of latitude twice, 0 (one region), none ('*')
    units = plain_units(original, released, {"zip": ("set", "zip")}, location=("zip",), crs="EPSG:4326",
                        km=np.array([ONE_DEGREE_KM, ONE_DEGREE_KM, 0.0, np.nan]))
    loc = units["location"]
    assert loc["measure"] == "group diameter" and loc["without"] == 0.25 and loc["exact"] == 0.25
    assert loc["median_km"] == loc["p90_km"] == pytest.approx(ONE_DEGREE_KM, abs=1e-3)
    # 5 km of UTM grid near the central meridian, measured on the ground (longitude/latitude on the sphere of
    # mean radius): within 0.2% of 5 km (the grid's scale there is 0.9996), not the grid's 5.000 exactly; a
    # group's diameter is the one measure node_diameters takes, which the report's figures read
    from geoanon._geo import ground
    from geoanon.joint.km_loss import node_diameters

    boxes = np.array([(500000.0, 4e6, 500000.0, 4e6), (503000.0, 4004000.0, 503000.0, 4004000.0)])
    km = float(node_diameters([np.zeros(2, dtype=np.int64)], boxes, ground("EPSG:32617"))[0][0])
    assert km == pytest.approx(5.0, rel=2e-3) and km != 5.0


def test_interval_ncp_is_clipped_to_the_input_range():
    # ages 17 to 90 published as [15, 95]: the whole range, 1 (it was (95 - 15) / 73 = 1.10 before)
    original = pd.DataFrame({"age": [17, 40, 90]})
    released = pd.DataFrame({"age_min": [15, 30, 80], "age_max": [95, 50, None]})
    loss = ga.information_loss(original, released, _interval("age"))
    # [30, 50]: 20 / 73; 80+ reaches 90: 10 / 73
    assert loss["columns"]["age"] == pytest.approx((1 + 20 / 73 + 10 / 73) / 3)
    wrapped = ga.information_loss(pd.DataFrame({"lon": [170.0, 175.0, -170.0]}),
                                  pd.DataFrame({"lon_min": [160.0, 165.0, -175.0], "lon_max": [-160.0, 178.0, -165.0]}),
                                  {"lon": ("longitude", ("lon_min", "lon_max"))})
    # the input spans -170 to 175 (345 degrees): [160, -160] keeps [160, 175] and [-170, -160], 15 + 10
    # degrees; [165, 178] keeps [165, 175]; [-175, -165] keeps [-170, -165]
    assert wrapped["columns"]["lon"] == pytest.approx((25 + 10 + 5) / 345 / 3)


@given(st.lists(st.tuples(st.floats(-100, 100), st.floats(0, 50), st.floats(0, 50)), min_size=2, max_size=30),
       st.booleans())
def test_ncp_of_an_interval_holding_its_value_is_between_0_and_1(cells, wraps):
    x = np.array([v for v, _, _ in cells])
    lo = np.array([v - below for v, below, _ in cells])
    hi = np.array([v + above for v, _, above in cells])
    kind = "longitude" if wraps else "interval"
    loss = ga.information_loss(pd.DataFrame({"x": x}), pd.DataFrame({"x_min": lo, "x_max": hi}),
                               {"x": (kind, ("x_min", "x_max"))})
    assert 0 <= loss["columns"]["x"] <= 1 + 1e-12


def test_a_joint_release_reports_its_units_beside_its_ncp():
    df = pd.DataFrame({
        "lat": [35.99, 36.01, 35.98, 36.02, 35.78, 35.80, 35.77, 35.79],
        "lon": [-78.90, -78.91, -78.93, -78.89, -78.64, -78.66, -78.62, -78.63],
        "age": [34, 38, 45, 51, 29, 33, 62, 58],
        "sex": ["F", "M", "F", "M", "F", "F", "M", "M"],
        "diagnosis": ["flu", "copd", "flu", "gout", "copd", "flu", "gout", "flu"]})
    r = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], sensitive="diagnosis", k=2, l_distinct=2)
    t = r.in_input_order()
    # the youngest class publishes [0, 39] (the column's floor) while the input starts at 29: NCP stays within 1
    assert all(0 <= v <= 1 for v in r.report["ncp"]["columns"].values())
    units = r.report["units"]
    closed = np.isfinite(t["age_max"])                 # an open end is inf
    widths = (t["age_max"] - t["age_min"])[closed].astype(float)
    assert units["columns"]["age"] == {"median_width": float(widths.median()),
                                       "p90_width": float(np.quantile(widths, 0.9)), "unit": None,
                                       "open": (~closed).mean(), "suppressed": 0.0}
    assert units["columns"]["age"]["open"] == 0.25                        # 55+ for two records
    assert units["columns"]["sex"] == {"exact": (t["sex"] == df["sex"]).mean()}
    diagonal = _haversine(t["lat_min"], t["lon_min"], t["lat_max"], t["lon_max"])
    assert units["location"]["measure"] == "box diagonal"
    assert units["location"]["median_km"] == pytest.approx(np.median(diagonal), rel=1e-3)


def test_a_joint_release_of_dates_reports_days():
    from test_dates import visits

    df = visits(400)
    r = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "visit"], k=10)
    t = r.in_input_order()
    days = (pd.to_datetime(t["visit_max"].where(t["visit_max"] != "..")) -
            pd.to_datetime(t["visit_min"].where(t["visit_min"] != ".."))).dt.days.dropna()
    visit = r.report["units"]["columns"]["visit"]
    assert visit["unit"] == "days" and visit["median_width"] == days.median()
    assert visit["p90_width"] == pytest.approx(np.quantile(days, 0.9))
    assert 0 < r.report["ncp"]["columns"]["visit"] <= 1


def _haversine(lat_a, lon_a, lat_b, lon_b) -> np.ndarray:
    """Great-circle distance in km between two corners, per row (written here, not geoanon's)."""
    p, q = np.radians(np.asarray(lat_a, float)), np.radians(np.asarray(lat_b, float))
    dl = np.radians(np.asarray(lon_b, float) - np.asarray(lon_a, float))
    h = np.sin((q - p) / 2) ** 2 + np.cos(p) * np.cos(q) * np.sin(dl / 2) ** 2
    return 2 * 6371.0088 * np.arcsin(np.sqrt(h))
