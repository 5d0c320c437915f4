"""The dask engine's stderr holds geoanon's own lines only, from the
command's process and from its workers' (a LocalCluster's workers write to
the command's stderr): datasets whose first file holds few rows or none,
jobs that run and jobs that are refused."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from optional import require

pytestmark = pytest.mark.slow          # a LocalCluster in a child process

SCRIPT = """
import sys
import distributed
from geoanon.cli import main

with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                              silence_logs=50) as cluster:
    for line in sys.stdin:
        argv = line.split() + ["--scheduler", cluster.scheduler_address]
        print(f"geoanon {argv[0]}: exit {main(argv)}", file=sys.stderr, flush=True)
"""
COMMANDS = [
    "points {ds} -k {k} --lat lat --lon lon --keep age,sex,zip,diag -o {ds}_points{k}",
    "zip {ds} -k {k} --zip-col zip --regions regions.geojson --region-id FIPS --keep lat,lon,age,sex,diag "
    "-o {ds}_zip{k}",
    "labels {ds} -k {k} --label-col diag --keep lat,lon,age,sex,zip -o {ds}_labels{k}",
    "suppress {ds} -k {k} --qi age,sex --keep lat,lon,zip,diag -o {ds}_suppress{k}",
    "anonymize {ds} -k {k} --lat lat --lon lon --qi age,sex --keep zip,diag -o {ds}_anonymize{k}",
    "audit {ds} -k {k} --qi age,sex",           # the raw table misses k = 5: exit 1
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    from geoanon.datasets import nc_counties

    path = tmp_path_factory.mktemp("quiet")
    rng = np.random.default_rng(2)
    n = 200
    rows = pd.DataFrame({"lat": np.round(35 + rng.random(n), 4), "lon": np.round(-80 + rng.random(n), 4),
                         "age": rng.integers(20, 80, n), "sex": rng.choice(["F", "M"], n),
                         "zip": rng.choice(["37001", "37081"], n), "diag": rng.choice(["a", "b", "c"], n)})
    for name, first in (("few", 3), ("none", 0)):        # the first file: three rows, or the header alone
        (path / name).mkdir()
        rows.iloc[:first].to_csv(path / name / "a.csv", index=False)
        rows.iloc[first:].to_csv(path / name / "b.csv", index=False)
    nc_counties().to_file(path / "regions.geojson")
    return path


@pytest.mark.parametrize("dataset", ["few", "none"])
def test_only_geoanons_lines_on_stderr(folder, dataset):
    require("distributed")
    runs = [c.format(ds=dataset, k=k) for k in (5, 500) for c in COMMANDS]
    done = subprocess.run([sys.executable, "-c", SCRIPT], input="\n".join(runs) + "\n", capture_output=True,
                          text=True, cwd=folder, timeout=600)
    lines = done.stderr.strip().splitlines()
    expected = [f"geoanon {c.split()[0]}: exit {1 if c.startswith('audit') else 0}" for c in COMMANDS] + [
        line for c in COMMANDS for line in (
            f"geoanon {c.split()[0]}: error: k=500 is larger than the "
            f"{'table' if c.startswith(('suppress', 'audit')) else 'dataset'} (200 rows)",
            f"geoanon {c.split()[0]}: exit 2")]
    assert done.returncode == 0 and lines == expected, done.stderr
