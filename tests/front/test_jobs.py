"""Job files: ``geoanon run JOB.toml`` (issue 13)."""
import json

import numpy as np
import pandas as pd
import pytest

from geoanon.cli import main
from geoanon.jobs import load_job
from geoanon.pipeline.roles import looks_identifying

from checkers import check_joint_release

JOB = """\
[input]
path = "people.csv"
sep = ";"

[columns]
identifiers = ["name"]
location = { lat = "lat", lon = "lon" }
interval = ["age"]
suppress = ["sex", "race"]
sensitive = "occupation"
keep = ["salary-class", "education", "marital-status", "workclass", "native-country"]

[model]
k = 10
l = 2

[output]
table = "out/released.csv"
report = "out/report.json"
map = "out/map.html"
"""


@pytest.fixture
def workdir(tmp_path, adult_df):
    rng = np.random.default_rng(0)
    df = adult_df.head(1500).copy()
    df.insert(0, "name", [f"person {i}" for i in range(len(df))])
    df["lat"] = (35 + rng.random(len(df)) * 2).round(5).astype(str)
    df["lon"] = (-80 + rng.random(len(df)) * 3).round(5).astype(str)
    df.to_csv(tmp_path / "people.csv", sep=";", index=False)
    (tmp_path / "out").mkdir()
    return tmp_path


def write_job(workdir, text=JOB, name="job.toml"):
    path = workdir / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_job_file_runs_the_joint_release_end_to_end(workdir, capsys):
    job = write_job(workdir)
    assert main(["run", str(job)]) == 0
    raw = pd.read_csv(workdir / "people.csv", sep=";", dtype=str)
    published = pd.read_csv(workdir / "out" / "released.csv", dtype=str)
    assert "name" not in published.columns                       # identifiers are dropped
    report = json.loads((workdir / "out" / "report.json").read_text())
    assert report["job"] == job.name and report["audit"]["k"] >= 10          # a file name, not a path
    assert (workdir / "out" / "map.html").stat().st_size > 0
    captured = capsys.readouterr()
    assert "wrote" in captured.out
    told = [line for line in captured.err.splitlines() if "tells much about them" in line]
    assert captured.err.splitlines() == told and all(line.endswith("ask [model] t = 0.5 or less to prevent it")
                                                     for line in told)   # the sensitive column's classes, said
    # in the input's order (keep_order = true): row i is record i, and the order is warned about
    write_job(workdir, JOB.replace('map = "out/map.html"', 'map = "out/map.html"\nkeep_order = true'))
    assert main(["run", str(job)]) == 0
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "geoanon run: warning: the rows keep the input's order, which can tell who they are once name is dropped "
        "(a table sorted by name): drop [output] keep_order = true")
    released = pd.read_csv(workdir / "out" / "released.csv", dtype=str)
    # by default the same rows, in the published order
    assert not published.equals(released) and sorted(map(tuple, published.fillna("").to_numpy())) == \
        sorted(map(tuple, released.fillna("").to_numpy()))
    check_joint_release(raw.drop(columns="name"), released, 10, lat="lat", lon="lon", intervals=["age"],
                        suppressed=["sex", "race"], sensitive="occupation", l=2)


def test_a_job_writes_its_rows_in_the_published_order(tmp_path, cli):
    """By default a job writes its rows in the published order (the same
    bytes every time); ``keep_order = true`` writes the input's."""
    rng = np.random.default_rng(4)
    n = 300
    pd.DataFrame({"row": range(n), "name": [f"person {i:03d}" for i in range(n)],
                  "lat": (35 + rng.random(n)).round(4), "lon": (-80 + rng.random(n)).round(4),
                  "age": rng.integers(20, 80, n)}).to_csv(tmp_path / "in.csv", index=False)
    job = ('[input]\npath = "in.csv"\n[columns]\nidentifiers = ["name"]\nlocation = { lat = "lat", lon = "lon" }\n'
           'interval = ["age"]\nkeep = ["row"]\n[model]\nk = 5\n{release}[output]\ntable = "{table}"\n{order}')
    runs = {"a": ("", ""), "said": ("", "keep_order = false\n"), "again": ("", ""), "kept": ("", "keep_order = true\n")}
    for name, (release, order) in runs.items():
        (tmp_path / "job.toml").write_text(job.replace("{release}", release).replace("{table}", f"{name}.csv")
                                           .replace("{order}", order))
        code, _, err = cli("run", tmp_path / "job.toml")
        assert code == 0, err
    written = {name: (tmp_path / f"{name}.csv").read_bytes() for name in runs}
    assert written["a"] == written["said"] == written["again"]
    assert pd.read_csv(tmp_path / "kept.csv")["row"].tolist() == list(range(n))
    table = pd.read_csv(tmp_path / "a.csv")
    assert table["class_id"].is_monotonic_increasing and sorted(table["row"]) == list(range(n))
    assert table.sort_values("row").reset_index(drop=True).equals(pd.read_csv(tmp_path / "kept.csv"))


def test_dry_run_prints_the_plan_and_writes_nothing(workdir, capsys):
    job = write_job(workdir)
    assert main(["run", str(job), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "drop name" in out and "location (points): lat, lon" in out and "as intervals: age" in out
    assert "write table: " in out and list((workdir / "out").iterdir()) == []


def test_dry_run_shows_every_setting_the_job_makes(workdir, capsys):
    job = JOB.replace('sep = ";"', 'sep = ";"\ndecimal = ","').replace(
        "[output]", '[release]\nmethod = "frontier"\nmax_extent_km = 50\nweights = { location = 4, age = 1 }\n'
                    'max_withheld = 0.05\nmax_suppressed = 0.02\n\n[output]\nkeep_order = true\ntimings = true\n')
    assert main(["run", str(write_job(workdir, job)), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  read " + str(workdir / "people.csv") + " (sep=;, decimal=,)" in out
    assert "  model: k=10, l=2, sensitive occupation" in out
    assert "  release: method=frontier, max_extent_km=50, weights={location=4, age=1}, max_withheld=0.05, " \
           "max_suppressed=0.02" \
        in out
    assert "  output: keep_order=true, timings=true" in out


@pytest.mark.slow
def test_dates_are_a_role_under_strict(workdir, capsys):
    df = pd.read_csv(workdir / "people.csv", sep=";", dtype=str)
    df["visit"] = pd.date_range("2020-01-01", periods=len(df), freq="D").strftime("%d/%m/%Y")
    df.to_csv(workdir / "people.csv", sep=";", index=False)
    job = JOB.replace("keep = [", 'dates = { visit = "%d/%m/%Y" }\nstrict = true\nkeep = [')
    assert main(["run", str(write_job(workdir, job)), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "  as date intervals: visit (%d/%m/%Y)" in captured.out.splitlines() and captured.err == ""
    assert main(["run", str(write_job(workdir, job))]) == 0
    released = pd.read_csv(workdir / "out" / "released.csv", dtype=str)
    assert {"visit_min", "visit_max"} <= set(released.columns) and "visit" not in released.columns
    as_interval = job.replace('interval = ["age"]', 'interval = ["age", "visit"]')     # a date published as one
    assert main(["run", str(write_job(workdir, as_interval)), "--dry-run"]) == 0
    capsys.readouterr()
    kept = job.replace('keep = ["salary-class"', 'keep = ["visit", "salary-class"')
    assert main(["run", str(write_job(workdir, kept)), "--dry-run"]) == 2
    assert "column 'visit' has two roles: [columns] keep and [columns] dates" in capsys.readouterr().err


def test_a_key_under_its_old_name_is_read_with_a_warning(workdir, capsys):
    old = write_job(workdir, JOB.replace("keep = [", "insensitive = ["), name="old.toml")
    for dry in (["--dry-run"], []):
        assert main(["run", str(old), *dry]) == 0
        err = capsys.readouterr().err.splitlines()
        assert err[0] == f"geoanon run: warning: {old}: 'insensitive' is deprecated, use 'keep'"
    assert pd.read_csv(workdir / "out" / "released.csv", dtype=str)["education"].notna().all()   # kept as it is
    both = write_job(workdir, JOB.replace("keep = [", 'insensitive = ["education"]\nkeep = ['), name="both.toml")
    assert main(["run", str(both), "--dry-run"]) == 2
    assert capsys.readouterr().err == (f"geoanon run: error: {both}: [columns] gives both 'insensitive' (an old name) "
                                       "and 'keep': give 'keep' alone\n")
    failing = write_job(workdir, JOB.replace("keep = [", "insensitive = [").replace("k = 10", "k = 5000"),
                        name="failing.toml")
    assert main(["run", str(failing)]) == 2                          # a refusal is its error line alone
    assert capsys.readouterr().err == "geoanon run: error: k=5000 is larger than the table (1500 rows)\n"
    typo = write_job(workdir, JOB.replace("keep = [", "insensitiv = ["), name="typo.toml")
    assert main(["run", str(typo), "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith(f"geoanon run: error: {typo}: [columns] unknown key 'insensitiv' (keys: ")


def test_columns_without_a_role_that_look_identifying_are_warned_about(workdir, capsys):
    df = pd.read_csv(workdir / "people.csv", sep=";", dtype=str)
    df["city"] = "Raleigh"
    df.to_csv(workdir / "people.csv", sep=";", index=False)
    assert main(["run", str(write_job(workdir)), "--dry-run"]) == 2          # refused by default
    assert "[columns] 1 column 'city' has no role and would be published as it is" in capsys.readouterr().err
    published = JOB.replace('sensitive = "occupation"', 'sensitive = "occupation"\nstrict = false')
    assert main(["run", str(write_job(workdir, published)), "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert "column 'city' has no role" in err and "a place" in err


@pytest.mark.parametrize("name, kind", [("first_name", "a name"), ("lastName", "a name"), ("Street Address", "an address"),
                                        ("city", "a place"), ("zip_code", "a place"), ("LONGITUDE", "coordinates"),
                                        ("x", "coordinates"), ("email", "a contact or an identifier"),
                                        ("patient_id", "a contact or an identifier"), ("age", None),
                                        ("diagnosis", None), ("visit_date", None)])
def test_names_that_look_identifying(name, kind):
    assert looks_identifying(name) == kind


# each case: (change to the job text, words the one-line error must hold)
BAD_JOBS = [
    (("[model]", "[modle]"), "unknown section [modle]"),
    (("k = 10", "k = 10\nkk = 3"), "[model] unknown key 'kk'"),
    (("k = 10", 'k = "10"'), "[model] k: expected an integer"),
    (("k = 10", "k = true"), "[model] k: expected an integer"),
    (("l = 2", 'l = "two"'), "[model] l: expected a number"),
    (('location = { lat = "lat", lon = "lon" }', 'location = { lat = "lat" }'), "[columns] location: missing lon"),
    (('location = { lat = "lat", lon = "lon" }', 'location = { lat = "lat", zip = "z" }'), "[columns] location: expected"),
    (('suppress = ["sex", "race"]', 'suppress = ["sex", "nope"]'), "[columns] suppress: no column 'nope'"),
    (('suppress = ["sex", "race"]', 'suppress = ["sex", "age"]'), "column 'age' has two roles"),
    (('suppress = ["sex", "race"]', 'suppress = "sex"'), "[columns] suppress: expected a list of column names"),
    (('sensitive = "occupation"', 'sensitive = "lat"'), "column 'lat' has two roles"),
    (('path = "people.csv"\n', ""), "[input] path is required"),
    (('table = "out/released.csv"', 'table = "people.csv"'), "names"),
    (('report = "out/report.json"', 'report = "out/report.txt"'), "[output] report: expected a .json file"),
    (('table = "out/released.csv"', 'table = "out/released.xlsx"'), "xlsx"),
    (('sep = ";"', 'sep = ";;"'), "[input] sep: expected one character"),
    (("[model]", "[model"), "not valid TOML"),
    (("[output]", '[release]\nmethod = "nope"\n\n[output]'), "[release] method: expected one of"),
    (("[output]", "[release]\njobs = 1.5\n\n[output]"), "[release] jobs: expected an integer"),
    (("[output]", "[release]\nregroup_km = 300\n\n[output]"), "[release] regroup_km: expected [median_km, p90_km]"),
    (("[output]", "[output]\nhtml_report = \"out/r.json\""), "[output] html_report: expected a .html file"),
    (("[output]", "[output]\nhtml_report = \"out/map.html\""), "[output] map name the same file"),
    (('location = { lat = "lat", lon = "lon" }\n', ""), "[output] map needs a location"),
    (("[output]", "[output]\nescape_formulas = 1"), "[output] escape_formulas: expected true or false"),
]


@pytest.mark.parametrize("change, words", BAD_JOBS, ids=[w for _, w in BAD_JOBS])
def test_a_bad_job_file_exits_2_with_one_line_naming_the_key(workdir, capsys, change, words):
    old, new = change
    assert old in JOB
    job = write_job(workdir, JOB.replace(old, new, 1))
    assert main(["run", str(job)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("geoanon run: error: ") and words in err[0], err
    assert list((workdir / "out").iterdir()) == []


def test_every_job_is_checked_before_any_runs(workdir, capsys):
    good = write_job(workdir, name="good.toml")
    bad = write_job(workdir, JOB.replace("out/", "out/second_").replace('"sex", "race"', '"sex", "nope"'),
                    name="bad.toml")
    assert main(["run", str(good), str(bad)]) == 2
    assert "no column 'nope'" in capsys.readouterr().err
    assert list((workdir / "out").iterdir()) == []
    clash = write_job(workdir, JOB.replace("report.json", "other.json").replace("map.html", "other.html"),
                      name="clash.toml")
    assert main(["run", str(good), str(clash)]) == 2
    assert "name the same file" in capsys.readouterr().err


def test_paths_are_relative_to_the_job_file_and_decimal_commas_are_read(workdir, tmp_path_factory):
    df = pd.read_csv(workdir / "people.csv", sep=";", dtype=str)
    df["lat"] = df["lat"].str.replace(".", ",", regex=False)
    df["lon"] = df["lon"].str.replace(".", ",", regex=False)
    df.to_csv(workdir / "people.csv", sep=";", index=False)
    job = write_job(workdir, JOB.replace('sep = ";"', 'sep = ";"\ndecimal = ","'))
    job = load_job(job)
    assert job.input == workdir / "people.csv" and job.outputs["table"] == workdir / "out" / "released.csv"
    elsewhere = tmp_path_factory.mktemp("cwd")
    import os

    before = os.getcwd()
    os.chdir(elsewhere)
    try:
        assert main(["run", str(workdir / "job.toml")]) == 0
    finally:
        os.chdir(before)
    released = pd.read_csv(workdir / "out" / "released.csv")
    boxed = released.dropna(subset=["lat_min"])      # the rows a box edge would pin have no location
    assert len(boxed) > 0.95 * len(released)
    assert boxed["lat_min"].between(34.5, 37.5).all() and boxed["lon_max"].between(-80.5, -76.5).all()


def test_single_purpose_commands_read_csv_with_another_delimiter_and_encoding(tmp_path):
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"lat": rng.uniform(35, 36, 60).round(4), "lon": rng.uniform(-80, -79, 60).round(4),
                       "ville": ["Orléans"] * 60})
    df.to_csv(tmp_path / "in.csv", sep="\t", index=False, encoding="latin-1")
    out = tmp_path / "out.csv"
    assert main(["points", str(tmp_path / "in.csv"), "-k", "5", "--lat", "lat", "--lon", "lon", "--sep", "\t",
                 "--encoding", "latin-1", "--keep", "ville", "-o", str(out)]) == 0
    assert (pd.read_csv(out)["ville"] == "Orléans").all()
    assert main(["points", str(tmp_path / "in.csv"), "-k", "5", "--lat", "lat", "--lon", "lon", "--sep", "\t",
                 "--keep", "ville", "-o", str(tmp_path / "again.csv")]) == 2
    assert not (tmp_path / "again.csv").exists()


def test_numbers_read_from_csv_stay_numbers_in_typed_formats(tmp_path):
    """CSV cells are read as text; a Parquet or GeoPackage output gets numbers
    back for columns of numbers (a leading zero keeps a code as text), while a
    CSV output keeps every untouched cell byte for byte."""
    import geopandas as gpd

    rng = np.random.default_rng(2)
    n = 80
    text = pd.DataFrame({"lat": rng.uniform(35, 36, n).round(4).astype(str),
                         "lon": rng.uniform(-80, -79, n).round(4).astype(str),
                         "visits": rng.integers(0, 9, n).astype(str), "weight": ["7.50"] * (n - 1) + [""],
                         "zip": ["02134"] * n, "note": ["1e3"] * (n - 1) + ["n/a"]})
    text.to_csv(tmp_path / "in.csv", index=False)
    for name in ("out.parquet", "out.gpkg", "out.csv"):
        assert main(["points", str(tmp_path / "in.csv"), "-k", "5", "--lat", "lat", "--lon", "lon", "--keep",
                     "visits,weight,zip,note", "--keep-order", "-o", str(tmp_path / name)]) == 0
    for table in (pd.read_parquet(tmp_path / "out.parquet"), gpd.read_file(tmp_path / "out.gpkg")):
        assert pd.api.types.is_integer_dtype(table["visits"]) and pd.api.types.is_float_dtype(table["weight"])
        assert table["weight"].isna().sum() == 1 and (table["zip"] == "02134").all()
        assert not pd.api.types.is_numeric_dtype(table["note"])
    same = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert same[["visits", "weight", "zip", "note"]].equals(text[["visits", "weight", "zip", "note"]])


def _run_on(stderr_terminal: bool, args, tmp_path):
    """Run the command line with stderr on a pseudo-terminal or a pipe; its stderr text."""
    import os
    import pty
    import subprocess
    import sys

    command = [sys.executable, "-m", "geoanon.cli", *args]
    if not stderr_terminal:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=slave, cwd=tmp_path)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:           # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=300) == 0
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_progress_shows_on_a_terminal_and_never_through_a_pipe(tmp_path):
    rng = np.random.default_rng(3)
    for name, n in (("in.csv", 400_000), ("small.csv", 20_000)):     # steps the spinner draws; none drawn
        pd.DataFrame({"lat": rng.uniform(30, 45, n).round(5), "lon": rng.uniform(-120, -75, n).round(5)}).to_csv(
            tmp_path / name, index=False)
    args = ["points", "in.csv", "-k", "10", "--lat", "lat", "--lon", "lon", "-o", "out.csv"]
    shown = _run_on(True, args, tmp_path)
    assert "reading in.csv" in shown and "partitioning points" in shown
    args[1] = "small.csv"
    assert _run_on(False, args, tmp_path) == ""                          # nothing through a pipe
    assert _run_on(True, [*args, "--quiet"], tmp_path) == ""              # nor with --quiet
    logged = _run_on(False, [*args, "-v"], tmp_path)
    assert "geoanon: partitioning points: " in logged and "geoanon: writing out.csv: " in logged


def test_explore_shows_its_steps(tmp_path):
    """--explore names each step as it goes (the settings searched, each one
    published), on a terminal and with -v; its worker processes never draw."""
    rng = np.random.default_rng(4)
    n = 3000
    pd.DataFrame({"lat": rng.normal(35.5, 1, n).round(4), "lon": rng.normal(-79, 1.5, n).round(4),
                  "age": rng.integers(18, 90, n)}).to_csv(tmp_path / "in.csv", index=False)
    args = ["anonymize", "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", "10", "--explore",
            "--jobs", "2", "-o", "out.csv"]
    logged = _run_on(False, [*args, "-v"], tmp_path)
    for line in ("exploring 8 settings of location_precision: ", "searching location_precision 0.25, ",
                 "publishing location_precision 0.95: ", "waiting for 1 worker process: "):
        assert f"geoanon: {line}" in logged, logged
    assert "exploring 8 settings" in _run_on(True, args, tmp_path)


def test_treated_columns_are_quasi_identifiers_listed_under_qi_or_not(tmp_path, cli):
    """The command line and job files agree: a column named by a treatment is a
    quasi-identifier whether or not it is also listed under qi."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 300
    pd.DataFrame({"lat": 35 + rng.normal(0, 1, n), "lon": -80 + rng.normal(0, 1, n), "age": rng.integers(20, 80, n),
                  "sex": rng.choice(["F", "M"], n)}).to_csv(tmp_path / "in.csv", index=False)
    outputs = []
    for i, qi in enumerate(('["sex"]', '["sex", "age"]')):
        (tmp_path / f"job{i}.toml").write_text(
            f'[input]\npath = "in.csv"\n[columns]\nlocation = {{ lat = "lat", lon = "lon" }}\nqi = {qi}\n'
            f'interval = ["age"]\n[model]\nk = 5\n[output]\ntable = "j{i}.csv"\n')
        code, _, err = cli("run", tmp_path / f"job{i}.toml")
        assert code == 0, err
        outputs.append((tmp_path / f"j{i}.csv").read_bytes())
    for i, qi in enumerate(("sex", "sex,age")):
        code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", qi,
                           "--interval", "age", "-k", "5", "-o", tmp_path / f"c{i}.csv")
        assert code == 0, err
        outputs.append((tmp_path / f"c{i}.csv").read_bytes())
    assert len(set(outputs)) == 1
