"""Coordinate reference systems and distances on the ground, in one place:
whether a CRS is longitude/latitude, and the extent in km of boxes and of
groups of points."""
from __future__ import annotations

import numpy as np

EARTH_RADIUS_KM = 6371.0088                      # the IUGG mean radius
KM_PER_DEGREE = np.pi * EARTH_RADIUS_KM / 180    # along a meridian, on the sphere


def is_geographic(crs) -> bool:
    """Whether ``crs`` (a pyproj CRS or anything pyproj reads; None: no CRS)
    is longitude/latitude; DataError for one pyproj cannot read."""
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    from ._text import show
    from .errors import DataError

    if crs is None:
        return False
    try:
        return CRS.from_user_input(crs).is_geographic
    except CRSError as exc:
        raise DataError(f"unknown crs {show(crs)}: {exc}") from None


def km_per_unit(crs) -> float:
    """Km per unit of a projected ``crs``'s first axis; 1.0 for a
    geographic one (its distances are measured from degrees) or none."""
    from pyproj import CRS

    if crs is None:
        return 1.0
    crs = CRS.from_user_input(crs)
    return 1.0 if crs.is_geographic else crs.axis_info[0].unit_conversion_factor / 1000


def haversine_km(lat1, lon1, lat2, lon2):
    """Great-circle distance in km between points given in degrees."""
    lat1, lon1, lat2, lon2 = map(np.radians, (lat1, lon1, lat2, lon2))
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def box_extents(x0, y0, x1, y1, crs):
    """Width, height and diameter in km of boxes given by their corners in
    ``crs`` (a longitude interval with x0 > x1 crosses the antimeridian)."""
    from pyproj import CRS

    crs = CRS.from_user_input(crs)
    if not crs.is_geographic:
        metres = crs.axis_info[0].unit_conversion_factor
        width, height = (x1 - x0) * metres / 1000, (y1 - y0) * metres / 1000
        return width, height, np.hypot(width, height)
    dlon = np.where(x0 > x1, x1 + 360.0 - x0, x1 - x0)
    equatorward = np.where((y0 < 0) & (y1 > 0), 0.0, np.minimum(np.abs(y0), np.abs(y1)))
    width = np.radians(dlon) * EARTH_RADIUS_KM * np.cos(np.radians(equatorward))
    height = (y1 - y0) * KM_PER_DEGREE
    diagonal = haversine_km(y0, x0, y1, x0 + dlon)
    return width, height, np.maximum(diagonal, width)


def row_box_extents(table, lat: str, lon: str, crs):
    """Width, height and diameter in km of each row's published rectangle
    (NaN where a row has none)."""
    import pandas as pd

    def column(name):
        return pd.to_numeric(table[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)

    return box_extents(column(f"{lon}_min"), column(f"{lat}_min"), column(f"{lon}_max"), column(f"{lat}_max"), crs)


def ground_diagonal(x0, y0, x1, y1, geographic: bool, km_per_unit: float = 1.0) -> np.ndarray:
    """The diagonal in km of boxes (x: longitude, y: latitude when
    ``geographic``; else projected units of ``km_per_unit`` km): a degree of
    longitude counts the cosine of the box's middle latitude.

    Examples
    --------
    >>> ground_diagonal(np.array([-79.0]), np.array([35.0]), np.array([-78.0]), np.array([36.0]), True).round(1)
    array([143.4])
    """
    x0, y0, x1, y1 = (np.asarray(v, dtype=np.float64) for v in (x0, y0, x1, y1))
    if geographic:
        across = np.abs(x1 - x0) * KM_PER_DEGREE * np.cos(np.radians(np.clip((y0 + y1) / 2, -90, 90)))
        return np.hypot(across, (y1 - y0) * KM_PER_DEGREE)
    return np.hypot(x1 - x0, y1 - y0) * km_per_unit
