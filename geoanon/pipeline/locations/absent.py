"""No location column: nothing to read, publish or draw."""
from __future__ import annotations

import numpy as np

from ...joint.dims import Dims
from ...options.locations import NO_LOCATION
from .kind import LocationKind, Publisher

__all__ = ["Absent", "NoLocation"]


class NoLocation(Publisher):
    """No location column: nothing to publish, no map."""

    def columns(self, df, part, dims):
        return {}, {}

    def unit_keywords(self, part) -> dict:
        return {}

    def classes(self, table, part, published):
        return None, None

    def class_km(self, dims, part, crs) -> np.ndarray:
        return np.full(len(part.states), np.nan)


class Absent(LocationKind):
    """A release without a location."""

    shape = NO_LOCATION

    def read(self, df, loc, check, options, warnings):
        return Dims([]), NoLocation()
