"""Tables of points given in longitude/latitude and the same tables in a
projected CRS, for the tests and the benchmark of projected coordinates
(bench/crs.py): seeded, built from numbers alone.

uniform_square   points uniform in a square of a given side in km around a
                 place, with an age column
texas_visits     patients' visits in Texas: homes clustered around 25 cities
                 by their population, and 5% spread over the state (ranches,
                 small towns: the isolated records), 1 to 4 visits per
                 patient at the same home (coordinates rounded to about 1 m),
                 with age, sex and race as quasi-identifiers and a diagnosis
clustered_table  visits in towns of heavy-tailed sizes over a region (the
                 benchmarks' clustered points), with age and sex

``projected(df, crs)`` gives a table's ``lon``/``lat`` columns as ``x``/``y``
in ``crs``; ``ground_km`` measures published boxes on the ground, whatever
their CRS.
"""
import numpy as np
import pandas as pd

EARTH_RADIUS_KM = 6371.0088

# (name, latitude, longitude, metro population in thousands)
TEXAS_CITIES = (
    ("Houston", 29.76, -95.37, 7100), ("Dallas", 32.78, -96.80, 5200), ("Fort Worth", 32.76, -97.33, 2400),
    ("San Antonio", 29.42, -98.49, 2600), ("Austin", 30.27, -97.74, 2400), ("El Paso", 31.76, -106.49, 870),
    ("McAllen", 26.20, -98.23, 880), ("Corpus Christi", 27.80, -97.40, 420), ("Brownsville", 25.90, -97.50, 420),
    ("Killeen", 31.12, -97.73, 480), ("Beaumont", 30.08, -94.13, 400), ("Lubbock", 33.58, -101.86, 330),
    ("Longview", 32.50, -94.74, 290), ("Waco", 31.55, -97.15, 280), ("Laredo", 27.53, -99.49, 270),
    ("Amarillo", 35.22, -101.83, 270), ("College Station", 30.63, -96.33, 270), ("Tyler", 32.35, -95.30, 230),
    ("Abilene", 32.45, -99.73, 180), ("Midland", 32.00, -102.08, 180), ("Odessa", 31.85, -102.37, 160),
    ("Wichita Falls", 33.91, -98.49, 150), ("Texarkana", 33.43, -94.05, 150), ("Sherman", 33.64, -96.61, 140),
    ("San Angelo", 31.46, -100.44, 120),
)
# a rough outline of Texas (longitude, latitude), for the rural visits
TEXAS_OUTLINE = ((-106.6, 32.0), (-103.06, 32.0), (-103.04, 36.5), (-100.0, 36.5), (-100.0, 34.56), (-97.5, 33.9),
                 (-95.3, 33.9), (-94.04, 33.55), (-94.04, 31.0), (-93.55, 29.7), (-94.7, 29.3), (-97.2, 27.5),
                 (-97.15, 25.95), (-99.1, 26.4), (-100.3, 28.0), (-101.4, 29.77), (-103.1, 29.0), (-104.5, 29.6),
                 (-106.6, 31.8))
RURAL = 0.05        # the share of homes spread uniformly over the state
RACES = ("White", "Hispanic", "Black", "Asian", "Other")
DIAGNOSES = ("flu", "asthma", "diabetes", "hypertension", "injury", "copd")


def uniform_square(n: int, lat: float, lon: float, side_km: float, seed: int = 0) -> pd.DataFrame:
    """``n`` points uniform in a square of ``side_km`` whose south-west
    corner is at (lat, lon), with an id and an age."""
    rng = np.random.default_rng(seed)
    y = lat + rng.uniform(0, side_km, n) / (np.pi * EARTH_RADIUS_KM / 180)
    x = lon + rng.uniform(0, side_km, n) / (np.pi * EARTH_RADIUS_KM / 180 * np.cos(np.radians(lat)))
    return pd.DataFrame({"id": np.arange(n), "lat": y, "lon": x, "age": rng.integers(18, 90, n)})


def _homes(rng, n_homes, centres, weights, spread_km):
    """Homes around ``centres`` (lat, lon) chosen by ``weights``, at a
    Gaussian distance of ``spread_km`` (per centre), rounded to 5 decimals."""
    which = rng.choice(len(centres), n_homes, p=weights / weights.sum())
    km = rng.normal(size=(n_homes, 2)) * spread_km[which][:, None]
    lat = centres[which, 0] + km[:, 0] / (np.pi * EARTH_RADIUS_KM / 180)
    lon = centres[which, 1] + km[:, 1] / (np.pi * EARTH_RADIUS_KM / 180 * np.cos(np.radians(centres[which, 0])))
    return np.round(lat, 5), np.round(lon, 5)


def _within(rng, outline, n):
    """``n`` points uniform (in degrees) inside the polygon ``outline``, rounded to 5 decimals."""
    import shapely

    polygon = shapely.Polygon(outline)
    west, south, east, north = polygon.bounds
    lat, lon = np.empty(0), np.empty(0)
    while lat.size < n:
        x, y = rng.uniform(west, east, 2 * n), rng.uniform(south, north, 2 * n)
        inside = shapely.contains_xy(polygon, x, y)
        lon, lat = np.r_[lon, x[inside]], np.r_[lat, y[inside]]
    return np.round(lat[:n], 5), np.round(lon[:n], 5)


def _visits(rng, lat, lon, n):
    """1 to 4 visits per home (55/25/12/8 %), the first ``n``."""
    visits = rng.choice([1, 2, 3, 4], size=lat.size, p=[0.55, 0.25, 0.12, 0.08])
    return np.repeat(lat, visits)[:n], np.repeat(lon, visits)[:n], np.repeat(np.arange(lat.size), visits)[:n]


def texas_visits(n: int = 50_000, seed: int = 0) -> pd.DataFrame:
    """``n`` visits of patients in Texas (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    cities = np.array([c[1:] for c in TEXAS_CITIES], dtype=np.float64)
    spread = 4 + 6 * np.sqrt(cities[:, 2] / 1000)                 # km: 10 for a million, 20 for Houston
    lat, lon = _homes(rng, n, cities[:, :2], cities[:, 2], spread)
    rural = np.flatnonzero(rng.random(n) < RURAL)
    lat[rural], lon[rural] = _within(rng, TEXAS_OUTLINE, rural.size)
    lat, lon, patient = _visits(rng, lat, lon, n)
    age = rng.integers(0, 100, patient.max() + 1)[patient]
    sex = rng.choice(["F", "M"], patient.max() + 1)[patient]
    race = rng.choice(RACES, patient.max() + 1, p=[0.40, 0.39, 0.12, 0.05, 0.04])[patient]
    return pd.DataFrame({"visit_id": np.arange(lat.size), "lat": lat, "lon": lon, "age": age, "sex": sex,
                         "race": race, "diagnosis": rng.choice(DIAGNOSES, lat.size)})


def clustered_table(n: int, box=(-106.5, 26.0, -93.5, 36.5), towns: int = 200, seed: int = 0) -> pd.DataFrame:
    """``n`` visits in ``towns`` towns of heavy-tailed sizes and spreads (2
    km and up) inside ``box`` (west, south, east, north), with age and sex."""
    rng = np.random.default_rng(seed)
    centres = np.c_[rng.uniform(box[1], box[3], towns), rng.uniform(box[0], box[2], towns)]
    lat, lon = _homes(rng, n, centres, rng.pareto(1.2, towns) + 1, 2 + rng.exponential(25, towns))
    lat, lon, patient = _visits(rng, lat, lon, n)
    return pd.DataFrame({"id": np.arange(lat.size), "lat": lat, "lon": lon,
                         "age": rng.integers(0, 100, patient.max() + 1)[patient],
                         "sex": rng.choice(["F", "M"], patient.max() + 1)[patient]})


def projected(df: pd.DataFrame, crs) -> pd.DataFrame:
    """``df`` with its ``lon``/``lat`` columns replaced by ``x``/``y`` in ``crs``."""
    from pyproj import Transformer

    x, y = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform(df["lon"].to_numpy(),
                                                                            df["lat"].to_numpy())
    out = df.rename(columns={"lon": "x", "lat": "y"})
    out["x"], out["y"] = x, y
    return out


def ground_km(table: pd.DataFrame, y: str, x: str, crs) -> np.ndarray:
    """Each row's published box's diagonal on the ground in km (its corners
    taken back to longitude/latitude; NaN where a row has no box): the same
    measure whatever the CRS the boxes are in."""
    from pyproj import Transformer

    back = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    x0, y0 = back.transform(table[f"{x}_min"].to_numpy(float), table[f"{y}_min"].to_numpy(float))
    x1, y1 = back.transform(table[f"{x}_max"].to_numpy(float), table[f"{y}_max"].to_numpy(float))
    lat0, lon0, lat1, lon1 = map(np.radians, (y0, x0, y1, x1))
    a = np.sin((lat1 - lat0) / 2) ** 2 + np.cos(lat0) * np.cos(lat1) * np.sin((lon1 - lon0) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0, 1)))



def towns(n: int, lat: float, lon: float, count: int = 8, reach_km: float = 150.0, seed: int = 0,
          core: float = 0.01) -> pd.DataFrame:
    """``n`` points in ``count`` towns placed uniformly within ``reach_km``
    of (lat, lon), of random sizes, each a density falling as the square of
    the distance from its centre, from ``core`` times its radius out to its
    radius, 3 to 30 km (log-uniform), so that the classes' boxes span two
    orders of magnitude and more; with an id and an age."""
    rng = np.random.default_rng(seed)
    size = rng.dirichlet(np.ones(count))
    which = rng.choice(count, n, p=size)
    centre = rng.uniform(-reach_km, reach_km, (count, 2))
    outer = np.exp(rng.uniform(np.log(3.0), np.log(30.0), count))
    r = np.exp(rng.uniform(np.log(core), 0.0, n)) * outer[which]
    angle = rng.uniform(0, 2 * np.pi, n)
    north, east = centre[which, 0] + r * np.sin(angle), centre[which, 1] + r * np.cos(angle)
    y = lat + north / (np.pi * EARTH_RADIUS_KM / 180)
    x = lon + east / (np.pi * EARTH_RADIUS_KM / 180 * np.cos(np.radians(y)))
    return pd.DataFrame({"id": np.arange(n), "lat": y, "lon": x, "age": rng.integers(18, 90, n)})
