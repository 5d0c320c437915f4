"""Nested Parquet columns (lists, structs, maps) a job publishes as they are:
Parquet keeps them with their Arrow type (and pandas reads the file back),
CSV and the geo formats write each cell as JSON text; as a
quasi-identifier, location or sensitive column they are refused in one line."""
import json
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROWS = 60
NESTED = ("tags", "visit", "codes")
COMMANDS = {
    "points": ["-k", "5", "--lat", "lat", "--lon", "lon", "--identifiers", "age,sex,name,fips"],
    "zip": ["-k", "5", "--zip-col", "fips", "--regions", "regions.geojson", "--region-id", "FIPS",
            "--identifiers", "lat,lon,age,sex,name"],
    "labels": ["-k", "5", "--label-col", "name", "--identifiers", "lat,lon,age,sex,fips"],
    "suppress": ["-k", "5", "--qi", "age,sex", "--identifiers", "lat,lon,name,fips"],
    "anonymize": ["-k", "5", "--lat", "lat", "--lon", "lon", "--qi", "age,sex", "--identifiers", "name,fips"],
}


def _table():
    rng = np.random.default_rng(5)
    return pa.table({
        "lat": 35 + rng.random(ROWS), "lon": -80 + rng.random(ROWS), "age": rng.integers(20, 80, ROWS),
        "sex": rng.choice(["F", "M"], ROWS), "name": rng.choice(["ann", "bob", "cy"], ROWS),
        "fips": rng.choice(["37001", "37081", "37151"], ROWS),
        "tags": pa.array([[f"t{i % 3}", "=x"] if i % 7 else [] for i in range(ROWS)]),
        "visit": pa.array([{"n": i, "ward": "b"} if i % 9 else None for i in range(ROWS)]),
        "codes": pa.array([[("icd", i)] for i in range(ROWS)], type=pa.map_(pa.string(), pa.int64())),
    })


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    from geoanon.datasets import nc_counties

    path = tmp_path_factory.mktemp("nested")
    pq.write_table(_table(), path / "in.parquet")
    nc_counties().to_file(path / "regions.geojson")
    return path


def _expected(column):
    return _table()[column].to_pylist()


def _by_row(rows):
    """Published rows in the input's order (their codes map holds the row's number), as dicts of the nested cells."""
    def number(codes):
        return dict(codes)["icd"]
    return sorted(({col: row[col] for col in NESTED} for row in rows), key=lambda row: number(row["codes"]))


@pytest.mark.parametrize("fmt", ["parquet", "csv", "geojson"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_kept_nested_columns_are_published_as_they_are(folder, cli, monkeypatch, command, fmt):
    monkeypatch.chdir(folder)
    out = f"{command}.{fmt}"
    code, stdout, err = cli(command, "in.parquet", *COMMANDS[command], "--keep", ",".join(NESTED), "-o", out)
    assert code == 0 and err == "", err
    if fmt == "parquet":
        table = pq.read_table(out)
        for col in NESTED:                   # the Arrow type
            assert table.schema.field(col).type == _table().schema.field(col).type
        rows = _by_row(table.to_pylist())
        assert len(pd.read_parquet(out)) == ROWS                           # pandas reads it too
    elif fmt == "csv":
        rows = pd.read_csv(out, dtype=str, keep_default_na=False).to_dict("records")
        rows = _by_row([{col: json.loads(row[col]) if row[col] else None for col in NESTED} for row in rows])
    else:                                    # GDAL writes JSON text in GeoJSON as JSON
        rows = _by_row(f["properties"] for f in json.loads((folder / out).read_text())["features"])
    assert [row["tags"] for row in rows] == _expected("tags")          # every cell, in its row
    assert [row["visit"] for row in rows] == _expected("visit")
    codes = [dict(row["codes"]) for row in rows]
    assert codes == [{"icd": i} for i in range(ROWS)]


def test_the_text_of_a_map_with_a_repeated_key_keeps_every_pair():
    from geoanon._cells import nested_text

    codes = pd.Series(pa.array([[("a", 1), ("a", 2)], None], type=pa.map_(pa.string(), pa.int64())),
                      dtype=pd.ArrowDtype(pa.map_(pa.string(), pa.int64())))
    assert nested_text(codes).tolist() == ['[["a", 1], ["a", 2]]', None]
    objects = pd.Series([np.array(["x", "y"]), {"k": np.int64(3)}, None], dtype=object)
    assert nested_text(objects).tolist() == ['["x", "y"]', '{"k": 3}', None]


@pytest.mark.parametrize("job", ["points", "regions", "labels", "suppress", "anonymize"])
def test_nested_columns_published_without_a_role_are_measured(folder, job, nc_gdf):
    import geoanon as ga
    from geoanon.io import read_table

    df = read_table(folder / "in.parquet")
    loose = {"identifiers": ["age", "sex", "name"], "strict": False}      # the nested columns have no role
    release = {"points": lambda: ga.generalize_points(df.drop(columns="fips"), 5, lat="lat", lon="lon", **loose),
               "regions": lambda: ga.generalize_regions(df.drop(columns=["lat", "lon"]), 5, column="fips",
                                                        regions=nc_gdf, region_id="FIPS", **loose),
               "labels": lambda: ga.generalize_labels(df.drop(columns=["lat", "lon"]), 5, column="fips", **loose),
               "suppress": lambda: ga.suppress(df.drop(columns=["lat", "lon"]), ["fips"], k=5, **loose),
               "anonymize": lambda: ga.anonymize(df.drop(columns="fips"), location=("lat", "lon"), k=5,
                                                 **loose)}[job]()
    assert release.report["undeclared"] == {"columns": list(NESTED), "unique_records": ROWS,
                                            "records_below_k": ROWS}
    release.to_file(folder / f"loose_{job}.csv")
    published = pd.read_csv(folder / f"loose_{job}.csv", dtype=str, keep_default_na=False)
    assert sorted(published["tags"]) == sorted(json.dumps(v) for v in _expected("tags"))


@pytest.mark.parametrize("command, flags", [
    ("points", ["-k", "5", "--lat", "tags", "--lon", "lon"]),
    ("zip", ["-k", "5", "--zip-col", "codes", "--regions", "regions.geojson", "--region-id", "FIPS"]),
    ("labels", ["-k", "5", "--label-col", "visit"]),
    ("suppress", ["-k", "5", "--qi", "age,tags"]),
    ("anonymize", ["-k", "5", "--qi", "visit"]),
    ("anonymize", ["-k", "5", "--qi", "age", "--sensitive", "codes", "-l", "2"]),
    ("audit", ["-k", "5", "--qi", "tags"]),
])
def test_a_nested_quasi_identifier_is_refused_in_one_line(folder, cli, monkeypatch, command, flags):
    monkeypatch.chdir(folder)
    before = sorted(os.listdir(folder))
    named = {name for flag in flags for name in flag.split(",")}
    rest = ["--keep", ",".join(c for c in _table().column_names if c not in named)]      # every column has a role
    code, _, err = cli(command, "in.parquet", *flags, *([] if command == "audit" else [*rest, "-o", "refused.parquet"]))
    assert code == 2
    assert err.strip().splitlines() == [err.strip()] and "holds lists or records (a nested column)" in err
    assert sorted(os.listdir(folder)) == before


@pytest.mark.slow
def test_kept_nested_columns_on_the_dask_engine(folder, cli, monkeypatch, address):
    from geoanon.cluster import generalize_labels

    monkeypatch.chdir(folder)
    for command, flags in COMMANDS.items():
        out = f"dask_{command}"
        code, _, err = cli(command, "in.parquet", *flags, "--keep", ",".join(NESTED), "-o", out,
                           "--scheduler", address)
        assert code == 0 and err == "", err
        table = pq.read_table(out)
        assert table.schema.field("codes").type == _table().schema.field("codes").type
        rows = _by_row(table.to_pylist())
        assert [row["tags"] for row in rows] == _expected("tags") and len(pd.read_parquet(out)) == ROWS
    # in the published order (dask moves nested Arrow columns by class), and a nested column without a role measured
    release = generalize_labels("in.parquet", 5, "dask_shuffled", column="name", keep=["tags", "visit"],
                                identifiers=["lat", "lon", "age", "sex", "fips"], strict=False,
                                scheduler=address)
    assert release.report["undeclared"]["columns"] == ["codes"]
    rows = _by_row(pq.read_table("dask_shuffled").to_pylist())
    assert [row["visit"] for row in rows] == _expected("visit")
