"""Bad input on the dask engine, table-driven (see ``badinput``): every
cluster command, one LocalCluster for all cases (``--scheduler``). Each
case ends with exit code 2, one line on stderr, and the folder unchanged:
no dataset folder, no staging, no worker space."""
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from geoanon.errors import UndeclaredColumnsError

from badinput import ROWS, Case, drop_field, header_and, make_sources, records, refused
from optional import require

pytestmark = pytest.mark.slow          # the dask engine on a LocalCluster

require("distributed")          # skips the module without the dask extra

KEEP = "id,zip,name,age,sex,race,diagnosis"


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    return make_sources(tmp_path_factory.mktemp("sources"))


def _defaults(address):
    on = {"--scheduler": address}
    return {
        "points": {"IN": "in.csv", "-k": "5", "--lat": "lat", "--lon": "lon", "-o": "out_ds", "--report": "r.json",
                   "--keep": "id,zip,name,age,sex,race,diagnosis", **on},
        "zip": {"IN": "in.csv", "-k": "30", "--zip-col": "zip", "--regions": "regions.geojson", "--region-id": "FIPS",
                "-o": "out_ds", "--report": "r.json", "--keep": "id,lat,lon,name,age,sex,race,diagnosis", **on},
        "labels": {"IN": "in.csv", "-k": "40", "--label-col": "name", "-o": "out_ds", "--report": "r.json",
                   "--keep": "id,lat,lon,zip,age,sex,race,diagnosis", **on},
        "suppress": {"IN": "in.csv", "--qi": "age,sex,race", "--sensitive": "diagnosis", "-k": "5", "-o": "out_ds",
                     "--report": "r.json", "--keep": "id,lat,lon,zip,name", **on},
        "anonymize": {"IN": "in.csv", "--lat": "lat", "--lon": "lon", "--qi": "age,sex,race", "--sensitive": "diagnosis",
                      "-k": "5", "-o": "out_ds", "--report": "r.json", "--keep": "id,zip,name", **on},
        "audit": {"IN": "in.csv", "--qi": "age,sex", "--sensitive": "diagnosis", "-k": "2", "--report": "r.json", **on},
    }


JOBS = ("points", "zip", "labels", "suppress", "anonymize")
ALL = JOBS + ("audit",)


def _folder_of(*files):
    """A maker of a dataset folder holding ``files`` (name -> CSV text, or a frame for Parquet)."""
    def make(path):
        path.mkdir()
        for name, content in files:
            if isinstance(content, pd.DataFrame):
                content.to_parquet(path / name)
            else:
                (path / name).write_text(content)
    return make


def _nested(path):
    frame = pd.read_csv(path.parent / "in.csv", dtype=str)
    for col, nest in (("age", lambda v: [int(v)]), ("lat", lambda v: [float(v)]), ("zip", lambda v: {"z": v}),
                      ("name", lambda v: {"n": v})):
        frame[col] = pd.Series([nest(v) for v in frame[col]], dtype=object)
    frame.to_parquet(path)


def _cases():
    cases = []

    def add(command, case_id, message, **kw):
        cases.append(Case(f"{command} on dask: {case_id}", command, message, **kw))

    half = ROWS // 2
    first, second = records(half), "\n".join(records(ROWS).split("\n")[half + 1:])
    missing_col = {"points": {"--lat": "latitude", "--keep": "id,zip,name,age,sex,race,diagnosis,lat"}, "zip": {"--zip-col": "nope"}, "labels": {"--label-col": "nope"},
                   "suppress": {"--qi": "age,nope"}, "anonymize": {"--qi": "age,nope"}, "audit": {"--qi": "nope"}}
    nested = {c: {"IN": "n.parquet"} for c in ALL}
    for c in ALL:
        add(c, "missing dataset", "no such file, folder or glob", set={"IN": "nope_ds"})
        add(c, "empty folder", "no files", set={"IN": "empty"}, files={"empty": os.mkdir})
        add(c, "Parquet and CSV mixed", "one kind only", set={"IN": "mixed"},
            files={"mixed": _folder_of(("a.csv", first), ("b.parquet", pd.DataFrame({"x": [1]})))})
        add(c, "a column named twice", "names column 'age' 2 times", set={"IN": "dup"},
            files={"dup": _folder_of(("a.csv", first.replace("race", "age", 1)))})
        add(c, "a row too long", "malformed CSV: line 2 has 10 fields, the header 9", set={"IN": "long"},
            files={"long": _folder_of(("a.csv", first.replace(",d1\n", ",d1,extra\n", 1)))})
        add(c, "a row too short", "malformed CSV: line 7 has 8 fields, the header 9", set={"IN": "short"},
            files={"short": _folder_of(("a.csv", first), ("b.csv", drop_field(first, 6)))})
        add(c, "parts with other headers", "differ from those of", set={"IN": "two"},
            files={"two": _folder_of(("a.csv", first), ("b.csv", first.replace("lat,lon", "lon,lat", 1)))})
        add(c, "a missing column", "no column", set=missing_col[c])
        add(c, "a nested Parquet column", "holds lists or records", set=nested[c],
            files={"n.parquet": _nested})
        add(c, "scheduler file missing", "no such scheduler file", set={"--scheduler": None,
            "--scheduler-file": "nope.json"})
        add(c, "not a scheduler file", "not a Dask scheduler file", set={"--scheduler": None,
            "--scheduler-file": "s.json"}, files={"s.json": "{}"})
        add(c, "scheduler and scheduler file", "not both", set={"--scheduler-file": "s.json"},
            files={"s.json": "{}"})
        add(c, "a scheduler for the pandas engine", "not --engine pandas", flags=("--engine", "pandas"))
        add(c, "a scheduler that is no address", "cannot reach the Dask scheduler at nonsense::addr",
            set={"--scheduler": "nonsense::addr"})
    # every column but id (renamed class_id) has its role
    no_id = {c: {"--keep": ",".join(x for x in _defaults("")[c]["--keep"].split(",") if x != "id")} for c in JOBS}
    loose = {"points": "7 columns 'id', 'zip', 'name', 'age', 'sex', 'race', 'diagnosis'",
             "zip": "8 columns 'id', 'lat', 'lon', 'name', 'age', 'sex', 'race', 'diagnosis'",
             "labels": "8 columns 'id', 'lat', 'lon', 'zip', 'age', 'sex', 'race', 'diagnosis'",
             "suppress": "5 columns 'id', 'lat', 'lon', 'zip', 'name'",
             "anonymize": "3 columns 'id', 'zip', 'name'"}
    ways = {c: "--keep (published as it is) or --identifiers (dropped), or generalize it with geoanon anonymize --qi"
            for c in ("points", "zip", "labels")}
    ways.update({c: "--qi (generalized), --keep (published as it is) or --identifiers (dropped)"
                 for c in ("suppress", "anonymize")})
    for c in JOBS:
        add(c, "class_id already there", "'class_id' already exists", set={"IN": "cid", **no_id[c]},
            files={"cid": _folder_of(("a.csv", first.replace("id,", "class_id,", 1)))})
        add(c, "-o exists", "exists: a dataset is written whole into a new folder", set={"-o": "out.csv"})
        add(c, "-o inside the input dataset", "lies inside the input dataset", set={"IN": "ds", "-o": "ds/out"},
            files={"ds": _folder_of(("a.csv", first), ("b.csv", first.split("\n", 1)[0] + "\n" + second))})
        add(c, "-o is the input", "exists", set={"-o": "in.csv"})
        add(c, "output folder missing", "does not exist", set={"-o": "no/such/out"})
        add(c, "report names the input", "names the input file", set={"--report": "in.csv"})
        add(c, "report not json", "expected a .json file", set={"--report": "r.txt"})
        add(c, "k zero", "k must be an integer >= 1", set={"-k": "0"})
        add(c, "k above the rows", "larger than", set={"-k": str(ROWS + 1)})
        add(c, "columns without a role", f"error: {loose[c]} have no role and would be published as they are: "
            f"give each to {ways[c]}", set={"--keep": None})
        add(c, "--strict is gone", "unrecognized arguments: --strict", flags=("--strict",))
        add(c, "--shuffle is gone", "unrecognized arguments: --shuffle", flags=("--shuffle",))
        add(c, "keep a missing column", "keep names 'nope'", set={"--keep": "nope"})
    for c in ("points", "zip", "anonymize"):
        add(c, "map names the input", "names the input file", set={"--map": "in.csv"})
    for c in ("suppress", "anonymize", "audit"):
        add(c, "l without a sensitive column", "sensitive column", set={"-l": "2", "--sensitive": None})
        add(c, "t above one", "t must be a number in [0, 1]", set={"-t": "1.5"})
        add(c, "delta without a sensitive column", "--delta needs a sensitive column",
            set={"--delta": "1", "--sensitive": None})
        add(c, "recursive l malformed", "recursive must be a pair", set={"--recursive": "3,0"})
    add("suppress", "no level", "give at least one of -k, -l, --l-distinct, -t", set={"-k": None})
    add("suppress", "report names the ground", "names the --ground file",
        set={"--report": "g.json", "--ground": "g.json", "-t": "0.5"}, files={"g.json": "d1;x;*\nd2;x;*\nd3;y;*\nd4;y;*\n"})
    add("anonymize", "no level", "give at least one of -k, -l, --l-distinct, -t", set={"-k": None})
    add("anonymize", "report names the hierarchy", "names the --hierarchy race file",
        set={"--report": "h.json", "--hierarchy": "race=h.json"}, files={"h.json": "a;r;*\nb;r;*\nc;s;*\n"})
    add("anonymize", "tiles on dask", "publishes boxes of located rows", set={"--extent": "tile"})
    add("anonymize", "a region location on dask", "needs --lat and --lon",
        set={"--lat": None, "--lon": None, "--zip-col": "zip", "--regions": "regions.geojson", "--region-id": "FIPS"})
    add("zip", "-o is the regions file", "exists", set={"-o": "regions.geojson"})
    add("zip", "an unknown region", "not in the regions", set={"IN": "bad.csv", "-k": "2"},
        files={"bad.csv": records(20, {3: {"zip": "99999"}})})
    add("points", "bounds through records", "touch the records", set={"IN": "b.csv", "-k": "2",
        "--bounds": "-81.1,35.1,-80.1,35.9"}, files={"b.csv": header_and([{"lat": "35.1", "lon": "-81.1"},
                                                                          {"lat": "35.9", "lon": "-80.1"}, {}, {}])})
    add("points", "a coordinate that is no number", "not a number", set={"IN": "bad.csv", "-k": "2"},
        files={"bad.csv": records(20, {2: {"lat": "north"}})})
    add("audit", "original on dask", "not available on the dask engine", set={"--original": "in.csv"})
    return cases


CASES = _cases()


def test_the_table_is_large():
    assert len(CASES) >= 100
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_on_dask_exit_2_one_line_nothing_written(case, sources, address, tmp_path, cli, monkeypatch):
    refused(cli, case, _defaults(address), sources, tmp_path, monkeypatch)


def _run(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "geoanon.cli", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_stderr_holds_only_geoanons_own_lines(sources, tmp_path):
    """A LocalCluster run: nothing of dask's on stderr, on success (nothing
    at all), on a refusal and on failure (the one error line), and nothing
    left in the folder but the outputs."""
    shutil.copy(sources / "in.csv", tmp_path / "in.csv")
    done = _run("points", "in.csv", "--lat", "lat", "--lon", "lon", "-k", "5", "-o", "out", "--keep",
                "id,zip,age,sex,race,diagnosis", "--identifiers", "name", "--engine", "dask", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    refused = _run("points", "in.csv", "--lat", "lat", "--lon", "lon", "-k", "5", "-o", "out1", "--keep",
                   "id,zip,age,sex,race,diagnosis", "--engine", "dask", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        "geoanon points: error: 1 column 'name' has no role and would be published as it is: give it to --keep "
        "(published as it is) or --identifiers (dropped), or generalize it with geoanon anonymize --qi"]
    short = tmp_path / "short"
    short.mkdir()
    (short / "a.csv").write_text(drop_field(records(20), 6))
    failed = _run("points", "short", "--lat", "lat", "--lon", "lon", "-k", "5", "-o", "out2", "--keep",
                  "id,zip,age,sex,race,diagnosis", "--identifiers", "name", "--engine", "dask", cwd=tmp_path)
    assert failed.returncode == 2
    [line] = failed.stderr.splitlines()
    assert line.startswith("geoanon points: error: ") and line.endswith("short/a.csv: malformed CSV: line 7 has 8 "
                                                                         "fields, the header 9")
    assert sorted(os.listdir(tmp_path)) == ["in.csv", "out", "short"]


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
@pytest.mark.parametrize("sig, after", [(signal.SIGINT, 1.0), (signal.SIGTERM, 5.0), (signal.SIGHUP, 3.0)])
def test_an_interrupted_cluster_job_says_one_line(sig, after, tmp_path):
    """Interrupted while its local workers run: the one line that says so,
    and nothing of dask's or multiprocessing's (the semaphores its workers
    leave, which the resource tracker counts), nothing written."""
    rng = np.random.default_rng(0)
    n = 300_000
    pd.DataFrame({"lat": np.round(35 + rng.normal(size=n), 5), "lon": np.round(-80 + rng.normal(size=n), 5),
                  "age": rng.integers(18, 90, n)}).to_csv(tmp_path / "in.csv", index=False)
    child = subprocess.Popen([sys.executable, "-m", "geoanon.cli", "points", "in.csv", "--lat", "lat", "--lon", "lon",
                              "--keep", "age", "-k", "10", "-o", "out", "--engine", "dask"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(_descendants(child.pid)) < 3:                       # the workers and the tracker are up
        assert child.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(after)
    child.send_signal(sig)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 128 + sig and err.splitlines() == ["geoanon points: interrupted; nothing written"], err
    assert sorted(os.listdir(tmp_path)) == ["in.csv"]


def _descendants(pid: int) -> list:
    """The processes below ``pid``."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, todo = [], [pid]
    while todo:
        above = todo.pop()
        below = [p for p, parent in parents.items() if parent == above]
        found += below
        todo += below
    return found


REST = ["lat", "lon", "zip", "name", "race", "diagnosis"]     # the columns suppress(["age", "sex"]) leaves


def test_roles_on_the_cluster(sources, address, tmp_path):
    """Columns without a role are refused before anything is written, or,
    with strict=False, published, named and measured over the dataset."""
    import geoanon.cluster as gc

    df = pd.read_csv(sources / "in.csv", dtype=str)
    folder = tmp_path / "in"
    folder.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), 3)):
        df.iloc[chunk].to_csv(folder / f"p{i}.csv", index=False)
    with pytest.raises(UndeclaredColumnsError) as refused:
        gc.suppress(folder, ["age", "sex"], tmp_path / "refused", k=5, scheduler=address, identifiers=["id"])
    assert refused.value.columns == REST and str(refused.value).startswith(
        "6 columns 'lat', 'lon', 'zip', 'name', 'race', 'diagnosis' have no role and would be published as they are")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
    loose = gc.suppress(folder, ["age", "sex"], tmp_path / "loose", k=5, scheduler=address, identifiers=["id"],
                        strict=False, keep_order=True)
    r = loose.report
    assert r["undeclared"]["columns"] == REST
    assert r["undeclared"]["unique_records"] == ROWS and any("no role" in w for w in r["warnings"])
    out = pd.read_parquet(tmp_path / "loose")
    assert "id" not in out.columns and out["lat"].tolist() == df["lat"].tolist()
    declared = gc.suppress(folder, ["age", "sex"], tmp_path / "declared", k=5, scheduler=address, identifiers=["id"],
                           keep=REST, keep_order=True)
    assert "undeclared" not in declared.report and not declared.report["warnings"]
    assert pd.read_parquet(tmp_path / "declared").equals(out)


def _the_order_tells_nothing(table, n):
    """``table`` (the ``id`` column kept: each row's input position) is in the
    published order: by class, then by its cells; the input's order does not
    come back from it (the documented permutation of seed 0 undoes nothing)."""
    from geoanon.report.release import published_order

    positions = table["id"].astype(int).to_numpy()
    assert sorted(positions) == list(range(n))
    assert table["class_id"].is_monotonic_increasing
    assert table.iloc[published_order(table)].reset_index(drop=True).equals(table.reset_index(drop=True))
    undone = positions[np.argsort(np.random.default_rng(0).permutation(n))]
    assert (undone == np.arange(n)).mean() < 0.05


@pytest.mark.parametrize("job", ["suppress", "points", "anonymize"])
def test_rows_are_written_in_the_published_order_on_the_cluster(job, sources, address, tmp_path):
    """The dask engine writes the rows in the published order, across its
    partitions and shards, the same bytes for an input in another order;
    ``keep_order=True`` writes the input's order (within each shard)."""
    import geoanon.cluster as gc

    df = pd.read_csv(sources / "in.csv", dtype=str)

    def run(name, rows, **kw):     # id kept (the input position) to see where each row went
        folder = tmp_path / f"{name}_in"
        folder.mkdir()
        for i, chunk in enumerate(np.array_split(rows, 3)):
            df.iloc[chunk].to_csv(folder / f"p{i}.csv", index=False)
        if job == "suppress":
            gc.suppress(folder, ["age", "sex"], tmp_path / name, k=5, scheduler=address, keep=["id", *REST], **kw)
        elif job == "points":
            gc.generalize_points(folder, 5, tmp_path / name, scheduler=address,
                                 keep=["id", "zip", "name", "age", "sex", "race", "diagnosis"], **kw)
        else:
            gc.anonymize(folder, tmp_path / name, location=("lat", "lon"), qi=["age", "sex"], k=5, scheduler=address,
                         keep=["id", "zip", "name", "race", "diagnosis"], **kw)
        return pd.read_parquet(tmp_path / name)

    n = len(df)
    default = run("default", np.arange(n))
    _the_order_tells_nothing(default, n)
    if job != "suppress":       # the solver may answer a reordered table differently
        assert run("reordered", np.random.default_rng(5).permutation(n)).equals(default)
    kept = run("kept", np.arange(n), keep_order=True)
    assert kept.sort_values("id").reset_index(drop=True).equals(default.sort_values("id").reset_index(drop=True))
    if job == "suppress":
        assert kept["id"].tolist() == df["id"].tolist()


def test_the_command_line_on_the_cluster_writes_the_published_order_unless_keep_order(sources, address, tmp_path,
                                                                                       cli):
    """The command line's dask engine writes the published order, the same
    every time; --keep-order keeps the input's."""
    n = len(pd.read_csv(sources / "in.csv"))
    tables = {}
    for name, flags in (("a", []), ("c", []), ("kept", ["--keep-order"])):
        code, _, err = cli("suppress", sources / "in.csv", "--qi", "age,sex", "-k", "5", "--keep",
                           "id,lat,lon,zip,name,race,diagnosis", "-o", tmp_path / name, "--scheduler", address, *flags)
        assert code == 0, err
        tables[name] = pd.read_parquet(tmp_path / name)
    assert tables["a"].equals(tables["c"])
    assert tables["kept"]["id"].astype(int).tolist() == list(range(n))
    _the_order_tells_nothing(tables["a"], n)
