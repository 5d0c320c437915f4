"""What a new user meets first: the package's names, the help texts, a job
run into a folder that does not exist yet."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

JOB = ('[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["sex"]\n'
       'interval = ["age"]\n[model]\nk = %d\n[output]\ntable = "%s"\n')


def test_the_datasets_come_with_import_geoanon():
    code = "import geoanon; print(geoanon.datasets.adult().shape[0], geoanon.dates.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["30162", "geoanon.dates"]


def test_help_texts_say_what_the_commands_do(cli):
    code, out, _ = cli("run", "--help")
    assert code == 0 and "[columns]" in out and "[model]" in out and "max_suppressed" in out
    assert "see geoanon.jobs" not in out
    code, out, _ = cli("audit", "--help")
    assert code == 0 and "-o " not in out and "-o/" not in out
    code, out, _ = cli("--help")
    assert "points and zip jobs" in out


def _table(path, n=200):
    rng = np.random.default_rng(0)
    pd.DataFrame({"lat": 40 + rng.normal(0, 1, n), "lon": -75 + rng.normal(0, 1, n), "age": rng.integers(18, 90, n),
                  "sex": rng.choice(["F", "M"], n)}).to_csv(path, index=False)


def test_a_job_makes_its_output_folder_and_a_failed_batch_removes_it(tmp_path, cli):
    _table(tmp_path / "in.csv")
    (tmp_path / "job.toml").write_text(JOB % (5, "out/deep/released.csv"))
    code, out, err = cli("run", tmp_path / "job.toml", "--dry-run")
    assert code == 0, err
    assert f"(the folder {tmp_path / 'out' / 'deep'} is made)" in out and not (tmp_path / "out").exists()
    (tmp_path / "bad.toml").write_text(JOB % (500, "elsewhere/released.csv"))   # fails as it runs, after job.toml
    code, _, err = cli("run", tmp_path / "job.toml", tmp_path / "bad.toml")
    assert code == 2 and "larger than the table" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "in.csv", "job.toml"]
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    assert len(pd.read_csv(tmp_path / "out" / "deep" / "released.csv")) == 200
    (tmp_path / "file").write_text("")
    (tmp_path / "job.toml").write_text(JOB % (5, "file/released.csv"))
    code, _, err = cli("run", tmp_path / "job.toml", "--dry-run")
    assert code == 2 and "is not a folder" in err


@pytest.mark.slow
def test_box_edges_keep_the_grid_decimals_across_the_antimeridian(tmp_path, cli):
    import re

    import geoanon as ga

    rng = np.random.default_rng(5)
    n = 600
    lon = np.r_[rng.uniform(-110, -70, n - 60), rng.uniform(144.6, 145.0, 30), rng.uniform(-160, -155, 30)]
    df = pd.DataFrame({"lat": rng.uniform(13, 48, n).round(4), "lon": lon.round(4), "age": rng.integers(18, 90, n)})
    release = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10)
    text = release.in_input_order().to_csv(index=False)
    assert not re.findall(r"\d\.\d{9,}", text)
    assert (release.in_input_order()["lon_min"] > 0).any() and (release.in_input_order()["lon_min"] < 0).any()
    df.to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", "10",
                       "-o", tmp_path / "out.csv", "--report", tmp_path / "r.json",
                       "--html-report", tmp_path / "r.html")
    assert code == 0, err
    report, page = (tmp_path / "r.json").read_text(), (tmp_path / "r.html").read_text()
    import json
    assert json.loads(report)["input"] == "in.csv" and json.loads(report)["output"] == "out.csv"
    assert str(tmp_path) not in report and str(tmp_path) not in page


def test_the_audit_report_names_its_input_not_its_path(tmp_path, cli):
    """As a release's report: the folder an audited table was read from is not published with the figures."""
    import json

    pd.DataFrame({"age": ["20-29"] * 5 + ["30-39"] * 5}).to_csv(tmp_path / "released.csv", index=False)
    code, _, err = cli("audit", tmp_path / "released.csv", "--qi", "age", "-k", "5", "--report", tmp_path / "a.json")
    assert code == 0, err
    report = (tmp_path / "a.json").read_text()
    assert json.loads(report)["input"] == "released.csv" and str(tmp_path) not in report


def test_a_folder_of_parquet_parts_is_read_in_memory_in_order(tmp_path, cli):
    from geoanon.io import read_table

    rng = np.random.default_rng(1)
    folder = tmp_path / "released"
    folder.mkdir()
    for i in range(12):                 # part.10 and part.11 come after part.9, as dask numbers them
        pd.DataFrame({"row": np.arange(10) + 10 * i, "sex": rng.choice(["F", "M"], 10),
                      "class_id": np.repeat(i, 10)}).to_parquet(folder / f"part.{i}.parquet", index=False)
    assert read_table(folder)["row"].tolist() == list(range(120))
    code, out, err = cli("audit", folder, "--qi", "sex", "-k", "5", "--report", tmp_path / "a.json")
    assert code in (0, 1), err
    assert "unknown table format" not in err
    import json
    assert json.loads((tmp_path / "a.json").read_text())["rows"] == 120
    (tmp_path / "empty").mkdir()
    code, _, err = cli("audit", tmp_path / "empty", "--qi", "sex", "-k", "5")
    assert code == 2 and "unknown table format '(no extension)'" in err


def test_the_map_legend_counts_location_classes_and_the_classes_in_them():
    import geoanon as ga
    from geoanon.report.maps import render_html

    rng = np.random.default_rng(2)
    n = 400
    df = pd.DataFrame({"lat": 40 + rng.normal(0, 1, n), "lon": -75 + rng.normal(0, 1, n),
                       "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n)})
    joint = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=5, method="frontier")
    shapes, classes = len(joint.classes), joint.report.classes
    assert shapes < classes
    assert f"{shapes:,} boxes of GPS points holding {classes:,} classes, k = 5" in render_html(joint.preview())
    points = ga.generalize_points(df[["lat", "lon"]], 5, lat="lat", lon="lon")
    assert f"{points.report.classes:,} boxes of GPS points, k = 5" in render_html(points.preview())


def test_one_name_per_meaning_and_every_default_in_the_help(tmp_path, cli):
    from geoanon.cli import build_parser

    rng = np.random.default_rng(3)
    pd.DataFrame({"dx": rng.choice(list("abcdefgh"), 300)}).to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli("labels", tmp_path / "in.csv", "-k", "40", "--label-col", "dx", "-o", tmp_path / "a.csv")
    assert code == 0, err
    code, _, err = cli("labels", tmp_path / "in.csv", "-k", "40", "--col", "dx", "-o", tmp_path / "b.csv")
    assert code == 0, err                                        # the older name of the same flag
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    code, _, err = cli("labels", tmp_path / "in.csv", "-k", "40", "--label-col", "dx", "--order", "random",
                       "-o", tmp_path / "c.csv")
    assert code == 2 and "--order" in err               # --order is the sensitive values' order, on model jobs
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name, command in commands.items():
        for action in command._actions:
            if action.choices and action.default is not None:
                assert f"(default: {action.default})" in (action.help or ""), (name, action.option_strings)
