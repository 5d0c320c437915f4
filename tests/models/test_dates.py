"""Dates and timestamps as quasi-identifiers (geoanon.dates): read, cut on the
calendar, published as ISO intervals that hold every record of their class,
rounded out to a calendar level and open beyond the dates k records reach."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.dates import ROUNDING_LEVELS, calendar_cuts, iso, is_date_column, level_end, level_start, parse


def visits(n=800, seed=0, days=500):
    rng = np.random.default_rng(seed)
    start = np.datetime64("2023-01-01")
    return pd.DataFrame({"lat": 35 + rng.normal(0, 1, n), "lon": -80 + rng.normal(0, 1, n),
                         "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
                         "visit": np.datetime_as_string(start + rng.integers(0, days, n).astype("timedelta64[D]"),
                                                        unit="D")})


def test_reading_dates():
    assert is_date_column(pd.Series(["2024-03-05", None, "2024-03-05T10:30"]))
    assert not is_date_column(pd.Series(["2024-03-05", "soon"])) and not is_date_column(pd.Series([1, 2]))
    assert is_date_column(pd.Series(pd.to_datetime(["2024-01-01"])))
    days, unit = parse(pd.Series(["1970-01-02", "", "2024-02-29"]))
    assert unit == "day" and days[0] == 1 and np.isnan(days[1]) and iso(days[2:], unit)[0] == "2024-02-29"
    seconds, unit = parse(pd.Series(["2024-03-05T10:30:00+02:00", "2024-03-05T09:00Z"]))
    assert unit == "second" and list(iso(seconds, unit)) == ["2024-03-05T08:30:00", "2024-03-05T09:00:00"]
    assert parse(pd.Series(["05/03/2024"]), "%d/%m/%Y")[0][0] == parse(pd.Series(["2024-03-05"]))[0][0]
    with pytest.raises(ga.DataError, match="'31/02/2024' is not a date in the format"):
        parse(pd.Series(["01/02/2024", "31/02/2024"], name="d"), "%d/%m/%Y")


def test_calendar_cuts_take_the_coarsest_boundary():
    a, _ = parse(pd.Series(["2024-01-15", "2024-02-20", "2024-02-21", "2024-05-02", "2024-12-30"]))
    b, _ = parse(pd.Series(["2024-02-20", "2024-02-21", "2024-05-02", "2024-12-30", "2025-03-01"]))
    assert list(iso(calendar_cuts(a, b, "day"), "day")) == [
        "2024-02-01", "2024-02-21", "2024-04-01", "2024-10-01", "2025-01-01"]   # month, day, quarter x2, year
    week, _ = parse(pd.Series(["2024-03-05", "2024-03-12"]))                     # a Tuesday, the next Tuesday
    assert iso(calendar_cuts(week[:1], week[1:], "day"), "day")[0] == "2024-03-11"   # the Monday between


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-20_000, 40_000), min_size=2, max_size=30, unique=True), st.booleans())
def test_every_cut_lies_between_its_values(values, seconds):
    v = np.sort(np.array(values, dtype=float)) * (86_400 if seconds else 1)
    if seconds:
        v = v + np.arange(v.size) * 3_607               # times of day too
    v = np.unique(v)
    cuts = calendar_cuts(v[:-1], v[1:], "second" if seconds else "day")
    assert np.all(cuts > v[:-1]) and np.all(cuts <= v[1:])


def test_a_date_column_is_published_as_iso_intervals_holding_its_records():
    df = visits()
    df.loc[7, "visit"] = None
    r = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "visit"], k=10, identifiers=[])
    t = r.in_input_order()
    assert "visit" not in t.columns and r.report.audit["k"] >= 10
    own, lo, hi = (pd.to_datetime(s.where(s != "..")) for s in (df["visit"], t["visit_min"], t["visit_max"]))
    shown = lo.notna() | hi.notna()    # both empty: the class mixes dates with a missing one (published as nothing)
    assert ((lo.isna() | (lo <= own)) & (hi.isna() | (own <= hi)))[shown].all()
    assert pd.isna(t.loc[7, "visit_min"]) and set(t.loc[~shown, "class_id"]) == {t.loc[7, "class_id"]}
    assert closed_ends(t["visit_min"]).str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    # the ends are the first and last days of one calendar level's periods, whatever the records' own dates
    days = {end: parse(closed_ends(t[end]))[0] for end in ("visit_min", "visit_max")}
    assert any((level_start(days["visit_min"], level, "day") == days["visit_min"]).all()
               and (level_end(days["visit_max"], level, "day") == days["visit_max"]).all()
               for level in ROUNDING_LEVELS["day"])
    # an end open beyond the dates k records reach: the latest nine visits have no upper end (those that share
    # the class of the missing date publish none)
    latest = own.dropna().sort_values().index[-9:]
    latest = latest[shown[latest].to_numpy()]
    assert (t.loc[latest, "visit_max"] == "..").all() and t.loc[latest, "visit_min"].notna().all()
    ncp = r.report["ncp"]["columns"]["visit"]
    assert 0 < ncp < 1
    qi = ["lat_min", "lat_max", "lon_min", "lon_max", "age_min", "age_max", "sex", "visit_min", "visit_max",
          "class_id"]
    assert ga.audit(t, qi, k=10, original=df)["ncp"]["columns"]["visit"] == pytest.approx(ncp)


def test_timestamps_formats_and_datetime_columns_give_one_release():
    df = visits(seed=2)
    iso_release = ga.anonymize(df, qi=["age", "sex", "visit"], k=10, identifiers=["lat", "lon"])
    typed = ga.anonymize(df.assign(visit=pd.to_datetime(df["visit"])), qi=["age", "sex", "visit"], k=10,
                         identifiers=["lat", "lon"])
    pd.testing.assert_frame_equal(iso_release.in_input_order(), typed.in_input_order())
    european = df.assign(visit=pd.to_datetime(df["visit"]).dt.strftime("%d/%m/%Y"))
    formatted = ga.anonymize(european, qi=["age", "sex", "visit"], k=10, identifiers=["lat", "lon"],
                             dates={"visit": "%d/%m/%Y"})
    pd.testing.assert_frame_equal(iso_release.in_input_order(), formatted.in_input_order())
    stamps = df.assign(visit=df["visit"] + "T" + pd.Series(np.arange(len(df)) % 24).map("{:02d}:15:00".format))
    timed = ga.anonymize(stamps, qi=["age", "sex", "visit"], k=10, identifiers=["lat", "lon"])
    ends = closed_ends(timed.in_input_order()["visit_min"])
    assert ends.str.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00").all()          # never a record's seconds
    unlisted = ga.anonymize(df, qi=["age", "sex"], k=10, dates=["visit"], identifiers=["lat", "lon"])
    pd.testing.assert_frame_equal(unlisted.in_input_order(), iso_release.in_input_order())        # a date column is a quasi-identifier
    with pytest.raises(ga.DataError, match="is not a date in the format"):
        ga.anonymize(df, qi=["age", "sex", "visit"], k=10, dates={"visit": "%d/%m/%Y"}, identifiers=["lat", "lon"])


def test_command_line_and_job(tmp_path, cli):
    df = visits(seed=3)
    df.assign(visit=pd.to_datetime(df["visit"]).dt.strftime("%d/%m/%Y")).to_csv(tmp_path / "eu.csv", index=False)
    code, _, err = cli("anonymize", tmp_path / "eu.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex,visit",
                       "--date", "visit:%d/%m/%Y", "-k", "10", "-o", tmp_path / "o.csv")
    assert code == 0, err
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert closed_ends(out["visit_min"]).str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "eu.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["sex"]\n'
        'interval = ["age", "visit"]\ndates = { visit = "%d/%m/%Y" }\n[model]\nk = 10\n[output]\ntable = "j.csv"\n')
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    job_out = pd.read_csv(tmp_path / "j.csv", dtype=str)
    assert list(job_out.columns) == list(out.columns)
    assert closed_ends(job_out["visit_max"]).str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    code, _, err = cli("anonymize", tmp_path / "eu.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex,visit",
                       "-k", "10", "-o", tmp_path / "o2.csv")
    assert code == 0, err             # not ISO and not named: the dates are text, published as they are or '*',
    assert "give --date visit:%d/%m/%Y" in err      # with the hint to name them
    assert "visit" in pd.read_csv(tmp_path / "o2.csv").columns


def closed_ends(ends: pd.Series) -> pd.Series:
    """The published date ends that are dates: neither missing nor open (``..``)."""
    return ends[ends.notna() & (ends != "..")]


def test_a_date_hierarchy_publishes_months_quarters_or_years():
    from geoanon.dates import date_hierarchy

    h = date_hierarchy(pd.Series(["2024-03-05", "2024-03-09", "2024-05-01", "2025-01-02"]),
                       ("month", "quarter", "year"))
    assert h.paths[:, 1:].tolist() == [["2024-03", "2024-Q1", "2024", "*"], ["2024-03", "2024-Q1", "2024", "*"],
                                       ["2024-05", "2024-Q2", "2024", "*"], ["2025-01", "2025-Q1", "2025", "*"]]
    df = visits(seed=5)
    r = ga.anonymize(df, qi=["age", "visit"], k=10, hierarchies={"visit": date_hierarchy(df["visit"])},
                     identifiers=["lat", "lon", "sex"])
    assert r.report.audit["k"] >= 10
    assert r.in_input_order()["visit"].str.fullmatch(r"\d{4}(-\d{2})?|\*").all()
    for bad in (("year", "month"), ("week",), ()):
        with pytest.raises(ga.ParameterError, match="finest first"):
            date_hierarchy(df["visit"], bad)
