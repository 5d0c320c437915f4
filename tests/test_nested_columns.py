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

from optional import require

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


@pytest.mark.parametrize("fmt", ["parquet", "csv", "geojson"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_kept_nested_columns_are_published_as_they_are(folder, cli, monkeypatch, command, fmt):
    monkeypatch.chdir(folder)
    out = f"{command}.{fmt}"
    code, stdout, err = cli(command, "in.parquet", *COMMANDS[command], "--keep", ",".join(NESTED), "--strict",
                            "-o", out)
    assert code == 0 and err == "", err
    if fmt == "parquet":
        table = pq.read_table(out)
        for col in NESTED:                   # the Arrow type and every cell, in the input's order
            assert table.schema.field(col).type == _table().schema.field(col).type
            assert table[col].to_pylist() == _expected(col)
        assert pd.read_parquet(out)["tags"].map(list).tolist() == _expected("tags")    # pandas reads it too
        return
    if fmt == "csv":
        rows = pd.read_csv(out, dtype=str, keep_default_na=False).to_dict("records")
        rows = [{col: json.loads(row[col]) if row[col] else None for col in NESTED} for row in rows]
    else:                                    # GDAL writes JSON text in GeoJSON as JSON
        rows = [f["properties"] for f in json.loads((folder / out).read_text())["features"]]
    assert [row["tags"] for row in rows] == _expected("tags")
    assert [row["visit"] for row in rows] == _expected("visit")
    assert [row["codes"] for row in rows] == [{"icd": i} for i in range(ROWS)]


def test_the_text_of_a_map_with_a_repeated_key_keeps_every_pair():
    from geoanon._cells import nested_text

    codes = pd.Series(pa.array([[("a", 1), ("a", 2)], None], type=pa.map_(pa.string(), pa.int64())),
                      dtype=pd.ArrowDtype(pa.map_(pa.string(), pa.int64())))
    assert nested_text(codes).tolist() == ['[["a", 1], ["a", 2]]', None]
    objects = pd.Series([np.array(["x", "y"]), {"k": np.int64(3)}, None], dtype=object)
    assert nested_text(objects).tolist() == ['["x", "y"]', '{"k": 3}', None]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_nested_columns_without_a_role_are_measured(folder, cli, monkeypatch, command):
    monkeypatch.chdir(folder)
    code, _, err = cli(command, "in.parquet", *COMMANDS[command], "-o", f"loose_{command}.csv",
                       "--report", f"loose_{command}.json", "--html-report", f"loose_{command}.html")
    assert code == 0, err
    assert "Traceback" not in err and "'tags', 'visit', 'codes' have no role" in err
    assert json.loads((folder / f"loose_{command}.json").read_text())["undeclared"]["unique_records"] == ROWS


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
    code, _, err = cli(command, "in.parquet", *flags, *([] if command == "audit" else ["-o", "refused.parquet"]))
    assert code == 2
    assert err.strip().splitlines() == [err.strip()] and "holds lists or records (a nested column)" in err
    assert sorted(os.listdir(folder)) == before


def test_kept_nested_columns_on_the_dask_engine(folder, cli, monkeypatch):
    distributed = require("distributed")
    monkeypatch.chdir(folder)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") \
            as cluster:
        for command, flags in COMMANDS.items():
            out = f"dask_{command}"
            code, _, err = cli(command, "in.parquet", *flags, "--keep", "tags,visit", "--shuffle", "-o", out,
                               "--scheduler", cluster.scheduler_address)
            assert code == 0 and "Traceback" not in err, err
            assert "'codes' has no role" in err
            table = pq.read_table(out)
            assert table.schema.field("tags").type == pa.list_(pa.string())
            assert sorted(map(str, table["visit"].to_pylist())) == sorted(map(str, _expected("visit")))
            assert len(pd.read_parquet(out)) == ROWS
