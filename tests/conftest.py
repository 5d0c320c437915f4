"""Shared set-up of the whole suite: the hypothesis profile, the command
line run in-process (``cli``), one dask LocalCluster for the dask engine's
tests (``dask_cluster``, ``address``, ``client``) and the shipped data sets
(``adult_df``, ``nc_gdf``, ``births_df``, ``patients_df``, ``nc_edges_df``,
``zip_nodes_df``, ``zip_edges_df``: each read once per session, a fresh copy
for each test).

The helper modules beside this file (checkers, optional, badinput, browser,
shipped) import from every folder (``pythonpath = ["tests"]`` in
pyproject.toml). Slow tests carry the ``slow`` marker: ``pytest -m "not
slow"`` is the fast loop, ``pytest`` runs everything."""
import functools
import logging
import os

import pytest
from hypothesis import HealthCheck, settings

# Reproducible by default (CI runs the same examples every time); set
# HYPOTHESIS_PROFILE=explore to search new examples locally.
settings.register_profile("default", derandomize=True, deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def cli(capsys):
    """Run the command line in-process: ``cli(*args)`` gives (exit code, stdout,
    stderr); argparse's usage errors exit through SystemExit."""
    from geoanon.cli import main

    def run(*argv):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


# -- the dask engine --------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def dask_cluster():
    """One LocalCluster for the session: two worker processes of one thread
    and 2 GiB each, dask's logs silenced. Skipped without the dask extra (a
    failure when ``GEOANON_REQUIRE_DASK=1``). Tests that kill a worker or
    watch a process's stderr start their own."""
    from optional import require

    distributed = require("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  memory_limit="2GiB", silence_logs=logging.CRITICAL) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def address(dask_cluster):
    """The shared cluster's scheduler address (``--scheduler``, ``scheduler=``)."""
    return dask_cluster.scheduler_address


@pytest.fixture(scope="module")
def client(dask_cluster):
    """A ``distributed.Client`` of the shared cluster, closed after the module."""
    import distributed

    with distributed.Client(dask_cluster) as c:
        yield c


# -- the shipped data sets ---------------------------------------------------------------------------------------

@functools.cache
def _shipped(name):
    import pandas as pd

    from geoanon import datasets

    readers = {
        "adult": datasets.adult,
        "nc_counties": datasets.nc_counties,
        "demo_nc_births": datasets.demo_nc_births,
        "demo_records": datasets.demo_records,
        "nc_edges": lambda: pd.read_csv(datasets.data_path("nc_counties_rook_edges.csv"), dtype=str),
        "zip_nodes": lambda: pd.read_csv(datasets.data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str),
        "zip_edges": lambda: pd.read_csv(datasets.data_path("us_zip_delaunay_edges.csv.gz"), dtype=str),
    }
    return readers[name]()


@pytest.fixture
def adult_df():
    """UCI Adult as ARX ships it (``geoanon.datasets.adult()``): 30,162 records, all cells strings."""
    return _shipped("adult").copy()


@pytest.fixture
def nc_gdf():
    """The 100 North Carolina counties (``geoanon.datasets.nc_counties()``), EPSG:4326."""
    return _shipped("nc_counties").copy()


@pytest.fixture
def births_df():
    """30,000 synthetic births in NC counties (``geoanon.datasets.demo_nc_births()``)."""
    return _shipped("demo_nc_births").copy()


@pytest.fixture
def patients_df():
    """20,000 synthetic patients at US ZIP centroids (``geoanon.datasets.demo_records()``)."""
    return _shipped("demo_records").copy()


@pytest.fixture
def nc_edges_df():
    """The NC counties' rook edges (``nc_counties_rook_edges.csv``), as strings."""
    return _shipped("nc_edges").copy()


@pytest.fixture
def zip_nodes_df():
    """The US ZIP graph's nodes (``us_zip_delaunay_nodes.csv.gz``), as strings."""
    return _shipped("zip_nodes").copy()


@pytest.fixture
def zip_edges_df():
    """The US ZIP graph's edges (``us_zip_delaunay_edges.csv.gz``), as strings."""
    return _shipped("zip_edges").copy()
