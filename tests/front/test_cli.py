import json
from html import unescape
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from geoanon.report import maps
from geoanon.datasets import data_path

from checkers import drawn_shapes, grid_edges, without_context

CSV = "id,zip,lat,lon,diagnosis\n" + "".join(
    f"{i:04d},{i % 7:05d},{40 + (i * 37 % 101) / 100:.4f},{-100 + (i * 53 % 97) / 100:.4f},d{i % 3}\n"
    for i in range(200))


# the roles of CSV's columns besides the location: the record id is dropped, the rest published as it is
ROLES = ["--identifiers", "id", "--keep", "zip,diagnosis"]


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "in.csv").write_text(CSV, encoding="utf-8")
    return tmp_path


def test_points_writes_table_report_and_map(workdir, cli):
    code, out, err = cli(*["points", workdir / "in.csv", "-k", 10, "--lat", "lat", "--lon", "lon", *ROLES,
                          "-o", workdir / "out.csv", "--report", workdir / "r.json", "--map", workdir / "m.html"])
    assert code == 0, err
    raw = pd.read_csv(workdir / "in.csv", dtype=str, keep_default_na=False)
    res = pd.read_csv(workdir / "out.csv", dtype=str, keep_default_na=False)
    assert list(res.columns) == ["zip", "lat_min", "lat_max", "lon_min", "lon_max", "diagnosis", "class_id"]
    # the kept columns untouched, leading zeros and all (the rows in a random order)
    assert sorted(zip(res["zip"], res["diagnosis"])) == sorted(zip(raw["zip"], raw["diagnosis"]))
    assert res.groupby(["lat_min", "lat_max", "lon_min", "lon_max"]).size().min() >= 10
    report = json.loads((workdir / "r.json").read_text())
    for key in ("rows", "k", "classes", "min_class", "max_class", "lower_bound", "ratio", "method", "seconds"):
        assert key in report
    assert report["rows"] == 200 and report["min_class"] >= 10
    html = (workdir / "m.html").read_text()
    boxed = res.loc[res["lat_min"] != "", "class_id"].nunique()   # a class published without a location has no shape
    assert drawn_shapes(html) == boxed and boxed >= report["classes"] - 1
    assert "wrote" in out


def test_points_writes_its_classes(workdir, cli):
    """--classes: one rectangle per class of the table, with its record count (the QGIS provider's classes layer)."""
    import geopandas as gpd

    code, _, err = cli(*["points", workdir / "in.csv", "-k", 10, "--lat", "lat", "--lon", "lon", *ROLES,
                         "-o", workdir / "out.csv", "--classes", workdir / "c.gpkg"])
    assert code == 0, err
    table = pd.read_csv(workdir / "out.csv")
    classes = gpd.read_file(workdir / "c.gpkg").set_index("class_id")
    assert classes.crs.to_epsg() == 4326 and (classes.geom_type == "Polygon").all()
    boxed = table.dropna(subset=["lat_min"]).groupby("class_id")
    assert classes["weight"].to_dict() == boxed.size().to_dict()
    edges = boxed[["lon_min", "lat_min", "lon_max", "lat_max"]].first()
    assert np.allclose(classes.bounds.loc[edges.index].to_numpy(), edges.to_numpy())


@pytest.mark.parametrize("fmt", ["parquet", "geojson", "gpkg", "shp"])
def test_csv_in_other_formats_out(workdir, cli, fmt):
    import geopandas as gpd

    out = workdir / f"out.{fmt}"
    code, _, err = cli(*["points", workdir / "in.csv", "-k", 10, "--lat", "lat", "--lon", "lon", *ROLES,
                         "--keep-order", "-o", out])
    assert code == 0, err
    res = pd.read_parquet(out) if fmt == "parquet" else gpd.read_file(out)
    assert len(res) == 200 and res["class_id"].groupby(res["class_id"]).size().min() >= 10
    assert res["zip"].astype(str).str.zfill(5).tolist() == [f"{i % 7:05d}" for i in range(200)]
    if fmt != "parquet":   # geo formats carry each row's class rectangle, never the point
        boxed = res.geometry.notna()          # rows an edge would pin have no location, so no geometry
        assert res.crs.to_epsg() == 4326 and (res.geometry[boxed].geom_type == "Polygon").all() and boxed.mean() > 0.9
        lon = pd.read_csv(workdir / "in.csv")["lon"]
        assert (res.geometry[boxed].bounds["minx"] <= lon[boxed] + 1e-9).all()


@pytest.mark.parametrize("fmt", ["geojson", "gpkg", "parquet"])
def test_point_geometry_input(tmp_path, cli, fmt):
    import geopandas as gpd

    df = pd.read_csv(pd.io.common.StringIO(CSV), dtype={"id": str, "zip": str})
    gdf = gpd.GeoDataFrame(df.drop(columns=["lat", "lon"]), geometry=gpd.points_from_xy(df.lon, df.lat), crs=4326)
    src = tmp_path / f"in.{fmt}"
    gdf.to_parquet(src) if fmt == "parquet" else gdf.to_file(src)
    code, _, err = cli(*["points", src, "-k", 10, *ROLES, "-o", tmp_path / "out.geojson"])
    assert code == 0, err
    res = gpd.read_file(tmp_path / "out.geojson")
    boxed = res.geometry.notna()
    assert (res.geometry[boxed].geom_type == "Polygon").all() and boxed.mean() > 0.9 and len(res) == 200
    assert sorted(res["zip"]) == sorted(df["zip"]) and "id" not in res.columns


@pytest.mark.parametrize("ext", ["csv", "geojson", "gpkg", "parquet"])
def test_same_input_gives_byte_identical_output(workdir, cli, ext):
    outputs = []
    for i in range(2):
        (workdir / str(i)).mkdir()
        out, m = workdir / str(i) / f"out.{ext}", workdir / str(i) / "map.html"
        code, _, err = cli(*["points", workdir / "in.csv", "-k", 7, "--lat", "lat", "--lon", "lon", *ROLES, "-o", out,
                            "--map", m])
        assert code == 0, err
        outputs.append((out.read_bytes(), m.read_bytes()))
    assert outputs[0] == outputs[1]


def _write(name, content):
    """A maker of one input file in the test's folder."""
    def make(folder):
        path = folder / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        return path
    return make


def _bad_csv(text):
    return _write("bad.csv", text)


BAD = [
    ("empty file", _bad_csv(""), ["-k", 2], "the file is empty"),
    ("header only", _bad_csv("id,lat,lon\n"), ["-k", 2], "no rows"),
    ("k zero", None, ["-k", 0], "k must be an integer >= 1"),
    ("k negative", None, ["-k", -3], "k must be an integer >= 1"),
    ("k not a number", None, ["-k", "ten"], "expected an integer"),
    ("k too large", None, ["-k", 201], "k=201 is larger than the data"),
    ("NaN coordinate", _bad_csv("id,lat,lon\n1,40.1,-100\n2,,-100\n3,40.3,-100\n"), ["-k", 1],
     "1 row has no coordinates (first: row 1)"),
    ("infinite", _bad_csv("id,lat,lon\n1,40.1,-100\n2,inf,-100\n"), ["-k", 1], "NaN or infinite"),
    ("non-numeric", _bad_csv("id,lat,lon\n1,40.1,-100\n2,forty,-100\n"), ["-k", 1],
     "column 'lat', row 1: 'forty' is not a number"),
    ("out of range", _bad_csv("id,lat,lon\n1,40.1,-100\n2,91,-100\n"), ["-k", 1], "outside longitude"),
    ("lon out of range", _bad_csv("id,lat,lon\n1,40.1,-100\n2,40,-180.5\n"), ["-k", 1], "outside longitude"),
    ("missing column", None, ["-k", 2, "--lat", "latitude", "--lon", "lon"], "no column 'latitude'"),
    ("malformed CSV", _bad_csv("id,lat,lon\n1,40.1,-100\n2,40.2,-100,7\n"), ["-k", 1], "malformed CSV"),
    ("unclosed quote", _bad_csv('id,lat,lon\n1,40.1,-100\n"2,40.2,-100\n'), ["-k", 1], "malformed CSV"),
    ("missing file", lambda d: d / "nope.csv", ["-k", 2], "no such file"),
    ("not UTF-8", _write("l1.csv", b"id,lat,lon\n\xe9,40,-100\n"), ["-k", 1], "not UTF-8"),
    ("unknown input format", _write("in.txt", CSV), ["-k", 2], "unknown table format '.txt'"),
    ("unknown output format", None, ["-k", 2, "-o", "{d}/out.xlsx"], "unknown table format '.xlsx'"),
    ("missing output folder", None, ["-k", 2, "-o", "{d}/no/such/out.csv"], "does not exist"),
    ("report not json", None, ["-k", 2, "-o", "{d}/out.csv", "--report", "{d}/r.txt"], "expected a .json file"),
    ("bad method", None, ["-k", 2, "--method", "median"], "invalid choice"),
    ("bad bounds", None, ["-k", 2, "--bounds", "1,2,3"], "XMIN,YMIN,XMAX,YMAX"),
    ("bounds too small", None, ["-k", 2, "--bounds=-100,40,-99.5,40.5"], "must contain every point"),
    ("few suppressed", _bad_csv("id,lat,lon\n1,40.1,-100\n2,,\n3,40.2,-101\n"), ["-k", 2, "--missing", "suppress"],
     "1 row without coordinates cannot form a suppressed class of k=2"),
]


@pytest.mark.parametrize("name, make, args, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_exit_2_one_line_nothing_written(workdir, cli, name, make, args, message):
    src = make(workdir) if make else workdir / "in.csv"
    before = sorted(os.listdir(workdir))
    args = [str(a).format(d=workdir) for a in args]
    if "-o" not in args:
        args += ["-o", str(workdir / "out.csv"), "--map", str(workdir / "m.html"), "--report", str(workdir / "r.json")]
    if "--lat" not in args:
        args += ["--lat", "lat", "--lon", "lon"]
    # every column declared (the small files hold id, lat and lon), so that the case fails for its own reason
    args += ROLES if src.name in ("in.csv", "in.txt") else ["--identifiers", "id"]
    code, out, err = cli(*["points", src, *args])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert message in lines[0]
    assert sorted(os.listdir(workdir)) == before


def test_map_failure_leaves_no_table(workdir, cli, monkeypatch):
    monkeypatch.setattr(maps, "MAX_MAP_CLASSES", 3)
    code, _, err = cli(*["points", workdir / "in.csv", "-k", 5, "--lat", "lat", "--lon", "lon", *ROLES,
                        "-o", workdir / "out.csv", "--map", workdir / "m.html"])
    assert code == 2 and "at most 3 classes" in err
    assert sorted(os.listdir(workdir)) == ["in.csv"]


def test_missing_suppress(tmp_path, cli):
    rows = "id,lat,lon\n" + "".join(f"{i},{40 + i / 100},{-100 - i / 100}\n" for i in range(20)) + "a,,\nb,NA,\nc,,x\n"
    (tmp_path / "in.csv").write_text(rows.replace(",,x", ",,"))
    code, _, err = cli(*["points", tmp_path / "in.csv", "-k", 3, "--lat", "lat", "--lon", "lon", "--identifiers", "id",
                        "--missing", "suppress", "--keep-order", "-o", tmp_path / "out.csv"])
    assert code == 0, err
    res = pd.read_csv(tmp_path / "out.csv", keep_default_na=False, dtype=str)
    tail = res.iloc[-3:]
    assert (tail.lat_min == "").all() and tail.class_id.nunique() == 1


@pytest.mark.slow
def test_demo_runs_and_says_where(tmp_path, cli):
    """The demo's GPS points are a joint release: the location and cost_usd
    generalized, diagnosis sensitive (l=2), record_id dropped, k=10."""
    code, out, err = cli(*["demo", "--out", tmp_path / "demo"])
    assert code == 0, err
    for name in ("points.csv", "points_report.json", "points_map.html", "points_report.html", "regions_report.html"):
        assert (tmp_path / "demo" / name).is_file()
        assert str(tmp_path / "demo" / name) in out
    assert "k=10, l=2" in out and "audited k = 10" in out
    report = json.loads((tmp_path / "demo" / "points_report.json").read_text())
    assert report["rows"] == 20000 and (report["k"], report["l"], report["sensitive"]) == (10, 2, "diagnosis")
    assert report["audit"]["ok"] and report["audit"]["k"] >= 10 and report["audit"]["l"] >= 2
    assert report["qi"] == {"cost_usd": "interval"} and report["location"]["kind"] == "points"
    raw = pd.read_csv(data_path("demo_patients.csv"))
    published = pd.read_csv(tmp_path / "demo" / "points.csv")
    assert sorted(published.columns) == sorted(["diagnosis", "cost_usd_min", "cost_usd_max", "lat_min", "lat_max",
                                                "lon_min", "lon_max", "class_id"])          # record_id dropped
    classes = published.groupby("class_id")
    assert classes.size().min() >= 10 and classes["diagnosis"].agg(lambda d: d.value_counts().max() / len(d)).max() <= .5
    # the same records, written class by class
    assert sorted(published["diagnosis"]) == sorted(raw["diagnosis"])
    assert published["class_id"].is_monotonic_increasing
    # every box's edges on a grid of its width over k (geoanon.points.edges), and the map draws those boxes: no
    # number of the map's that is a record's coordinate is not an edge of a published box
    boxes = published[["lon_min", "lat_min", "lon_max", "lat_max"]].dropna().drop_duplicates().to_numpy()
    assert len(boxes) and all(grid_edges(b[axis], b[axis + 2], 10) == 2 for b in boxes for axis in (0, 1))
    coordinates = set(raw["lat"]) | set(raw["lon"])
    html = (tmp_path / "demo" / "points_map.html").read_text()
    numbers = {float(v) for v in re.findall(r"-?\d+\.\d+", without_context(html))}
    assert not (numbers & coordinates) - set(np.ravel(boxes))
    page = (tmp_path / "demo" / "points_report.html").read_text()
    embedded = unescape(re.search(r"srcdoc='([^']*)'", page)[1])
    assert "Re-identification risk" in page and embedded == html     # the map, embedded whole


@pytest.mark.slow
def test_console_script_entry_point(workdir):
    done = subprocess.run([sys.executable, "-m", "geoanon.cli", "points", str(workdir / "in.csv"), "-k", "0",
                           "--lat", "lat", "--lon", "lon", "-o", str(workdir / "o.csv")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == "geoanon points: error: k must be an integer >= 1, got 0"
    assert not (workdir / "o.csv").exists()


@pytest.mark.slow
def test_large_table_round_trip(tmp_path, cli):
    rng = np.random.default_rng(1)
    n = 100_000
    df = pd.DataFrame({"lat": np.round(35 + rng.normal(size=n) * 3, 4), "lon": np.round(-90 + rng.normal(size=n) * 5, 4),
                       "payload": rng.integers(0, 10**9, n)})
    df.to_csv(tmp_path / "big.csv", index=False)
    code, _, err = cli(*["points", tmp_path / "big.csv", "-k", 10, "--lat", "lat", "--lon", "lon", "--keep", "payload",
                        "-o", tmp_path / "big_out.parquet", "--report", tmp_path / "r.json"])
    assert code == 0, err
    res = pd.read_parquet(tmp_path / "big_out.parquet")
    assert sorted(res["payload"].astype(int)) == sorted(df["payload"])
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["ratio"] <= 2 and report["withheld_rows"] < 0.01 * n   # classes of k to 2k - 1, cut in the gaps
