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
    from geoanon.pipeline.regions import code_width, region_values

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
    """The attack: the map draws every member of a group; a label that named
    only the members holding 0 or >= k records gave away the others (all 24
    counties holding 1 to 9 records, at a19b1a4). Now a label names every
    member, or the group's central member by geometry alone, whatever the
    members hold; the map draws the same members."""
    from geoanon.pipeline.naming import UNITS_NAMED, central_member

    nodes, edges = zip_map
    df = _nc_patients(nodes)
    release = ga.generalize_regions(df, 10, column="zip", regions=nodes, region_id="zip", edges=edges,
                                    zip_level=level, keep=["sex"])
    unit = (nodes["state"] + "/" + nodes["county"]) if level == "county" else nodes["zip"]
    xy = nodes[["lon", "lat"]].astype(float).groupby(unit.to_numpy()).mean()
    centroid = {u: (x, y) for u, x, y in zip(xy.index, xy["lon"], xy["lat"])}
    held = df["zip"].map(dict(zip(nodes["zip"], unit))).value_counts()
    named_rare = 0
    for _, group in release.classes.iterrows():
        members = group["members"].split(",")                      # what the map draws
        if level == "county" and len(members) <= UNITS_NAMED:
            expected = "|".join(sorted(members))
        else:
            first = central_member(members, centroid.get, geographic=True)
            expected = first if len(members) == 1 else f"{first}+{len(members) - 1}"
        assert group["label"] == expected
        named_rare += sum(0 < held.get(m, 0) < 10 for m in expected.split("+")[0].split("|"))
        assert not group.geometry.is_empty
    assert named_rare > 0          # a member holding 1 to k-1 records is named like any other
