"""Hints instead of silent misreadings (issue 50): each case a GIS analyst met,
from the command line (exit code, stderr) and from Python (typed errors and
warnings)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.joint.dims import SetDim


def visits(n: int = 1200, seed: int = 4) -> pd.DataFrame:
    """Patient visits as a health department's export writes them: US dates,
    race as a numeric code and as text (some missing), ages up to 104."""
    rng = np.random.default_rng(seed)
    days = np.datetime64("2023-01-01") + rng.integers(0, 365, n).astype("timedelta64[D]")
    age = np.clip(rng.gamma(4, 11, n), 0, 95).astype(int)
    age[0] = 104
    return pd.DataFrame({"id": [f"p{i}" for i in range(n)], "lat": np.round(29 + rng.random(n) * 4, 6),
                         "lon": np.round(-100 + rng.random(n) * 5, 6),
                         "visit_date": pd.to_datetime(days).strftime("%m/%d/%Y"), "age": age.astype(str),
                         "race_code": rng.integers(1, 7, n).astype(str),
                         "race": rng.choice(["White", "Black", "Asian", "AIAN", ""], n, p=[.5, .2, .1, .1, .1]),
                         "sex": rng.choice(["F", "M"], n)})


def released(df, k: int = 10, **keywords):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = ga.anonymize(df, location=("lat", "lon"), identifiers=["id"], k=k, **keywords)
    return release, [w for w in caught if issubclass(w.category, ga.GeoanonWarning)]


QI = ["age", "race_code", "race", "sex", "visit_date"]


# -- 1, 2: dates in a US format and numeric category codes ---------------------------------------------------

def test_us_dates_and_category_codes_are_named_with_the_keyword_that_declares_them():
    release, caught = released(visits(), qi=QI)
    said = [str(w.message) for w in caught]
    assert all(w.category is ga.ColumnWarning for w in caught) and len(said) == 2
    assert any("'visit_date' reads as dates in the format %m/%d/%Y" in s and
               "give dates={'visit_date': '%m/%d/%Y'}" in s for s in said)
    assert any("'race_code' holds 6 distinct whole numbers" in s and "sets=['race_code']" in s for s in said)
    assert release.report["warnings"][:2] == said == release.warnings[:2]      # in the report too
    declared, caught = released(visits(), qi=["age", "race", "sex"], sets=["race_code"],
                                dates={"visit_date": "%m/%d/%Y"})
    assert caught == [] and "visit_date_min" in declared.table.columns and "race_code_min" not in declared.table


def test_the_command_line_says_the_hints_in_its_flags(tmp_path, cli):
    visits().to_csv(tmp_path / "visits.csv", index=False)
    code, _, err = cli("anonymize", tmp_path / "visits.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(QI),
                       "--identifiers", "id", "-k", "10", "-o", tmp_path / "out.csv")
    assert code == 0, err
    assert "give --date visit_date:%m/%d/%Y" in err and "give --sets race_code" in err
    assert "ColumnWarning" not in err and err.count("warning:") == 2           # once, as the command's own lines
    code, _, err = cli("anonymize", tmp_path / "visits.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,race,sex",
                       "--sets", "race_code", "--date", "visit_date:%m/%d/%Y", "--identifiers", "id", "-k", "10",
                       "-o", tmp_path / "out2.csv")
    assert code == 0 and "warning" not in err, err


def test_a_few_codes_in_a_small_table_are_no_hint():
    df = pd.DataFrame({"age": [30, 31, 32, 33, 50, 51, 52, 53], "sex": list("FMFMFMFM")})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ga.GeoanonWarning)
        ga.anonymize(df, qi=["age", "sex"], k=2)          # eight ages in eight rows: quantities


# -- 3: decimal commas ----------------------------------------------------------------------------------------

def _comma(df: pd.DataFrame, columns) -> pd.DataFrame:
    return df.assign(**{c: df[c].astype(str).str.replace(".", ",", regex=False) for c in columns})


def test_decimal_commas_are_read_with_decimal_and_hinted_without(tmp_path, cli):
    df = visits().assign(weight=lambda d: (50 + np.arange(len(d)) % 40 + 0.5).astype(str))
    plain = tmp_path / "plain.csv"
    df.to_csv(plain, index=False)
    _comma(df, ["lat", "lon", "weight"]).to_csv(tmp_path / "comma.csv", index=False, sep=";")
    flags = ["--lat", "lat", "--lon", "lon", "--qi", "age,race,sex,weight", "--sets", "race_code", "--date",
             "visit_date:%m/%d/%Y", "--identifiers", "id", "-k", "10"]
    code, _, err = cli("anonymize", tmp_path / "comma.csv", "--sep", ";", *flags, "-o", tmp_path / "c.csv")
    assert code == 2 and "is not a number; it reads as a number with a decimal comma: give --decimal ," in err
    assert not (tmp_path / "c.csv").exists()
    assert cli("anonymize", tmp_path / "comma.csv", "--sep", ";", "--decimal", ",", *flags, "-o",
               tmp_path / "c.csv")[0] == 0
    assert cli("anonymize", plain, *flags, "-o", tmp_path / "p.csv")[0] == 0
    assert (tmp_path / "c.csv").read_bytes() == (tmp_path / "p.csv").read_bytes()      # the same release
    code, _, err = cli("anonymize", plain, "--decimal", ",", *flags, "-o", tmp_path / "x.csv")
    assert code == 2 and "--decimal and --sep are both ','" in err
    code, _, err = cli("points", tmp_path / "comma.csv", "--sep", ";", "--decimal", ",", "--lat", "lat", "--lon",
                       "lon", "--identifiers", "id,visit_date,age,race_code,race,sex,weight", "-k", "10", "-o",
                       tmp_path / "pts.csv")
    assert code == 0, err


def test_a_number_column_with_decimal_commas_is_no_silent_category():
    df = _comma(visits().assign(weight=lambda d: (50 + np.arange(len(d)) % 40 + 0.5)), ["weight"])
    _, caught = released(df, qi=["age", "weight"], sets=["race_code", "race", "sex"], dates={"visit_date": "%m/%d/%Y"})
    assert [str(w.message) for w in caught] == ["column 'weight' reads as numbers with a decimal comma but is "
                                                "published as categories; to publish it as intervals, give "
                                                "decimal=','"]
    release, caught = released(df, qi=["age", "weight"], sets=["race_code", "race", "sex"],
                               dates={"visit_date": "%m/%d/%Y"}, decimal=",")
    assert caught == [] and release.report["qi"]["weight"] == "interval"
    with pytest.raises(ga.DataError, match=r"'-\d+,\d+' is not a number; it reads as a number with a decimal comma: "
                                           r"give decimal=','$"):
        ga.anonymize(_comma(df, ["lon"]), location=("lat", "lon"), qi=["age"], k=10,
                     identifiers=["id", "visit_date", "race_code", "race", "sex", "weight"])


def test_a_job_files_decimal_reads_every_number_column(tmp_path, cli):
    df = _comma(visits().assign(weight=lambda d: (50 + np.arange(len(d)) % 40 + 0.5)), ["lat", "lon", "weight"])
    df.to_csv(tmp_path / "in.csv", index=False, sep=";")
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\nsep = ";"\ndecimal = ","\n[columns]\nidentifiers = ["id"]\n'
        'location = { lat = "lat", lon = "lon" }\nqi = ["age", "weight"]\nsets = ["race_code", "race", "sex"]\n'
        'dates = { visit_date = "%m/%d/%Y" }\n[model]\nk = 10\n[output]\ntable = "out.csv"\n')
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    assert {"weight_min", "weight_max"} <= set(pd.read_csv(tmp_path / "out.csv").columns)     # a number, not a set


# -- 4: one role per column -----------------------------------------------------------------------------------

@pytest.mark.parametrize("roles, message", [
    ({"qi": ["age"], "keep": ["age"]}, "column 'age' is given two roles: quasi-identifier and keep"),
    ({"qi": ["age"], "identifiers": ["id", "age"]}, "column 'age' is given two roles: quasi-identifier and identifiers"),
    ({"qi": ["age"], "keep": ["lat"]}, "column 'lat' is given two roles: location lat and keep"),
    ({"qi": ["age"], "sensitive": "race", "keep": ["race"]}, "column 'race' is given two roles: sensitive and keep"),
])
def test_a_column_given_two_roles_is_refused_by_name(roles, message):
    df = visits(60)
    with pytest.raises(ga.ParameterError, match=message):
        ga.anonymize(df, location=("lat", "lon"), k=5, **{"identifiers": ["id"], **roles})


def test_two_roles_on_the_command_line(tmp_path, cli):
    visits(60).to_csv(tmp_path / "v.csv", index=False)
    base = ["anonymize", tmp_path / "v.csv", "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", "5", "-o",
            tmp_path / "o.csv"]
    code, _, err = cli(*base, "--keep", "age,visit_date,race_code,race,sex", "--identifiers", "id")
    assert code == 2 and "column 'age' is given two roles: quasi-identifier and keep" in err
    code, _, err = cli(*base, "--identifiers", "id,age,visit_date,race_code,race,sex")
    assert code == 2 and "column 'age' is given two roles: quasi-identifier and identifiers" in err
    assert "no column" not in err and not (tmp_path / "o.csv").exists()
    code, _, err = cli("points", tmp_path / "v.csv", "--lat", "lat", "--lon", "lon", "--keep", "lat", "-k", "5",
                       "--identifiers", "id,visit_date,age,race_code,race,sex", "-o", tmp_path / "o.csv")
    assert code == 2 and "column 'lat' is given two roles: location lat and keep" in err


# -- 5: a missing category in a set ---------------------------------------------------------------------------

def test_a_missing_category_is_na_in_a_set_never_an_empty_member():
    dim = SetDim("race", np.array([0, 1, 2, 0, 1, 2]), ["", "AIAN", "Black"])
    assert dim.label(0b011) == "AIAN|NA" and dim.label(0b110) == "AIAN|Black" and dim.label(0b001) == ""
    release, _ = released(visits(3000), k=80, qi=["age", "race", "sex"], sets=["race_code"],
                          dates={"visit_date": "%m/%d/%Y"})
    shown = release.table["race"]
    assert shown.str.endswith("|NA").any() or shown.str.contains("|NA|", regex=False).any()
    assert not shown.str.startswith("|").any() and not shown.str.contains("||", regex=False).any()


# -- 6: open tails apart from suppressed cells ----------------------------------------------------------------

def test_open_ends_are_infinite_and_suppressed_ones_empty(tmp_path):
    df = visits()
    df.loc[5, "age"] = ""                              # a missing age: its class's interval is empty
    release, _ = released(df, qi=["age", "race", "sex"], sets=["race_code"], dates={"visit_date": "%m/%d/%Y"})
    t = release.in_input_order()
    assert t.loc[0, "age_max"] == np.inf               # the oldest: "85+", open
    assert pd.isna(t.loc[5, "age_min"]) and pd.isna(t.loc[5, "age_max"])
    assert (t["visit_date_max"] == "..").any() or (t["visit_date_min"] == "..").any()
    release.to_file(tmp_path / "out.csv")
    text = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert "inf" in set(text["age_max"]) and text["age_max"].str.fullmatch(r"\d+|inf|").all()   # whole numbers
    assert ((text["age_min"] == "") == (text["age_max"] == "")).all()          # empty: both ends, never one
    assert release.report["units"]["columns"]["age"]["open"] > 0


# -- 7: longitudes from 0 to 360 ------------------------------------------------------------------------------

def test_longitudes_from_0_to_360_are_refused_with_the_way_to_wrap_them(tmp_path, cli):
    df = visits(200).assign(lon=lambda d: d["lon"] + 360)
    with pytest.raises(ga.DataError, match=r"look written from 0 to 360: give them from -180 to 180"):
        ga.generalize_points(df, 5, lat="lat", lon="lon", keep=list(df.columns.drop(["lat", "lon"])))
    df.to_csv(tmp_path / "v.csv", index=False)
    code, _, err = cli("anonymize", tmp_path / "v.csv", "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", "5",
                       "--identifiers", "id,visit_date,race_code,race,sex", "-o", tmp_path / "o.csv")
    assert code == 2 and "from -180 to 180 (lon - 360 where lon > 180)" in err


# -- 8: --sep of other than one character ---------------------------------------------------------------------

@pytest.mark.parametrize("sep", [";;", ""])
def test_a_sep_of_other_than_one_character_is_one_line_and_exit_2(tmp_path, cli, sep):
    visits(60).to_csv(tmp_path / "v.csv", index=False)
    for command in (["anonymize", "--lat", "lat", "--lon", "lon", "--qi", "age", "-o", tmp_path / "o.csv"],
                    ["audit", "--qi", "age"]):
        code, _, err = cli(command[0], tmp_path / "v.csv", *command[1:], "-k", "5", "--sep", sep)
        assert code == 2 and "Traceback" not in err and f"--sep: expected one character, got {sep!r}" in err


# -- 9: bands never past the values k records reach -----------------------------------------------------------

def test_interval_ends_never_pass_the_values_k_records_reach():
    df = visits(5000)
    ages = np.sort(df["age"].astype(float).to_numpy())
    for k in (10, 50):
        release, _ = released(df, k=k, qi=["age", "race", "sex"], sets=["race_code"], dates={"visit_date": "%m/%d/%Y"})
        t = release.table
        high = t["age_max"][np.isfinite(t["age_max"])]
        low = t["age_min"][np.isfinite(t["age_min"]) & (t["age_min"] > 0)]          # 0: the floor, open
        assert (high <= ages[-k]).all() and (low >= ages[k - 1]).all()
        assert (t["age_max"] == np.inf).any()
