"""What the command line says: a refusal is its error line alone (no warning
before it), the summary says what its ratio is of, and ``-q`` leaves stdout
empty (warnings and errors on stderr, the outcome in the exit code)."""
import os
import re

import numpy as np
import pandas as pd
import pytest

ROWS = 120
JOBS = {
    "points": ["-k", "5", "--lat", "lat", "--lon", "lon"],
    "zip": ["-k", "5", "--zip-col", "zip", "--regions", "regions.geojson", "--region-id", "FIPS"],
    "labels": ["-k", "5", "--label-col", "name"],
    "suppress": ["-k", "5", "--qi", "age,sex"],
    "anonymize": ["-k", "5", "--lat", "lat", "--lon", "lon", "--qi", "age,sex"],
}
OTHERS = {"points": "zip,name,age,sex", "zip": "lat,lon,name,age,sex", "labels": "lat,lon,zip,age,sex",
          "suppress": "lat,lon,zip,name", "anonymize": "zip,name"}       # every other column, kept: each has a role
PIPELINE = {"points": "generalize_points", "zip": "generalize_regions", "labels": "generalize_labels",
            "suppress": "suppress", "anonymize": "anonymize"}


@pytest.fixture
def warned(monkeypatch):
    """Every job's release carries a warning (as one that repaired its input would)."""
    import geoanon.pipeline as pipeline

    for name in PIPELINE.values():
        def job(*args, _real=getattr(pipeline, name), **kwargs):
            release = _real(*args, **kwargs)
            release.warnings.append("something was worked around")
            return release
        monkeypatch.setattr(pipeline, name, job)


@pytest.fixture
def folder(tmp_path, monkeypatch, nc_gdf):
    rng = np.random.default_rng(7)
    pd.DataFrame({"lat": np.round(35 + rng.random(ROWS), 4), "lon": np.round(-80 + rng.random(ROWS), 4),
                  "zip": rng.choice(["37001", "37081", "37151"], ROWS), "name": rng.choice(["ann", "bob"], ROWS),
                  "age": rng.integers(20, 80, ROWS), "sex": rng.choice(["F", "M"], ROWS)}) \
        .to_csv(tmp_path / "in.csv", index=False)
    nc_gdf.to_file(tmp_path / "regions.geojson")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", sorted(JOBS))
def test_a_refusal_after_the_job_is_one_line(folder, cli, warned, command):
    """Escaping the names makes two columns of one name: refused as the
    table is written, after the job made its release and its warning; the
    warning is not shown."""
    df = pd.read_csv("in.csv", dtype=str).assign(**{"=x": "1", "'=x": "2"})
    df.to_csv("in.csv", index=False)
    before = sorted(os.listdir(folder))
    code, out, err = cli(command, "in.csv", *JOBS[command], "--keep", OTHERS[command] + ",=x,'=x", "--escape-formulas",
                         "-o", "out.csv", "--report", "r.json")
    assert code == 2 and out == ""
    assert err == f"geoanon {command}: error: escaping the column names that could start a formula makes two " \
                  "columns \"'=x\"\n"
    assert sorted(os.listdir(folder)) == before


def test_the_ratio_is_the_largest_groups_over_its_lower_bound(folder, cli):
    code, out, _ = cli("points", "in.csv", *JOBS["points"], "-o", "p.csv", "--keep", OTHERS["points"])
    assert code == 0 and re.search(r"^  120 rows, \d+ classes, largest( group)? \d?\.?\d* ?\(?\d\.\d{3} x the lower "
                                   r"bound 5", out), out
    unknown = pd.read_csv("in.csv", dtype=str)
    unknown.loc[:29, "zip"] = "99999"                    # 30 records in a region not on the map
    unknown.to_csv("in.csv", index=False)
    code, out, err = cli("zip", "in.csv", *JOBS["zip"], "--unknown", "suppress", "-o", "z.csv",
                         "--keep", OTHERS["zip"])
    assert code == 0, err
    line = out.splitlines()[0]
    assert line.startswith("  120 rows, 4 classes, largest group ") and ", 30 records suppressed, " in line
    assert "x the lower bound" in line and "ratio" not in line


@pytest.mark.parametrize("command", sorted(JOBS))
def test_quiet_prints_nothing_but_warnings(folder, cli, warned, command):
    code, out, err = cli(command, "in.csv", *JOBS[command], "--keep", OTHERS[command], "-o", "out.csv",
                         "--report", "r.json", "-q")
    assert (code, out, err) == (0, "", f"geoanon {command}: warning: something was worked around\n")
    assert os.path.isfile("out.csv") and os.path.isfile("r.json")


@pytest.mark.slow
def test_quiet_audit_run_and_demo(folder, cli):
    code, out, err = cli("audit", "in.csv", "--qi", "age,sex", "-k", "5", "-q")
    assert (code, out, err) == (1, "", "")                       # the raw table misses k = 5: the exit code says so
    code, out, err = cli("audit", "in.csv", "--qi", "sex", "-k", "5", "--quiet")
    assert (code, out, err) == (0, "", "")
    (folder / "job.toml").write_text('[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\n'
                                     'qi = ["age"]\nkeep = ["zip", "name", "sex"]\n[model]\nk = 5\n'
                                     '[output]\ntable = "job_out.csv"\n')
    for dry in ([], ["--dry-run"]):
        code, out, err = cli("run", "job.toml", *dry, "-q")
        assert (code, out, err) == (0, "", "")
    code, out, err = cli("demo", "--out", "demo", "-q")
    assert code == 0 and out == "" and os.path.isfile("demo/points.csv")
    assert all(line.startswith("geoanon demo: warning: ") for line in err.splitlines())


@pytest.mark.parametrize("sep, words, flag", [(";", "semicolons", "';'"), ("\t", "tabs", "$'\\t'"),
                                              ("|", "pipes", "'|'")])
@pytest.mark.parametrize("command", [*sorted(JOBS), "audit"])
def test_a_table_read_with_the_wrong_delimiter_says_which(folder, cli, command, sep, words, flag):
    pd.read_csv("in.csv", dtype=str).to_csv("other.csv", sep=sep, index=False)
    flags = ["--qi", "age,sex", "-k", "5"] if command == "audit" else [*JOBS[command], "-o", "out.csv",
                                                                        "--identifiers", "name"]
    code, out, err = cli(command, "other.csv", *flags)
    assert code == 2 and out == ""
    first = {"points": "lat", "zip": "zip", "labels": "name", "suppress": "age", "anonymize": "lat", "audit": "age"}
    assert err == f"geoanon {command}: error: other.csv: no column '{first[command]}' in its header, whose columns " \
                  f"are separated by {words}: give --sep {flag}\n"
    assert not os.path.exists("out.csv")


@pytest.mark.parametrize("encoding, text, name", [("latin-1", "Zürich", "latin-1"), ("cp1252", "€ 5", "cp1252"),
                                                  ("utf-16", "Zürich", "utf-16")])
def test_text_in_another_encoding_says_which(folder, cli, encoding, text, name):
    pd.read_csv("in.csv", dtype=str).assign(city=text).to_csv("other.csv", index=False, encoding=encoding)
    code, out, err = cli("points", "other.csv", *JOBS["points"], "-o", "out.csv", "--keep", "zip,name,age,sex,city")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("geoanon points: error: other.csv: not UTF-8 text (")
    assert err.endswith(f"); it reads as {name}: give --encoding {name}\n")
    code, _, err = cli("points", "other.csv", *JOBS["points"], "-o", "out.csv", "--keep", "zip,name,age,sex,city",
                       "--encoding", name)
    assert code == 0 and pd.read_csv("out.csv")["city"].eq(text).all(), err


def test_a_file_of_mixed_encodings_gets_no_guess(folder, cli):
    text = (folder / "in.csv").read_bytes()
    mixed = text.replace(b"ann", "änn".encode(), 3).replace(b"bob", "böb".encode("latin-1"), 1)   # UTF-8 and Latin-1
    (folder / "in.csv").write_bytes(mixed)
    code, _, err = cli("points", "in.csv", *JOBS["points"], "-o", "out.csv")
    assert code == 2 and "not UTF-8 text (" in err and "reads as" not in err


def test_a_job_file_says_it_in_its_own_terms(folder, cli):
    pd.read_csv("in.csv", dtype=str).to_csv("semi.csv", sep=";", index=False)
    pd.read_csv("in.csv", dtype=str).assign(city="Zürich").to_csv("latin.csv", index=False, encoding="latin-1")
    for table in ("semi", "latin"):
        (folder / f"{table}.toml").write_text(
            f'[input]\npath = "{table}.csv"\n[columns]\nlocation = {{ lat = "lat", lon = "lon" }}\nqi = ["age"]\n'
            f'keep = ["zip", "name", "sex"]\n[model]\nk = 5\n[output]\ntable = "{table}_out.csv"\n')
    code, _, err = cli("run", "semi.toml", "--dry-run")
    assert (code, err) == (2, "geoanon run: error: semi.toml: [columns] keep: no column 'zip' in semi.csv; "
                              "its columns are separated by semicolons: set sep = \";\" in [input]\n")
    code, _, err = cli("run", "latin.toml")
    assert code == 2 and err.startswith("geoanon run: error: latin.toml: latin.csv: not UTF-8 text (")
    assert err.endswith('); it reads as latin-1: set encoding = "latin-1" in [input]\n')
    assert not os.path.exists("latin_out.csv") and not os.path.exists("semi_out.csv")
