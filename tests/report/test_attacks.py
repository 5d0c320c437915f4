"""Issue 48's attacks by someone who has read the docs, each on a small table
of the kind users release: what the release, its report and its map must
no longer give away. (Row order: test_row_order.py; interrupted commits:
tests/front/test_commit_signals.py.)"""
import json

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.datasets import data_path


# -- l = 1 and t: what a class tells of its sensitive value, said even when not asked -------------------------

def _clinic(n=400, seed=2):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"lat": np.round(35.7 + rng.random(n) * 0.4, 4), "lon": np.round(-78.9 + rng.random(n) * 0.4, 4),
                       "age": rng.integers(20, 90, n), "diagnosis": rng.choice(["flu", "copd", "gout"], n)})
    west = df["lon"] < -78.8                      # everyone in the west has the same diagnosis
    df.loc[west, "diagnosis"] = "hiv"
    return df, int(west.sum())


@pytest.mark.parametrize("job", ["anonymize", "suppress"])
def test_classes_of_one_sensitive_value_are_warned_about_and_reported(job, tmp_path):
    df, west = _clinic()
    if job == "anonymize":
        release = ga.anonymize(df, location=("lat", "lon"), qi=["age"], sensitive="diagnosis", k=5)
    else:
        df["area"] = np.where(df["lon"] < -78.8, "W", "E")
        release = ga.suppress(df.drop(columns=["lat", "lon"]), ["area", "age"], sensitive="diagnosis", k=5)
    same = release.report["audit"]["homogeneous"]
    assert same["records"] >= west // 2 and same["share"] == pytest.approx(same["records"] / len(df), abs=1e-6)
    assert any("share one 'diagnosis' value (l = 1)" in w and f"{same['records']:,} records" in w
               for w in release.warnings), release.warnings
    release.to_file(tmp_path / "out.csv", report=tmp_path / "r.json", html_report=tmp_path / "r.html")
    assert json.loads((tmp_path / "r.json").read_text())["audit"]["homogeneous"]["records"] == same["records"]
    assert "classes of one sensitive value (l = 1)" in (tmp_path / "r.html").read_text()
    asked = (ga.anonymize(df, location=("lat", "lon"), qi=["age"], sensitive="diagnosis", k=5, l=2)
             if job == "anonymize" else
             ga.suppress(df.drop(columns=["lat", "lon"]), ["area", "age"], sensitive="diagnosis", k=5, l=2))
    assert asked.report["audit"]["homogeneous"]["records"] == 0 and not any("l = 1" in w for w in asked.warnings)


def test_classes_far_from_the_table_are_warned_about_unless_t_was_asked():
    df, _ = _clinic()
    release = ga.anonymize(df, location=("lat", "lon"), qi=["age"], sensitive="diagnosis", k=5)
    far = release.report["audit"]["far_from_table"]
    assert far["t"] == 0.5 and far["records"] > 0
    assert any("differ from the table's by more than t = 0.5" in w for w in release.warnings)
    loose = ga.anonymize(df, location=("lat", "lon"), qi=["age"], sensitive="diagnosis", k=5, t=0.8)
    assert not any("more than t" in w for w in loose.warnings)


# -- ZIP codes stored as numbers --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def zip_map():
    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str)
    edges = pd.read_csv(data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)
    return nodes, edges


def _northeast(nodes, n=400, seed=1):
    rng = np.random.default_rng(seed)
    zips = nodes.loc[nodes["state"].isin(["MA", "CT", "RI", "NJ"]), "zip"].to_numpy()
    return pd.DataFrame({"zip": rng.choice(zips, n).astype(int), "sex": rng.choice(["F", "M"], n)})


@pytest.mark.slow
@pytest.mark.parametrize("job", ["zip", "anonymize"])
def test_a_numeric_zip_column_gets_its_leading_zeros_back(job, zip_map):
    nodes, edges = zip_map
    df = _northeast(nodes)
    assert (df["zip"] < 10000).all()             # every code lost its leading zero
    location = {"regions": nodes, "region_id": "zip", "edges": edges, "unknown": "suppress"}
    if job == "zip":
        release = ga.generalize_regions(df, 10, column="zip", keep=["sex"], **location)
        unknown = release.report["unknown_rows"]
    else:
        release = ga.anonymize(df, location={"zip": "zip", **location}, qi=["sex"], k=10)
        unknown = release.report.details["unknown_rows"] if "unknown_rows" in release.report.details else 0
    assert unknown == 0 and (release.table["zip"] != "*").all()
    assert any(f"leading zeros restored to 5 digits for {len(df)} records" in w for w in release.warnings)


def test_region_codes_from_numbers():
    from geoanon.errors import DataError
    from geoanon.pipeline.region_map import code_width, region_values

    warnings = []
    got = region_values(pd.Series([2134.0, np.nan, 27701.0], name="zip"), code_width(["02134", "27701"]), warnings)
    assert got.tolist()[0::2] == ["02134", "27701"] and pd.isna(got.iloc[1])
    assert warnings == ["column 'zip' holds numbers: leading zeros restored to 5 digits for 1 record "
                        "(e.g. 2134 -> 02134); store the column as text to keep them"]
    assert region_values(pd.Series([7, 12]), code_width(["7", "12"])).tolist() == ["7", "12"]   # ids of any width
    with pytest.raises(DataError, match="not region codes .*2134.5"):
        region_values(pd.Series([2134.5, 27701.0], name="zip"), 5)


# -- roll-up labels and the map: no unit's count --------------------------------------------------------------

def _nc_patients(nodes, n=3000, seed=0):
    """Records in North Carolina ZIP codes of very unequal sizes: many
    counties hold 1 to 9 of them."""
    nc = nodes[nodes["state"] == "NC"]
    rng = np.random.default_rng(seed)
    weight = rng.lognormal(0, 2, len(nc))
    return pd.DataFrame({"zip": rng.choice(nc["zip"].to_numpy(), n, p=weight / weight.sum()),
                         "sex": rng.choice(["F", "M"], n)})


@pytest.mark.slow
@pytest.mark.parametrize("level", ["county", "zip"])
def test_group_names_and_the_map_tell_no_unit_count(level, zip_map):
    """The attack: a label that named only some of a group's members by
    their counts (the members holding 0 or >= k records, at a19b1a4) gave
    away the others. Now a label names all of its group's members that hold
    records, at one level (ZIP codes, ZIP3 areas, counties; states last), or
    one of them and +N counting them all, and never as many as the group's
    records (which would say each holds one); the map draws every member
    holding records, and no member without records unless it connects the
    group."""
    from checkers import check_region_groups

    nodes, edges = zip_map
    df = _nc_patients(nodes)
    release = ga.generalize_regions(df, 10, column="zip", regions=nodes, region_id="zip", edges=edges,
                                    zip_level=level, keep=["sex"])
    place = nodes.set_index("zip")
    county = place["state"] + "/" + place["county"]
    unit = county if level == "county" else pd.Series(place.index, index=place.index)
    held = df["zip"].map(unit).value_counts()
    above = {"zip3": lambda u: u[:3] + "xx", "county": county.get, "state": lambda u: "NC"}
    ladder = ["zip3", "county", "state"] if level == "zip" else ["state"]
    names_of = {lv: (lambda us, f=f: {f(u) for u in us}) for lv, f in above.items()}
    if level == "county":
        names_of["state"] = lambda us: {u.split("/")[0] for u in us}
    named_rare = 0
    for _, group in release.classes.iterrows():
        members = group["members"].split(",")                      # what the map draws
        mine = [u for u in members if held.get(u, 0) > 0]
        weight = int(held[mine].sum())
        text = group["label"].split(" #")[0]
        shown, more = text.rsplit("+", 1)[0].split("|"), int(text.rsplit("+", 1)[1]) if "+" in text else 0
        options = [set(mine)] + [names_of[lv](mine) for lv in ladder]
        listed = next(names for names in options if set(shown) <= names)
        assert (set(shown) == listed) if not more else (shown[0] in listed and more + 1 == len(listed))
        assert len(listed) == 1 or len(listed) < weight
        named_rare += sum(0 < held.get(m, 0) < 10 for m in shown)
        assert not group.geometry.is_empty
    counts = df["zip"].map(unit).value_counts().to_dict()
    graph = ga.read_edge_list(edges, ids=nodes["zip"])
    if level == "zip":
        check_region_groups(graph, counts, 10, [m.split(",") for m in release.classes["members"]])
    assert named_rare > 0          # a member holding 1 to k-1 records is named like any other


# -- isolated records: no window smaller than the box over k, and the report's figures from the release --------

def _raleigh(n=300, seed=4):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"lat": np.round(35.7 + rng.random(n) * 0.3, 5), "lon": np.round(-78.9 + rng.random(n) * 0.5, 5),
                         "age": rng.integers(20, 80, n)})


ISOLATED = {
    "one": [(32.30141, -64.78383)],                                          # Bermuda
    "a handful": [(32.30141, -64.78383), (25.77463, -80.19373), (39.95233, -75.16379)],
    "a cluster smaller than k": [(21.30691, -157.85833), (21.31119, -157.86247), (21.29373, -157.84953)],
}


def _with_isolated(which):
    df = _raleigh()
    far = pd.DataFrame(ISOLATED[which], columns=["lat", "lon"]).assign(age=[41, 52, 63][:len(ISOLATED[which])])
    return pd.concat([df, far], ignore_index=True), np.arange(len(df), len(df) + len(far))


@pytest.mark.parametrize("which", list(ISOLATED))
@pytest.mark.parametrize("job", ["points", "anonymize"])
@pytest.mark.parametrize("k", [5, 10])
def test_isolated_records_cannot_be_located_from_the_release_or_its_report(which, job, k, tmp_path):
    """300 records around Raleigh and one, three or a cluster of three far
    away: each far record is published without a location, or, once the
    budget is spent, named in the report and warned about; every box's edges
    lie on a grid of its width over k, so no record (a far one least of all)
    is narrowed below that; the report's extent is the published boxes'."""
    from checkers import check_published_boxes

    df, far = _with_isolated(which)
    for share in (0.02, 0.2):
        if job == "points":
            release = ga.generalize_points(df, k, keep=["age"], max_withheld=share)
            details = release.report
        else:
            release = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=k, max_withheld=share)
            details = release.report.details
        t = release.in_input_order()
        boxed = t.loc[far, "lat_min"].notna()
        assert details["isolated"]["published"] == boxed.sum() and (share == 0.02 or not boxed.any())
        assert any("isolated record" in w for w in release.warnings) == boxed.any()
        labels = t.groupby(["lon_min", "lat_min", "lon_max", "lat_max"], dropna=False).ngroup().to_numpy()
        check_published_boxes(df[["lon", "lat"]].to_numpy(), labels,
                              t[["lon_min", "lat_min", "lon_max", "lat_max"]].to_numpy(dtype=float), k)
        if job == "points":
            boxes = t[["lon_min", "lat_min", "lon_max", "lat_max"]].dropna()
            assert release.report["bounds"] == [boxes["lon_min"].min(), boxes["lat_min"].min(),
                                                boxes["lon_max"].max(), boxes["lat_max"].max()]
            if not boxed.any():                   # the far records show nowhere: the extent is Raleigh's
                west, south, east, north = release.report["bounds"]
                assert -79 <= west and east <= -78.3 and 35.6 <= south and north <= 36.1


def test_without_a_budget_the_isolated_record_still_gets_a_window_of_its_box_over_k():
    df, far = _with_isolated("one")
    release = ga.generalize_points(df, 5, keep=["age"], max_withheld=0)
    t = release.in_input_order()
    assert t.loc[far, "lat_min"].notna().all() and release.report["isolated"]["published"] == 1
    assert any("1 isolated record" in w for w in release.warnings)
    lo, hi = float(t.loc[far[0], "lon_min"]), float(t.loc[far[0], "lon_max"])
    from checkers import coarsest_step

    # the Bermuda record's longitude: somewhere within a step of the box's east edge, the step at least a fifth
    assert coarsest_step(hi, hi - lo) >= (hi - lo) / 5


# -- records sharing a coordinate ------------------------------------------------------------------------------

def test_records_sharing_a_coordinate_do_not_publish_it():
    """12 records on one longitude in a square kilometre: their box holds at
    least k longitudes of the data's resolution, not a metre around theirs."""
    rng = np.random.default_rng(6)
    n = 300
    df = pd.DataFrame({"lat": np.round(35.78 + rng.random(n) * 0.01, 5), "lon": np.round(-78.64 + rng.random(n) * 0.01, 5)})
    df.loc[:11, "lon"] = -78.63525
    df.loc[:11, "lat"] = np.round(35.781 + np.arange(12) * 0.0001, 5)
    for release in (ga.generalize_points(df, 5), ga.anonymize(df, location=("lat", "lon"), k=5)):
        t = release.in_input_order()
        boxed = t.loc[:11].dropna()
        width = (boxed["lon_max"] - boxed["lon_min"]).to_numpy()
        assert len(boxed) and (width >= 5 * 1e-5 - 1e-12).all()        # at least k positions of the 5th decimal


# -- dates: rounded, top-coded ----------------------------------------------------------------------------------

def test_a_late_visit_is_neither_published_nor_placed():
    """One visit in June 2026 when the next latest is 2023-12-31: its class's
    upper end is open and its lower end a round date the others share; no
    published date lies beyond 2023, and no end is given to the second."""
    rng = np.random.default_rng(9)
    n = 600
    days = np.datetime64("2023-01-01") + rng.integers(0, 365, n).astype("timedelta64[D]")
    days[0] = np.datetime64("2026-06-10")
    df = pd.DataFrame({"lat": np.round(35.7 + rng.random(n) * 0.3, 5), "lon": np.round(-78.9 + rng.random(n) * 0.5, 5),
                       "visit": np.datetime_as_string(days, unit="D")})
    for stamps in (False, True):
        if stamps:
            df["visit"] = df["visit"] + "T" + pd.Series(rng.integers(0, 86400, n)).map(
                lambda s: f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}")
        t = ga.anonymize(df, location=("lat", "lon"), qi=["visit"], k=10).in_input_order()
        assert t.loc[0, "visit_max"] == ".."                             # open (ISO 8601-2): 2023-... to ..
        ends = pd.concat([t["visit_min"], t["visit_max"]]).dropna()
        ends = ends[ends != ".."]
        assert (ends.str[:4] <= "2023").all()
        if stamps:
            assert ends.str.endswith(("00", "59")).all()               # a minute's first or last second at most


# -- one outlier: not everyone's intervals wider --------------------------------------------------------------

def test_one_outlier_does_not_widen_every_interval():
    """A 2.5M bill among bills with a median of about 1,800: the median
    published cost interval barely moves (it went from 6,000 to 20,000 wide)."""
    df = ga.datasets.demo_records().head(3000)
    cols = ga.Columns(location=("lat", "lon"), qi=["cost_usd"], sensitive="diagnosis", identifiers=["record_id", "zip"])

    def median_width(table):
        t = ga.anonymize(table, cols, k=10).table
        return float((t["cost_usd_max"].astype(float) - t["cost_usd_min"].astype(float)).median())

    plain = median_width(df)
    outlier = median_width(df.assign(cost_usd=df["cost_usd"].where(df.index != 5, "2500000")))
    assert outlier <= 1.5 * plain


# -- cuts between classes ---------------------------------------------------------------------------------------

def test_a_cut_in_a_narrow_gap_bounds_no_box_and_tiles_that_publish_one_are_warned_about():
    """A cut is the roundest number between two classes' nearest records: in
    a narrow gap it tells both to within the gap. Boxes cross such cuts (their
    edges on their own grid), and the points job's boxes are held to the
    others; tiles, which publish every cut, say how many are finer than
    their tile over k."""
    from checkers import check_published_boxes

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"lat": np.round(35 + rng.random(400), 5), "lon": np.round(-80 + rng.random(400), 5),
                       "age": rng.integers(20, 80, 400)})
    points = ga.generalize_points(df, 5, keep=["age"]).in_input_order()
    boxes = points[["lon_min", "lat_min", "lon_max", "lat_max"]].to_numpy(dtype=float)
    check_published_boxes(df[["lon", "lat"]].to_numpy(), points["class_id"].to_numpy(), boxes, 5)
    distinct = np.unique(boxes, axis=0)
    crossing = ((distinct[:, None, 0] < distinct[None, :, 2]) & (distinct[None, :, 0] < distinct[:, None, 2])
                & (distinct[:, None, 1] < distinct[None, :, 3]) & (distinct[None, :, 1] < distinct[:, None, 3]))
    assert crossing.sum() > len(distinct)                    # some boxes cross a fine cut, and overlap
    tiles = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=5, extent="tile", method="frontier")
    fine = [w for w in tiles.warnings if "tile sides between classes are cuts finer" in w]
    assert len(fine) == 1 and int(fine[0].split()[0].replace(",", "")) > 0
    assert not any("finer" in w for w in ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=5).warnings)
