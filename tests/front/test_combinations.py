"""Every combination a user can reach on one small, messy table runs to the
end: each location (points with rows lacking coordinates, ZIP codes with
unknown, missing and small pieces, labels, none) with each kind of
quasi-identifier (a number, a date, a category, a hierarchy, value sets, and
all of them at once), writing every output the combination has (the table,
the JSON and HTML reports, and where there are shapes the map and the
classes file), in memory and on the dask engine where it offers the job.
Each run exits 0 with no traceback, and its report holds the audit of the
model over every published column."""
import json

import numpy as np
import pandas as pd
import pytest

from geoanon.datasets import data_path

pytestmark = pytest.mark.slow          # every combination, in memory and on the dask engine

K = 5
ROWS = 600
QI_KINDS = {                                  # the flags that make each kind of column a quasi-identifier
    "number": [],                             # (besides --qi, which lists every one of them)
    "date": [],
    "category": [],
    "hierarchy": ["--hierarchy", "ward={hierarchy}"],
    "sets": ["--sets", "occupation"],
}
QI_COLUMNS = {"number": "age", "date": "visit_date", "category": "sex", "hierarchy": "ward", "sets": "occupation"}
LOCATIONS = {                                 # the flags of each location, and the columns it uses
    "points": (["--lat", "lat", "--lon", "lon", "--missing", "suppress"], ["lat", "lon"]),
    "zip": (["--zip-col", "zip", "--regions", "{regions}", "--region-id", "zip", "--edges", "{edges}",
             "--unknown", "suppress", "--small", "suppress"], ["zip"]),
    "zip-nearest": (["--zip-col", "zip", "--regions", "{regions}", "--region-id", "zip", "--edges", "{edges}",
                     "--unknown", "suppress", "--small", "nearest"], ["zip"]),
    "labels": (["--label-col", "clinic"], ["clinic"]),
    "none": ([], []),
}
SHAPED = ("points", "zip", "zip-nearest")    # locations drawn on a map, with a classes file
EVERY = ["patient_id", "name", "lat", "lon", "zip", "clinic", *QI_COLUMNS.values(), "diagnosis"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A patient table (ids, names, GPS points around Providence with 2% of rows
    without coordinates, Rhode Island ZIP codes with leading zeros, 1% missing,
    1% malformed and three records in a Vermont ZIP the map does not connect,
    clinics, age, visit date, sex, ward, occupation, diagnosis), its regions
    and edges, and a hierarchy of the wards."""
    folder = tmp_path_factory.mktemp("combinations")
    rng = np.random.default_rng(33)
    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str)
    edges = pd.read_csv(data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)
    ri = nodes[nodes.state == "RI"]
    island = nodes[nodes.state == "VT"].iloc[:1]
    regions = pd.concat([ri, island])[["zip", "lat", "lon"]]
    inside = edges[edges.zip_a.isin(ri.zip) & edges.zip_b.isin(ri.zip)]
    zips = rng.choice(ri.zip.to_numpy(), ROWS).astype(object)
    zips[:6], zips[6:12], zips[12:15] = "", "ABCDE", island.zip.iloc[0]
    lat = np.round(41.82 + rng.normal(0, 0.08, ROWS), 6).astype(object)
    lon = np.round(-71.41 + rng.normal(0, 0.08, ROWS), 6).astype(object)
    lat[20:32] = ""
    days = rng.integers(0, 365, ROWS).astype("timedelta64[D]")
    table = pd.DataFrame({
        "patient_id": [f"P{i:05d}" for i in range(ROWS)],
        "name": rng.choice(["Ann Lee", "Bo Wu", "Cy Ray"], ROWS),
        "lat": lat, "lon": lon, "zip": zips,
        "clinic": rng.choice([f"clinic {c}" for c in "ABCDEFGHIJKL"], ROWS, p=np.r_[[0.3, 0.2], [0.05] * 10]),
        "age": rng.integers(0, 100, ROWS),
        "visit_date": np.datetime_as_string(np.datetime64("2024-01-01") + days, unit="D"),
        "sex": rng.choice(["F", "M"], ROWS),
        "ward": rng.choice([f"W{i}" for i in range(1, 7)], ROWS),
        "occupation": rng.choice(["clerk", "nurse", "farmer", "driver", "teacher", "=cmd"], ROWS),
        "diagnosis": rng.choice(["flu", "asthma", "diabetes", "covid"], ROWS),
    })
    table.to_csv(folder / "patients.csv", index=False)
    regions.to_csv(folder / "regions.csv", index=False)
    inside.to_csv(folder / "edges.csv", index=False)
    pd.DataFrame([[f"W{i}", "north" if i <= 3 else "south", "*"] for i in range(1, 7)]).to_csv(
        folder / "wards.csv", sep=";", header=False, index=False)
    return {"table": folder / "patients.csv", "regions": folder / "regions.csv", "edges": folder / "edges.csv",
            "hierarchy": folder / "wards.csv"}


def _anonymize(files, location, kinds, out, engine=()):
    """The command of one combination: every column given a role."""
    flags, used = LOCATIONS[location]
    quasi = ["--qi", ",".join(QI_COLUMNS[kind] for kind in kinds),
             *(flag.format(**files) for kind in kinds for flag in QI_KINDS[kind])]
    used = [*used, *(QI_COLUMNS[kind] for kind in kinds), "diagnosis"]
    dropped = [c for c in EVERY if c not in used]
    outputs = ["-o", out / ("out" if engine else "out.csv"), "--report", out / "report.json"]
    if not engine:
        outputs += ["--html-report", out / "report.html"]
        if location in SHAPED:
            outputs += ["--map", out / "map.html", "--classes", out / "classes.geojson"]
    return ["anonymize", files["table"], *[f.format(**files) for f in flags], *quasi, "--sensitive", "diagnosis",
            "-k", K, "--identifiers", ",".join(dropped), *outputs, *engine]


def _ran(code, err, out):
    """Exit 0, no traceback, and the report's audit meets k over every published column."""
    assert code == 0, err
    assert "Traceback" not in err
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["audit"]["k"] >= K and report["audit"]["ok"]
    return report


COMBINATIONS = [(location, (kind,)) for location in LOCATIONS for kind in QI_KINDS] + \
               [(location, tuple(QI_KINDS)) for location in LOCATIONS]


@pytest.mark.parametrize("location, kinds", COMBINATIONS, ids=[f"{loc}-{'+'.join(k) if len(k) == 1 else 'all'}"
                                                                for loc, k in COMBINATIONS])
def test_every_location_with_every_kind_of_quasi_identifier_writes_every_output(files, tmp_path, cli, location,
                                                                                 kinds):
    code, out, err = cli(*_anonymize(files, location, kinds, tmp_path))
    _ran(code, err, tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Privacy model" in page
    released = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert len(released) == ROWS and not {"patient_id", "name"} & set(released.columns)
    if location in SHAPED:
        assert "Map of the classes" in page and (tmp_path / "map.html").stat().st_size > 0
        assert (tmp_path / "classes.geojson").stat().st_size > 0


JOBS = {
    "points": ["points", "{table}", "--lat", "lat", "--lon", "lon", "--missing", "suppress"],
    "zip": ["zip", "{table}", "--zip-col", "zip", "--regions", "{regions}", "--region-id", "zip", "--edges",
            "{edges}", "--unknown", "suppress", "--small", "suppress"],
    "labels": ["labels", "{table}", "--label-col", "clinic"],
    "suppress": ["suppress", "{table}", "--qi", "sex,ward", "--sensitive", "diagnosis"],
}
JOB_COLUMNS = {"points": ["lat", "lon"], "zip": ["zip"], "labels": ["clinic"], "suppress": ["sex", "ward", "diagnosis"]}


@pytest.mark.parametrize("job", JOBS)
def test_every_job_writes_every_output(files, tmp_path, cli, job):
    args = [a.format(**files) for a in JOBS[job]]
    extra = ["--map", tmp_path / "map.html"] if job in ("points", "zip") else []
    if job in ("zip", "labels", "suppress"):
        extra += ["--classes", tmp_path / ("classes.geojson" if job == "zip" else "classes.csv")]
    dropped = [c for c in EVERY if c not in JOB_COLUMNS[job]]
    code, out, err = cli(*args, "-k", K, "--identifiers", ",".join(dropped), "-o", tmp_path / "out.csv",
                         "--report", tmp_path / "report.json", "--html-report", tmp_path / "report.html", *extra)
    _ran(code, err, tmp_path)
    assert len(pd.read_csv(tmp_path / "out.csv")) == ROWS


@pytest.mark.parametrize("kinds", [(kind,) for kind in QI_KINDS] + [tuple(QI_KINDS)],
                         ids=[*QI_KINDS, "all"])
def test_the_dask_engine_with_every_kind_of_quasi_identifier(files, tmp_path, cli, address, kinds):
    """The dask engine's joint release takes points with every row located."""
    located = pd.read_csv(files["table"], dtype=str, keep_default_na=False)
    located = located[located.lat != ""]
    located.to_csv(tmp_path / "located.csv", index=False)
    args = _anonymize({**files, "table": tmp_path / "located.csv"}, "points", kinds, tmp_path,
                      engine=["--scheduler", address])
    args.remove("--missing")
    args.remove("suppress")
    code, out, err = cli(*args)
    _ran(code, err, tmp_path)
    assert len(pd.read_parquet(tmp_path / "out")) == len(located)
