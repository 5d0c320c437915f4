"""What the QGIS provider costs beside the command line it runs.

``python bench/bench_qgis.py`` times, on the shipped demo patients (the first
3,000 and all 20,000 records, as a point GeoPackage for QGIS and as the
shipped CSV for the command line), ``qgis_process run geoanon:anonymize``
(k = 10, l = 2) against ``geoanon anonymize`` with the same options, each in
a fresh process, best of ``--repeat`` runs; and QGIS's own start with the
provider loaded (``qgis_process help geoanon:anonymize``). It checks that both write the same released
table. Needs Debian's qgis and python3-qgis (see docs/qgis.md).
"""
import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import geopandas as gpd
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from qgis_headless import QgisProcess, geoanon_command, qgis_process_path  # noqa: E402

from geoanon.datasets import data_path  # noqa: E402

OPTIONS = ["--qi", "cost_usd", "--sensitive", "diagnosis", "-k", "10", "-l", "2"]


def _best(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def _inputs(folder: Path, rows: int):
    table = pd.read_csv(data_path("demo_patients.csv"), dtype=str, nrows=rows)
    csv = folder / f"patients{rows}.csv"
    table.to_csv(csv, index=False)
    typed = pd.read_csv(csv, dtype={"record_id": str, "zip": str})
    gpkg = folder / f"patients{rows}.gpkg"
    gpd.GeoDataFrame(typed.drop(columns=["lat", "lon"]), geometry=gpd.points_from_xy(typed.lon, typed.lat),
                     crs=4326).to_file(gpkg)
    return csv, gpkg


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    program = qgis_process_path()
    if program is None:
        sys.exit("qgis_process not found: apt-get install qgis python3-qgis")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qgis = QgisProcess(program, folder / "qgis")
        start = _best(lambda: qgis("help", "geoanon:anonymize"), args.repeat)
        print(f"qgis_process help geoanon:anonymize (QGIS's start, the provider loaded): {start:.2f} s")
        print(f"{'records':>8} {'geoanon':>9} {'qgis_process':>13} {'difference':>11}  same table")
        for rows in (3000, 20000):
            csv, gpkg = _inputs(folder, rows)
            cli = shlex.split(geoanon_command()) + ["anonymize", str(csv), "--lat", "lat", "--lon", "lon",
                                               "--identifiers", "record_id,zip", *OPTIONS, "-q"]
            by_cli = _best(lambda: subprocess.run([*cli, "-o", str(folder / "cli.csv")], check=True,
                                                  capture_output=True), args.repeat)
            parameters = ["QI=cost_usd", "SENSITIVE=diagnosis", "K=10", "L=2", f"OUTPUT={folder / 'qgis.csv'}"]
            by_qgis = _best(lambda: qgis("run", "geoanon:anonymize", "--", f"INPUT={gpkg}", *parameters),
                            args.repeat)
            same = (folder / "cli.csv").read_bytes() == (folder / "qgis.csv").read_bytes()
            print(f"{rows:>8,} {by_cli:>8.2f}s {by_qgis:>12.2f}s {by_qgis - by_cli:>10.2f}s  {same}")


if __name__ == "__main__":
    main()
