"""The location kinds of the joint release (geoanon.pipeline.locations):
one engine kind per row of the table, each with the whole interface."""
import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.models import Model
from geoanon.pipeline.locations import KINDS, LocationKind, Publisher
from geoanon.options.locations import LOCATIONS

MEMBERS = ("dropped", "boxes", "withholds", "details", "ncp", "fine_cuts", "k_spacing")


def test_every_kind_of_the_table_has_its_engine_kind():
    assert list(KINDS) == list(LOCATIONS)
    for name, kind in KINDS.items():
        assert isinstance(kind, LocationKind) and kind.shape is LOCATIONS[name]


def _table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"lat": 35 + rng.uniform(0, 1, n), "lon": -80 + rng.uniform(0, 1, n),
                         "name": rng.choice(list("ABCDEFGH"), n), "age": rng.integers(20, 80, n)})


@pytest.mark.parametrize("name, loc", [(None, {}), ("points", {"lat": "lat", "lon": "lon"}), ("label", {"label": "name"})])
def test_each_kind_reads_a_table_into_dims_and_a_publisher_with_every_member(name, loc):
    df = _table()
    options = {"missing": "error", "crs": "EPSG:4326", "bounds": None, "extent": "box", "resolution": None,
               "zip_level": "zip"}
    dims, publisher = KINDS[name].read(df, loc, Model(k=5).compile(df), options, [])
    assert isinstance(publisher, Publisher) and all(hasattr(publisher, m) for m in MEMBERS)
    assert len(dims.items) == len(LOCATIONS[name].columns) and all(d.location for d in dims.items)
    assert publisher.withholds == publisher.boxes == (name == "points")


@pytest.mark.parametrize("location, report", [(("lat", "lon"), "points"), ({"label": "name"}, "labels")])
def test_a_release_names_its_kind_as_the_table_does(location, report):
    df = _table()
    release = ga.anonymize(df.drop(columns=["name"] if report == "points" else ["lat", "lon"]), location=location,
                           qi=["age"], k=5)
    shape = LOCATIONS["points" if report == "points" else "label"]
    assert release.location == {"kind": report, "columns": shape.column_names(
        {"lat": "lat", "lon": "lon", "label": "name"})}
    assert release.report.details["location"]["kind"] == shape.name
