"""What a release shows besides its classes: row order, class numbers,
names of groups, headers, run times."""
import hashlib
import json

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.datasets import nc_counties
from geoanon.errors import UndeclaredColumnsError

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


COLUMNS = list(people(1).columns)


def roles(*used):
    """The roles of the columns a job does not treat itself: ``name`` is
    dropped, every other column is published as it is, deliberately."""
    return {"identifiers": ["name"], "keep": [c for c in COLUMNS if c not in ("name", *used)]}


JOBS = {
    "points": lambda df: ga.generalize_points(df, 10, lat="lat", lon="lon", **roles("lat", "lon")),
    "zip": lambda df: ga.generalize_regions(df, 30, column="fips", regions=nc_counties(), region_id="FIPS",
                                            **roles("fips")),
    "labels": lambda df: ga.generalize_labels(df, 10, column="first", **roles("first")),
    "suppress": lambda df: ga.suppress(df, ["age", "sex", "race"], k=5, **roles("age", "sex", "race")),
    "suppress l": lambda df: ga.suppress(df, ["sex", "race"], k=5, l=2, sensitive="diagnosis",
                                         **roles("sex", "race", "diagnosis")),
    "anonymize": lambda df: ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=10,
                                         **roles("lat", "lon", "age", "sex")),
    "anonymize zip": lambda df: ga.anonymize(df, location={"zip": "fips", "regions": nc_counties(),
                                                           "region_id": "FIPS"}, qi=["sex"], k=10,
                                             **roles("fips", "sex")),
    "anonymize label": lambda df: ga.anonymize(df, location={"label": "first"}, qi=["race"], k=10,
                                               **roles("first", "race")),
}


@pytest.mark.slow
@pytest.mark.parametrize("job", JOBS)
def test_class_ids_do_not_depend_on_the_rows_order(job):
    """Classes are numbered by what they publish: the same release numbers
    them alike whatever the rows' order, and ids follow the published values."""
    df = people()
    release = JOBS[job](df).in_input_order()
    ordered = release.drop_duplicates("class_id").sort_values("class_id")
    if job.startswith("suppress"):       # the solver may answer a reordered table differently: only the numbering
        qi = ["age", "sex", "race"] if job == "suppress" else ["sex", "race"]
        keys = ordered[qi].astype(str).agg("\x1f".join, axis=1).tolist()
        assert keys == sorted(keys)
        return
    order = np.random.default_rng(1).permutation(len(df))
    other = JOBS[job](df.iloc[order]).in_input_order().loc[df.index]
    assert other.drop(columns="class_id").astype(str).equals(release.drop(columns="class_id").astype(str))
    assert (release["class_id"].to_numpy() == other["class_id"].to_numpy()).all()


def test_groups_are_not_named_after_a_rare_member():
    df = people()
    held = df["first"].value_counts()
    for release, column in ((JOBS["labels"](df), "first"), (JOBS["anonymize label"](df), "first")):
        for name in release.in_input_order()[column].unique():
            member = str(name).split("+")[0]
            assert member.startswith("group ") or held[member] >= 10, name
    assert "AARON_RARE" not in " ".join(JOBS["labels"](df).in_input_order()["first"].astype(str))


def _files(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def cli_roles(*used, also=()):
    """:func:`roles` as command-line flags; ``also``: more columns to keep."""
    given = roles(*used)
    return ["--identifiers", ",".join(given["identifiers"]), "--keep", ",".join([*given["keep"], *also])]


COMMANDS = {
    "points": lambda d, o, also=(): ["points", d / "in.csv", "--lat", "lat", "--lon", "lon", "-k", "10", "--map", o / "m.html",
                            *cli_roles("lat", "lon", also=also)],
    "zip": lambda d, o, also=(): ["zip", d / "in.csv", "--zip-col", "fips", "--regions", d / "regions.geojson", "--region-id",
                         "FIPS", "-k", "30", "--map", o / "m.html", "--classes", o / "c.geojson",
                         *cli_roles("fips", also=also)],
    "labels": lambda d, o, also=(): ["labels", d / "in.csv", "--label-col", "first", "-k", "10", "--classes", o / "c.csv",
                            *cli_roles("first", also=also)],
    "suppress": lambda d, o, also=(): ["suppress", d / "in.csv", "--qi", "age,sex,race", "-k", "5", "--classes", o / "c.csv",
                              *cli_roles("age", "sex", "race", also=also)],
    "anonymize": lambda d, o, also=(): ["anonymize", d / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex", "-k",
                               "10", "--map", o / "m.html", "--classes", o / "c.geojson",
                               *cli_roles("lat", "lon", "age", "sex", also=also)],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_reruns_write_the_same_bytes(command, tmp_path, cli, nc_gdf):
    people().to_csv(tmp_path / "in.csv", index=False)
    nc_gdf.to_file(tmp_path / "regions.geojson")
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


def test_strict_and_shuffle_flags_are_gone(tmp_path, cli):
    """Refusing columns without a role and shuffling are the defaults: the
    command line has no --strict (--keep is the way to publish a column) nor
    --shuffle (--keep-order is the way back)."""
    people(100).to_csv(tmp_path / "in.csv", index=False)
    base = ["anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex", "-k", "10",
            *cli_roles("lat", "lon", "age", "sex"), "-o", tmp_path / "out.csv"]
    for flag in ("--strict", "--shuffle"):
        code, _, err = cli(*base, flag)
        assert code == 2 and f"unrecognized arguments: {flag}" in err, err
    (tmp_path / "job.toml").write_text('[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\n'
                                       '[model]\nk = 10\n[output]\ntable = "out.csv"\n')
    code, _, err = cli("run", tmp_path / "job.toml", "--strict")
    assert code == 2 and "unrecognized arguments: --strict" in err, err
    assert not (tmp_path / "out.csv").exists()


def test_columns_without_a_role_are_refused_by_default(tmp_path, cli, nc_gdf):
    """A column that is no quasi-identifier, not sensitive, not kept nor
    dropped is refused by every job, with the names and the ways to declare
    them, before anything is written."""
    df = people()
    df["person_id"] = [f"id{i}" for i in range(len(df))]
    declared = {"keep": ["sex", "race", "diagnosis", "fips"], "identifiers": ["name"]}
    with pytest.raises(UndeclaredColumnsError) as refused:
        ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, **declared)
    assert str(refused.value) == (
        "2 columns 'first', 'person_id' have no role and would be published as they are: make each a "
        "quasi-identifier (qi), list it under keep (published as it is) or identifiers (dropped), or pass "
        "strict=False to publish it with a warning")
    assert refused.value.columns == ["first", "person_id"] and isinstance(refused.value, ga.ParameterError)
    with pytest.raises(UndeclaredColumnsError, match=r"^1 column 'person_id' has no role and would be published as "
                                                     r"it is: make it a quasi-identifier \(qi\), list it under keep"):
        ga.anonymize(df, location=("lat", "lon"), qi=["age", "first"], k=10, **declared)
    # every job refuses them; the ones it treats itself, the sensitive column and the kept ones are declared
    for job in (lambda: ga.generalize_points(df, 10, lat="lat", lon="lon", keep=["first", "age", "sex"]),
                lambda: ga.generalize_regions(df, 30, column="fips", regions=nc_gdf, region_id="FIPS"),
                lambda: ga.generalize_labels(df, 10, column="first", identifiers=["person_id", "name"]),
                lambda: ga.suppress(df, ["age", "sex", "race"], k=5, l=2, sensitive="diagnosis",
                                    keep=["lat", "lon", "fips", "first"], identifiers=["name"])):
        with pytest.raises(UndeclaredColumnsError, match="have no role|has no role"):
            job()
    with pytest.raises(UndeclaredColumnsError, match=r"^1 column 'person_id' has no role"):
        ga.suppress(df, ["age", "sex", "race"], k=5, l=2, sensitive="diagnosis", keep=["lat", "lon", "fips", "first"],
                    identifiers=["name"])
    with pytest.raises(ga.DataError, match="keep names 'nope', which is not a column"):
        ga.suppress(df, ["age"], k=5, keep=["nope"])
    with pytest.raises(ga.ParameterError, match="'age' is given two roles: identifiers and keep"):
        ga.generalize_labels(df, 10, column="first", keep=["age"], identifiers=["age"])
    # the command line names its own flags: --qi where the command has it, else anonymize's
    df.to_csv(tmp_path / "in.csv", index=False)
    with_qi = "give each to --qi (generalized), --keep (published as it is) or --identifiers (dropped)"
    without_qi = ("give each to --keep (published as it is) or --identifiers (dropped), or generalize it with "
                  "geoanon anonymize --qi")
    for job, loose, ways in (
            (["points", "--lat", "lat", "--lon", "lon", "-k", "10"], ["first", "age", "sex", "person_id"], without_qi),
            (["labels", "--label-col", "first", "-k", "10"], ["lat", "lon", "age", "sex", "person_id"], without_qi),
            (["suppress", "--qi", "age,sex", "-k", "5"], ["lat", "lon", "first", "person_id"], with_qi),
            (["anonymize", "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", "10"], ["first", "sex", "person_id"],
             with_qi)):
        code, out, err = cli(job[0], tmp_path / "in.csv", *job[1:], "-o", tmp_path / "out.csv", "--report",
                             tmp_path / "r.json", "--identifiers", "name", "--keep", "race,diagnosis,fips")
        names = ", ".join(f"'{c}'" for c in loose)
        assert code == 2 and out == "", err
        assert err == (f"geoanon {job[0]}: error: {len(loose)} columns {names} have no role and would be published "
                       f"as they are: {ways}\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def test_a_job_file_refuses_columns_without_a_role_unless_strict_is_false(tmp_path, cli):
    people().to_csv(tmp_path / "in.csv", index=False)
    job = ('[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["age"]\n'
           'identifiers = ["name"]\nkeep = ["sex", "race", "diagnosis", "fips"]\n{strict}'
           '[model]\nk = 10\n[output]\ntable = "out.csv"\nreport = "r.json"\n')
    (tmp_path / "job.toml").write_text(job.replace("{strict}", ""))
    for flags in ([], ["--dry-run"]):
        code, out, err = cli("run", tmp_path / "job.toml", *flags)
        assert code == 2 and out == "", err
        assert err == (f"geoanon run: error: {tmp_path / 'job.toml'}: [columns] 1 column 'first' has no role and "
                       "would be published as it is: list it under [columns] qi (generalized), keep (published as "
                       "it is) or identifiers (dropped), or set strict = false to publish it with a warning\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "job.toml"]
    (tmp_path / "job.toml").write_text(job.replace("{strict}", "strict = true\n"))
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 2 and "1 column 'first' has no role" in err and not (tmp_path / "out.csv").exists()
    (tmp_path / "job.toml").write_text(job.replace("{strict}", "strict = false\n"))
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0 and "column 'first' has no role and is published as it is" in err, err
    assert json.loads((tmp_path / "r.json").read_text())["undeclared"]["columns"] == ["first"]
    assert "first" in pd.read_csv(tmp_path / "out.csv").columns


def test_strict_false_publishes_columns_without_a_role_named_and_measured(tmp_path, nc_gdf):
    df = people()
    df["person_id"] = [f"id{i}" for i in range(len(df))]
    rel = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, keep=["sex", "race", "diagnosis", "fips"],
                       identifiers=["name"], strict=False)
    assert "name" not in rel.in_input_order().columns and rel.in_input_order()["person_id"].equals(df["person_id"])
    found = rel.report["undeclared"]
    assert found == {"columns": ["first", "person_id"], "unique_records": len(df), "records_below_k": len(df)}
    [warning] = [w for w in rel.warnings if "no role" in w]
    assert "'person_id' (its name suggests a contact or an identifier)" in warning and f"{len(df):,} of" in warning
    # declared, nothing to say
    quiet = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, keep=["sex", "race", "diagnosis", "fips",
                         "first"], identifiers=["name", "person_id"])
    assert "undeclared" not in quiet.report and not quiet.warnings
    # every job publishes and measures them when told to
    for release in (ga.generalize_points(df, 10, lat="lat", lon="lon", identifiers=["name"], strict=False),
                    ga.generalize_regions(df, 30, column="fips", regions=nc_gdf, region_id="FIPS",
                                          identifiers=["name"], strict=False),
                    ga.generalize_labels(df, 10, column="first", identifiers=["name"], strict=False),
                    ga.suppress(df, ["age", "sex"], k=5, identifiers=["name"], strict=False)):
        assert "person_id" in release.report["undeclared"]["columns"]
        assert release.in_input_order()["person_id"].equals(df["person_id"])
        assert any("'person_id'" in w and "no role" in w for w in release.warnings)
