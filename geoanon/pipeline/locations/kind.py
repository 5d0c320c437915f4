"""The interface of a location kind in the joint release: how it reads its
columns into the search's dimensions, and how its classes are published,
measured and drawn. Each kind is declared as written in
:data:`geoanon.options.locations.LOCATIONS`; its engine side subclasses
:class:`LocationKind` and is listed in :data:`geoanon.pipeline.locations.KINDS`."""
from __future__ import annotations

from abc import ABC, abstractmethod
from types import MappingProxyType

import numpy as np

from ...options.locations import LocationShape

__all__ = ["LocationKind", "Publisher"]


class Publisher(ABC):
    """How one table's location classes are published (made by
    :meth:`LocationKind.read`). Every kind has every member:

    - ``dropped``: input columns left out of the release (the published
      columns of a location replace its first column);
    - ``boxes``: whether the search measures its classes as boxes of its
      two rank dimensions (their km loss and a precision target by their
      diagonal; else it measures the nodes of its one tree dimension,
      through ``km_costs`` and ``too_wide``);
    - ``withholds``: whether it publishes isolated records without a
      location (:meth:`isolated`, ``max_withheld``; such a kind also has
      ``isolated_beside``);
    - ``details``, ``ncp``: the job report's entries and NCP figures it adds,
      once :meth:`columns` has published;
    - ``fine_cuts``: published tile sides that are cuts finer than their
      tile over k, and the sides between classes;
    - ``k_spacing``: the width in km of a typical record's k-neighbourhood,
      the scale of a default precision target (NaN: none);
    - ``least_km``: the least such width its places tell apart (a ZIP
      location's: a share of its regions' spacing, ``SPACING_FLOOR``).
    """

    dropped: frozenset = frozenset()
    boxes: bool = False
    withholds: bool = False
    details: MappingProxyType = MappingProxyType({})
    ncp: MappingProxyType = MappingProxyType({})
    fine_cuts: tuple = (0, 0)
    k_spacing: float = float("nan")
    least_km: float = 0.0

    @abstractmethod
    def columns(self, df, part, dims) -> tuple:
        """({input column: {published column: values}}, {input column: NCP treatment})
        of the location classes of ``part``."""

    @abstractmethod
    def unit_keywords(self, part) -> dict:
        """:func:`geoanon.ncp.plain_units`' keywords for the location."""

    @abstractmethod
    def classes(self, table, part, published) -> tuple:
        """One row per location class with its shape (a GeoDataFrame; None
        without a location), and a function giving each row's shape (None:
        no shapes)."""

    @abstractmethod
    def class_km(self, dims, part, crs) -> np.ndarray:
        """Each class's published location width in km (diagonal; NaN: none)."""

    def isolated(self, dims, labels, k: int) -> tuple:
        """Which rows are isolated, and how far their k nearest records
        reach, in km (kinds that :attr:`withhold <withholds>` them)."""
        raise NotImplementedError(f"{type(self).__name__} withholds no records")


class LocationKind(ABC):
    """A location kind's engine side: ``shape`` (its declaration), how it
    reads a table and how its published width in km is read back."""

    shape: LocationShape

    @abstractmethod
    def read(self, df, loc: dict, check, options, warnings: list) -> tuple:
        """The location ``loc`` of ``df`` as the search's dimensions
        (:class:`~geoanon.joint.dims.Dims`) and its :class:`Publisher`;
        ``check``: the compiled model; ``options``: the spec's options;
        what the reading warns of is appended to ``warnings``."""

    def record_km(self, table, loc: dict, crs, publisher) -> object:
        """Each record's published location width in km (diagonal; NaN:
        none), or None for a kind not measured in km."""
        return None

    def km_figures(self, table, loc: dict, crs, location_km) -> dict:
        """The published location's width in km over records: ``median_km``
        ``p90_km`` and ``max_km`` (None when it has none) and, for a kind that measures
        its groups as it publishes them (``location_km``: the report's
        entry), ``mean_km``: the group diameter per record, which no share
        of records published in groups of one region, 0 km, can hide."""
        if location_km is None:
            return {"median_km": None, "p90_km": None, "max_km": None}
        return {"median_km": location_km["median"], "p90_km": location_km["p90"], "max_km": location_km["max"],
                "mean_km": location_km["mean"]}
