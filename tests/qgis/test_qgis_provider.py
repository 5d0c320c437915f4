"""The QGIS Processing provider (qgis/geoanon_qgis) run headless by qgis_process, as docs/qgis.md installs it
(QGIS_PLUGINPATH, then ``qgis_process plugins enable geoanon_qgis``, in a profile of the test's own): its
algorithms are listed, and each gives the same files, byte for byte, as the command line given the same options
on the same records; an error is geoanon's one-line message, with no output and no temporary file left.

Needs Debian's qgis and python3-qgis: skipped without qgis_process, failed instead in CI (GEOANON_REQUIRE_QGIS=1).
"""
import json
import os
import shlex
from pathlib import Path

import pandas as pd
import pytest

from geoanon.datasets import data_path
from qgis_headless import ROOT, QgisProcess, qgis_process_path

pytestmark = pytest.mark.slow

ROWS = 3000                   # a few thousand records: each qgis_process run takes a few seconds


@pytest.fixture(scope="module")
def qgis(tmp_path_factory):
    """``qgis(*args)``: qgis_process with the plugin enabled in a fresh profile -> (exit code, stdout, stderr);
    ``qgis.temp``: its temporary folder."""
    program = qgis_process_path()
    if program is None:
        if os.environ.get("GEOANON_REQUIRE_QGIS") == "1":
            pytest.fail("qgis_process is required (GEOANON_REQUIRE_QGIS=1) but not installed")
        pytest.skip("qgis_process not installed (apt-get install qgis python3-qgis)")
    return QgisProcess(program, tmp_path_factory.mktemp("qgis"))


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """The first ROWS demo patients: as shipped (CSV), as a point GeoPackage (EPSG:4326), and projected (EPSG:5070)
    as a GeoPackage and as a CSV of its x and y."""
    import geopandas as gpd

    folder = tmp_path_factory.mktemp("records")
    csv = pd.read_csv(data_path("demo_patients.csv"), dtype=str, nrows=ROWS)
    csv.to_csv(folder / "patients.csv", index=False)
    table = pd.read_csv(folder / "patients.csv", dtype={"record_id": str, "zip": str})
    points = gpd.GeoDataFrame(table.drop(columns=["lat", "lon"]), geometry=gpd.points_from_xy(table.lon, table.lat),
                              crs=4326)
    points.to_file(folder / "patients.gpkg")
    projected = points.to_crs(5070)
    projected.to_file(folder / "projected.gpkg")
    projected.drop(columns="geometry").assign(y=projected.geometry.y, x=projected.geometry.x).to_csv(
        folder / "projected.csv", index=False)
    return folder


def _outputs(folder: Path, *names) -> dict:
    return {name: (folder / name).read_bytes() for name in names}


FILES = {"OUTPUT": "-o", "CLASSES": "--classes", "REPORT": "--report", "HTML_REPORT": "--html-report", "MAP": "--map"}


def _documented(algorithm: str) -> dict:
    """The parameters of docs/qgis.md's ``qgis_process run`` example of ``algorithm``."""
    text = (ROOT / "docs" / "qgis.md").read_text().replace("\\\n", " ")
    (line,) = [line for line in text.splitlines() if line.startswith(f"qgis_process run geoanon:{algorithm} ")]
    words = shlex.split(line)
    return dict(word.split("=", 1) for word in words[words.index("--") + 1:])


def _both(tmp_path, qgis, cli, algorithm, parameters: dict, command: list):
    """The output files as qgis_process writes them (``parameters``' outputs: file names, written in one folder)
    and as the command line does (the same names in another), with the qgis_process run's stdout."""
    via_qgis, via_cli = tmp_path / "qgis", tmp_path / "cli"
    via_qgis.mkdir(), via_cli.mkdir()
    outputs = {name: value for name, value in parameters.items() if name in FILES}
    given = [f"{name}={via_qgis / value if name in FILES else value}" for name, value in parameters.items()]
    code, out, err = qgis("run", f"geoanon:{algorithm}", "--", *given)
    assert code == 0, out + err
    code, _, err = cli(*command, *(word for name, file in outputs.items() for word in (FILES[name], via_cli / file)))
    assert code == 0, err
    assert _outputs(via_qgis, *outputs.values()) == _outputs(via_cli, *outputs.values())
    return out


def test_the_provider_lists_its_algorithms(qgis):
    code, out, err = qgis("list")
    assert code == 0, err
    listed = {line.split()[0] for line in out.splitlines() if line.strip().startswith("geoanon:")}
    assert listed == {"geoanon:anonymize", "geoanon:points", "geoanon:zip", "geoanon:audit"}


def test_anonymize_a_point_layer_gives_the_command_lines_release(tmp_path, qgis, cli, records):
    """The acceptance test, docs/qgis.md's example: geoanon:anonymize on a point layer, K=10 and L=2, writes the
    table, the classes, the JSON and HTML reports (and the map) that ``geoanon anonymize`` writes from the CSV."""
    parameters = {**_documented("anonymize"), "INPUT": records / "patients.gpkg", "MAP": "map.html"}
    assert {"K": "10", "L": "2", "QI": "cost_usd", "SENSITIVE": "diagnosis"}.items() <= parameters.items()
    out = _both(tmp_path, qgis, cli, "anonymize", parameters,
                ["anonymize", records / "patients.csv", "--lat", "lat", "--lon", "lon", "--qi", "cost_usd",
                 "--sensitive", "diagnosis", "--identifiers", "record_id,zip", "-k", 10, "-l", 2])
    import geopandas as gpd

    released = gpd.read_file(tmp_path / "qgis" / parameters["OUTPUT"])
    assert len(released) == ROWS and released.groupby("class_id").size().min() >= 10
    assert "record_id" not in released and "zip" not in released and released.crs.to_epsg() == 4326
    assert json.loads((tmp_path / "qgis" / parameters["REPORT"]).read_text())["audit"]["k"] >= 10
    assert "3,000 rows" in out


def test_points_in_a_projected_crs_gives_the_command_lines_release(tmp_path, qgis, cli, records):
    """A layer in EPSG:5070 (metres): its geometry passed as y, x with --crs, the release a GeoPackage."""
    _both(tmp_path, qgis, cli, "points", {"INPUT": records / "projected.gpkg", "K": 10, "KEEP": "diagnosis",
                                          "OUTPUT": "released.gpkg", "CLASSES": "classes.gpkg"},
          ["points", records / "projected.csv", "--lat", "y", "--lon", "x", "--crs", "EPSG:5070", "--keep", "diagnosis",
           "--identifiers", "record_id,cost_usd,zip", "-k", 10])
    import geopandas as gpd

    classes = gpd.read_file(tmp_path / "qgis" / "classes.gpkg")
    assert classes.crs.to_epsg() == 5070 and classes["weight"].sum() <= ROWS and classes["weight"].min() >= 10


def test_zip_on_a_table_gives_the_command_lines_release(tmp_path, qgis, cli):
    """docs/qgis.md's geoanon:zip example: a table without geometry (the NC births CSV, read by QGIS as text
    fields) and the county polygons."""
    births = tmp_path / "births.csv"
    pd.read_csv(data_path("demo_nc_births.csv"), dtype=str, nrows=ROWS).to_csv(births, index=False)
    documented = _documented("zip")
    regions = ROOT / documented["REGIONS"]
    _both(tmp_path, qgis, cli, "zip", {**documented, "INPUT": births, "REGIONS": regions, "REPORT": "report.json"},
          ["zip", births, "--zip-col", "county_fips", "--regions", regions, "--region-id", "FIPS", "-k", 30,
           "--keep", "sex", "--identifiers", "record_id,birth_weight_g"])


def test_audit_reports_a_missed_level_as_the_command_line_does(tmp_path, qgis, cli, records):
    released = tmp_path / "released.csv"
    code, _, err = cli("anonymize", records / "patients.csv", "--lat", "lat", "--lon", "lon", "--qi", "cost_usd",
                       "--sensitive", "diagnosis", "--identifiers", "record_id,zip", "-k", 10, "-o", released)
    assert code == 0, err
    qi = ["cost_usd_min", "cost_usd_max", "lat_min", "lat_max", "lon_min", "lon_max"]
    (tmp_path / "qgis").mkdir(), (tmp_path / "cli").mkdir()
    code, out, err = qgis("--json", "run", "geoanon:audit", "--", f"INPUT={released}", f"QI={';'.join(qi)}",
                          "SENSITIVE=diagnosis", "K=12", f"REPORT={tmp_path / 'qgis' / 'audit.json'}")
    assert code == 0, out + err
    results = json.loads(out)["results"]
    code, _, _ = cli("audit", released, "--qi", ",".join(qi), "--sensitive", "diagnosis", "-k", 12,
                     "--report", tmp_path / "cli" / "audit.json")
    assert code == 1                         # the command line's "missed": a result, not a failure, in QGIS
    report = json.loads((tmp_path / "cli" / "audit.json").read_text())
    assert _outputs(tmp_path / "qgis", "audit.json") == _outputs(tmp_path / "cli", "audit.json")
    assert results["MET"] is False and results["ROWS"] == ROWS and results["SMALLEST_CLASS"] == report["k"] >= 10
    assert results["CLASSES"] == report["classes"]


@pytest.mark.parametrize("given, message", [
    ([f"K={ROWS + 1}"], f"k={ROWS + 1} is larger than the data (total weight {ROWS})"),          # geoanon's
    (["K=10", "OPTIONS=--max-withheld 1% --report r.json"],                 # a file QGIS would not know of
     "OPTIONS: --report is set by this algorithm's own parameters; give it there"),
], ids=["k-above-the-rows", "options-name-an-output"])
def test_an_error_is_one_line_and_leaves_nothing(tmp_path, qgis, records, given, message):
    """k larger than the table: the run fails with the command line's one-line message; an output flag in OPTIONS,
    with the provider's. No output either way, and no temporary copy of the layer."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, err = qgis("run", "geoanon:points", "--", f"INPUT={records / 'patients.csv'}", "LAT=lat", "LON=lon",
                          *given, f"OUTPUT={out_dir / 'released.csv'}", f"CLASSES={out_dir / 'classes.gpkg'}")
    assert code != 0
    assert f"ERROR:\t{message}\n" in out + err
    assert list(out_dir.iterdir()) == []
    assert not [p for p in qgis.temp.iterdir() if p.name.startswith("geoanon-qgis-")]
