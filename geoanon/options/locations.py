"""The location kinds as a user writes them, in one table: each kind's keys
(those it needs and those it may have), the keys that name columns, its
name in the API and in reports, the options it admits, and its rows of the
options' table (its flags and job-file keys). The API's checks, job files,
the command line, the engines (which generalize each kind:
:mod:`geoanon.pipeline.locations`) and the report read it. Light to import:
the command line reads job files before its heavy imports."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from ..choices import CONTIGUITY, REGION_SMALL, REGIONS_UNKNOWN, ZIP_LEVELS
from . import values
from .option import MEMORY, Option, choice_option

__all__ = ["LABEL", "LEVEL_GROUPS", "LOCATIONS", "LocationShape", "NO_LOCATION", "POINTS", "ZIP", "by_keys", "by_report", "listed"]


@dataclass(frozen=True)
class LocationShape:
    """A location kind as written.

    Attributes
    ----------
    name : str or None
        Its name in the API and in a :class:`~geoanon.options.ReleaseSpec`
        (None: no location).
    report : str or None
        Its name in a release's ``location`` and in job plans.
    needed, optional : tuple
        The keys it must have and those it may have, in order.
    columns : tuple
        The keys that name the table's columns it reads.
    numbers : tuple
        Those of :attr:`columns` read as numbers (coordinates: where a
        decimal comma is read, ``decimal``).
    noun, described : str
        How messages name it: ``"region location"`` on the command line;
        ``"a ZIP location"`` where an option needs it.
    published : str
        What its classes publish, in warnings (``"boxes"``, ``"groups"``).
    losses : tuple
        The ``location_loss`` values it admits (``"km"``: it is measured in
        km on the ground, and takes a precision target).
    default_loss : tuple
        Its ``location_loss`` by default: under the joint design, and under
        a location tree (frontier, location-first).
    method : str
        Its design by default (see :meth:`design`).
    record_budget : bool
        Whether it takes ``max_suppressed`` (whole records published suppressed).
    rolls_up : bool
        Whether it takes ``zip_level``.
    default_target : bool
        Whether, judged in km, it takes a default precision target.
    measure : str or None
        How the report measures its classes in km (``"rectangle"``,
        ``"group"``; None: they have no place).
    engines : tuple
        The engines whose joint release takes it.
    options : tuple
        Its rows of :data:`~geoanon.options.table.OPTIONS` (the command
        line's location group): the flags of ``geoanon anonymize`` and the
        job files' keys that give it and its settings (``[columns]
        location.<key>``, ``[release] zip_level``); none: only the API does.
    """

    name: str | None
    report: str | None
    needed: tuple = ()
    optional: tuple = ()
    columns: tuple = ()
    numbers: tuple = ()
    noun: str = ""
    described: str = ""
    published: str = ""
    losses: tuple = ("range",)
    default_loss: tuple = ("range", "range")
    method: str = "joint"
    record_budget: bool = False
    rolls_up: bool = False
    default_target: bool = False
    measure: str | None = None
    engines: tuple = ("memory",)
    options: tuple = field(default=(), compare=False, repr=False)

    @property
    def keys(self) -> tuple:
        return self.needed + self.optional

    @property
    def choices(self) -> MappingProxyType:
        """The choices of its optional keys that are settings, from their option rows."""
        return MappingProxyType({row.name: row.choices for row in self.options
                                 if row.choices is not None and row.key == f"columns.location.{row.name}"})

    @property
    def in_km(self) -> bool:
        """Whether it is measured in km on the ground (``location_loss="km"``, ``max_extent_km``)."""
        return "km" in self.losses

    def design(self, zip_level=None) -> str:
        """Its design by default at ``zip_level``: :attr:`method`, except that
        ZIP codes rolled up are tiled (``"frontier"``), since the joint design
        cuts the units at their middles and cannot bound their extent."""
        return "frontier" if self.rolls_up and zip_level in LEVEL_GROUPS else self.method

    def flags(self, keys) -> str:
        """The command-line flags of ``keys`` joined by ``/`` (``--lat/--lon``)."""
        flag = {row.name: row.flag for row in self.options}
        return "/".join(flag[key] for key in keys)

    def column_names(self, loc: dict) -> tuple:
        """The columns that ``loc`` (a location of this kind) names, in :attr:`columns` order."""
        return tuple(loc[key] for key in self.columns)

    def release_location(self, loc: dict) -> dict | None:
        """A release's ``location``: ``{"kind": report name, "columns": (...)}``; None without a location."""
        return None if self.name is None else {"kind": self.report, "columns": self.column_names(loc)}

    def report_entry(self, loc: dict) -> dict | None:
        """The job report's ``location``: the kind's name and ``loc``'s text values."""
        return None if self.name is None else {"kind": self.name, **{k: v for k, v in loc.items() if isinstance(v, str)}}


_ANONYMIZE = ("anonymize",)
_IN_MEMORY = {"engines": MEMORY, "why": "the dask engine's joint release needs --lat and --lon"}


def _key(name, kind, help, flag, **more) -> Option:
    """A location key as ``geoanon anonymize`` takes it: its flag, and the
    job file's ``[columns] location.<name>`` (the API takes the location whole)."""
    return Option(name, _ANONYMIZE, kind, help, flag=flag, key=f"columns.location.{name}", api=(), **more)


def _setting(name, choices, help) -> Option:
    """A location key that takes one of ``choices`` (by default the library's)."""
    return choice_option(name, _ANONYMIZE, choices, help, key=f"columns.location.{name}", default=False, api=(),
                         **_IN_MEMORY)


NO_LOCATION = LocationShape(None, None, record_budget=True)
POINTS = LocationShape(
    "points", "points", ("lat", "lon"), columns=("lat", "lon"), numbers=("lat", "lon"), noun="points location",
    described="a points location (lat and lon)", published="boxes", losses=("spacing", "spread", "range", "km"),
    default_loss=("km", "spacing"), record_budget=True, measure="rectangle", engines=("memory", "dask"),
    options=(_key("lat", values.TEXT, "latitude column (points, published as rectangles, which may overlap: "
                  "--method frontier --extent tile for ones that never do)", "--lat"),
             _key("lon", values.TEXT, "longitude column", "--lon")))
ZIP = LocationShape(
    "zip", "regions", ("zip", "regions", "region_id"), ("edges", "contiguity", "unknown", "small"), ("zip",),
    noun="region location", described="a ZIP location", published="groups", losses=("range", "km"),
    default_loss=("km", "km"), rolls_up=True, default_target=True, measure="group",
    options=(
        _key("zip", values.TEXT, "region column (published as connected groups)", "--zip-col", metavar="COL",
             **_IN_MEMORY),
        _key("regions", values.PATH, "regions for --zip-col: polygons or a CSV of centroids", "--regions",
             metavar="FILE", **_IN_MEMORY),
        _key("region_id", values.TEXT, "region id column of --regions", "--region-id", metavar="COL", **_IN_MEMORY),
        _key("edges", values.PATH, "adjacency of --regions as an edge list CSV", "--edges", metavar="FILE",
             **_IN_MEMORY),
        _setting("contiguity", CONTIGUITY, "for --zip-col, as in geoanon zip (default: rook)"),
        _setting("unknown", REGIONS_UNKNOWN, "for --zip-col: records whose region is not in --regions: fail "
                 "(default), or publish '*'"),
        _setting("small", REGION_SMALL, "for --zip-col: connected pieces of the regions whose records cannot meet "
                 "the model: fail (default), publish '*', or link to the nearest region"),
        choice_option("zip_level", _ANONYMIZE, ZIP_LEVELS, "for --zip-col: publish the ZIP codes rolled up, as "
                      "geoanon zip --zip-level", key="release.zip_level", **_IN_MEMORY)))
LABEL = LocationShape(
    "label", "labels", ("label",), columns=("label",), noun="label location", described="a label location",
    published="groups", method="frontier",
    options=(_key("label", values.TEXT, "a label column as the location (published as groups)", "--label-col",
                  metavar="COL", **_IN_MEMORY),))

LOCATIONS = MappingProxyType({shape.name: shape for shape in (NO_LOCATION, POINTS, ZIP, LABEL)})
# what maps and notes call the groups of ZIP codes rolled up to each zip_level; published in a column of that name
LEVEL_GROUPS = MappingProxyType({"zip3": "groups of ZIP3 areas", "county": "groups of counties",
                                 "state": "groups of states"})


def listed(words, last: str = " or ") -> str:
    """``words`` as an English list: ``a, b or c`` (``last``: what joins the last word, ``", or "`` or ``" and "``)."""
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + last + words[-1]


def by_report(report: str) -> LocationShape:
    """The kind whose report name is ``report`` (``"regions"``: :data:`ZIP`)."""
    return next(shape for shape in LOCATIONS.values() if shape.report == report)


def by_keys(keys: set, among=None) -> LocationShape | None:
    """The first kind (of ``among``, default every kind) whose keys hold all
    of ``keys`` (none given: None)."""
    among = [s for s in LOCATIONS.values() if s.name is not None] if among is None else among
    return next((s for s in among if keys and keys <= set(s.keys)), None)
