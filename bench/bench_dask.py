"""Benchmark the dask engine beside the in-memory engine, in one run.

    pip install ".[bench,dask]"
    python bench/bench_dask.py          # hours with the 10^8-row jobs; --quick for a smoke run
    python bench/bench_dask.py --max-rows 20000000      # without them

Clustered points (12 seeded Gaussian clusters over the US, coordinates to 5
decimals) are written once as Parquet datasets of 10^6 rows per file under
bench/out/dask_data/. Each measurement runs in a fresh process:

- ``memory``: the in-memory engine: ``pd.read_parquet`` of the dataset and
  :func:`geoanon.generalize_points`;
- ``dask-W``: :func:`geoanon.cluster.generalize_points` on a LocalCluster of W
  worker processes (one thread each) with a 3 GB memory limit each, writing
  the release as a Parquet dataset (audited before it is renamed);
- ``audit-W``: :func:`geoanon.cluster.audit` of that release over its four
  published columns on the same cluster, beside the in-memory audit
  (``audit-memory``).

Tables (bench_tables.py's synthetic table: sex, edu, region, job as
quasi-identifiers, diagnosis and income, plus clustered coordinates), as
Parquet datasets of 10^6 rows per file:

- ``suppress-E`` (E = memory or W workers): :func:`geoanon.suppress` /
  :func:`geoanon.cluster.suppress` with k = 10 (``suppress-l2-E``: and l = 2
  on diagnosis), method lattice on both engines, which release the same table;
- ``taudit-E``: the audit of the k = 10 release over the quasi-identifiers
  and class_id, with l, l_distinct and t (equal ground) on diagnosis;
- ``anonymize-E``: the joint release, points location and the four
  quasi-identifiers, k = 10.

Reported: wall time, peak memory (VmHWM) of the client process (with a
LocalCluster the scheduler runs in it) and of the busiest worker, the sum of
all processes' peaks, classes, shards, the largest located class / lower
bound (the lower bound of the whole dataset) and the records withheld. The results replace the dask section of
bench/RESULTS.md.
"""
from __future__ import annotations

import math
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, peak_mb, replace_section, run_measurements, today  # noqa: E402


def _worker_peak_mb() -> float:
    """A worker's peak resident memory (defined here so that it travels by value)."""
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmHWM"))

DATA = HERE / "out" / "dask_data"
PART_ROWS = 1_000_000
K = 10
WORKER_MEMORY = "3GB"
TABLE_JOBS = ("suppress-memory", "suppress-2", "suppress-l2-memory", "suppress-l2-2", "taudit-memory", "taudit-2")
PLAN = [(n, job) for n in (1_000_000, 10_000_000, 20_000_000)
        for job in ("memory", "dask-1", "dask-2", "audit-memory", "audit-2")] + \
       [(10_000_000, job) for job in TABLE_JOBS] + \
       [(1_000_000, "anonymize-memory"), (1_000_000, "anonymize-2"), (10_000_000, "anonymize-2")] + \
       [(100_000_000, "dask-2"), (100_000_000, "suppress-2"), (100_000_000, "taudit-2")]
QUICK = [(200_000, job) for job in ("memory", "dask-1", "dask-2", "audit-memory", "audit-2", *TABLE_JOBS,
                                     "anonymize-memory", "anonymize-2")]
TABLE_QI = ["sex", "edu", "region", "job"]


def clustered(rows: int, seed: int) -> np.ndarray:
    """(lon, lat) of ``rows`` points in the 12 clusters (centres fixed, points from ``seed``), to 5 decimals."""
    centres = np.random.default_rng(0).uniform([-120, 28], [-72, 47], size=(12, 2))
    rng = np.random.default_rng(seed)
    return np.round(centres[rng.integers(0, 12, rows)] + rng.normal(scale=1.2, size=(rows, 2)), 5)


def parquet_dataset(name: str, n: int, part) -> Path:
    """A Parquet dataset of n rows, ``part(i, start, rows)`` giving file i (written once)."""
    folder = DATA / f"{name}_{n}"
    if (folder / "_done").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for i, start in enumerate(range(0, n, PART_ROWS)):
        part(i, start, min(PART_ROWS, n - start)).to_parquet(folder / f"part-{i:04d}.parquet")
    (folder / "_done").write_text("")
    return folder


def dataset(n: int) -> Path:
    """The Parquet dataset of n clustered points."""
    import pandas as pd

    def part(i, start, rows):
        xy = clustered(rows, 1_000 + i)
        return pd.DataFrame({"id": np.arange(start, start + rows), "lat": xy[:, 1], "lon": xy[:, 0]})

    return parquet_dataset("points", n, part)


def table_dataset(n: int) -> Path:
    """The Parquet dataset of the n-row synthetic table with coordinates."""
    from bench_tables import synthetic

    def part(i, start, rows):
        xy = clustered(rows, 2_000 + i)
        table = synthetic(rows, seed=3_000 + i)
        table.insert(0, "lon", xy[:, 0])
        table.insert(0, "lat", xy[:, 1])
        table.insert(0, "id", np.arange(start, start + rows))
        return table

    return parquet_dataset("table", n, part)


def measure_table(n: int, job: str, client) -> dict:
    """A table job (suppress, taudit, anonymize) on one engine: ``client`` None for the in-memory one."""
    import pandas as pd

    import geoanon as ga
    import geoanon.cluster as gc

    source = table_dataset(n)
    kind = job.rsplit("-", 1)[0]
    model = {"k": K, **({"l": 2, "sensitive": "diagnosis"} if kind == "suppress-l2" else {})}
    # the table's other columns are kept deliberately, as a user releasing it would declare them
    keep = {"keep": [c for c in ("id", "lat", "lon", "income", "diagnosis") if c != model.get("sensitive")]}
    if kind.startswith("suppress"):
        if client is None:
            r = ga.suppress(pd.read_parquet(source), TABLE_QI, method="lattice", **model, **keep).report
            cost, classes, k = r["cost"], r.classes, r.audit["k"]
        else:
            out = DATA / f"table_release_{n}{'' if kind == 'suppress' else '_l2'}"
            shutil.rmtree(out, ignore_errors=True)
            r = gc.suppress(source, TABLE_QI, out, method="lattice", scheduler=client, **model, **keep).report
            cost, classes, k = r["cost"], r["classes"], r["audit"]["k"]
        return {"classes": classes, "stars": cost, "k": k}
    if kind == "taudit":
        columns = [*TABLE_QI, "class_id", "diagnosis"]
        levels = {"k": K, "l": 1, "l_distinct": 1, "t": 1.0}
        if client is None:
            a = ga.audit(pd.read_parquet(DATA / f"table_release_{n}", columns=columns), [*TABLE_QI, "class_id"],
                         "diagnosis", **levels)
        else:
            a = gc.audit(DATA / f"table_release_{n}", [*TABLE_QI, "class_id"], "diagnosis", scheduler=client,
                         **levels)
        return {"classes": a["classes"], "k": a["k"], "l": round(a["l"], 4), "t": round(a["t"], 6)}
    if client is None:
        r = ga.anonymize(pd.read_parquet(source), location=("lat", "lon"), qi=TABLE_QI, k=K,
                         keep=["id", "income", "diagnosis"]).report
        return {"classes": r.classes, "k": r.audit["k"], "shards": 1}
    out = DATA / f"table_joint_{n}"
    shutil.rmtree(out, ignore_errors=True)
    r = gc.anonymize(source, out, location=("lat", "lon"), qi=TABLE_QI, k=K, scheduler=client,
                     keep=["id", "income", "diagnosis"]).report
    return {"classes": r["classes"], "k": r["audit"]["k"], "shards": r["shards"]}


def release_path(n: int, workers: int) -> Path:
    return DATA / f"release_{n}_{workers}"


def measure(n, job) -> dict:
    n = int(n)
    row = {"n": n, "what": job}
    if job.split("-")[0] in ("suppress", "taudit", "anonymize"):
        return measure_table_row(n, job, row)
    source = dataset(n)
    started = time.perf_counter()
    if job == "memory":
        import pandas as pd

        import geoanon as ga

        Path("/proc/self/clear_refs").write_text("5")
        df = pd.read_parquet(source)
        rel = ga.generalize_points(df, K, lat="lat", lon="lon", keep=["id"])
        r = rel.report
        row.update(classes=r["classes"], ratio=round(r["ratio"], 4), withheld=r["withheld_rows"], shards=1)
    elif job == "audit-memory":
        import pandas as pd

        import geoanon as ga

        released = release_path(n, 2)
        df = pd.read_parquet(released, columns=["lat_min", "lat_max", "lon_min", "lon_max"])
        a = ga.audit(df, ["lat_min", "lat_max", "lon_min", "lon_max"], k=K)
        row.update(classes=a["classes"], k=a["k"])
    else:
        import distributed

        import geoanon.cluster as gc

        workers = int(job.split("-")[1])
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      memory_limit=WORKER_MEMORY, dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            started = time.perf_counter()
            if job.startswith("dask"):
                out = release_path(n, workers)
                shutil.rmtree(out, ignore_errors=True)
                rel = gc.generalize_points(source, K, out, scheduler=client, keep=["id"])
                r = rel.report
                row.update(classes=r["classes"], ratio=round(r["ratio"], 4), withheld=r["withheld_rows"],
                           shards=r["shards"],
                           audited_k=r["audit"]["k"])
            else:
                a = gc.audit(release_path(n, workers), ["lat_min", "lat_max", "lon_min", "lon_max"], k=K,
                             scheduler=client)
                row.update(classes=a["classes"], k=a["k"])
            seconds = time.perf_counter() - started
            workers_mb = list(client.run(_worker_peak_mb).values())
        row.update(seconds=round(seconds, 2), client_mb=round(peak_mb()), worker_mb=round(max(workers_mb)),
                   total_mb=round(peak_mb() + sum(workers_mb)))
        return row
    row.update(seconds=round(time.perf_counter() - started, 2), client_mb=round(peak_mb()), worker_mb=0,
               total_mb=round(peak_mb()))
    return row


def measure_table_row(n: int, job: str, row: dict) -> dict:
    """Time and memory of a table job, on its engine (a fresh LocalCluster for the dask one)."""
    table_dataset(n)
    if job.endswith("-memory"):
        Path("/proc/self/clear_refs").write_text("5")
        started = time.perf_counter()
        row.update(measure_table(n, job, None))
        row.update(seconds=round(time.perf_counter() - started, 2), client_mb=round(peak_mb()), worker_mb=0,
                   total_mb=round(peak_mb()))
        return row
    import distributed

    workers = int(job.rsplit("-", 1)[1])
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  memory_limit=WORKER_MEMORY, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        started = time.perf_counter()
        row.update(measure_table(n, job, client))
        seconds = time.perf_counter() - started
        workers_mb = list(client.run(_worker_peak_mb).values())
    row.update(seconds=round(seconds, 2), client_mb=round(peak_mb()), worker_mb=round(max(workers_mb)),
               total_mb=round(peak_mb() + sum(workers_mb)))
    return row


def describe(row) -> str:
    if "failed" in row:
        return f"{row['job']}: {row['failed']}"
    return (f"n={row['n']:>11,} {row['what']:<13} {row['seconds']:>8.1f} s  client {row['client_mb']:>6,} MB  "
            f"worker {row['worker_mb']:>6,} MB  total {row['total_mb']:>6,} MB  classes {row.get('classes', 0):,}  "
            f"ratio {row.get('ratio', '-')}  shards {row.get('shards', '-')}")


def run_plan(plan, args) -> list[dict]:
    plan = [job for job in plan if args.max_rows is None or job[0] <= args.max_rows]
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "dask_rows.jsonl", resume=args.resume,
                            time_limit=3600, describe=describe)


def _arguments(parser) -> None:
    parser.add_argument("--max-rows", type=int, help="leave out the jobs on more rows (the 10^8-row ones take hours)")


def write_results(rows, path: Path) -> None:
    lines = ["## Dask engine (`python bench/bench_dask.py`)", "",
             f"{today()}, commit {code_state()}; {machine()}.", "",
             f"Clustered points (12 Gaussian clusters, coordinates to 5 decimals), k = {K}, from a Parquet dataset of "
             f"10^6 rows per file. memory: the in-memory engine (read_parquet, then generalize_points). dask-W: a "
             f"LocalCluster of W worker processes with {WORKER_MEMORY} each, the release written as a Parquet dataset "
             "and audited before it is renamed. audit-W: the distributed audit of that release (audit-memory: the "
             "in-memory audit of the same). Memory: peak resident set (VmHWM) of the client (which hosts the "
             "scheduler), of the busiest worker, and of all processes together. Largest / lower bound: over the "
             "located classes; withheld: the isolated records (`geoanon.points.isolated`), published without a "
             "location.", "",
             "| points | job | seconds | client MB | worker MB | all MB | classes | largest / lower bound | withheld | "
             "shards |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    def is_table(r):
        return (r["job"][1] if "failed" in r else r["what"]).split("-")[0] in ("suppress", "taudit", "anonymize")

    for r in [r for r in rows if not is_table(r)]:
        if "failed" in r:
            lines.append(f"| {int(r['job'][0]):,} | {r['job'][1]} | {r['failed']} | | | | | | | |")
            continue
        lines.append(f"| {r['n']:,} | {r['what']} | {r['seconds']} | {r['client_mb']:,} | {r['worker_mb']:,} | "
                     f"{r['total_mb']:,} | {r.get('classes', 0):,} | {r.get('ratio', '')} | {r.get('withheld', '')} | "
                     f"{r.get('shards', '')} |")
    lines += ["", "Tables: bench_tables.py's synthetic table (quasi-identifiers sex, edu, region, job; diagnosis) "
              f"with clustered coordinates, 10^6 rows per file, k = {K}. suppress-E: method lattice, on the in-memory "
              "engine (memory, the table read with read_parquet) or on W workers (the release written as a Parquet "
              "dataset, audited); suppress-l2-E: with l = 2 on diagnosis. taudit-E: the audit of the k = 10 release "
              "over the quasi-identifiers and class_id, with l, l_distinct and t (equal ground) on diagnosis. "
              "anonymize-E: the joint release, points location and the four quasi-identifiers.", "",
              "| rows | job | seconds | client MB | worker MB | all MB | classes | stars | audit: k / l / t | shards |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in [r for r in rows if is_table(r)]:
        if "failed" in r:
            lines.append(f"| {int(r['job'][0]):,} | {r['job'][1]} | {r['failed']} | | | | | | | |")
            continue
        measured = " / ".join(str(r[key]) for key in ("k", "l", "t") if key in r)
        stars = f"{r['stars']:,}" if "stars" in r else ""
        lines.append(f"| {r['n']:,} | {r['what']} | {r['seconds']} | {r['client_mb']:,} | {r['worker_mb']:,} | "
                     f"{r['total_mb']:,} | {r['classes']:,} | {stars} | {measured} | {r.get('shards', '')} |")
    by = {(r["n"], r["what"]): r for r in rows if "failed" not in r}
    lines += ["", "Targets (issue 14):"]
    for kind in ("suppress", "suppress-l2", "taudit"):
        memory, dask = by.get((10_000_000, f"{kind}-memory")), by.get((10_000_000, f"{kind}-2"))
        if memory and dask:
            keys = ("classes", "stars", "k") if kind != "taudit" else ("classes", "k", "l", "t")
            same = all(memory[key] == dask[key] for key in keys)
            lines.append(f"- {kind} at 10^7 rows, same figures on both engines ({', '.join(keys)}): "
                         f"{'met' if same else 'missed'} (dask {dask['seconds']} s, in memory {memory['seconds']} s)")
    two, audited = by.get((20_000_000, "dask-2")), by.get((20_000_000, "audit-2"))
    if two and audited:
        met = (two["ratio"] <= 1.10 and two["client_mb"] < 1500 and audited["classes"] == two["classes"]
               and audited["k"] >= K)
        lines.append(f"- 2*10^7 points, 2 workers of {WORKER_MEMORY}: largest / lower bound {two['ratio']} (target "
                     f"<= 1.10), client {two['client_mb']:,} MB (target < 1,500), the distributed audit finds "
                     f"{audited['classes']:,} classes of at least {audited['k']} (the release: {two['classes']:,} "
                     f"classes, k = {K}): {'met' if met else 'missed'}")
    big = by.get((100_000_000, "dask-2"))
    if big:
        lines.append(f"- 10^8 points on this machine, 2 workers: finished in {big['seconds']:,} s, all processes "
                     f"{big['total_mb']:,} MB at peak together (target < 8,000): "
                     f"{'met' if big['total_mb'] < 8000 else 'missed'}")
    if two:
        lines += ["", *extrapolation(two)]
    replace_section(path, "dask", lines)


def extrapolation(row) -> list[str]:
    """What N workers would do with 10^9 and 10^10 rows, from a measured run's
    cost per row (its wall time times its workers) and the engine's design."""
    per_row = row["seconds"] * 2 / row["n"]                 # worker-seconds per row, 2 workers
    shard = row["n"] / row["shards"]
    out = ["Extrapolation (on paper, from the 2*10^7-point run on 2 workers and the design; not measured):", "",
           "| rows | workers | shards | minutes | shuffled | client receives |", "|---:|---:|---:|---:|---:|---:|"]
    for n in (10**9, 10**10):
        shards = math.ceil(n / shard)
        partitions = n // 1_000_000
        client_mb = (partitions * shards * 8 + shards * 48 + 200_000 * 16) / 1e6
        for workers in (16, 128):
            out.append(f"| 10^{round(math.log10(n))} | {workers} | {shards:,} | {per_row * n / workers / 60:,.0f} | "
                       f"{n * 40 / 1e9:,.0f} GB | {client_mb:,.0f} MB |")
    out += ["", f"A row costs {per_row * 1e6:.1f} worker-seconds per million here (read, five passes of counts and "
            "neighbours, the shuffle, the partition of its shard, the write and the audit), and the work divides "
            "across workers: nothing but the reductions runs on the client. The shuffle moves each row once "
            "(about 40 bytes for two coordinates, an id and the shard number; more with more columns). Shards keep "
            f"the size the workers' memory allows ({shard / 1e6:.1f} million rows at 3 GB), so their number grows "
            "with the rows. The client receives a 200,000-row sample, the cut neighbours, one count per "
            "(partition, shard) and a summary per shard: the counts grow as partitions x shards (10^4 x "
            f"{math.ceil(10**10 / shard):,} at 10^10 rows), the one part of the client's work to move to a tree "
            "reduction before that scale."]
    return out


if __name__ == "__main__":
    main(__doc__, one_args=("N", "JOB"), measure=measure, plan=PLAN, quick=QUICK, run=run_plan,
         write=write_results, arguments=_arguments)
