"""The shapes of groups of regions on the map: the union of their polygons,
or, for regions known by their centroids, of their Voronoi cells clipped to
the land."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._geo import is_geographic

__all__ = ["group_shapes"]

COUNTRY_SHARE = 0.01         # of the centroids: a country holding fewer is not drawn on (see _on_land)


def group_shapes(shapes, members) -> np.ndarray:
    """Each group's shape: the union of its ``members``' (region ids of
    ``shapes``) polygons or, for regions known by centroids, of their
    Voronoi cells (:func:`_voronoi_cells`); None for a group without members."""
    import shapely

    if not shapes.geom_type.isin(["Polygon", "MultiPolygon"]).all():
        shapes = _voronoi_cells(shapes)
    geoms = shapes.to_numpy()[shapes.index.get_indexer([v for m in members for v in m])]
    ends = np.cumsum([len(m) for m in members])
    out = np.full(len(members), None, dtype=object)
    for g, (start, end) in enumerate(zip(np.r_[0, ends[:-1]], ends)):
        if end > start:
            out[g] = shapely.union_all(geoms[start:end])
    return out


def _voronoi_cells(points):
    """Each centroid's Voronoi cell among all centroids, clipped to their convex
    hull widened by the median distance between nearest centroids and, in
    longitude/latitude, to the land (:func:`_on_land`): regions known only by
    centroids become areas that tile the map, so every group is an area and
    no two groups overlap (regions sharing a centroid share its cell)."""
    import geopandas as gpd
    import shapely
    from scipy.spatial import cKDTree

    xy = shapely.get_coordinates(points.to_numpy())
    sites, site_of = np.unique(xy, axis=0, return_inverse=True)
    if len(sites) > 1:
        gap = float(np.median(cKDTree(sites).query(sites, k=2)[0][:, 1]))
    else:
        gap = 0.01 * max(1.0, float(np.abs(sites).max()))
    frame = shapely.buffer(shapely.convex_hull(shapely.multipoints(sites)), gap)
    if points.crs is not None and is_geographic(points.crs):
        frame = _on_land(frame, sites, gap)
    if len(sites) == 1:
        cells = np.array([frame], dtype=object)
    else:
        pieces = shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(sites), extend_to=frame))
        at, cell = shapely.STRtree(pieces).query(shapely.points(sites), predicate="within")
        cells = np.empty(len(sites), dtype=object)
        cells[at] = _clipped(pieces[cell], frame)
    return gpd.GeoSeries(cells[site_of.ravel()], index=points.index, crs=points.crs)


def _on_land(frame, sites: np.ndarray, gap: float):
    """``frame`` cut to the countries holding the sites (:func:`geoanon.datasets.land`;
    a country holding fewer than ``COUNTRY_SHARE`` of them is a neighbour into
    which border regions' centroids fall), the small islands holding sites,
    and a disc around each site off them (as wide as its distance to that
    land, at most ``gap``); ``frame`` as it is when that land holds fewer than
    half of the sites (sites at sea)."""
    import shapely

    faces, country = _land()
    points = shapely.points(sites)
    face, site = shapely.STRtree(points).query(faces, predicate="intersects")     # each face prepared once
    codes, held = np.unique(country[face], return_counts=True)
    kept = np.isin(country, codes[(held >= COUNTRY_SHARE * len(sites)) & (codes != "")])
    kept[face[country[face] == ""]] = True
    on = np.unique(site[kept[face]])
    if 2 * on.size < len(sites):
        return frame
    land = shapely.union_all(faces[kept])
    off = points[np.setdiff1d(np.arange(len(sites)), on)]
    reach = np.minimum(shapely.distance(off, land), gap)      # to the land, if nearer: no bleeding across a border
    return shapely.intersection(frame, shapely.union_all(np.r_[land, shapely.buffer(off, reach)]))


@lru_cache(maxsize=1)
def _land() -> tuple:
    """The shipped land polygons and their country codes, decoded once per process."""
    from ..datasets import land

    found = land()
    return found.geometry.to_numpy(), found["country"].to_numpy()


def _clipped(cells: np.ndarray, frame) -> np.ndarray:
    """The cells cut to ``frame``; those wholly inside it as they are."""
    import shapely

    shapely.prepare(frame)
    out = cells.copy()
    cut = ~shapely.contains_properly(frame, cells)
    out[cut] = shapely.intersection(cells[cut], frame)
    return out
