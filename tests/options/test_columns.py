"""One declaration of the columns' roles (geoanon.Columns) for the API, the
command line and job files."""
import numpy as np
import pandas as pd
import pytest

import geoanon as ga


def _table(n=400, seed=2):
    rng = np.random.default_rng(seed)
    days = np.datetime64("2024-01-01") + rng.integers(0, 365, n).astype("timedelta64[D]")
    return pd.DataFrame({"name": [f"p{i}" for i in range(n)], "lat": (40 + rng.normal(0, 1, n)).round(4),
                         "lon": (-75 + rng.normal(0, 1, n)).round(4), "age": rng.integers(18, 90, n),
                         "sex": rng.choice(["F", "M"], n), "race": rng.choice(["a", "b", "c"], n),
                         "visit": pd.to_datetime(days).strftime("%d/%m/%Y"),
                         "dx": rng.choice(["flu", "copd", "asthma"], n), "ward": rng.choice(["1", "2"], n)})


ROLES = dict(location=("lat", "lon"), qi=["sex"], interval=["age"], sets=["race"], dates={"visit": "%d/%m/%Y"},
             sensitive="dx", identifiers=["name"], keep=["ward"])


def test_columns_give_the_release_the_keywords_give():
    df = _table()
    by_keywords = ga.anonymize(df, k=5, l=2, **ROLES)
    cols = ga.Columns(**ROLES)
    assert cols.quasi_identifiers == ["sex", "age", "visit", "race"]
    by_columns = ga.anonymize(df, cols, k=5, l=2)
    pd.testing.assert_frame_equal(by_columns.in_input_order(), by_keywords.in_input_order())
    assert by_columns.report.details["qi"] == {"sex": "set", "age": "interval", "visit": "interval",
                                               "race": "set"}
    # the sensitive column may be the model's instead
    as_model = ga.anonymize(df, ga.Columns(**{**ROLES, "sensitive": None}), model=ga.Model(k=5, l=2, sensitive="dx"))
    pd.testing.assert_frame_equal(as_model.in_input_order(), by_keywords.in_input_order())
    both = ga.anonymize(df, cols, model=ga.Model(k=5, l=2, sensitive="dx"))      # named twice, the same column
    pd.testing.assert_frame_equal(both.in_input_order(), by_keywords.in_input_order())
    k_only = ga.anonymize(df, cols, model=ga.Model(k=5))
    assert k_only.report.model["sensitive"] == "dx"


def test_columns_and_role_keywords_together_are_refused():
    df = _table(100)
    with pytest.raises(ga.ParameterError, match="not both .*qi"):
        ga.anonymize(df, ga.Columns(**ROLES), qi=["sex"], k=5)
    with pytest.raises(ga.ParameterError, match="must be a geoanon.Columns"):
        ga.anonymize(df, {"qi": ["sex"]}, k=5)
    with pytest.raises(ga.ParameterError, match="the model 'ward'"):
        ga.anonymize(df, ga.Columns(**ROLES), model=ga.Model(k=5, l=2, sensitive="ward"))
    with pytest.raises(ga.ParameterError, match="qi must be a column name or a list"):
        ga.Columns(qi=3)
    with pytest.raises(ga.ParameterError, match="two roles"):           # checked against the table, as the keywords
        ga.anonymize(df, ga.Columns(location=("lat", "lon"), qi=["sex", "lat"]), k=5)


def test_the_command_line_a_job_and_the_api_agree(tmp_path, cli):
    df = _table()
    df.to_csv(tmp_path / "in.csv", index=False)
    api = ga.anonymize(df, ga.Columns(**ROLES), k=5, l=2).table
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "sex",
                       "--interval", "age", "--sets", "race", "--date", "visit:%d/%m/%Y", "--sensitive", "dx",
                       "-l", "2", "-k", "5", "--identifiers", "name", "--keep", "ward", "-o", tmp_path / "cli.csv")
    assert code == 0, err
    # the job lists the interval column under qi too: the same release
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["sex", "age"]\n'
        'interval = ["age"]\nsets = ["race"]\ndates = { visit = "%d/%m/%Y" }\nsensitive = "dx"\n'
        'identifiers = ["name"]\nkeep = ["ward"]\n[model]\nk = 5\nl = 2\n[output]\ntable = "job.csv"\n')
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    cli_bytes, job_bytes = (tmp_path / "cli.csv").read_bytes(), (tmp_path / "job.csv").read_bytes()
    assert cli_bytes == job_bytes
    written = pd.read_csv(tmp_path / "cli.csv")          # all three in the published order
    assert list(written.columns) == list(api.columns)
    assert written["age_min"].tolist() == api["age_min"].tolist()
    assert written["visit_max"].tolist() == api["visit_max"].tolist()
