"""Bad job files for ``geoanon run``, table-driven (see ``badinput``): each is
refused with exit code 2 and one line, before anything is written; a batch
whose later job fails leaves the earlier jobs' outputs as they were."""
import os

import pytest

from badinput import Case, make_sources, refused

JOB = """\
[input]
path = "in.csv"

[columns]
identifiers = ["id", "name"]
location = { lat = "lat", lon = "lon" }
interval = ["age"]
suppress = ["sex", "race"]
sensitive = "diagnosis"
keep = ["zip"]

[model]
k = 5

[output]
table = "first.csv"
report = "r.json"
"""
DEFAULTS = {"run": {"IN": "job.toml"}}


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    return make_sources(tmp_path_factory.mktemp("sources"))


def _job(*changes, text=JOB):
    """The job file with each (old, new) replaced (old must be there)."""
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    return text


def _cases():
    cases = []

    def add(case_id, message, *changes, name="job.toml", files=None, flags=(), text=JOB):
        job = {name: _job(*changes, text=text)}
        cases.append(Case(f"run: {case_id}", "run", message, set={"IN": name}, files={**job, **(files or {})},
                          flags=flags))

    model = ("[model]\nk = 5\n", "")
    add("not TOML", "not valid TOML", ("[input]", "[input"))
    add("not UTF-8", "not UTF-8", files={"job.toml": b"[input]\npath = \"\xe9\"\n"})
    add("job file missing", "no such job file", name="nope.toml", files={"nope.toml": lambda p: None})
    add("job file is a folder", "no such job file", name="jobs.toml", files={"jobs.toml": os.mkdir})
    add("unknown section", "unknown section [extra]", ("[model]", "[extra]\na = 1\n\n[model]"))
    add("section as a value", "must be a section", ("[input]\n", "release = 3\n[input]\n"))
    add("unknown key", "[input] unknown key 'delimiter'", ('path = "in.csv"', 'path = "in.csv"\ndelimiter = ";"'))
    add("no input path", "[input] path is required", ('path = "in.csv"\n', 'sep = ","\n'))
    add("no output table", "[output] table is required", ('table = "first.csv"\n', ""))
    add("path not text", "expected a non-empty string", ('path = "in.csv"', "path = 3"))
    add("two-character sep", "expected one character", ('path = "in.csv"', 'path = "in.csv"\nsep = ";;"'))
    add("decimal is the default sep", "decimal and sep are both ','",
        ('path = "in.csv"', 'path = "in.csv"\ndecimal = ","'))
    add("decimal is sep", "decimal and sep are both ';'", ('path = "in.csv"', 'path = "in.csv"\nsep = ";"\ndecimal = ";"'))
    add("no model", "[model] needs at least one of k, l, l_distinct, t", model)
    add("a model without a level", "[model] needs at least one of k", ("k = 5", 'ground = "ordered"'))
    add("no model, dry run", "[model] needs at least one of k", model, flags=("--dry-run",))
    add("k zero", "[model] k must be an integer >= 1", ("k = 5", "k = 0"))
    add("k zero, dry run", "[model] k must be an integer >= 1", ("k = 5", "k = 0"), flags=("--dry-run",))
    add("k negative", "[model] k must be an integer >= 1", ("k = 5", "k = -4"))
    add("k as text", "expected an integer", ("k = 5", 'k = "ten"'))
    add("k as a boolean", "expected an integer", ("k = 5", "k = true"))
    add("l below one", "[model] l must be a finite number >= 1", ("k = 5", "k = 5\nl = 0.5"))
    add("l infinite", "[model] l must be a finite number >= 1", ("k = 5", "k = 5\nl = inf"))
    add("t above one", "[model] t must be a number in [0, 1]", ("k = 5", "k = 5\nt = 1.5"))
    add("t NaN", "[model] t must be a number in [0, 1]", ("k = 5", "k = 5\nt = nan"))
    add("l_distinct zero", "[model] l_distinct must be an integer >= 1", ("k = 5", "k = 5\nl_distinct = 0"))
    add("order not a list", "expected a list of values", ("k = 5", 'k = 5\norder = "d1"'))
    add("resolution negative", "[release] resolution must be a positive number",
        ("[output]", "[release]\nresolution = -1\n\n[output]"))
    add("resolution zero, dry run", "[release] resolution must be a positive number",
        ("[output]", "[release]\nresolution = 0\n\n[output]"), flags=("--dry-run",))
    add("jobs zero", "[release] n_jobs must be a positive integer or -1", ("[output]", "[release]\njobs = 0\n\n[output]"))
    add("bounds of three numbers", "expected [xmin, ymin, xmax, ymax]",
        ("[output]", "[release]\nbounds = [1, 2, 3]\n\n[output]"))
    add("bounds upside down", "[release] bounds (-84.0, 37.0, -75.0, 34.0): ymin is above ymax",
        ("[output]", "[release]\nbounds = [-84, 37, -75, 34]\n\n[output]"))
    add("withheld share above 1", "max_withheld must be a share of the rows",
        ("[output]", "[release]\nmax_withheld = 2\n\n[output]"))
    add("a seed, which a joint release has no use for", "[release] unknown key 'seed'",
        ("[output]", "[release]\nseed = 3\n\n[output]"))
    add("unknown method", "expected one of joint, frontier", ("[output]", '[release]\nmethod = "mondrian"\n\n[output]'))
    add("unknown extent", "expected one of box, tile", ("[output]", '[release]\nextent = "hull"\n\n[output]'))
    add("unknown missing", "expected one of error, suppress", ("[output]", '[release]\nmissing = "drop"\n\n[output]'))
    add("location without lon", "[columns] location: missing lon", ('{ lat = "lat", lon = "lon" }', '{ lat = "lat" }'))
    add("location of two kinds", "expected { lat, lon }", ('{ lat = "lat", lon = "lon" }',
                                                          '{ lat = "lat", label = "name" }'))
    add("a column with two roles", "column 'zip' has two roles", ('keep = ["zip"]', 'keep = ["zip"]\nqi = ["zip"]'))
    add("a column twice in a list", "expected each column once", ('suppress = ["sex", "race"]',
                                                                  'suppress = ["sex", "sex"]'))
    add("a column the table lacks", "[columns] suppress: no column 'nope' in in.csv",
        ('suppress = ["sex", "race"]', 'suppress = ["sex", "nope"]'))
    add("a column without a role", "[columns] 1 column 'zip' has no role and would be published as it is: list it "
        "under [columns] qi (generalized), keep (published as it is) or identifiers (dropped), or set strict = false "
        "to publish it with a warning", ('keep = ["zip"]', ""))
    add("a column without a role, dry run", "[columns] 1 column 'zip' has no role", ('keep = ["zip"]', ""),
        flags=("--dry-run",))
    add("strict with a column without a role", "[columns] 1 column 'zip' has no role", ('keep = ["zip"]', "strict = true"))
    add("columns without a role in the second job", "job2.toml: [columns] 2 columns 'id', 'name' have no role",
        flags=("job2.toml",), files={"job2.toml": _job(('identifiers = ["id", "name"]\n', ""),
                                                       ('table = "first.csv"', 'table = "second.csv"'),
                                                       ('report = "r.json"', 'report = "r2.json"'))})
    add("--strict is gone", "unrecognized arguments: --strict", flags=("--strict",))
    add("strict not a flag", "expected true or false", ('keep = ["zip"]', 'keep = ["zip"]\nstrict = "yes"'))
    add("keep_order not a flag", "expected true or false", ('report = "r.json"', 'report = "r.json"\nkeep_order = 1'))
    add("input missing", "no such file", ('path = "in.csv"', 'path = "nope.csv"'))
    add("output names the input", "names the", ('table = "first.csv"', 'table = "in.csv"'))
    add("output names the job file", "names the", ('report = "r.json"', 'report = "job.json"'), name="job.json")
    add("table named after the job file", "names the", ('table = "first.csv"', 'table = "job.toml"'))
    add("output folder a file", "is not a folder", ('table = "first.csv"', 'table = "job.toml/first.csv"'))
    add("unknown output format", "unknown table format '.xlsx'", ('table = "first.csv"', 'table = "first.xlsx"'))
    add("report not json", "expected a .json file", ('report = "r.json"', 'report = "r.txt"'))
    add("map without a location", "[output] map needs a location",
        ('location = { lat = "lat", lon = "lon" }\n', ""), ('report = "r.json"', 'report = "r.json"\nmap = "m.html"'),
        ('keep = ["zip"]', 'keep = ["zip", "lat", "lon"]'))
    add("classes without a location", "[output] classes needs a location",
        ('location = { lat = "lat", lon = "lon" }\n', ""),
        ('report = "r.json"', 'report = "r.json"\nclasses = "c.geojson"'), ('keep = ["zip"]', 'keep = ["zip", "lat", "lon"]'))
    add("hierarchy file missing", "cannot read the hierarchy", ('suppress = ["sex", "race"]',
                                                               'suppress = ["sex"]\nhierarchy = { race = "h.csv" }'))
    add("hierarchy with a cycle", "lists 'r' twice", ('suppress = ["sex", "race"]',
                                                      'suppress = ["sex"]\nhierarchy = { race = "h.csv" }'),
        files={"h.csv": "a;r;t;r;*\nb;r;t;t2;*\nc;s;u;u2;*\n"})
    add("ground file missing", "cannot read the hierarchy", ("k = 5", 'k = 5\nt = 0.5\nground = "g.csv"'))
    second = _job(('table = "first.csv"', 'table = "second.csv"'), ('report = "r.json"', 'report = "r2.json"'))
    add("two jobs, one output", "name the same file", flags=("job2.toml",),
        files={"job2.toml": _job(('report = "r.json"', 'report = "r2.json"'))})
    add("a job writing another's input", "names the", flags=("job2.toml",),
        files={"job2.toml": _job(('path = "in.csv"', 'path = "centroids.csv"'), ('table = "first.csv"',
                                 'table = "in.csv"'), ('report = "r.json"', 'report = "r2.json"'))})
    add("a job writing the other job file", "names the", flags=("job2.toml",),
        files={"job2.toml": _job(('table = "first.csv"', 'table = "job.toml"'),
                                 ('report = "r.json"', 'report = "r2.json"'))})
    add("a batch whose second job cannot meet its model", "no grouping meets k=5, l=9", flags=("job2.toml",),
        files={"job2.toml": second.replace("k = 5", "k = 5\nl = 9")})
    add("a batch whose second job is wrong", "no column 'nope'", flags=("job2.toml",),
        files={"job2.toml": second.replace('suppress = ["sex", "race"]', 'suppress = ["nope"]')})
    return cases


CASES = _cases()


def test_the_table_is_large():
    assert len(CASES) >= 55
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_job_exit_2_one_line_nothing_written(case, sources, tmp_path, cli, monkeypatch):
    (tmp_path / "first.csv").write_bytes(b"an earlier output of the first job\n")
    refused(cli, case, DEFAULTS, sources, tmp_path, monkeypatch)
