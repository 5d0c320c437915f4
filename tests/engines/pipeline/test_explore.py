"""explore: releases along location_precision, each reproduced by its setting."""
import json

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.pipeline.frontier import frontier_point
from geoanon.options import release_spec


def _table(n=500, seed=4):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"lat": rng.normal(40, 2, n).round(4), "lon": rng.normal(-90, 4, n).round(4),
                         "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
                         "race": rng.choice(["a", "b", "c"], n, p=[0.7, 0.2, 0.1])})


KW = dict(location=("lat", "lon"), qi=["age", "sex", "race"], k=8)


def test_every_point_is_the_release_its_setting_makes():
    df = _table()
    r = ga.explore(df, **KW, settings=(0.1, 0.6, 0.95), location_precision=0.6)
    f = r.report.details["frontier"]
    assert f["chosen"] == 0.6 and [p["location_precision"] for p in f["points"]] == [0.1, 0.6, 0.95]
    pd.testing.assert_frame_equal(r.in_input_order(), ga.anonymize(df, **KW, location_precision=0.6).in_input_order())
    spec = release_spec("anonymize", **KW)
    for p in f["points"]:
        again = ga.anonymize(df, **KW, location_precision=p["location_precision"])
        assert frontier_point(p["location_precision"], again.in_input_order(), again.report["ncp"], spec) == p
    for n_jobs in (2, 3):       # runs of settings searched together, the chosen one's in this process
        beside = ga.explore(df, **KW, settings=(0.1, 0.6, 0.95), location_precision=0.6, n_jobs=n_jobs)
        assert beside.report.details["frontier"] == f
        pd.testing.assert_frame_equal(beside.in_input_order(), r.in_input_order())


def test_runs_of_neighbouring_settings_as_even_in_cost_as_can_be():
    from geoanon.pipeline.frontier import _runs

    settings = [0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.875, 0.95]
    even = np.ones(8)
    assert _runs(settings, 2, even) == [settings[:4], settings[4:]]
    assert _runs(settings, 3, even) == [settings[:3], settings[3:5], settings[5:]]          # 3, 2, 3
    assert _runs(settings, 2, [1, 1, 1, 2, 2, 2, 2, 2]) == [settings[:5], settings[5:]]     # 7 against 6
    assert _runs(settings, 3, [9, 1, 1, 1, 1, 1, 1, 1]) == [settings[:1], settings[1:3], settings[3:]]  # ends 9, 11
    assert _runs([0.1, 0.5], 4, [1, 1]) == [[0.1], [0.5]] and _runs([0.5], 1, [1]) == [[0.5]]


def test_settings_that_cut_the_location_first_are_found_in_one_round():
    """Nearly free, the location is cut late; weighing 32 times a column, first."""
    from geoanon.pipeline.joint_release import located_first, prepared

    df = _table(2000)
    spec = release_spec("anonymize", **KW)
    job = prepared(df, spec)
    assert located_first(job, spec, [0.0, 1.0]) == [False, True]
    assert located_first(job, spec.but(method="frontier"), [0.0, 1.0]) == [False, False]


def test_bad_settings_are_refused():
    for bad in ((), (0.5, 1.5), (True,), ("0.5",)):
        with pytest.raises(ga.ParameterError, match="settings must be numbers from 0 to 1"):
            ga.explore(_table(50), **KW, settings=bad)


def test_the_command_line_prints_the_trade_off_and_reports_it(tmp_path, cli):
    _table().to_csv(tmp_path / "in.csv", index=False)
    code, out, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex,race",
                         "-k", "8", "--explore", "-o", tmp_path / "out.csv", "--report", tmp_path / "r.json",
                         "--html-report", tmp_path / "r.html")
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    points = report["frontier"]["points"]
    assert len(points) == 8 and "trade-off" in out and sum(line.startswith("*") for line in out.splitlines()) == 1
    assert 'id="frontier"' in (tmp_path / "r.html").read_text()


def test_settings_sharing_a_precision_target_share_one_search():
    """Points with max_extent_km: the settings' searches are one (each cut first to the target under its
    own weights), and every point is the release its setting makes."""
    from geoanon.pipeline.joint_release import prepared, searched

    df = _table()
    kw = dict(KW, max_extent_km=1000)      # a bound every class can be cut within
    spec = release_spec("anonymize", **kw)
    settings = (0.1, 0.5, 0.95)
    assert sorted(searched(prepared(df, spec), spec, list(settings))) == list(settings)
    r = ga.explore(df, **kw, settings=settings)
    for p in r.report.details["frontier"]["points"]:
        again = ga.anonymize(df, **kw, location_precision=p["location_precision"])
        assert frontier_point(p["location_precision"], again.in_input_order(), again.report["ncp"], spec) == p
