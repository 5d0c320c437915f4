"""Data shipped with geoanon (the repository's ``data/`` folder, installed as
``geoanon/_data``)."""
from __future__ import annotations

import importlib.resources
from pathlib import Path

import pandas as pd

from .io import read_table

__all__ = ["DEMO_ATTRIBUTION", "NC_ATTRIBUTION", "OUTLINE_ATTRIBUTION", "PLACES_ATTRIBUTION", "adult", "adult_hierarchy", "census_names",
           "data_path", "demo_nc_births", "demo_records", "land", "nc_counties", "outlines", "places", "zip_counties"]

DEMO_ATTRIBUTION = ("Synthetic records at US ZIP centroids; coordinates (c) GeoNames, CC BY 4.0, "
                    "via the zipcodes 3.0.0 package")
NC_ATTRIBUTION = ("Synthetic births in North Carolina counties, drawn by 1974 births; county boundaries "
                  "from libpysal's sids2 example (BSD-3-Clause)")


def data_path(name: str) -> Path:
    """Path of a shipped data file, installed or in a source checkout."""
    installed = importlib.resources.files("geoanon") / "_data" / name
    if installed.is_file():
        return Path(str(installed))
    source = Path(__file__).resolve().parent.parent / "data" / name
    if source.is_file():
        return source
    raise FileNotFoundError(f"shipped data file {name!r} is missing from this installation")


def demo_records() -> pd.DataFrame:
    """20,000 synthetic patient records placed at real US ZIP centroids
    (columns record_id, diagnosis, cost_usd, zip, lat, lon; all cells as
    strings, so ZIP 01001 keeps its leading zero)."""
    return read_table(data_path("demo_patients.csv"))


def demo_nc_births() -> pd.DataFrame:
    """30,000 synthetic birth records in North Carolina counties (columns
    record_id, county_fips, sex, birth_weight_g; all cells as strings)."""
    return read_table(data_path("demo_nc_births.csv"))


def nc_counties():
    """The 100 North Carolina counties (FIPS, NAME, births and SIDS deaths
    1974-78 and 1979-84, polygons in EPSG:4326)."""
    return read_table(data_path("nc_counties.geojson"))


def zip_counties() -> pd.DataFrame:
    """The shipped ZIP crosswalk: the state and county of each of the
    29,442 ZIP codes of the shipped ZIP graph (``us_zip_delaunay_nodes.csv.gz``),
    indexed by ZIP code (text).

    Examples
    --------
    >>> zip_counties().loc["27601"].tolist()
    ['NC', 'Wake County']
    """
    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str, keep_default_na=False,
                        usecols=["zip", "state", "county"])
    return nodes.set_index("zip")


OUTLINE_KINDS = ("coast", "country", "state")
OUTLINE_ATTRIBUTION = "Outlines: Natural Earth (public domain)"


def outlines():
    """Coastlines, land borders of countries and borders of US states
    (Natural Earth 1:10m, public domain, simplified to about 1 km): a
    GeoDataFrame of lines with ``kind`` "coast", "country" or "state", in
    EPSG:4326. See data/make_outlines.py."""
    import geopandas as gpd
    import numpy as np
    import shapely

    with np.load(data_path("ne_outlines.npz")) as z:
        xy, line, kind = *_grid_points(z["xy"], z["counts"]), z["kind"]
    lines = shapely.linestrings(xy, indices=line)
    return gpd.GeoDataFrame({"kind": np.array(OUTLINE_KINDS)[kind]}, geometry=lines, crs="EPSG:4326")


PLACES_ATTRIBUTION = "Places: Natural Earth (public domain), ranked by GeoNames population (CC BY 4.0)"


def places() -> pd.DataFrame:
    """Natural Earth 1:10m populated places (public domain): 7,342 places
    with ``name``, ``country`` (ISO 3166-1 alpha-2), ``lat``, ``lon``
    (EPSG:4326) and ``population`` (GeoNames' for the city of that name
    nearby, CC BY 4.0; 0 where none is known), largest population first.
    See data/make_places.py."""
    return pd.read_csv(data_path("ne_places.csv.gz"), keep_default_na=False,
                       dtype={"name": str, "country": str, "lat": float, "lon": float, "population": "int64"})


def land():
    """The land cut into countries (Natural Earth 1:10m land and land
    borders, public domain, simplified to about 1 km): a GeoDataFrame of
    polygons with ``country``, the ADM0_A3 code ("" for small islands), in
    EPSG:4326. See data/make_outlines.py."""
    import geopandas as gpd
    import numpy as np
    import shapely

    with np.load(data_path("ne_land.npz")) as z:
        (xy, ring), rings, country = _grid_points(z["xy"], z["counts"]), z["rings"], z["country"]
    polygons = shapely.polygons(shapely.linearrings(xy, indices=ring), indices=np.repeat(np.arange(rings.size), rings))
    return gpd.GeoDataFrame({"country": country}, geometry=polygons, crs="EPSG:4326")


def _grid_points(steps, counts) -> tuple:
    """Points stored as steps on the hundredth-degree grid (each line's first
    point absolute): their coordinates in degrees and each one's line."""
    import numpy as np

    first = np.r_[0, np.cumsum(counts)[:-1]]
    line = np.repeat(np.arange(counts.size), counts)
    xy = np.empty(steps.shape, dtype=np.int64)
    for axis in (0, 1):      # each line's running sum from its first point
        total = np.cumsum(steps[:, axis], dtype=np.int64)
        xy[:, axis] = total - (total[first] - steps[first, axis])[line]
    return xy / 100.0, line


def census_names(which: str = "female") -> pd.Series:
    """1990 US Census name frequencies, names with frequency >= 0.001% (as in
    Section 5 of Du et al.): a Series name -> frequency in thousandths of a
    percent (``freq_mpct``), most frequent first. ``which`` is "female",
    "male" or "last". Names such as NA, NULL and TRUE are kept as names."""
    from ._validation import check_choice

    check_choice("which", which, ("female", "male", "last"))
    table = read_table(data_path("census_names_1990.csv.gz"))
    table = table[table["list"] == which]
    return pd.Series(table["freq_mpct"].astype("int64").to_numpy(), index=table["name"].to_numpy(),
                     name="freq_mpct")


ADULT_COLUMNS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                 "occupation", "salary-class")


def adult() -> pd.DataFrame:
    """UCI Adult as ARX ships it: 30,162 records, columns sex, age, race,
    marital-status, education, native-country, workclass, occupation,
    salary-class; all cells as strings."""
    return pd.read_csv(data_path("adult.csv.gz"), sep=";", dtype=str, keep_default_na=False)


def adult_hierarchy(column: str):
    """ARX's generalization hierarchy of an Adult column, as a
    :class:`~geoanon.models.Hierarchy` (e.g. an EMD ground for occupation)."""
    from ._validation import check_choice
    from .models import Hierarchy

    check_choice("column", column, ADULT_COLUMNS)
    return Hierarchy.read_csv(data_path(f"adult_hierarchy_{column}.csv"))
