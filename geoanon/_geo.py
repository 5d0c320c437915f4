"""Coordinate reference systems and distances on the ground, in one place:
whether a CRS is longitude/latitude, where its coordinates lie on the Earth
(:class:`Ground`), and the extent in km of boxes and of groups of points.

Every distance is measured on the ground, whatever the CRS: in a geographic
CRS from degrees (a degree of longitude counting the cosine of its
latitude), in a projected one from its coordinates taken back to longitude
and latitude on its own datum (pyproj), so that a box in UTM metres, US
survey feet or Web Mercator metres (whose unit is 1 / cos(latitude) of a
metre on the ground) measures what the same box measures in degrees. A CRS
without a datum (a local engineering grid) is a plane in its unit, and a CRS
of None a plane whose unit is a km."""
from __future__ import annotations

import functools

import numpy as np

EARTH_RADIUS_KM = 6371.0088                      # the IUGG mean radius
KM_PER_DEGREE = np.pi * EARTH_RADIUS_KM / 180    # along a meridian, on the sphere
PROBE_M = 100.0                                  # axis_km: a projected unit's worth measured over this many metres

__all__ = ["EARTH_RADIUS_KM", "KM_PER_DEGREE", "Ground", "ground", "haversine_km", "is_geographic",
           "row_box_extents"]


def is_geographic(crs) -> bool:
    """Whether ``crs`` (a pyproj CRS or anything pyproj reads; None: no CRS)
    is longitude/latitude; DataError for one pyproj cannot read."""
    return ground(crs).geographic


def haversine_km(lat1, lon1, lat2, lon2):
    """Great-circle distance in km between points given in degrees."""
    lat1, lon1, lat2, lon2 = map(np.radians, (lat1, lon1, lat2, lon2))
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def ground(crs) -> Ground:
    """The :class:`Ground` of ``crs`` (one per CRS, kept); DataError for a CRS pyproj cannot read."""
    if crs is None:
        return _ground(None)
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    from ._text import show
    from .errors import DataError

    try:
        return _ground(CRS.from_user_input(crs).to_wkt())
    except CRSError as exc:
        raise DataError(f"unknown crs {show(crs)}: {exc}") from None


@functools.lru_cache(maxsize=64)
def _ground(wkt: str | None) -> Ground:
    return Ground(wkt)


class Ground:
    """Where the coordinates of one CRS (its WKT; None: a plane of km) lie on
    the ground, and how far apart: ``x`` is longitude or easting, ``y``
    latitude or northing. ``projected``: a CRS taken back to longitude and
    latitude for every distance; neither it nor ``geographic``: a plane,
    ``unit_km`` km to its unit."""

    def __init__(self, wkt: str | None):
        from pyproj import CRS, Transformer

        self.wkt = wkt
        crs = None if wkt is None else CRS.from_wkt(wkt)
        self.geographic = crs is not None and crs.is_geographic
        self.projected = crs is not None and not crs.is_geographic and crs.geodetic_crs is not None
        metres = crs.axis_info[0].unit_conversion_factor if crs is not None and crs.axis_info else 1000.0
        self.unit_km = metres / 1000
        if self.projected:
            self._to_lonlat = Transformer.from_crs(crs, crs.geodetic_crs, always_xy=True)
            self._probe = PROBE_M / metres                  # PROBE_M metres, in the CRS's unit

    def __reduce__(self):
        return _ground, (self.wkt,)

    def lonlat(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """Longitude and latitude (degrees) of points; NaN where a projected
        point has none (outside the projection's domain), and for a plane."""
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if self.geographic:
            return x, y
        if not self.projected:
            return np.full(x.shape, np.nan), np.full(y.shape, np.nan)
        lon, lat = self._to_lonlat.transform(x, y, errcheck=False)
        lon, lat = np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)
        bad = ~(np.isfinite(lon) & np.isfinite(lat) & (np.abs(lat) <= 90))
        return np.where(bad, np.nan, lon), np.where(bad, np.nan, lat)

    def distance(self, x0, y0, x1, y1) -> np.ndarray:
        """Distance in km between two points (elementwise): great-circle,
        except on a plane."""
        if not (self.geographic or self.projected):
            return np.hypot(np.asarray(x1, dtype=np.float64) - x0, np.asarray(y1, dtype=np.float64) - y0) * self.unit_km
        lon0, lat0 = self.lonlat(x0, y0)
        lon1, lat1 = self.lonlat(x1, y1)
        return haversine_km(lat0, lon0, lat1, lon1)

    def diagonal(self, x0, y0, x1, y1) -> np.ndarray:
        """The diagonal in km of boxes (as the search measures them, the
        cheap way): in degrees, a degree of longitude counting the cosine of
        the box's middle latitude; else the distance between its corners.

        Examples
        --------
        >>> ground("EPSG:4326").diagonal(np.array([-79.0]), np.array([35.0]), np.array([-78.0]), np.array([36.0])).round(1)
        array([143.4])
        """
        x0, y0, x1, y1 = (np.asarray(v, dtype=np.float64) for v in (x0, y0, x1, y1))
        if self.geographic:
            across = np.abs(x1 - x0) * KM_PER_DEGREE * np.cos(np.radians(np.clip((y0 + y1) / 2, -90, 90)))
            return np.hypot(across, (y1 - y0) * KM_PER_DEGREE)
        return self.distance(x0, y0, x1, y1)

    def extents(self, x0, y0, x1, y1) -> tuple:
        """Width, height and diameter in km of boxes given by their corners (a
        longitude interval with x0 > x1 crosses the antimeridian): in a
        projected CRS, the width across the box's middle, the height along
        it, the diameter the longer diagonal."""
        x0, y0, x1, y1 = (np.asarray(v, dtype=np.float64) for v in (x0, y0, x1, y1))
        if self.geographic:
            dlon = np.where(x0 > x1, x1 + 360.0 - x0, x1 - x0)
            equatorward = np.where((y0 < 0) & (y1 > 0), 0.0, np.minimum(np.abs(y0), np.abs(y1)))
            width = np.radians(dlon) * EARTH_RADIUS_KM * np.cos(np.radians(equatorward))
            height = (y1 - y0) * KM_PER_DEGREE
            diagonal = haversine_km(y0, x0, y1, x0 + dlon)
            return width, height, np.maximum(diagonal, width)
        xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
        width, height = self.distance(x0, ym, x1, ym), self.distance(xm, y0, xm, y1)
        return width, height, np.fmax(self.distance(x0, y0, x1, y1), self.distance(x0, y1, x1, y0))

    def axis_km(self, x, y) -> tuple:
        """What one unit of ``x`` and one of ``y`` are worth in km on the
        ground at points (x, y)."""
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if self.geographic:
            return KM_PER_DEGREE * np.cos(np.radians(y)), np.full(y.shape, KM_PER_DEGREE)
        if not self.projected:
            return np.full(x.shape, self.unit_km), np.full(y.shape, self.unit_km)
        e = self._probe
        return self.distance(x, y, x + e, y) / e, self.distance(x, y, x, y + e) / e

    def positions(self, x, y) -> np.ndarray:
        """Each point's position in km: on the sphere (3 coordinates), or on
        the plane (2); NaN where a point has none."""
        if not (self.geographic or self.projected):
            return np.column_stack([np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)]) * self.unit_km
        lon, lat = (np.radians(v) for v in self.lonlat(x, y))
        return EARTH_RADIUS_KM * np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])


def row_box_extents(table, lat: str, lon: str, crs):
    """Width, height and diameter in km of each row's published rectangle
    (NaN where a row has none), measured once per distinct rectangle."""
    import pandas as pd

    def column(name):
        return pd.to_numeric(table[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)

    corners = np.column_stack([column(f"{lon}_min"), column(f"{lat}_min"), column(f"{lon}_max"), column(f"{lat}_max")])
    boxes, row = np.unique(corners, axis=0, return_inverse=True)
    return tuple(e[row.ravel()] for e in ground(crs).extents(*boxes.T))
