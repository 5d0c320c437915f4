"""What a release shows besides its classes: row order, class numbers,
names of groups, headers, run times."""
import hashlib
import json

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.datasets import nc_counties

ROWS = 600


def people(n=ROWS, seed=0):
    rng = np.random.default_rng(seed)
    nc = nc_counties()
    return pd.DataFrame({
        "name": [f"P{i:04d}" for i in range(n)],
        "lat": np.round(35 + rng.random(n) * 1.5, 4), "lon": np.round(-82 + rng.random(n) * 6, 4),
        "fips": rng.choice(nc.FIPS.to_numpy(), n),          # every county holds records
        "first": rng.choice(["ANN", "BOB", "CY", "DEE", "EVE", "AARON_RARE", "ZED"], n,
                            p=[.3, .25, .2, .1, .1, .002, .048]),
        "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
        "race": rng.choice(["a", "b", "c"], n, p=[.7, .2, .1]), "diagnosis": rng.choice(["d1", "d2", "d3"], n),
    })


JOBS = {
    "points": lambda df: ga.generalize_points(df, 10, lat="lat", lon="lon"),
    "zip": lambda df: ga.generalize_regions(df, 30, column="fips", regions=nc_counties(), region_id="FIPS"),
    "labels": lambda df: ga.generalize_labels(df, 10, column="first"),
    "suppress": lambda df: ga.suppress(df, ["age", "sex", "race"], k=5),
    "suppress l": lambda df: ga.suppress(df, ["sex", "race"], k=5, l=2, sensitive="diagnosis"),
    "anonymize": lambda df: ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=10),
    "anonymize zip": lambda df: ga.anonymize(df, location={"zip": "fips", "regions": nc_counties(),
                                                           "region_id": "FIPS"}, qi=["sex"], k=10),
    "anonymize label": lambda df: ga.anonymize(df, location={"label": "first"}, qi=["race"], k=10),
}


@pytest.mark.parametrize("job", JOBS)
def test_class_ids_do_not_depend_on_the_rows_order(job):
    """Classes are numbered by what they publish: the same release numbers
    them alike whatever the rows' order, and ids follow the published values."""
    df = people()
    release = JOBS[job](df).table
    ordered = release.drop_duplicates("class_id").sort_values("class_id")
    if job.startswith("suppress"):       # the solver may answer a reordered table differently: only the numbering
        qi = ["age", "sex", "race"] if job == "suppress" else ["sex", "race"]
        keys = ordered[qi].astype(str).agg("\x1f".join, axis=1).tolist()
        assert keys == sorted(keys)
        return
    order = np.random.default_rng(1).permutation(len(df))
    other = JOBS[job](df.iloc[order]).table.loc[df.index]
    assert other.drop(columns="class_id").astype(str).equals(release.drop(columns="class_id").astype(str))
    assert (release["class_id"].to_numpy() == other["class_id"].to_numpy()).all()


def test_groups_are_not_named_after_a_rare_member():
    df = people()
    held = df["first"].value_counts()
    for release, column in ((JOBS["labels"](df), "first"), (JOBS["anonymize label"](df), "first")):
        for name in release.table[column].unique():
            member = str(name).split("+")[0]
            assert member.startswith("group ") or held[member] >= 10, name
    assert "AARON_RARE" not in " ".join(JOBS["labels"](df).table["first"].astype(str))


def _files(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


COMMANDS = {
    "points": lambda d, o: ["points", d / "in.csv", "--lat", "lat", "--lon", "lon", "-k", "10", "--map", o / "m.html"],
    "zip": lambda d, o: ["zip", d / "in.csv", "--zip-col", "fips", "--regions", d / "regions.geojson", "--region-id",
                         "FIPS", "-k", "30", "--map", o / "m.html", "--classes", o / "c.geojson"],
    "labels": lambda d, o: ["labels", d / "in.csv", "--label-col", "first", "-k", "10", "--classes", o / "c.csv"],
    "suppress": lambda d, o: ["suppress", d / "in.csv", "--qi", "age,sex,race", "-k", "5", "--classes", o / "c.csv"],
    "anonymize": lambda d, o: ["anonymize", d / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex", "-k",
                               "10", "--map", o / "m.html", "--classes", o / "c.geojson"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_reruns_write_the_same_bytes(command, tmp_path, cli):
    people().to_csv(tmp_path / "in.csv", index=False)
    nc_counties().to_file(tmp_path / "regions.geojson")
    out = tmp_path / "out"
    out.mkdir()
    runs = []
    for timings in ([], [], ["--timings"]):
        code, _, err = cli(*COMMANDS[command](tmp_path, out), "-o", out / "out.csv", "--report", out / "r.json",
                           "--html-report", out / "r.html", *timings)
        assert code == 0, err
        runs.append(_files(out))
        if not timings:
            assert '"seconds": null' in (out / "r.json").read_text()
    assert runs[0] == runs[1]
    assert runs[2]["r.json"] != runs[0]["r.json"] and '"seconds": null' not in (out / "r.json").read_text()


def test_names_that_start_a_formula_are_escaped_in_headers(tmp_path, cli):
    df = people()[["lat", "lon", "age", "name"]].rename(columns={"age": "=age", "name": "@name"})
    df.to_csv(tmp_path / "in.csv", index=False)
    for flags, kept in (((), "@name"), (("--escape-formulas",), "'@name")):
        code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "=age", "-k", "10",
                           "--keep", "@name", "-o", tmp_path / "out.csv", *flags)
        assert code == 0, err
        header = (tmp_path / "out.csv").read_text().splitlines()[0].split(",")
        assert header == ["lat_min", "lat_max", "lon_min", "lon_max", "'=age_min", "'=age_max", kept, "class_id"]


def test_shuffle_writes_the_rows_in_a_seeded_random_order(tmp_path, cli):
    """An input sorted by name keeps its order unless shuffled: after
    --shuffle a row's position tells nothing of where it was."""
    df = people(300).sort_values("name").reset_index(drop=True)
    df.to_csv(tmp_path / "in.csv", index=False)
    written = {}
    for name, flags in (("kept", []), ("a", ["--shuffle"]), ("b", ["--shuffle"]), ("c", ["--shuffle", "--seed", "7"])):
        code, _, err = cli("suppress", tmp_path / "in.csv", "--qi", "age,sex,race", "-k", "5",
                           "-o", tmp_path / f"{name}.csv", *flags)
        assert code == 0, err
        written[name] = (tmp_path / f"{name}.csv").read_bytes()
    assert written["a"] == written["b"] != written["c"]
    kept, shuffled = (pd.read_csv(tmp_path / f"{n}.csv") for n in ("kept", "a"))
    assert kept["name"].tolist() == df["name"].tolist()
    assert sorted(shuffled["name"]) == df["name"].tolist()
    position = shuffled["name"].map({v: i for i, v in enumerate(df["name"])})
    assert abs(np.corrcoef(position, np.arange(len(df)))[0, 1]) < 0.2
    # each row keeps its own values and class
    assert shuffled.sort_values("name").reset_index(drop=True).equals(kept)


def test_columns_without_a_role_are_named_measured_and_refused_when_strict(tmp_path, cli):
    df = people()
    df["person_id"] = [f"id{i}" for i in range(len(df))]
    rel = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, keep=["sex", "race", "diagnosis", "fips"],
                       identifiers=["name"])
    assert "name" not in rel.table.columns and rel.table["person_id"].equals(df["person_id"])
    found = rel.report["undeclared"]
    assert found == {"columns": ["first", "person_id"], "unique_records": len(df), "records_below_k": len(df)}
    [warning] = [w for w in rel.warnings if "no role" in w]
    assert "'person_id' (its name suggests a contact or an identifier)" in warning and f"{len(df):,} of" in warning
    # declared, nothing to say
    quiet = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, keep=["sex", "race", "diagnosis", "fips",
                         "first"], identifiers=["name", "person_id"])
    assert "undeclared" not in quiet.report and not quiet.warnings
    with pytest.raises(ga.ParameterError, match=r"^2 columns 'first', 'person_id' have no role \(strict\)"):
        ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, keep=["sex", "race", "diagnosis", "fips"],
                     identifiers=["name"], strict=True)
    with pytest.raises(ga.DataError, match="keep names 'nope', which is not a column"):
        ga.suppress(df, ["age"], k=5, keep=["nope"])
    with pytest.raises(ga.ParameterError, match="'age' is given two roles: identifiers and keep"):
        ga.generalize_labels(df, 10, column="first", keep=["age"], identifiers=["age"])
    # every job measures them, on the command line too
    df.to_csv(tmp_path / "in.csv", index=False)
    for job in (["points", "--lat", "lat", "--lon", "lon", "-k", "10"], ["labels", "--label-col", "first", "-k", "10"],
                ["suppress", "--qi", "age,sex", "-k", "5"],
                ["anonymize", "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", "10"]):
        code, _, err = cli(job[0], tmp_path / "in.csv", *job[1:], "-o", tmp_path / "out.csv", "--report",
                           tmp_path / "r.json", "--identifiers", "name")
        assert code == 0 and "person_id" in err and "no role" in err, err
        assert "person_id" in json.loads((tmp_path / "r.json").read_text())["undeclared"]["columns"]
        code, _, err = cli(job[0], tmp_path / "in.csv", *job[1:], "-o", tmp_path / "strict.csv", "--strict")
        assert code == 2 and "no role (strict)" in err and not (tmp_path / "strict.csv").exists()
