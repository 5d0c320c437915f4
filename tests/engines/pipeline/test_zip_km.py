"""ZIP locations judged in km (location_loss="km", their default) and rolled
up to ZIP3, county or state (zip_level), in the joint release and the zip job."""
import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.errors import DataError

from checkers import check_joint_release

SIDE = 8            # an 8 x 8 grid of ZIP codes


def grid_regions():
    """ZIP codes 2RRC C on a grid a fifth of a degree apart: ZIP3 270-273 by pairs of rows, states NC
    (west) and VA (east), two counties per state and half (4 x 2 regions each); rook adjacency."""
    rows = [(r, c) for r in range(SIDE) for c in range(SIDE)]
    regions = pd.DataFrame({"zip": [f"{270 + r // 2}{r}{c}" for r, c in rows],
                            "state": ["NC" if c < SIDE // 2 else "VA" for _, c in rows],
                            "county": [f"County {r // 4}{c // 2}" for r, c in rows],
                            "lat": [35 + 0.2 * r for r, _ in rows], "lon": [-80 + 0.2 * c for _, c in rows]})
    zip_of = dict(zip(rows, regions["zip"]))
    edges = pd.DataFrame([(zip_of[a], zip_of[b]) for a, b in nx.grid_2d_graph(SIDE, SIDE).edges],
                         columns=["zip_a", "zip_b"])
    return regions, edges


def grid_records(seed=0, unknown=0):
    """2 to 8 patients in every ZIP of the grid (none empty), ``unknown`` more in ZIP 99999."""
    regions, _ = grid_regions()
    rng = np.random.default_rng(seed)
    zips = np.repeat(regions["zip"].to_numpy(), rng.integers(2, 9, len(regions)))
    zips = np.r_[zips, ["99999"] * unknown]
    n = zips.size
    return pd.DataFrame({"id": [f"p{i}" for i in range(n)], "zip": zips, "age": rng.integers(18, 90, n),
                         "diagnosis": rng.choice(["flu", "copd", "gout", "asthma"], n)})


def location(**options):
    regions, edges = grid_regions()
    return {"zip": "zip", "regions": regions, "region_id": "zip", "edges": edges, **options}


def release(df, k=10, **keywords):
    return ga.anonymize(df, location=location(unknown="suppress"), qi=["age"], sensitive="diagnosis", k=k, l=2,
                        identifiers=["id"], **keywords)


def diameter_km(lat, lon):
    """The diagonal of the box of the centroids, a degree of longitude the cosine of the middle latitude."""
    lat, lon = np.asarray(lat, dtype=float), np.asarray(lon, dtype=float)
    km = np.pi * 6371.0088 / 180
    across = (lon.max() - lon.min()) * km * np.cos(np.radians((lat.max() + lat.min()) / 2))
    return float(np.hypot(across, (lat.max() - lat.min()) * km))


def check_release(df, rel, k, column="zip"):
    """Every row once, in order; classes of k or more with l = 2, one ZIP label per class (in ``column``)."""
    t = rel.in_input_order()
    assert len(t) == len(df) and t.index.equals(df.index)
    check_joint_release(df.drop(columns=["id", "zip"]), t.drop(columns=[column]), k, intervals=["age"],
                        sensitive="diagnosis", l=2)
    assert (t.groupby("class_id")[column].nunique() == 1).all()
    assert rel.report.audit["k"] >= k and rel.report.audit["ok"]


def test_zip_groups_cost_their_km_by_default_and_the_report_says_it():
    df = grid_records(seed=1, unknown=12)     # (seed 0's table sits where one group for all costs about as much)
    rel = release(df)
    check_release(df, rel, 10)
    d = rel.report.details
    assert d["location_loss"] == "km" and d["zip_level"] == "zip"
    # each row's group diameter, measured here from the raw ZIPs its group's rows hold (every ZIP holds rows);
    # its km loss 1 where it is '*' or in a group with '*' rows (unknown ZIPs), as a box mixing rows without
    # coordinates
    regions, edges = grid_regions()
    regions = regions.set_index("zip")
    full = diameter_km(regions["lat"], regions["lon"])
    unit = np.median([diameter_km(regions.loc[[a, b], "lat"], regions.loc[[a, b], "lon"])    # the ZIPs' spacing
                      for a, b in edges.itertuples(index=False)])
    assert 18 < unit < 23
    label = rel.in_input_order()["zip"]
    diameters, loss = pd.Series(np.nan, index=df.index), pd.Series(1.0, index=df.index)
    for text, rows in label.groupby(label).groups.items():
        held = df.loc[rows, "zip"]
        if text != "*":
            where = regions.loc[held[held != "99999"].unique()]
            diameters[rows] = diameter_km(where["lat"], where["lon"])
            if (held != "99999").all():
                loss[rows] = np.log1p(diameters[rows] / unit) / np.log1p(full / unit)
    known = diameters.dropna()
    assert d["location_km"] == {"median": round(float(np.median(known)), 3),
                                "p90": round(float(np.quantile(known, 0.9)), 3), "max": round(float(known.max()), 3),
                                "mean": round(float(known.mean()), 3)}
    units = d["units"]["location"]                           # one figure: the same diameters, per record
    assert (units["median_km"], units["p90_km"]) == (d["location_km"]["median"], d["location_km"]["p90"])
    assert d["ncp"]["km_loss"] == {"zip": pytest.approx(loss.mean(), abs=1e-9)}
    assert d["ncp"]["columns"]["zip"] < d["ncp"]["km_loss"]["zip"]      # Iyengar's NCP reads less loss
    ranged = release(df, location_loss="range")
    check_release(df, ranged, 10)
    assert ranged.report.details["location_loss"] == "range" and "km_loss" in ranged.report.details["ncp"]


@pytest.mark.parametrize("level", ["zip", "county"])
def test_every_group_the_search_can_choose_is_connected(level):
    """Every node of the location hierarchy: a connected set of whole units of the ZIP graph."""
    from geoanon.models import Model
    from geoanon.pipeline.locations import KINDS

    df = grid_records(seed=3)
    regions, edges = grid_regions()
    check = Model(k=10).compile(df)
    dims, publisher = KINDS["zip"].read(df, location(), check, {"zip_level": level, "method": "frontier"}, [])
    tree = dims.items[0]
    units = publisher.units or {v: [v] for v in regions["zip"]}
    zips = nx.from_pandas_edgelist(edges, "zip_a", "zip_b")
    leaves = tree.labels[0]
    for up in tree.ancestors:
        for node in np.unique(up):
            members = [v for i in np.flatnonzero(up == node) for v in units[leaves[i]]]
            assert nx.is_connected(zips.subgraph(members))
    assert tree.height >= 1 and len(publisher.km_costs()) == tree.height + 1


@pytest.mark.parametrize("level, unit", [("zip3", lambda r: r["zip"].str[:3]),
                                         ("county", lambda r: r["state"] + "/" + r["county"]),
                                         ("state", lambda r: r["state"])])
def test_rolled_up_groups_are_unions_of_whole_units(level, unit):
    df = grid_records(seed=1, unknown=10)
    rel = release(df, zip_level=level)
    check_release(df, rel, 10, column=level)               # the column named for its level
    regions = grid_regions()[0]
    unit_of = dict(zip(regions["zip"], unit(regions)))
    units = df["zip"].map(unit_of)
    label = rel.in_input_order()[level]
    assert (label[units.isna()] == "*").all()
    assert (label[units.notna()] != "*").all()
    assert (label[units.notna()].groupby(units[units.notna()]).nunique() == 1).all()   # no unit is split
    for text in label.unique():                     # named after its units that hold records: all, or one and +N
        if text != "*" and not text.startswith("group "):
            shown = text.split(" #")[0].rsplit("+", 1)[0].split("|")
            assert set(shown) <= set(units[label == text]) and ("+" in text or len(shown) <= 3)
    d = rel.report.details
    assert d["zip_level"] == level and d["location_km"]["median"] == d["units"]["location"]["median_km"] > 0


def test_a_region_without_a_unit_follows_unknown():
    df = grid_records(seed=2)
    regions, edges = grid_regions()
    blank = ["27000", "27001"]
    regions.loc[regions["zip"].isin(blank), "county"] = ""
    loc = {"zip": "zip", "regions": regions, "region_id": "zip", "edges": edges}
    common = dict(qi=["age"], sensitive="diagnosis", k=5, identifiers=["id"], zip_level="county")
    with pytest.raises(DataError, match="27000"):
        ga.anonymize(df, location=loc, **common)
    rel = ga.anonymize(df, location={**loc, "unknown": "suppress"}, **common)
    starred = df["zip"].isin(blank)
    assert rel.report.details["unknown_rows"] == starred.sum() >= 5
    published = rel.in_input_order()["county"]
    assert (published[starred] == "*").all() and (published[~starred] != "*").all()


def test_options_are_checked():
    df = grid_records()
    df["lat"], df["lon"] = 35.0 + np.arange(len(df)) * 1e-3, -80.0
    with pytest.raises(ga.ParameterError, match="zip_level"):
        ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=5, identifiers=["id", "zip", "diagnosis"],
                     zip_level="county")
    with pytest.raises(ga.ParameterError, match="zip_level"):
        release(df.drop(columns=["lat", "lon"]), zip_level="city")
    with pytest.raises(ga.ParameterError, match="location_loss"):
        release(df.drop(columns=["lat", "lon"]), location_loss="spacing")
    with pytest.raises(ga.ParameterError, match="location_loss='km'"):
        ga.anonymize(df, location={"label": "zip"}, qi=["age"], k=5, identifiers=["id", "lat", "lon", "diagnosis"],
                     location_loss="km")


def test_the_zip_job_rolls_up_with_the_shipped_crosswalk(zip_nodes_df):
    """Regions without state and county columns: the ZIP codes' counties from geoanon.datasets.zip_counties."""
    nc = zip_nodes_df[zip_nodes_df["state"] == "NC"]
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"zip": rng.choice(nc["zip"].to_numpy(), 1500)})
    rel = ga.generalize_regions(df, 25, column="zip", regions=nc[["zip", "lat", "lon"]], region_id="zip",
                                zip_level="county")
    county = df["zip"].map(ga.datasets.zip_counties()["county"])
    assert (rel.in_input_order().groupby(county)["class_id"].nunique() == 1).all()        # whole counties
    assert rel.in_input_order().groupby("class_id").size().min() >= 25 and rel.report.audit["k"] >= 25
    members = rel.classes["members"].str.split(",").explode()
    assert members.str.startswith("NC/").all() and members.is_unique
    assert rel.report["zip_level"] == "county" and rel.report["location_km"]["median"] > 0


def test_command_line_and_job_file(tmp_path, cli):
    df = grid_records(unknown=10)
    regions, edges = grid_regions()
    df.to_csv(tmp_path / "in.csv", index=False)
    regions.to_csv(tmp_path / "regions.csv", index=False)
    edges.to_csv(tmp_path / "edges.csv", index=False)
    zips = ["--zip-col", "zip", "--regions", tmp_path / "regions.csv", "--region-id", "zip", "--edges",
            tmp_path / "edges.csv", "--unknown", "suppress"]
    code, _, err = cli("anonymize", tmp_path / "in.csv", *zips, "--qi", "age", "--sensitive", "diagnosis", "-k", "10",
                       "--identifiers", "id", "--zip-level", "county", "-o", tmp_path / "out.csv", "--report",
                       tmp_path / "r.json", "--html-report", tmp_path / "r.html")
    assert code == 0, err
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out.columns) == ["county", "age_min", "age_max", "diagnosis", "class_id"] and len(out) == len(df)
    assert set(out["county"]) - {"*"} <= {f"{s}/County {r}{c}" for s in ("NC", "VA") for r in "01" for c in "0123"} | {
        t for t in out["county"] if "|" in t or "+" in t or t.startswith("group ")}
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["zip_level"] == "county" and report["location_loss"] == "km"
    zip_column = next(c for c in report["published"] if c["column"] == "zip")
    assert zip_column["km_loss"] == report["ncp"]["km_loss"]["zip"]
    assert f"; km {zip_column['km_loss']:.4f}" in (tmp_path / "r.html").read_text()
    code, _, err = cli("zip", tmp_path / "in.csv", *zips, "-k", "10", "--keep", "id,age,diagnosis", "--zip-level",
                       "state", "-o", tmp_path / "z.csv")
    assert code == 0, err
    assert set(pd.read_csv(tmp_path / "z.csv", dtype=str)["state"]) <= {"NC", "VA", "NC|VA", "*"}
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\n[columns]\nlocation = { zip = "zip", regions = "regions.csv", region_id = "zip", '
        'edges = "edges.csv", unknown = "suppress" }\nqi = ["age"]\nidentifiers = ["id"]\nsensitive = "diagnosis"\n'
        '[model]\nk = 10\n[release]\nzip_level = "zip3"\n[output]\ntable = "j.csv"\n')
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    assert set(pd.read_csv(tmp_path / "j.csv", dtype=str)["zip3"]) - {"*"} <= {
        "270", "271", "272", "273", "270|271", "272|273", "271|272", "270|271|272", "271|272|273",
        "270|271|272|273"}


@pytest.mark.slow
def test_km_keeps_the_location_near_the_zip_jobs_where_range_spreads_it(patients_df, zip_nodes_df, zip_edges_df,
                                                                        births_df, nc_gdf):
    """The shipped patients by ZIP (cost, l = 2 on diagnosis, k = 10): groups about as wide as the zip job's
    under km, over twice as wide under range; NC births by county (sex and weight, k = 100) narrower under km
    too."""
    loc = {"zip": "zip", "regions": zip_nodes_df, "region_id": "zip", "edges": zip_edges_df, "unknown": "suppress"}
    common = dict(qi=["cost_usd"], sensitive="diagnosis", k=10, l=2, identifiers=["record_id", "lat", "lon"])
    alone = ga.generalize_regions(patients_df[["zip"]], 10, column="zip", regions=zip_nodes_df, region_id="zip",
                                  edges=zip_edges_df, unknown="suppress").report["location_km"]["median"]
    km = ga.anonymize(patients_df, location=loc, **common)
    ranged = ga.anonymize(patients_df, location=loc, location_loss="range", **common)
    assert km.report["location_km"]["median"] < 1.5 * alone < 2 * alone < ranged.report["location_km"]["median"]
    assert km.report["ncp"]["km_loss"]["zip"] < ranged.report["ncp"]["km_loss"]["zip"]
    counties = {"zip": "county_fips", "regions": nc_gdf, "region_id": "FIPS"}
    births = dict(qi=["sex", "birth_weight_g"], identifiers=["record_id"], k=100)
    medians = [ga.anonymize(births_df, location=counties, location_loss=loss, **births).report["location_km"]["median"]
               for loss in ("km", "range")]
    assert medians[0] < medians[1]


def k_neighbourhood_km(df, k):
    """The median over records of the diameter of the smallest circle around a record's ZIP centroid that
    holds k records (chords of the sphere), from every pair of ZIP codes."""
    regions = grid_regions()[0].set_index("zip")
    counts = df["zip"].value_counts()
    zips = [z for z in counts.index if z in regions.index]
    lat, lon = (np.radians(regions.loc[zips, c].to_numpy(float)) for c in ("lat", "lon"))
    xyz = 6371.0088 * np.c_[np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)]
    diameters = []
    for i, z in enumerate(zips):
        distance = np.linalg.norm(xyz - xyz[i], axis=1)
        order = np.argsort(distance, kind="stable")
        reach = np.flatnonzero(np.cumsum(counts[zips].to_numpy()[order]) >= k)[0]
        diameters += [2 * distance[order][reach]] * counts[z]
    return float(np.sort(diameters)[(len(diameters) - 1) // 2])


def with_three_columns(df):
    """``df`` with a seeded sex and visit day of the year besides age: columns that pull the location wide."""
    rng = np.random.default_rng(1)
    return df.assign(sex=rng.choice(["F", "M"], len(df)), visit=rng.integers(1, 366, len(df)))


def test_a_tiled_zip_location_is_kept_within_four_k_neighbourhoods_by_default():
    """The frontier design (the tiling) has a default precision target; the joint design prices its tail."""
    df = with_three_columns(grid_records(seed=5))
    regions = grid_regions()[0].set_index("zip")

    def released(k, **keywords):
        rel = ga.anonymize(df, location=location(unknown="suppress"), qi=["age", "sex", "visit"],
                           sensitive="diagnosis", k=k, l=2, identifiers=["id"], method="frontier", **keywords)
        check_joint_release(df.drop(columns=["id", "zip"]), rel.in_input_order().drop(columns=["zip"]), k,
                            intervals=["age", "visit"], sets=["sex"], sensitive="diagnosis", l=2)
        label = rel.in_input_order()["zip"]
        wide = sum(len(rows) for _, rows in label.groupby(label).groups.items()
                   if diameter_km(*(regions.loc[df.loc[rows, "zip"].unique(), c] for c in ("lat", "lon")))
                   > rel.report.details["max_extent_km"])
        assert rel.report.details["beyond_max_extent"] == wide
        return rel.report.details

    # the scale: a typical record's k-neighbourhood, at least the regions' spacing (about 20 km)
    wider = k_neighbourhood_km(df, 10)
    assert released(10)["k_spacing_km"] == pytest.approx(wider, rel=1e-3) and wider > 25
    d = released(4)
    assert k_neighbourhood_km(df, 4) < 20 < d["k_spacing_km"] < 21
    assert d["max_extent_km"] == pytest.approx(4 * d["k_spacing_km"], rel=1e-3)
    # without it, the three columns buy one group of the whole grid (200 km)
    loose = released(4, max_extent_km=10_000)
    assert "k_spacing_km" not in loose and loose["beyond_max_extent"] == 0
    assert d["location_km"]["median"] < d["max_extent_km"] < loose["location_km"]["median"]
    # tail_reach is the target's multiple (None: no target, as the points' tail then has no price)
    assert released(4, tail_reach=8)["max_extent_km"] == pytest.approx(8 * d["k_spacing_km"], rel=1e-3)
    free = ga.anonymize(df, location=location(unknown="suppress"), qi=["age", "sex", "visit"], sensitive="diagnosis",
                        k=4, l=2, identifiers=["id"], method="frontier", tail_reach=None).report.details
    assert "max_extent_km" not in free and free["location_km"]["median"] == loose["location_km"]["median"]
    # the knob moves the target: the location's weight w puts it at 4 / w ** 2 neighbourhoods
    finer, coarser = released(4, location_precision=0.6), released(4, location_precision=0.2)
    assert finer["max_extent_km"] == pytest.approx(4 * d["k_spacing_km"] / 32 ** 0.4, rel=1e-3)
    assert coarser["max_extent_km"] == pytest.approx(4 * d["k_spacing_km"] * 8 ** 1.2, rel=1e-3)
    assert finer["location_km"]["median"] < d["location_km"]["median"] < coarser["location_km"]["median"]
    # a target the user gives replaces it, and bounds every group: a ZIP group cannot be withheld, so groups
    # that cannot be cut within it refuse the release (they were published wider, with a warning)
    with pytest.raises(ga.InfeasibleError, match=r"within max_extent_km=30 .* cannot be withheld: raise "
                                                 r"max_extent_km$"):
        released(4, max_extent_km=30)
    given = released(4, max_extent_km=d["location_km"]["max"])
    assert given["beyond_max_extent"] == 0 and "k_spacing_km" not in given


def test_max_extent_needs_a_place():
    df = grid_records()
    with pytest.raises(ga.ParameterError, match="max_extent_km needs a points location"):
        ga.anonymize(df, location={"label": "zip"}, qi=["age"], k=5, identifiers=["id"], max_extent_km=50)


def test_the_default_target_is_noted_on_the_map_and_report():
    """The tiling's default target, and the joint design's price on its tail (ZIP codes' default)."""
    df = with_three_columns(grid_records(seed=5))
    common = dict(location=location(unknown="suppress"), qi=["age", "sex", "visit"], sensitive="diagnosis", k=4, l=2,
                  identifiers=["id"])
    rel = ga.anonymize(df, method="frontier", **common)
    d = rel.report.details
    assert rel.notes == [f"ZIP groups kept within {d['max_extent_km']:,.0f} km, the default target from a typical "
                         f"record's k-neighbourhood ({d['k_spacing_km']:,.1f} km; max_extent_km sets another): "
                         f"{d['beyond_max_extent']} records in wider groups, which cannot be cut further"]
    assert ga.anonymize(df, method="frontier", max_extent_km=500, **common).notes == []
    joint = ga.anonymize(df, **common)
    assert joint.report["method"] == "joint" and "max_extent_km" not in joint.report.details
    assert len(joint.notes) == 1 and joint.notes[0].startswith(
        f"ZIP groups wider than {joint.report['tail_reach_km']:,.1f} km (4 typical k-neighbourhoods")


def test_max_extent_on_the_command_line(tmp_path, cli):
    df = with_three_columns(grid_records(seed=5))
    regions, edges = grid_regions()
    df.to_csv(tmp_path / "in.csv", index=False)
    regions.to_csv(tmp_path / "regions.csv", index=False)
    edges.to_csv(tmp_path / "edges.csv", index=False)
    common = ["--qi", "age,sex,visit", "--sensitive", "diagnosis", "-k", "4", "-l", "2", "--identifiers", "id"]
    zip_location = ["--zip-col", "zip", "--regions", tmp_path / "regions.csv", "--region-id", "zip", "--edges",
                    tmp_path / "edges.csv", "--unknown", "suppress"]
    # the joint design cuts at the ZIP codes' places, so every group can be kept within 30 km; the tiling cannot
    code, _, err = cli("anonymize", tmp_path / "in.csv", *zip_location, *common, "--max-extent", "30km",
                       "-o", tmp_path / "out.csv", "--report", tmp_path / "r.json")
    assert code == 0, err
    assert json.loads((tmp_path / "r.json").read_text())["location_km"]["max"] <= 30
    code, _, err = cli("anonymize", tmp_path / "in.csv", *zip_location, *common, "--max-extent", "30km",
                       "--method", "frontier", "-o", tmp_path / "tiled.csv")
    assert code == 2 and "cannot be withheld: raise max_extent_km" in err and not (tmp_path / "tiled.csv").exists()
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--label", "zip", *common, "--max-extent", "30km",
                       "-o", tmp_path / "labels.csv")
    assert code == 2 and "max_extent_km needs a points location (lat and lon) or ZIP codes" in err
    assert not (tmp_path / "labels.csv").exists()


def test_explore_shares_one_search_and_reproduces_each_setting():
    """A ZIP location cut by the joint design (its regions' places, no default target): the settings share
    one search, and every point is still the release its setting makes alone."""
    from geoanon.pipeline.frontier import frontier_point
    from geoanon.pipeline.joint_release import prepared, searched
    from geoanon.options import release_spec

    df = with_three_columns(grid_records(seed=2)).drop(columns=["id"])
    kw = dict(location=location(unknown="suppress"), qi=["age", "sex", "visit"], k=5, method="joint",
              keep=["diagnosis"])
    spec = release_spec("anonymize", **kw)
    assert set(searched(prepared(df, spec), spec, [0.2, 0.9])) == {0.2, 0.9}
    r = ga.explore(df, **kw, settings=(0.2, 0.9))
    for p in r.report.details["frontier"]["points"]:
        again = ga.anonymize(df, **kw, location_precision=p["location_precision"])
        assert frontier_point(p["location_precision"], again.in_input_order(), again.report["ncp"], spec,
                              again.report.details["location_km"]) == p
