"""Releases fingerprinted, to check that a refactor changes no output.

``python bench/identity.py OUT.json`` runs a fixed set of releases (every job
kind, design, location kind and model on the benchmark tables and the shipped
demo records, both engines) and writes the SHA-256 of each published table;
``--compare OLD.json`` then lists the releases whose bytes differ.
Run it at the commit before the change and after: every line must match.
"""
import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

QI = ["age", "sex", "race", "marital-status"]


def _digest(table: pd.DataFrame) -> str:
    return hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()


def _memory_cases():
    import bench_anonymize as b
    import geoanon as ga
    from geoanon.datasets import data_path

    tables = {name: _frontier_table(name) for name in ("airports", "zips", "city")}
    air = tables["airports"]
    points = {"location": ("lat", "lon"), "qi": QI}
    for name, df in tables.items():
        for k in (5, 10, 50):
            yield f"{name}/k{k}", lambda df=df, k=k: ga.anonymize(df, k=k, **points)
    sets = {"sets": ["sex", "race", "marital-status"]}
    for method in ("frontier", "location-first", "greedy", "joint"):
        yield f"airports/{method}", lambda m=method: ga.anonymize(air, k=10, method=m, **points, **sets)
    for p in (0.0, 0.25, 0.75, 1.0):
        yield f"airports/precision{p}", lambda p=p: ga.anonymize(air, k=10, location_precision=p, **points)
    for method, loss in (("joint", "range"), ("frontier", "km"), ("frontier", "spacing"), ("frontier", "spread")):
        yield f"airports/{method}-{loss}", lambda m=method, loss=loss: ga.anonymize(
            air, k=10, method=m, location_loss=loss, **points)
    adult = b.airports_table(visit=True)[["lat", "lon", *QI, "visit", "salary-class"]]
    yield "airports/l2", lambda: ga.anonymize(adult, k=10, l_distinct=2, sensitive="salary-class", identifiers=["visit"], **points)
    yield "airports/t", lambda: ga.anonymize(adult, k=5, t=0.3, sensitive="salary-class", identifiers=["visit"], **points)
    yield "airports/dates", lambda: ga.anonymize(adult, k=10, location=("lat", "lon"), qi=[*QI, "visit"], keep=["salary-class"])
    yield "airports/extent", lambda: ga.anonymize(air, k=10, max_extent_km=200, **points)
    yield "airports/suppressed", lambda: ga.anonymize(air, k=10, max_suppressed=0.01, **points)
    yield "airports/pooled", lambda: ga.anonymize(air, k=10, max_pooled=0.09, location_precision=0.9, **points)
    yield "airports/weights", lambda: ga.anonymize(air, k=10, weights={"location": 4, "age": 2}, **points)
    yield "airports/2jobs", lambda: ga.anonymize(air, k=10, n_jobs=2, **points)
    yield "airports/tile", lambda: ga.anonymize(air, k=10, extent="tile", **points)
    yield "airports/explore", lambda: ga.explore(air, k=10, **points)
    demo = pd.read_csv(data_path("demo_patients.csv"), dtype={"zip": str})
    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype={"zip": str})
    edges = pd.read_csv(data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)
    regions = {"zip": "zip", "regions": nodes, "region_id": "zip", "edges": edges, "unknown": "suppress"}
    for level in ("zip", "zip3", "county", "state"):
        yield f"demo/zip-{level}", lambda lv=level: ga.anonymize(
            demo, k=10, location=regions, qi=["diagnosis", "cost_usd"], zip_level=lv, identifiers=["record_id", "lat", "lon"])
    yield "demo/zip-pooled", lambda: ga.anonymize(demo, k=10, location=regions, qi=["diagnosis", "cost_usd"],
                                                  max_pooled=0.09, location_precision=0.9,
                                                  identifiers=["record_id", "lat", "lon"])
    yield "demo/label", lambda: ga.anonymize(demo, k=10, location={"label": "diagnosis"}, qi=["cost_usd"],
                                             identifiers=["record_id", "lat", "lon", "zip"])
    yield "demo/points-joint", lambda: ga.anonymize(demo, k=10, location=("lat", "lon"), qi=["diagnosis", "cost_usd"],
                                                    identifiers=["record_id", "zip"])
    yield "demo/points", lambda: ga.generalize_points(demo, 10, lat="lat", lon="lon", keep=["diagnosis"],
                                                     identifiers=["record_id", "cost_usd", "zip"])
    yield "demo/regions", lambda: ga.generalize_regions(demo, 10, column="zip", regions=nodes,
                                                        region_id="zip", edges=edges, unknown="suppress",
                                                        identifiers=["record_id", "lat", "lon", "cost_usd", "diagnosis"])
    yield "demo/labels", lambda: ga.generalize_labels(demo, 10, column="diagnosis",
                                                      identifiers=["record_id", "lat", "lon", "cost_usd", "zip"])
    yield "demo/suppress", lambda: ga.suppress(demo, k=10, qi=["diagnosis", "cost_usd"], identifiers=["record_id", "lat", "lon", "zip"])


def _table_of(result) -> pd.DataFrame:
    return result if isinstance(result, pd.DataFrame) else result.table


def _frontier_table(name: str) -> pd.DataFrame:
    """One of bench_frontier.py's tuning tables of Adult, as the fingerprints were first taken of it."""
    from frontier_tables import TABLES

    return TABLES[name].frame()[["lat", "lon", *QI]]


def _dask_cases(tmp: Path):
    air = _frontier_table("airports").iloc[:8000].reset_index(drop=True)
    air.insert(0, "id", range(len(air)))
    src = tmp / "air.parquet"
    air.to_parquet(src)
    yield "dask/points", ["points", src, "-k", "10", "--lat", "lat", "--lon", "lon", "--keep", "age", "--identifiers", "id,sex,race,marital-status"]
    yield "dask/anonymize", ["anonymize", src, "-k", "10", "--lat", "lat", "--lon", "lon", "--qi", ",".join(QI),
                             "--identifiers", "id"]
    yield "dask/suppress", ["suppress", src, "-k", "5", "--qi", ",".join(QI), "--identifiers", "id,lat,lon"]


def fingerprints(with_dask: bool = True) -> dict:
    out = {}
    for name, run in _memory_cases():
        start = time.perf_counter()
        out[name] = _digest(_table_of(run()))
        print(f"{name:28s} {out[name][:12]} {time.perf_counter() - start:6.1f} s", flush=True)
    if with_dask:
        with tempfile.TemporaryDirectory() as folder:
            tmp = Path(folder)
            for name, args in _dask_cases(tmp):
                dest = tmp / name.replace("/", "_")
                subprocess.run([str(Path(sys.executable).with_name("geoanon")), *map(str, args), "--engine", "dask", "-q",
                                "-o", str(dest)], check=True)
                table = pd.read_parquet(dest)
                out[name] = _digest(table.sort_values(list(table.columns), kind="stable"))
                print(f"{name:28s} {out[name][:12]}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    found = fingerprints(not args.no_dask)
    args.out.write_text(json.dumps(found, indent=1) + "\n")
    if args.compare:
        old = json.loads(args.compare.read_text())
        changed = [n for n in found if old.get(n) != found[n]]
        print(f"{len(found) - len(changed)} of {len(found)} releases byte-identical" + (f"; changed: {changed}" if changed else ""))
        sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
