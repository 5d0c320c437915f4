"""The dask engine (issue 14) on a LocalCluster of two worker processes: the
release checked by the independent checkers, compared with the in-memory
engine, the audit's figures equal to the in-memory audit's, bad input refused
with nothing left behind, and a worker killed mid-job."""
import os
import re
import shutil
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from checkers import drawn_shapes
from optional import require
from shipped import ADULT_QI, adult_keep

distributed = require("distributed")
gc = require("geoanon.cluster")

from checkers import check_published_boxes  # noqa: E402

pytestmark = pytest.mark.slow          # the dask engine on a LocalCluster

N = 200_000
K = 100


def _points(n=N, seed=1):
    rng = np.random.default_rng(seed)
    centres = rng.uniform([-120, 30], [-75, 45], size=(12, 2))
    xy = centres[rng.integers(0, 12, n)] + rng.normal(scale=1.5, size=(n, 2))
    xy = np.round(xy, 3)
    xy[: n // 50] = xy[0]                      # a heavy point: 2% of the records at one place
    return pd.DataFrame({"id": np.arange(n), "lat": xy[:, 1], "lon": xy[:, 0], "age": rng.integers(18, 90, n)})


# the columns of ``_points`` besides the location, published as they are: the id to follow each row, the age
KEEP = ["id", "age"]
def _dataset(df, folder, parts=5):
    folder.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
        df.iloc[chunk].to_parquet(folder / f"part-{i}.parquet")
    return folder


def test_points_on_the_cluster_are_a_valid_rectangle_partition(client, tmp_path):
    df = _points()
    rel = gc.generalize_points(_dataset(df, tmp_path / "in"), K, tmp_path / "out", scheduler=client,
                               max_shard_rows=40_000, keep=KEEP)
    out = pd.read_parquet(tmp_path / "out")
    assert sorted(out["id"]) == list(range(N))               # every row exactly once
    out = out.set_index("id").loc[df["id"]]
    assert (out["age"].to_numpy() == df["age"].to_numpy()).all()
    xy = df[["lon", "lat"]].to_numpy()
    sizes = check_published_boxes(xy, out["class_id"].to_numpy(),
                                  out[["lon_min", "lat_min", "lon_max", "lat_max"]].to_numpy(), K)
    r = rel.report
    assert r["shards"] >= 5 and r["classes"] == len(sizes) and max(sizes.values()) == r["max_class"]
    assert out["lat_min"].isna().mean() < 0.05                 # few records an edge would pin, without a location
    memory = ga.partition_points(xy, K)
    assert r["lower_bound"] == memory.lower_bound              # over the whole dataset
    located = out.dropna(subset=["lat_min"]).groupby("class_id").size().max()
    assert abs(r["ratio"] - located / r["lower_bound"]) < 0.01  # the partition's classes (before pinned rows leave)
    # the rows without a location of every shard read as one class over the published columns
    assert r["audit"]["k"] == min(sizes.values()) >= K and len(sizes) - r["shards"] <= r["audit"]["classes"] <= len(sizes)


def test_points_from_csv_files_match_the_columns_of_the_in_memory_release(client, tmp_path):
    df = _points(20_000, seed=2)
    (tmp_path / "csv").mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), 3)):
        df.iloc[chunk].to_csv(tmp_path / "csv" / f"part-{i}.csv", index=False)
    gc.generalize_points(tmp_path / "csv" / "*.csv", 20, tmp_path / "out", scheduler=client, keep=KEEP)
    out = pd.read_parquet(tmp_path / "out")
    memory = ga.generalize_points(df.astype(str), 20, keep=KEEP)
    assert list(out.columns) == list(memory.in_input_order().columns)
    assert len(out) == len(df) and out.groupby("class_id").size().min() >= 20


def test_a_large_csv_file_is_read_in_partitions_of_whole_lines(client, tmp_path, monkeypatch):
    from geoanon.cluster import release as cluster_release

    df = _points(6_000, seed=4)
    df.to_csv(tmp_path / "big.csv", index=False)
    whole = gc.generalize_points(tmp_path / "big.csv", 20, tmp_path / "whole", scheduler=client, keep=KEEP)
    monkeypatch.setattr(cluster_release, "CSV_BLOCK", 10_000)
    blocks = cluster_release.csv_blocks(tmp_path / "big.csv")
    size = (tmp_path / "big.csv").stat().st_size
    assert len(blocks) > 5 and blocks[-1][1] == size and all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    read = cluster_release.read_dataset(tmp_path / "big.csv")
    assert read.npartitions == len(blocks)
    assert read.compute().to_numpy().tolist() == pd.read_csv(tmp_path / "big.csv", dtype=str).to_numpy().tolist()
    split = gc.generalize_points(tmp_path / "big.csv", 20, tmp_path / "split", scheduler=client, keep=KEEP)
    assert split.report["audit"]["k"] >= 20 and split.report["rows"] == whole.report["rows"] == len(df)
    released = [pd.read_parquet(tmp_path / name).sort_values("id").reset_index(drop=True) for name in ("whole", "split")]
    assert released[0].equals(released[1])
    quoted = df.astype(str).assign(age='"7"')
    quoted.to_csv(tmp_path / "quoted.csv", index=False)       # a quoted value may hold a line break: not split
    assert cluster_release.csv_blocks(tmp_path / "quoted.csv") == [None]


def test_the_lower_bound_counts_a_point_written_two_ways_as_one(client, tmp_path):
    rng = np.random.default_rng(9)
    df = pd.DataFrame({"lat": np.round(35 + rng.random(3_000), 4).astype(str),
                       "lon": np.round(-80 + rng.random(3_000), 4).astype(str)})
    df.loc[:59, ["lat", "lon"]] = [["35.5", "-79.5"], ["35.50", "-79.50"]] * 30    # one point, 60 records
    rel = gc.generalize_points(_csv_dataset(df, tmp_path / "in"), 10, tmp_path / "out", scheduler=client)
    assert rel.report["lower_bound"] == 60


@pytest.mark.parametrize("sensitive, ground", [("occupation", "equal"), ("age", "ordered"), ("education", "tree")])
def test_the_audit_on_the_cluster_gives_the_in_memory_figures(client, tmp_path, sensitive, ground, adult_df):
    from geoanon.models import Hierarchy

    df = adult_df
    df.loc[df.index[::7], "race"] = "*"
    qi = ["sex", "race", "marital-status"]
    if ground == "tree":
        levels = sorted(df["education"].unique())
        ground = Hierarchy.from_frame(pd.DataFrame([[v, "school" if i < len(levels) // 2 else "college", "any"]
                                                    for i, v in enumerate(levels)]))
    levels = {"k": 3, "l": 2, "l_distinct": 2, "t": 0.3}
    expected = ga.audit(df, qi, sensitive, ground=ground, **levels)
    got = gc.audit(_dataset(df, tmp_path / "adult", parts=4), qi, sensitive, ground=ground, scheduler=client,
                   **levels)
    for key in ("rows", "classes", "k", "class_sizes", "l_distinct", "suppressed_cells", "ok", "ground", "risk"):
        assert got[key] == expected[key], key
    assert got["l"] == pytest.approx(expected["l"]) and got["t"] == pytest.approx(expected["t"])
    for key in ("l_entropy", "beta", "beta_enhanced", "delta"):          # geoanon.criteria, on both engines
        assert got[key] == pytest.approx(expected[key]), key
    assert got["recursive"]["l"] == expected["recursive"]["l"]
    assert got["recursive"]["c"] == pytest.approx(expected["recursive"]["c"])
    for name, v in expected["violations"].items():
        assert (got["violations"][name]["classes"], got["violations"][name]["rows"]) == (v["classes"], v["rows"])


def test_the_audit_refuses_a_release_below_k(client):
    import dask.dataframe as dd

    from geoanon.cluster.audit import audit_frame

    df = pd.DataFrame({"a": ["x"] * 5 + ["y"] * 2})
    with pytest.raises(ga.AuditError, match="refusing to release: 2 rows in 1 class violate k=3"):
        audit_frame(dd.from_pandas(df, npartitions=2), ["a"], model=ga.Model(k=3))


@pytest.mark.parametrize("change, error, message", [
    ({"lat": [np.nan]}, ga.DataError, "1 row without coordinates"),
    ({"lat": [95.0]}, ga.DataError, "outside longitude"),
    ({"lon": ["east"]}, ga.DataError, "not a number"),
])
def test_bad_points_are_refused_and_nothing_is_left(client, tmp_path, change, error, message):
    df = _points(3_000, seed=3).astype({"lat": object, "lon": object})
    for col, values in change.items():
        df.loc[df.index[: len(values)], col] = values
    df[["lat", "lon"]] = df[["lat", "lon"]].astype(str)
    source = _dataset(df, tmp_path / "in", parts=2)
    with pytest.raises(error, match=message):
        gc.generalize_points(source, 10, tmp_path / "out", scheduler=client, keep=KEEP)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_an_existing_output_or_k_above_the_rows_is_refused(client, tmp_path):
    source = _dataset(_points(1_000, seed=4), tmp_path / "in", parts=2)
    with pytest.raises(ga.ParameterError, match="exists"):
        gc.generalize_points(source, 10, source, scheduler=client, keep=KEEP)
    with pytest.raises(ga.InfeasibleError, match="larger than the dataset"):
        gc.generalize_points(source, 5_000, tmp_path / "out", scheduler=client, keep=KEEP)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_a_worker_killed_mid_job_leaves_a_whole_release_or_none(tmp_path):
    df = _points(N, seed=5)
    source = _dataset(df, tmp_path / "in")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  memory_limit="2GiB") as cluster, distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        killed = threading.Event()

        def kill_one():
            time.sleep(3.0)                      # the job is past its counts, in the shuffle or the shards
            os.kill(next(iter(pids.values())), signal.SIGKILL)
            killed.set()

        threading.Thread(target=kill_one, daemon=True).start()
        try:
            rel = gc.generalize_points(source, K, tmp_path / "out", scheduler=client, max_shard_rows=40_000,
                                       keep=KEEP)
        except ga.GeoanonError as exc:            # a failure is one typed line, and nothing is published
            assert "\n" not in str(exc) and not isinstance(exc, ga.ParameterError), exc
            assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
            return
    assert killed.is_set()
    out = pd.read_parquet(tmp_path / "out")
    assert sorted(out["id"]) == list(range(N)) and out.groupby("class_id").size().min() >= K
    assert rel.report["audit"]["rows"] == N
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]


def test_the_command_line_runs_points_and_audit_on_a_cluster(client, tmp_path, cli):
    import json

    source = _dataset(_points(30_000, seed=6), tmp_path / "in", parts=3)
    address = client.scheduler.address
    code, out, err = cli("points", source, "-k", 20, "--lat", "lat", "--lon", "lon", "-o", tmp_path / "out",
                         "--scheduler", address, "--report", tmp_path / "r.json", "--keep", "id,age")
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["engine"] == "dask" and report["audit"]["k"] >= 20 and "shard" in out
    code, out, err = cli("audit", tmp_path / "out", "--qi", "lat_min,lat_max,lon_min,lon_max", "-k", 20,
                         "--scheduler", address)
    assert code == 0, err        # the rows without a location of every shard read as one class over these columns
    audited = int(re.search(r"(\d+) classes", out)[1])
    assert report["classes"] - report["shards"] <= audited <= report["classes"] and "k=20: met" in out
    code, out, err = cli("audit", tmp_path / "out", "--qi", "lat_min,lat_max,lon_min,lon_max", "-k", 10_000,
                         "--scheduler", address)
    assert code == 1 and "VIOLATED" in out
    code, _, err = cli("points", source, "-k", 20, "--lat", "lat", "--lon", "lon", "-o", tmp_path / "o2",
                       "--scheduler", address, "--map", tmp_path / "m.html", "--html-report", tmp_path / "r.html",
                       "--report", tmp_path / "r2.json", "--keep", "id,age")
    assert code == 0, err        # the classes are small: the client draws them as the pandas engine does
    classes = json.loads((tmp_path / "r2.json").read_text())["classes"]
    page, report_page = (tmp_path / "m.html").read_text(), (tmp_path / "r.html").read_text()
    published = pd.read_parquet(tmp_path / "o2")
    boxes = published.dropna(subset=["lat_min"])["class_id"].nunique()
    assert drawn_shapes(page) == boxes and boxes >= classes - 3 and report_page.count("<figure><svg") == 2
    raw = pd.read_parquet(source)
    assert not any(f"{v:.5f}" in page for v in raw["lat"].head(50)), "a raw coordinate reached the map"
    (tmp_path / "m.html").unlink(), (tmp_path / "r.html").unlink(), (tmp_path / "r2.json").unlink()
    shutil.rmtree(tmp_path / "o2")
    code, _, err = cli("points", source, "-k", 20, "--lat", "lat", "--lon", "lon", "-o", tmp_path / "out",
                       "--scheduler", address, "--keep", "id,age")
    assert code == 2 and "exists" in err
    code, out, err = cli("labels", source, "-k", 20, "--label-col", "age", "-o", tmp_path / "ages", "--scheduler", address,
                         "--keep", "id", "--identifiers", "lat,lon", "--keep-order")
    assert code == 0 and "audited k = " in out, err
    memory = ga.generalize_labels(pd.read_parquet(source), 20, column="age", keep=["id"], identifiers=["lat", "lon"])
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "ages"), memory.in_input_order().reset_index(drop=True),
                                  check_dtype=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ages", "in", "out", "r.json"]


def test_engine_dask_without_an_address_starts_a_local_cluster(tmp_path, cli):
    source = _dataset(_points(5_000, seed=7), tmp_path / "in", parts=2)
    code, out, err = cli("points", source, "-k", 10, "--lat", "lat", "--lon", "lon", "-o", tmp_path / "out",
                         "--engine", "dask", "--keep", "id,age")
    assert code == 0, err
    assert pd.read_parquet(tmp_path / "out").groupby("class_id").size().min() >= 10


def _csv_dataset(df, folder, parts=3):
    folder.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
        df.iloc[chunk].to_csv(folder / f"part-{i}.csv", index=False)
    return folder


def test_labels_on_the_cluster_are_the_in_memory_release_row_for_row(client, tmp_path):
    from geoanon.datasets import census_names

    names = census_names("last")
    rng = np.random.default_rng(8)
    picked = rng.choice(names.index.to_numpy(), size=40_000, p=names.to_numpy() / names.sum())
    df = pd.DataFrame({"id": np.arange(40_000).astype(str), "name": picked})
    df.loc[df.index[::997], "name"] = ""                        # empty cells are a label like any other
    source = _csv_dataset(df, tmp_path / "in")
    rel = gc.generalize_labels(source, 25, tmp_path / "out", column="name", scheduler=client, keep=["id"],
                               keep_order=True)
    memory = ga.generalize_labels(df, 25, column="name", keep=["id"])
    out = pd.read_parquet(tmp_path / "out")
    pd.testing.assert_frame_equal(out, memory.in_input_order().reset_index(drop=True), check_dtype=False)
    for key in ("classes", "min_class", "max_class", "lower_bound", "labels"):
        assert rel.report[key] == memory.report[key], key
    assert rel.report["audit"]["k"] == memory.report.audit["k"]


@pytest.mark.parametrize("unknown", ["suppress", "error"])
def test_regions_on_the_cluster_are_the_in_memory_release_row_for_row(client, tmp_path, unknown, births_df, nc_gdf):
    births = births_df
    births.loc[births.index[:1200:3], "county_fips"] = "99999"     # 400 records in no county
    source = _csv_dataset(births, tmp_path / "in")
    options = {"column": "county_fips", "regions": nc_gdf, "region_id": "FIPS", "unknown": unknown,
               "identifiers": ["record_id"], "keep": ["sex", "birth_weight_g"]}
    if unknown == "error":
        with pytest.raises(ga.DataError, match="400 records name regions that are not in the regions"):
            gc.generalize_regions(source, 1000, tmp_path / "out", scheduler=client, **options)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
        return
    with pytest.raises(ga.InfeasibleError, match="400 records would be suppressed"):
        gc.generalize_regions(source, 1000, tmp_path / "out", scheduler=client, **options)
    rel = gc.generalize_regions(source, 400, tmp_path / "out", scheduler=client, keep_order=True, **options)
    memory = ga.generalize_regions(births, 400, **options)
    out = pd.read_parquet(tmp_path / "out")
    pd.testing.assert_frame_equal(out, memory.in_input_order().reset_index(drop=True), check_dtype=False)
    for key in ("classes", "min_class", "max_class", "lower_bound", "suppressed_rows"):
        assert rel.report[key] == memory.report[key], key


@pytest.mark.parametrize("model", [{"k": 10, "method": "lattice"}, {"k": 5, "method": "approx"},
                                   {"k": 5, "l": 2, "sensitive": "occupation", "method": "lattice"},
                                   {"k": 5, "t": 0.3, "sensitive": "occupation", "method": "lattice"},
                                   {"k": 5, "t": 0.2, "sensitive": "age", "ground": "ordered", "method": "lattice"}])
def test_suppress_on_the_cluster_is_the_in_memory_release_row_for_row(client, tmp_path, model, adult_df):
    df = adult_df
    keep = adult_keep(ADULT_QI, model.get("sensitive"))
    rel = gc.suppress(_dataset(df, tmp_path / "in", parts=7), ADULT_QI, tmp_path / "out", scheduler=client, keep=keep,
                      keep_order=True, **model)
    memory = ga.suppress(df, ADULT_QI, keep=keep, **model)
    out = pd.read_parquet(tmp_path / "out")
    expected = memory.in_input_order().reset_index(drop=True).astype({c: "string" for c in ADULT_QI})
    pd.testing.assert_frame_equal(out, expected, check_dtype=False)
    for key in ("cost", "lower_bound", "optimal", "method", "types", "ncp", "units"):
        assert rel.report[key] == memory.report[key], key
    assert rel.report["classes"] == memory.report.classes and rel.report["audit"]["k"] >= model["k"]
    assert rel.report["audit"]["suppressed_cells"] == memory.report["cost"]


def test_suppress_on_the_cluster_reads_csv_files_and_missing_values(client, tmp_path):
    # types split over partitions, empty CSV cells, and a Parquet null are values like any other
    rng = np.random.default_rng(9)
    n = 20_000
    df = pd.DataFrame({"a": rng.choice(["x", "y", "", "=1+1"], n, p=[0.5, 0.3, 0.15, 0.05]),
                       "b": rng.integers(0, 12, n).astype(str), "c": rng.choice(list("pqrs"), n),
                       "s": rng.choice(list("uvwxyz"), n)})
    source = _csv_dataset(df, tmp_path / "csv", parts=4)
    gc.suppress(source, ["a", "b", "c"], tmp_path / "out", k=8, l_distinct=3, sensitive="s", scheduler=client,
                keep_order=True)
    from geoanon.io import read_table

    whole = pd.concat([read_table(p) for p in sorted(source.iterdir())], ignore_index=True)
    memory = ga.suppress(whole, ["a", "b", "c"], k=8, l_distinct=3, sensitive="s")
    out = pd.read_parquet(tmp_path / "out")
    assert out["a"].str.startswith("'=").any()                     # formulas escaped, as in memory
    pd.testing.assert_frame_equal(out, memory.in_input_order().astype({c: "string" for c in "abc"}), check_dtype=False)
    typed = df.assign(b=pd.array(rng.integers(0, 12, n), dtype="Int64"))
    typed.loc[::50, "b"] = pd.NA
    gc.suppress(_dataset(typed, tmp_path / "typed", parts=3), ["a", "b"], tmp_path / "out2", k=8, scheduler=client,
                keep=["c", "s"], keep_order=True)
    memory = ga.suppress(typed, ["a", "b"], k=8, keep=["c", "s"])
    out = pd.read_parquet(tmp_path / "out2")
    assert (out["class_id"].to_numpy() == memory.in_input_order()["class_id"].to_numpy()).all()
    assert (out["b"].isna() == memory.in_input_order()["b"].isna()).all()


def test_suppress_on_the_cluster_refuses_bad_requests_and_leaves_nothing(client, tmp_path, adult_df):
    source = _dataset(adult_df.head(3000), tmp_path / "in", parts=2)
    with pytest.raises(ga.InfeasibleError, match="no grouping reaches l_distinct=20"):
        gc.suppress(source, ADULT_QI, tmp_path / "out", l_distinct=20, sensitive="occupation", scheduler=client,
                    keep=adult_keep(ADULT_QI, "occupation"))
    with pytest.raises(ga.DataError, match="not in the given order"):
        gc.suppress(source, ADULT_QI, tmp_path / "out", t=0.3, sensitive="age", ground="ordered", order=[17, 18],
                    scheduler=client, keep=adult_keep(ADULT_QI, "age"))
    with pytest.raises(ga.DataError, match="no column 'nope'"):
        gc.suppress(source, [*ADULT_QI, "nope"], tmp_path / "out", k=5, scheduler=client, keep=adult_keep(ADULT_QI))
    with pytest.raises(ga.InfeasibleError, match="larger than the table"):
        gc.suppress(source, ADULT_QI, tmp_path / "out", k=3001, scheduler=client, keep=adult_keep(ADULT_QI))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_the_command_line_runs_suppress_on_a_cluster(client, tmp_path, cli, adult_df):
    import json

    df = adult_df.head(5000)
    source = _dataset(df, tmp_path / "in", parts=3)
    address = client.scheduler.address
    code, out, err = cli("suppress", source, "--qi", ",".join(ADULT_QI), "-k", 5, "-l", 2, "--sensitive",
                         "occupation", "--method", "lattice", "-o", tmp_path / "out", "--scheduler", address,
                         "--report", tmp_path / "r.json", "--keep", ",".join(adult_keep(ADULT_QI, "occupation")))
    assert code == 0 and "suppressed cell" in out and "audited k = " in out, err
    report = json.loads((tmp_path / "r.json").read_text())
    memory = ga.suppress(df, ADULT_QI, k=5, l=2, sensitive="occupation", method="lattice",
                         keep=adult_keep(ADULT_QI, "occupation"))
    assert report["cost"] == memory.report["cost"] and report["engine"] == "dask" and report["audit"]["l"] >= 2
    code, out, err = cli("audit", tmp_path / "out", "--qi", ",".join([*ADULT_QI, "class_id"]), "--sensitive", "age",
                         "--ground", "ordered", "-k", 5, "--scheduler", address)
    expected = ga.audit(memory.in_input_order(), [*ADULT_QI, "class_id"], "age", ground="ordered")
    assert code == 0 and f"t = {expected['t']:.4f}" in out, (out, err)
    code, _, err = cli("suppress", source, "--qi", ",".join(ADULT_QI), "-k", 5, "-o", tmp_path / "o2",
                       "--scheduler", address, "--classes", tmp_path / "c.csv", "--keep", ",".join(adult_keep(ADULT_QI)))
    assert code == 2 and err.count("\n") == 1 and "--classes is not available on the dask engine" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out", "r.json"]


def _people(n, seed):
    df = _points(n, seed=seed)
    rng = np.random.default_rng(seed)
    return df.assign(sex=rng.choice(["F", "M"], n),
                     dx=rng.choice(list("abcdefgh"), n, p=[.3, .2, .1, .1, .1, .1, .05, .05]))


def _check_joint_release(df, out, k, *, l=None, t=None):
    """Every row once, its point and age inside its class's box and interval,
    boxes on their grid (``check_published_boxes``), every class >= k (and l, and t against the whole
    table's distribution, by the in-memory audit)."""
    assert sorted(out["id"]) == sorted(df["id"])
    out = out.set_index("id").loc[df["id"]]
    age = df["age"].to_numpy()
    check_published_boxes(df[["lon", "lat"]].to_numpy(), out["class_id"].to_numpy(),
                          out[["lon_min", "lat_min", "lon_max", "lat_max"]].to_numpy(), k)
    assert out["lat_min"].isna().mean() < 0.05                 # few records an edge would pin, without a location
    assert ((out["age_min"].isna() | (out["age_min"] <= age)) & (out["age_max"].isna() | (age <= out["age_max"]))).all()
    published = ["lat_min", "lat_max", "lon_min", "lon_max", "age_min", "age_max", "sex"]
    audit = ga.audit(out.reset_index(), [*published, "class_id"], "dx" if (l or t) else None, k=k, l=l, t=t)
    assert audit.ok and audit.classes == out["class_id"].nunique()
    return audit


def test_anonymize_on_the_cluster_is_a_valid_joint_release(client, tmp_path):
    df = _people(60_000, seed=10)
    source = _dataset(df, tmp_path / "in", parts=4)
    rel = gc.anonymize(source, tmp_path / "out", location=("lat", "lon"), qi=["age", "sex"], k=20, scheduler=client,
                       max_shard_rows=15_000, keep=["id", "dx"])
    audit = _check_joint_release(df, pd.read_parquet(tmp_path / "out"), 20)
    r = rel.report
    assert r["shards"] >= 4 and r["qi"] == {"age": "interval", "sex": "set"}
    assert r["audit"]["k"] == audit.k and r["audit"]["classes"] == audit.classes == r["classes"]
    memory = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=20, keep=["id", "dx"])
    assert r["classes"] >= 0.8 * memory.report.classes             # sharding costs little precision


def test_anonymize_on_the_cluster_meets_l_and_t_against_the_whole_dataset(client, tmp_path):
    df = _people(40_000, seed=11)
    # the north-west holds one diagnosis only: the shards cut there miss l = 2 and must merge with others
    df.loc[(df["lon"] < df["lon"].quantile(0.3)) & (df["lat"] > df["lat"].quantile(0.85)), "dx"] = "a"
    source = _dataset(df, tmp_path / "in", parts=3)
    common = {"location": ("lat", "lon"), "qi": ["age", "sex"], "scheduler": client, "max_shard_rows": 8_000,
              "keep": ["id"]}
    rel = gc.anonymize(source, tmp_path / "out", k=10, l=2, sensitive="dx", **common)
    _check_joint_release(df, pd.read_parquet(tmp_path / "out"), 10, l=2)
    assert rel.report["audit"]["l"] >= 2
    k_alone = gc.anonymize(source, tmp_path / "out_k", k=10, **{**common, "keep": ["id", "dx"]}).report["shards"]
    assert 1 < rel.report["shards"] < k_alone
    rel = gc.anonymize(source, tmp_path / "out_t", k=10, t=0.5, sensitive="dx", **common)
    audit = _check_joint_release(df, pd.read_parquet(tmp_path / "out_t"), 10, t=0.5)
    assert rel.report["audit"]["t"] == pytest.approx(audit.t, abs=1e-9)


def test_anonymize_on_the_cluster_refuses_what_it_cannot_release(client, tmp_path):
    df = _people(5_000, seed=12)
    source = _dataset(df, tmp_path / "in", parts=2)
    common = {"location": ("lat", "lon"), "qi": ["age", "sex"], "scheduler": client, "keep": ["id"]}
    with pytest.raises(ga.InfeasibleError, match="l_distinct=9"):
        gc.anonymize(source, tmp_path / "out", k=5, l_distinct=9, sensitive="dx", **common)
    with pytest.raises(ga.InfeasibleError, match="l=2"):
        gc.anonymize(source, tmp_path / "out", k=5, l=2, sensitive="sex", **{**common, "qi": ["age"],
                                                                             "keep": ["id", "dx"]})
    with pytest.raises(ga.ParameterError, match="points location"):
        gc.anonymize(source, tmp_path / "out", k=5, **{**common, "location": {"label": "sex"}, "qi": ["age"],
                                                        "keep": ["id", "dx"]})
    with pytest.raises(ga.DataError, match="no column 'nope'"):
        gc.anonymize(source, tmp_path / "out", k=5, **{**common, "qi": ["nope"], "keep": ["id", "age", "sex", "dx"]})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_the_command_line_runs_anonymize_on_a_cluster(client, tmp_path, cli):
    import json

    df = _people(20_000, seed=13)
    source = _csv_dataset(df.astype(str), tmp_path / "in")
    address = client.scheduler.address
    code, out, err = cli("anonymize", source, "--lat", "lat", "--lon", "lon", "--qi", "age,sex", "-k", 10,
                         "-o", tmp_path / "out", "--scheduler", address, "--report", tmp_path / "r.json",
                         "--keep", "id,dx")
    assert code == 0 and "location class" in out and "audited k = " in out, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["engine"] == "dask" and report["qi"]["age"] == "interval" and report["audit"]["k"] >= 10
    _check_joint_release(df, pd.read_parquet(tmp_path / "out").astype({"id": "int64"}), 10)
    code, _, err = cli("anonymize", source, "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", 10, "-o",
                       tmp_path / "o2", "--scheduler", address, "--extent", "tile", "--keep", "id,sex,dx")
    assert code == 2 and err.count("\n") == 1 and "--extent box" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out", "r.json"]


def test_points_from_geoparquet_are_the_release_of_their_coordinates(client, tmp_path):
    import geopandas as gpd

    df = _points(30_000, seed=14)
    (tmp_path / "geo").mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), 3)):
        part = df.iloc[chunk]
        gpd.GeoDataFrame(part.drop(columns=["lat", "lon"]), geometry=gpd.points_from_xy(part["lon"], part["lat"]),
                         crs="EPSG:4326").to_parquet(tmp_path / "geo" / f"part-{i}.parquet")
    rel = gc.generalize_points(tmp_path / "geo", 20, tmp_path / "out", scheduler=client, keep=KEEP)
    gc.generalize_points(_dataset(df, tmp_path / "plain", parts=3), 20, tmp_path / "out_plain", scheduler=client,
                         keep=KEEP)
    out, plain = pd.read_parquet(tmp_path / "out"), pd.read_parquet(tmp_path / "out_plain")
    assert "geometry" not in out.columns and rel.report["crs"] == "EPSG:4326"
    pd.testing.assert_frame_equal(out, plain[out.columns], check_dtype=False)
    gpd.GeoDataFrame({"id": [1, 2]}, geometry=gpd.GeoSeries.from_wkt(["POINT (0 0)", "LINESTRING (0 0, 1 1)"]),
                     crs="EPSG:4326").to_parquet(tmp_path / "lines.parquet")
    with pytest.raises(ga.DataError, match="geometry is a LineString, not a point"):
        gc.generalize_points(tmp_path / "lines.parquet", 1, tmp_path / "out2", scheduler=client, keep=["id"])
    assert not (tmp_path / "out2").exists()


def test_the_models_of_criteria_on_the_cluster(client, tmp_path, adult_df):
    """Entropy and recursive l, beta-likeness and delta on the dask engine:
    suppression row for row as in memory, the joint release checked against
    the whole dataset's distribution, the audit's violations as in memory."""
    from checkers import by_definition

    df = adult_df
    model = ga.Model(k=5, sensitive="occupation", l_entropy=2.5, delta=3.0)
    keep = adult_keep(ADULT_QI, "occupation")
    rel = gc.suppress(_dataset(df, tmp_path / "in", parts=5), ADULT_QI, tmp_path / "out", scheduler=client,
                      model=model, method="lattice", keep=keep, keep_order=True)
    memory = ga.suppress(df, ADULT_QI, model=model, method="lattice", keep=keep)
    expected = memory.in_input_order().reset_index(drop=True).astype({c: "string" for c in ADULT_QI})
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "out"), expected, check_dtype=False)
    assert rel.report["audit"]["ok"] and rel.report["l_entropy"] == 2.5 and rel.report["delta"] == 3.0
    people = _people(30_000, seed=12)
    source = _dataset(people, tmp_path / "people", parts=3)
    joint = ga.Model(k=10, sensitive="dx", beta=1.0, recursive=(3.0, 2))
    gc.anonymize(source, tmp_path / "joint", location=("lat", "lon"), qi=["age", "sex"], model=joint,
                 scheduler=client, max_shard_rows=8_000, identifiers=["id"])
    out = pd.read_parquet(tmp_path / "joint")
    qi = [c for c in out.columns if c not in ("dx",) and c in (
        "lat_min", "lat_max", "lon_min", "lon_max", "age_min", "age_max", "sex")]
    groups = {key: list(g["dx"]) for key, g in out.groupby([*qi, "class_id"], dropna=False)}   # rows by shard
    from collections import Counter
    figures = by_definition(groups, Counter(people["dx"]), 2)
    assert figures["beta"] <= 1.0 + 1e-9 and figures["c"] < 3.0
    bad = ga.Model(k=2, sensitive="occupation", delta=0.5, l_entropy=9)
    got = gc.audit(_dataset(expected.drop(columns="class_id"), tmp_path / "rel", parts=3), ADULT_QI, model=bad,
                   scheduler=client)
    want = ga.audit(expected.drop(columns="class_id"), ADULT_QI, model=bad)
    for name in ("delta", "l_entropy", "k"):
        assert (got["violations"][name]["classes"], got["violations"][name]["rows"]) == (
            want["violations"][name]["classes"], want["violations"][name]["rows"]), name


def test_dates_on_the_cluster_are_iso_intervals(client, tmp_path):
    people = _people(20_000, seed=13)
    rng = np.random.default_rng(13)
    people["visit"] = np.datetime_as_string(np.datetime64("2023-01-01") + rng.integers(0, 700, len(people))
                                            .astype("timedelta64[D]"), unit="D")
    people["row"] = np.arange(len(people))                      # rows are written by shard: kept to match them
    rel = gc.anonymize(_dataset(people, tmp_path / "in", parts=3), tmp_path / "out", location=("lat", "lon"),
                       qi=["age", "visit"], k=10, scheduler=client, max_shard_rows=6_000, keep=["sex", "dx", "row"],
                       identifiers=["id"])
    assert rel.report["qi"]["visit"] == "interval" and rel.report["audit"]["k"] >= 10
    out = pd.read_parquet(tmp_path / "out").sort_values("row")
    assert out["visit_min"].str.fullmatch(r"\d{4}-\d{2}-\d{2}|\.\.").all()        # ``..``: an open end
    lo, hi, own = (pd.to_datetime(v.replace("..", None)).to_numpy()
                   for v in (out["visit_min"], out["visit_max"], people["visit"]))
    assert ((np.isnat(lo) | (lo <= own)) & (np.isnat(hi) | (own <= hi))).all()      # an open end: a tail
    assert not (np.isnat(lo) & np.isnat(hi)).any()


def test_weights_extent_and_date_formats_reach_every_shard(client, tmp_path, cli):
    people = _people(12_000, seed=14)
    rng = np.random.default_rng(14)
    days = np.datetime64("2023-01-01") + rng.integers(0, 700, len(people)).astype("timedelta64[D]")
    people["visit"] = pd.to_datetime(days).strftime("%d/%m/%Y")
    source = _dataset(people, tmp_path / "in", parts=2)
    rel = gc.anonymize(source, tmp_path / "out", location=("lat", "lon"), qi=["age", "visit"], k=10,
                       scheduler=client, max_shard_rows=6_000, keep=["sex", "dx"], identifiers=["id"],
                       dates={"visit": "%d/%m/%Y"},
                       weights={"location": 8}, max_extent_km=400)
    out = pd.read_parquet(tmp_path / "out")
    assert rel.report["qi"]["visit"] == "interval" and out["visit_max"].str.fullmatch(r"\d{4}-\d{2}-\d{2}|\.\.").all()
    gc.anonymize(source, tmp_path / "plain", location=("lat", "lon"), qi=["age"], k=10, scheduler=client,
                 max_shard_rows=6_000, keep=["sex", "dx", "visit"], identifiers=["id"])
    from geoanon._geo import row_box_extents

    wide = row_box_extents(pd.read_parquet(tmp_path / "plain"), "lat", "lon", "EPSG:4326")[2]
    tight = row_box_extents(out, "lat", "lon", "EPSG:4326")[2]
    assert np.nanmedian(tight) < np.nanmedian(wide) and (tight > 400).sum() < (wide > 400).sum()
    assert rel.report["beyond_max_extent"] == int((tight > 400).sum())          # as the in-memory report counts


def test_location_loss_and_suppression_budget_reach_every_shard(client, tmp_path):
    people = _people(12_000, seed=15)
    source = _dataset(people, tmp_path / "in", parts=2)
    common = dict(location=("lat", "lon"), qi=["age"], k=10, scheduler=client, max_shard_rows=6_000,
                  keep=["sex", "dx"], identifiers=["id"])
    ranged = gc.anonymize(source, tmp_path / "range", location_loss="range", **common)
    roles = ga.Columns(location=("lat", "lon"), qi=["age"], keep=["sex", "dx"], identifiers=["id"])      # the roles as one object
    budget = gc.anonymize(source, tmp_path / "budget", roles, k=10, scheduler=client, max_shard_rows=6_000,
                          max_suppressed=0.01)
    assert ranged.report["location_loss"] == "range" and budget.report["location_loss"] == "km"
    out = pd.read_parquet(tmp_path / "budget")
    hidden = out["age_min"].isna()                   # suppressed: every quasi-identifier empty (the rows a box
    per_class = out[hidden].groupby("class_id").size()    # edge would pin lose their location alone)
    assert hidden.any() and (per_class >= 10).all() and hidden.sum() <= 0.01 * len(people)
    assert budget.report["suppressed_records"] == hidden.sum() and "suppressed_records" not in ranged.report
    assert out.loc[hidden, ["lat_max", "lon_min", "lon_max", "age_min", "age_max"]].isna().all().all()
    assert budget.report["audit"]["k"] >= 10
    with pytest.raises(ga.ParameterError, match="location tree"):
        gc.anonymize(source, tmp_path / "bad", location_loss="spacing", method="joint", **common)
    assert not (tmp_path / "bad").exists()


def test_the_columns_without_a_role_are_measured_over_many_partitions(client):
    """Eight written parts split the group-by over two partitions (a dask
    value_counts of such a group-by fails: measured per partition instead)."""
    import dask.dataframe as dd

    from geoanon.cluster.audit import undeclared_frame

    df = pd.DataFrame({"class_id": np.arange(1000) // 10, "id": np.arange(1000) % 990})
    warnings = []
    found = undeclared_frame(dd.from_pandas(df, npartitions=8), ["id"], 10, warnings)["undeclared"]
    rows = df.groupby(["class_id", "id"]).size()
    assert found["unique_records"] == int((rows == 1).sum()) and found["records_below_k"] == len(df)
    assert warnings
