"""Huge, tiny, infinite and NaN numbers in every numeric flag: a refusal is
one line (exit 2), a run that can go ahead does so (exit 0, or 1 for an
audit that finds a level missed), and no Python or numpy warning (an
overflow) is ever shown."""
import os

import numpy as np
import pandas as pd
import pytest

BIG = "1" + "0" * 30
JOBS = {
    "anonymize": ["t.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex", "--sensitive", "diag", "-o", "out.csv",
                  "--keep", "zip"],
    "suppress": ["t.csv", "--qi", "age,sex", "--sensitive", "diag", "-o", "out.csv", "--keep", "zip,lat,lon"],
    "audit": ["t.csv", "--qi", "age,sex", "--sensitive", "diag"],
    "points": ["t.csv", "--lat", "lat", "--lon", "lon", "-o", "out.csv", "--keep", "age,sex,diag,zip"],
}
LEVELS = [      # flags, then what anonymize and suppress answer (None: the release is made), then audit's exit code
    (["-l", "1e308"], "l=1e+308", 1),
    (["-k", BIG], f"k={BIG} is larger than the table (200 rows)", 2),
    (["--l-distinct", BIG], f"l_distinct={BIG}", 1),
    (["--l-entropy", "1e308"], "l_entropy=1e+308", 1),
    (["--recursive", f"2,{BIG}"], f"recursive=(2.0, {BIG})", 1),
    (["-t", "1e308"], "t must be a number in [0, 1], got 1e+308", 2),
    (["-l", "inf"], "l must be a finite number >= 1, got inf", 2),
    (["--l-entropy", "nan"], "l_entropy must be a finite number >= 1, got nan", 2),
    (["--delta", "nan"], "delta must be a finite number > 0, got nan", 2),
    (["--beta", "inf"], "beta must be a finite number > 0, got inf", 2),
    (["--beta", "1e308"], None, 0),
    (["--delta", "1e308"], None, 0),
    (["--recursive", "1e308,2"], None, 1),
    (["-k", "5", "-l", "1e-320"], "l must be a finite number >= 1, got 1e-320", 2),
]
OPTIONS = [     # command, flags, the refusal (None: the release is made)
    ("anonymize", ["--resolution", "1e308"], "resolution=1e+308 is coarser than the region the boxes tile "
                                              "(coordinates up to 80.05); give at most 80.05"),
    ("anonymize", ["--resolution", "nan"], "resolution must be a positive number, got nan"),
    ("anonymize", ["--weight", "location=1e308"], "the weight of 'location' must be between 1e-06 and 1e+06 (weights "
                                                  "are relative), got 1e+308"),
    ("anonymize", ["--weight", "age=1e-320"], "the weight of 'age' must be between 1e-06 and 1e+06 (weights are "
                                              "relative), got 1e-320"),
    ("anonymize", ["--max-extent", "inf"], "max_extent_km must be a finite number > 0, got inf"),
    ("anonymize", ["--max-extent", "1e308"], None),
    ("anonymize", ["--location-precision", "2"], "location_precision must be a number from 0 to 1, got 2.0"),
    ("anonymize", ["--location-precision", "nan"], "location_precision must be a number from 0 to 1, got nan"),
    ("anonymize", ["--max-suppressed", "nan"], "max_suppressed must be a share of the rows, 0 <= share < 1 (0.02 for "
                                               "2%), got nan"),
    ("anonymize", ["--jobs", BIG], None),
    ("anonymize", ["--max-withheld", BIG], "max_withheld must be a share of the rows, 0 <= share < 1 (0.02 for 2%), "
                                           "got 1e+30"),
    ("anonymize", ["--crs", "EPSG:3857", "--bounds=-1e200,-1e200,1e200,1e200"],
     "bounds (-1e+200, -1e+200, 1e+200, 1e+200) are too large: their area is beyond what a float holds"),
    ("points", ["--crs", "EPSG:3857", "--bounds=-1e200,-1e200,1e200,1e200"],
     "bounds (-1e+200, -1e+200, 1e+200, 1e+200) are too large: their area is beyond what a float holds"),
    ("suppress", ["--time-limit", "1e308"], None),
    ("suppress", ["--time-limit", "inf"], "time_limit must be a positive number of seconds, got inf"),
]


@pytest.fixture
def table(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    n = 200
    pd.DataFrame({"lat": np.round(35 + rng.random(n), 4), "lon": np.round(-80 + rng.random(n), 4),
                  "age": rng.integers(20, 80, n), "sex": rng.choice(["F", "M"], n),
                  "diag": rng.choice(["a", "b", "c", "d"], n), "zip": rng.choice(["37001", "37081"], n)}) \
        .to_csv(tmp_path / "t.csv", index=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(cli, command, flags):
    """The exit code and stderr, without the lines about what the random
    ``diag`` column tells of its classes (the audit's disclosure warnings)."""
    code, _, err = cli(command, *JOBS[command], *flags)
    assert "Warning" not in err and "Traceback" not in err, err
    return code, "\n".join(line for line in err.strip().splitlines() if not _told(line))


def _told(line: str) -> bool:
    return "warning:" in line and ("(l = 1)" in line or "by more than t = " in line)


@pytest.mark.filterwarnings("error")          # an overflow warning would end the command with a traceback
@pytest.mark.parametrize("flags, refusal, audited", LEVELS, ids=[" ".join(f)[:40] for f, _, _ in LEVELS])
@pytest.mark.parametrize("command", ["anonymize", "suppress", "audit"])
def test_levels_far_out_of_range(table, cli, command, flags, refusal, audited):
    code, err = _run(cli, command, flags)
    if command == "audit":
        assert code == audited, err
        assert (err == "") == (code != 2), err
        return
    if refusal is None:
        assert code == 0 and err == "", err
        return
    assert code == 2 and len(err.splitlines()) == 1 and refusal in err, err
    assert not os.path.exists("out.csv")


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("command, flags, refusal", OPTIONS, ids=[f"{c} {' '.join(f)[:40]}" for c, f, _ in OPTIONS])
def test_options_far_out_of_range(table, cli, command, flags, refusal):
    code, err = _run(cli, command, [*flags, "-k", "5"])
    if refusal is None:
        assert code == 0 and err == "", err
    else:
        assert (code, err) == (2, f"geoanon {command}: error: {refusal}")
        assert not os.path.exists("out.csv")


@pytest.mark.filterwarnings("error")
def test_coordinates_too_far_apart_to_measure(table, cli):
    huge = pd.read_csv("t.csv").assign(x=lambda d: d.lon * 1e305, y=lambda d: d.lat * 1e305)
    huge.to_csv("t.csv", index=False)
    others = ",".join(c for c in huge.columns if c not in ("x", "y"))
    code, err = _run(cli, "points", ["--lat", "y", "--lon", "x", "--crs", "EPSG:3857", "-k", "5", "--keep", others])
    assert code == 2 and "an area beyond what a float holds" in err and len(err.splitlines()) == 1


def test_the_shortest_decimal_between_the_largest_floats():
    from geoanon.points.frame import shortest_decimal_between

    a, b = np.array([-8e307, 1e307]), np.array([-7.9e307, 1.7e308])
    between = shortest_decimal_between(a, b)
    assert ((a < between) & (between < b)).all()
