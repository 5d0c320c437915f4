"""ZIP locations in the joint release take the zip job's unknown, small and
contiguity options, and regions without records connect groups."""
import networkx as nx
import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.errors import DataError, InfeasibleError


def regions_and_records(counts: dict, unknown: int = 0, seed: int = 0):
    """Regions on a line a-b-c-d-e-f (each linked to the next) and islands x, y
    (no edges); ``counts`` records per region, plus ``unknown`` records naming
    'zz'."""
    names = list("abcdef") + ["x", "y"]
    regions = pd.DataFrame({"id": names, "lat": [35.0] * 6 + [20.0, 21.0],
                            "lon": [-80.0 + 0.1 * i for i in range(6)] + [-150.0, -151.0]})
    edges = pd.DataFrame({"a": list("abcde"), "b": list("bcdef")})
    rng = np.random.default_rng(seed)
    zips = [z for z, n in counts.items() for _ in range(n)] + ["zz"] * unknown
    df = pd.DataFrame({"zip": zips, "age": rng.integers(20, 70, len(zips)), "sex": rng.choice(["F", "M"], len(zips))})
    return df, regions, edges


def location(regions, edges, tmp_path, **options):
    edges.to_csv(tmp_path / "edges.csv", index=False)
    return {"zip": "zip", "regions": regions, "region_id": "id", "edges": str(tmp_path / "edges.csv"), **options}


def groups_of(release, df):
    return {label: set(df.loc[rows, "zip"]) for label, rows in release.in_input_order().groupby("zip").groups.items()}


def test_regions_without_records_connect_groups(tmp_path):
    df, regions, edges = regions_and_records({"a": 6, "c": 6, "f": 12})       # b, d, e hold no record
    r = ga.anonymize(df, location=location(regions, edges, tmp_path), qi=["sex"], k=10, keep=["age"])
    assert r.report.audit["k"] >= 10
    groups = groups_of(r, df)
    assert {"a", "c"} <= next(g for g in groups.values() if "a" in g)        # joined through the empty b
    line = nx.path_graph(list("abcdef"))
    for label, held in groups.items():
        # a group is the regions between its records along the line: connected
        span = list("abcdef")[min("abcdef".index(z) for z in held):max("abcdef".index(z) for z in held) + 1]
        assert nx.is_connected(line.subgraph(span)), label


def test_an_island_too_light_fails_or_is_suppressed_or_joined(tmp_path):
    df, regions, edges = regions_and_records({"a": 10, "b": 10, "c": 10, "x": 4, "y": 3}, unknown=5)
    loc = location(regions, edges, tmp_path)
    with pytest.raises(DataError, match="not in the regions"):
        ga.anonymize(df, location=loc, qi=["sex"], k=10, keep=["age"])
    with pytest.raises(InfeasibleError, match="small='suppress' or small='nearest'"):
        ga.anonymize(df, location={**loc, "unknown": "suppress"}, qi=["sex"], k=10, keep=["age"])
    r = ga.anonymize(df, location={**loc, "unknown": "suppress", "small": "suppress"}, qi=["sex"], k=10, keep=["age"])
    starred = r.in_input_order()["zip"] == "*"
    assert set(df.loc[starred, "zip"]) == {"x", "y", "zz"} and starred.sum() == 12
    assert r.report.details["suppressed_rows"] == 12 and r.report.details["unknown_rows"] == 5
    assert r.report.audit["k"] >= 10
    assert not {"x", "y", "zz"} & set().union(*[g for label, g in groups_of(r, df).items() if label != "*"])
    joined = ga.anonymize(df, location={**loc, "unknown": "suppress", "small": "nearest"}, qi=["sex"], k=5, keep=["age"])
    assert joined.report.details["bridges"] >= 1
    island = next(g for g in groups_of(joined, df).values() if "x" in g)
    assert "y" in island or len(island) > 1                               # x joined another piece
    assert joined.report.audit["k"] >= 5


def test_too_few_suppressed_records_are_refused(tmp_path):
    df, regions, edges = regions_and_records({"a": 10, "b": 10, "x": 3})
    with pytest.raises(InfeasibleError, match="published as '\\*'"):
        ga.anonymize(df, location=location(regions, edges, tmp_path, small="suppress"), qi=["sex"], k=10, keep=["age"])


def test_bad_options_are_refused(tmp_path):
    df, regions, edges = regions_and_records({"a": 10, "b": 10})
    with pytest.raises(ga.ParameterError, match="location small"):
        ga.anonymize(df, location=location(regions, edges, tmp_path, small="drop"), qi=["sex"], k=5, keep=["age"])
    with pytest.raises(ga.ParameterError, match="unknown key"):
        ga.anonymize(df, location={"lat": "a", "lon": "b", "small": "suppress"}, qi=["sex"], k=5, keep=["age"])


def test_command_line_and_job(tmp_path, cli):
    import json

    df, regions, edges = regions_and_records({"a": 10, "b": 10, "c": 10, "x": 4, "y": 3}, unknown=5)
    df.to_csv(tmp_path / "in.csv", index=False)
    regions.to_csv(tmp_path / "regions.csv", index=False)
    edges.to_csv(tmp_path / "edges.csv", index=False)
    base = ["anonymize", tmp_path / "in.csv", "--zip-col", "zip", "--regions", tmp_path / "regions.csv",
            "--region-id", "id", "--edges", tmp_path / "edges.csv", "--qi", "sex,age", "--interval", "age", "-k", "10"]
    code, _, err = cli(*base, "-o", tmp_path / "o1.csv")
    assert code == 2 and "not in the regions" in err
    code, _, err = cli(*base, "--unknown", "suppress", "--small", "suppress", "-o", tmp_path / "o2.csv",
                       "--report", tmp_path / "r.json")
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["suppressed_rows"] == 12 and report["location"]["small"] == "suppress"
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "a", "--lon", "b", "--small", "suppress",
                       "--qi", "sex", "-k", "5", "--keep", "age", "-o", tmp_path / "o3.csv")
    assert code == 2 and "--small is for a region location" in err
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\n[columns]\nlocation = { zip = "zip", regions = "regions.csv", region_id = "id", '
        'edges = "edges.csv", unknown = "suppress", small = "suppress" }\nqi = ["sex"]\nkeep = ["age"]\n[model]\nk = 10\n'
        '[output]\ntable = "j.csv"\n')
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    assert (pd.read_csv(tmp_path / "j.csv", dtype=str)["zip"] == "*").sum() == 12
