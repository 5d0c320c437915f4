"""The attacker's view: every valid set-up's published outputs (the table,
the JSON and HTML reports, the map) rebuilt and searched for what a release
must hide. No record's coordinate, no numeric end that fewer than k records
hold, no rare label or region, in any published file."""
import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from geoanon.datasets import nc_counties

pytestmark = pytest.mark.slow          # fifteen set-ups of every job, in memory and on the dask engine

K = 8
ROWS = 800
RARE_NAMES = ["ZELDA_UNIQ", "QUORRA_UNIQ", "XAVIERA_TWO"]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """Records with six-decimal coordinates whose last digit is odd (no round
    number, and so no box edge on its grid, can match one), an age
    column with outliers at both ends, names with a few held by one or two
    records, NC counties of which some hold one record."""
    folder = tmp_path_factory.mktemp("leaks")
    rng = np.random.default_rng(11)
    nc = nc_counties()
    common = ["ANN", "BOB", "CY", "DEE", "EVE", "FAY", "GUS", "HAL"]
    names = list(rng.choice(common, ROWS - 4)) + ["ZELDA_UNIQ", "QUORRA_UNIQ", "XAVIERA_TWO", "XAVIERA_TWO"]
    fips = list(rng.choice(nc.FIPS.to_numpy()[:60], ROWS - 3)) + list(nc.FIPS.to_numpy()[60:63])
    df = pd.DataFrame({
        "name": names,
        "lat": _odd(34.5 + rng.random(ROWS) * 2, rng), "lon": _odd(-83 + rng.random(ROWS) * 7, rng),
        "fips": fips,
        "age": np.r_[rng.integers(25, 70, ROWS - 3), [3, 104, 97]],
        "sex": rng.choice(["F", "M"], ROWS), "race": rng.choice(["a", "b", "c"], ROWS, p=[.6, .3, .1]),
        "diagnosis": rng.choice(["d1", "d2", "d3", "d4"], ROWS),
    }).sample(frac=1, random_state=3).reset_index(drop=True)
    df.to_csv(folder / "in.csv", index=False)
    nc.to_file(folder / "regions.geojson")
    return folder, df


def _odd(values, rng):
    """``values`` to five decimals, then a sixth that is odd."""
    return np.round(np.round(values, 5) + rng.choice([1, 3, 7, 9], len(values)) * 1e-6, 6)


def _setups():
    points = ["--lat", "lat", "--lon", "lon"]
    zips = ["--zip-col", "fips", "--regions", "{d}/regions.geojson", "--region-id", "FIPS"]
    joint = ["anonymize", "--qi", "age,sex,race", "--sensitive", "diagnosis", "-k", str(K)]
    return {
        "points": (["points", *points, "-k", str(K), "--identifiers", "name,fips,age,sex,race,diagnosis"], True),
        "points, bounds": (["points", *points, "-k", str(K), "--bounds=-84,34,-75,37", "--identifiers",
                            "name,fips,age,sex,race,diagnosis"], True),
        "zip": (["zip", *zips, "-k", str(K), "--identifiers", "name,lat,lon,age,sex,race,diagnosis"], True),
        "labels": (["labels", "--label-col", "name", "-k", str(K), "--identifiers", "lat,lon,fips,age,sex,race,diagnosis"],
                   False),
        "suppress": (["suppress", "--qi", "age,sex,race", "-k", str(K), "--identifiers", "name,lat,lon,fips",
                      "--keep", "diagnosis"], False),
        "suppress, l": (["suppress", "--qi", "age,sex,race", "--sensitive", "diagnosis", "-k", str(K), "-l", "2",
                         "--identifiers", "name,lat,lon,fips"], False),
        "anonymize box": ([*joint, *points, "--identifiers", "name,fips"], True),
        "anonymize tile": ([*joint, *points, "--extent", "tile", "--identifiers", "name,fips"], True),
        "anonymize joint": ([*joint, *points, "--method", "joint", "--identifiers", "name,fips"], True),
        "anonymize sets": ([*joint, *points, "--sets", "race", "--identifiers", "name,fips"], True),
        "anonymize bounds": ([*joint, *points, "--bounds=-84,34,-75,37", "--identifiers", "name,fips"], True),
        "anonymize l": ([*joint, *points, "-l", "2", "--identifiers", "name,fips"], True),
        "anonymize zip": ([*joint, *zips, "--identifiers", "name,lat,lon"], True),
        "anonymize label": ([*joint, "--label-col", "name", "--identifiers", "lat,lon,fips"], False),
        "anonymize no location": ([*joint, "--identifiers", "name,lat,lon,fips"], False),
    }


SETUPS = _setups()
NUMBER = re.compile(r"-?\d+\.\d+")


@pytest.mark.parametrize("setup", SETUPS)
def test_published_outputs_hide_every_record(setup, source, tmp_path, cli):
    folder, df = source
    shutil.copy(folder / "in.csv", tmp_path / "in.csv")
    args, has_map = SETUPS[setup]
    args = [a.replace("{d}", str(folder)) for a in args]
    outputs = ["-o", tmp_path / "out.csv", "--report", tmp_path / "r.json", "--html-report", tmp_path / "r.html"]
    code, _, err = cli(args[0], tmp_path / "in.csv", *args[1:], *outputs,
                       *(["--map", tmp_path / "m.html"] if has_map else []))
    assert code == 0, err
    table = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    texts = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir() if p.suffix in (".json", ".html")}
    texts["out.csv"] = (tmp_path / "out.csv").read_text(encoding="utf-8")

    # no record's coordinate, as a number anywhere
    coordinates = set(df["lat"]) | set(df["lon"])
    for name, text in texts.items():
        shown = {float(v) for v in NUMBER.findall(text)}
        assert not shown & coordinates, (name, sorted(shown & coordinates)[:3])

    # no interval end that fewer than k records hold (the outliers 3, 97 and 104 among them)
    held = df["age"].value_counts()
    rare_ages = set(held.index[held < K])
    for end in ("age_min", "age_max"):
        if end in table.columns:
            ends = {int(float(v)) for v in table[end] if v not in ("", "inf", "-inf")}      # inf: an open end
            assert not ends & rare_ages, (end, sorted(ends & rare_ages))
    if "age" in table.columns:         # suppressed: a shown age is one k rows share
        shown = set(table["age"]) - {"*"}
        assert all(held[int(v)] >= K for v in shown)

    # no rare name, in any published file (a region is named by geometry alone, whatever it holds: test_attacks)
    for name, text in texts.items():
        found = [v for v in RARE_NAMES if re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", text)]
        assert not found, (name, found)

    # what it reports about itself holds no record either
    report = json.loads(texts["r.json"])
    assert report["audit"]["ok"] and report["audit"]["k"] >= K


CLUSTER_SETUPS = {
    "points": ["points", "--lat", "lat", "--lon", "lon", "-k", str(K), "--identifiers",
               "name,fips,age,sex,race,diagnosis"],
    "zip": ["zip", "--zip-col", "fips", "--regions", "{d}/regions.geojson", "--region-id", "FIPS", "-k", str(K),
            "--identifiers", "name,lat,lon,age,sex,race,diagnosis"],
    "labels": ["labels", "--label-col", "name", "-k", str(K), "--identifiers", "lat,lon,fips,age,sex,race,diagnosis"],
    "suppress": ["suppress", "--qi", "age,sex,race", "-k", str(K), "--identifiers", "name,lat,lon,fips",
                 "--keep", "diagnosis"],
    "anonymize": ["anonymize", "--qi", "age,sex,race", "--sensitive", "diagnosis", "-k", str(K), "--lat", "lat",
                  "--lon", "lon", "--identifiers", "name,fips"],
}


@pytest.mark.parametrize("setup", CLUSTER_SETUPS)
def test_the_dask_engine_hides_every_record_too(setup, source, address, tmp_path, cli):
    folder, df = source
    shutil.copy(folder / "in.csv", tmp_path / "in.csv")
    args = [a.replace("{d}", str(folder)) for a in CLUSTER_SETUPS[setup]]
    code, _, err = cli(args[0], tmp_path / "in.csv", *args[1:], "-o", tmp_path / "out", "--report",
                       tmp_path / "r.json", "--scheduler", address)
    assert code == 0, err
    table = pd.read_parquet(tmp_path / "out")
    report = (tmp_path / "r.json").read_text(encoding="utf-8")
    cells = {str(v) for col in table.columns if col != "class_id" for v in table[col].dropna()}
    numbers = {float(v) for v in NUMBER.findall(report + " " + " ".join(cells))}
    assert not numbers & (set(df["lat"]) | set(df["lon"]))
    held = df["age"].value_counts()
    for end in ("age_min", "age_max"):
        if end in table.columns:
            ends = table[end][np.isfinite(table[end])]                  # inf: an open end
            assert not set(ends.astype(int)) & set(held.index[held < K])
    assert not [v for v in RARE_NAMES if v in cells or re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", report)]
