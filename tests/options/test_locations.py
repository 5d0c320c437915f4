"""The table of location kinds (geoanon.options.locations): every front end
and check reads each kind's shape from it."""
import pytest

from geoanon.errors import ParameterError
from geoanon.options.checks import check_location_loss, check_max_extent, check_max_suppressed, parse_location
from geoanon.options.locations import LABEL, LOCATIONS, NO_LOCATION, POINTS, ZIP, by_keys, by_report, listed

REGIONS = {"zip": "z", "regions": "map.gpkg", "region_id": "id"}


def test_the_table_lists_each_kind_once_under_its_api_and_report_names():
    assert [LOCATIONS[s.name] for s in (NO_LOCATION, POINTS, ZIP, LABEL)] == [NO_LOCATION, POINTS, ZIP, LABEL]
    assert [by_report(s.report) for s in (POINTS, ZIP, LABEL)] == [POINTS, ZIP, LABEL]
    reports = [s.report for s in LOCATIONS.values()]
    assert len(set(reports)) == len(reports)
    for shape in LOCATIONS.values():
        assert set(shape.columns) <= set(shape.needed) and set(shape.choices) <= set(shape.optional)


def test_a_kind_names_its_columns_and_writes_its_release_and_report_entries():
    loc = {"zip": "home", "regions": "map.gpkg", "region_id": "id", "small": "suppress"}
    assert ZIP.column_names(loc) == ("home",)
    assert ZIP.release_location(loc) == {"kind": "regions", "columns": ("home",)}
    assert ZIP.report_entry(loc) == {"kind": "zip", **loc}
    assert POINTS.release_location({"lon": "x", "lat": "y"}) == {"kind": "points", "columns": ("y", "x")}
    assert NO_LOCATION.release_location({}) is None and NO_LOCATION.report_entry({}) is None


def test_each_kind_declares_its_flags_and_job_file_keys_and_the_table_takes_them_in():
    from geoanon.options.table import LOCATION_GROUP, OPTIONS

    assert [(row.flag, row.key) for row in OPTIONS if row.group == LOCATION_GROUP] == [
        (row.flag, row.key) for shape in LOCATIONS.values() for row in shape.options]
    for shape in (POINTS, ZIP, LABEL):
        keys = {row.key.rpartition(".")[2] for row in shape.options if row.key.startswith("columns.location.")}
        assert keys == set(shape.keys)
    assert POINTS.flags(POINTS.keys) == "--lat/--lon" and ZIP.flags(ZIP.columns) == "--zip-col"
    assert LOCATION_GROUP.startswith("location (one of: --lat/--lon, --zip-col/--regions/--region-id, --label-col, ")
    assert LOCATION_GROUP.endswith(", or none)")


@pytest.mark.parametrize("keys, shape", [({"lat"}, POINTS), ({"zip", "small"}, ZIP), ({"label"}, LABEL),
                                         ({"lat", "zip"}, None), (set(), None)])
def test_by_keys_finds_the_kind_whose_keys_hold_them(keys, shape):
    assert by_keys(keys) is shape


def test_parse_location_reads_every_kind_of_the_table():
    assert parse_location(("y", "x")) == ("points", {"lat": "y", "lon": "x"})
    assert parse_location({**REGIONS, "small": "nearest"}) == ("zip", {**REGIONS, "small": "nearest"})
    assert parse_location({"label": "name"}) == ("label", {"label": "name"})
    with pytest.raises(ParameterError, match="location needs lat and lon, or zip, regions and region_id, or label"):
        parse_location({"zip": "z"})
    with pytest.raises(ParameterError, match="a dict with lat and lon, zip, "):
        parse_location("lat")
    with pytest.raises(ParameterError, match="unknown key 'small' for a points location"):
        parse_location({"lat": "y", "lon": "x", "small": "error"})
    with pytest.raises(ParameterError, match="location small"):
        parse_location({**REGIONS, "small": "everything"})


def test_the_options_a_kind_admits_come_from_its_row():
    defaults = [check_location_loss(None, s.name, "joint") for s in (NO_LOCATION, POINTS, ZIP, LABEL)]
    assert defaults == ["range", "km", "km", "range"]
    assert check_location_loss(None, "points", "frontier") == "spacing"
    with pytest.raises(ParameterError, match="location_loss='km' needs a points location .* or a ZIP location"):
        check_location_loss("km", "label", "frontier")
    with pytest.raises(ParameterError, match="location_loss='spread' needs a points location"):
        check_location_loss("spread", "zip", "frontier")
    assert check_max_extent(5, "zip", "frontier") == 5.0
    with pytest.raises(ParameterError, match="max_extent_km needs"):
        check_max_extent(5, "label", "frontier")
    assert check_max_suppressed(0.1, None) == check_max_suppressed(0.1, "points") == 0.1
    with pytest.raises(ParameterError, match="max_suppressed works with a points location or none"):
        check_max_suppressed(0.1, "zip")


def test_listed_joins_words_as_english():
    assert listed(["a"]) == "a" and listed(["a", "b", "c"]) == "a, b or c"
    assert listed(["a", "b", "c"], ", or ") == "a, b, or c" and listed(["a", "b"], " and ") == "a and b"
