"""The frontier benchmark's tables: the tuning set, on which the project's
constants may be chosen, and the held-out set, fixed here before any result
on it was seen and never used to choose a constant.

Each table is a frame with ``row`` (the record's number), ``lat`` and
``lon``, for a ZIP-coded table ``zip`` (geoanon releases the ZIP code over
the shipped ZIP map; the peers get its centroid's lat and lon), and its other
quasi-identifiers (``Table.others``; ``Table.text`` the categorical ones).
Adult is :func:`geoanon.datasets.adult` (30,162 rows); ``placed`` puts each
of its rows at one of a set of places, drawn with a seed, with Gaussian
jitter.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

ADULT_OTHERS = ["age", "sex", "race", "marital-status"]
WIDE_OTHERS = ["age", "sex", "race", "marital-status", "education", "workclass", "native-country"]
PATIENT_OTHERS = ["cost_usd", "age", "sex"]


@dataclass(frozen=True)
class Table:
    name: str
    held_out: bool
    others: list
    text: list                 # the categorical ones among ``others``
    zip: bool                  # the location a ZIP code (else points)
    build: Callable[[], pd.DataFrame]
    about: str

    def frame(self) -> pd.DataFrame:
        df = self.build()
        df.insert(0, "row", np.arange(len(df)))
        return df[["row", "lat", "lon", *(["zip"] if self.zip else []), *self.others]].reset_index(drop=True)


def zip_nodes() -> pd.DataFrame:
    from geoanon.datasets import data_path

    return pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype={"zip": str}, keep_default_na=False)


def zip_edges() -> pd.DataFrame:
    from geoanon.datasets import data_path

    return pd.read_csv(data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)


def placed(places: pd.DataFrame, seed: int, jitter: float, weights=None) -> pd.DataFrame:
    """Adult's rows each at one of ``places`` (drawn with ``seed``, in proportion to ``weights`` if given),
    with Gaussian jitter of ``jitter`` degrees (none: the place's own lat, lon and ZIP code), age as numbers."""
    from geoanon.datasets import adult

    a = adult()
    rng = np.random.default_rng(seed)
    p = None if weights is None else weights / weights.sum()
    pick = rng.choice(len(places), len(a), p=p)
    for c in ("lat", "lon"):
        a[c] = np.round(places[c].to_numpy(float)[pick] + (rng.normal(0, jitter, len(a)) if jitter else 0), 5)
    if "zip" in places:
        a["zip"] = places["zip"].to_numpy()[pick]
    a["age"] = a["age"].astype(int)
    return a


def airports(seed: int, jitter: float) -> pd.DataFrame:
    from geoanon.datasets import data_path

    return placed(pd.read_csv(data_path("us_airports.csv.gz"), dtype={"iata": str}), seed, jitter)


def near(lat: float, lon: float, km: float) -> pd.DataFrame:
    """The shipped map's ZIP centroids within ``km`` of (lat, lon)."""
    from bench_anonymize import _km

    places = zip_nodes()
    return places[_km(places["lat"].to_numpy(float), places["lon"].to_numpy(float), lat, lon) <= km]


def one_state(state: str, seed: int, sigma: float) -> pd.DataFrame:
    """Adult's rows at the ZIP codes of one ``state``, each ZIP code weighted lognormally (``sigma``): a
    few hold hundreds of records, many a handful or none."""
    places = zip_nodes()
    places = places[places["state"] == state].reset_index(drop=True)
    weights = np.random.default_rng(seed + 1).lognormal(0, sigma, len(places))
    return placed(places, seed, 0.0, weights)


def patients() -> pd.DataFrame:
    """bench_zip_joint.py's patients (20,000 at ZIP centroids, a seeded age and sex), the ZIP codes the
    shipped map collapsed into another published as unknown by geoanon and placed at their own centroid."""
    from bench_zip_joint import patients as seeded

    df = seeded()
    for c in ("lat", "lon", "cost_usd"):
        df[c] = df[c].astype(float)
    return df


TABLES = {t.name: t for t in (
    Table("airports", False, ADULT_OTHERS, ADULT_OTHERS[1:], False, lambda: airports(0, 0.03),
          "Adult near real US airports (seed 0, 0.03 degrees of jitter): national, clustered"),
    Table("zips", False, ADULT_OTHERS, ADULT_OTHERS[1:], False,
          lambda: placed(zip_nodes().drop(columns="zip"), 0, 0.01),
          "Adult at real US ZIP centroids (seed 0, 0.01 degrees): national, spread over 29,000 places"),
    Table("city", False, ADULT_OTHERS, ADULT_OTHERS[1:], False,
          lambda: placed(near(41.8781, -87.6298, 40).drop(columns="zip").reset_index(drop=True), 0, 0.005),
          "Adult at the ZIP centroids within 40 km of downtown Chicago (seed 0, 0.005 degrees): boxes of a few km"),
    Table("patients", False, PATIENT_OTHERS, ["sex"], True, patients,
          "bench_zip_joint.py's 20,000 synthetic patients by ZIP code (cost, a seeded age and sex)"),
    Table("pennsylvania", False, ADULT_OTHERS, ADULT_OTHERS[1:], True, lambda: one_state("PA", 0, 1.5),
          "Adult by ZIP code of Pennsylvania (1,450 ZIP codes, lognormal weights sigma 1.5, seed 0): one state's ZIP "
          "codes, as the held-out ohio, to choose the ZIP design on"),
    Table("airports7", True, ADULT_OTHERS, ADULT_OTHERS[1:], False, lambda: airports(7, 0.1),
          "Adult near real US airports, another seed (7) and jitter (0.1 degrees)"),
    Table("losangeles", True, ADULT_OTHERS, ADULT_OTHERS[1:], False,
          lambda: placed(near(34.0522, -118.2437, 40).drop(columns="zip").reset_index(drop=True), 7, 0.005),
          "Adult at the ZIP centroids within 40 km of downtown Los Angeles (seed 7, 0.005 degrees)"),
    Table("ohio", True, ADULT_OTHERS, ADULT_OTHERS[1:], True, lambda: one_state("OH", 7, 1.5),
          "Adult by ZIP code of Ohio (1,008 ZIP codes, lognormal weights sigma 1.5, seed 7)"),
    Table("georgia", True, ADULT_OTHERS, ADULT_OTHERS[1:], True, lambda: one_state("GA", 13, 1.5),
          "Adult by ZIP code of Georgia (675 ZIP codes, lognormal weights sigma 1.5, seed 13): held out from the ZIP tail's floor "
          "(bench_zip_floor.py), fixed before any release of it was measured"),
    Table("wide", True, WIDE_OTHERS, WIDE_OTHERS[1:], False,
          lambda: placed(zip_nodes().drop(columns="zip"), 11, 0.01, np.random.default_rng(12).lognormal(0, 1, 29442)),
          "Adult at US ZIP centroids weighted lognormally (sigma 1, seed 11, 0.01 degrees), 7 other "
          "quasi-identifiers: age, sex, race, marital-status, education, workclass, native-country"),
)}
WIDE_TUNING = Table("airports-wide", False, WIDE_OTHERS, WIDE_OTHERS[1:], False, lambda: airports(0, 0.03),
                    "Adult near real US airports (seed 0, 0.03 degrees, as airports), the 7 other quasi-identifiers "
                    "of wide: a tuning table of wide's shape (bench_gain_ratio.py; its peers not run)")
TUNING = tuple(name for name, t in TABLES.items() if not t.held_out)
HELD_OUT = tuple(name for name, t in TABLES.items() if t.held_out)
