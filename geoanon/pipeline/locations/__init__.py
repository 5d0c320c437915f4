"""The location kinds of the joint release, one module each, listed in
:data:`KINDS` by their name in :data:`geoanon.options.locations.LOCATIONS`
(where each is declared as written). The engines and the report ask a
kind's interface (:class:`~geoanon.pipeline.locations.kind.LocationKind`),
never its name. A kind's module loads when the kind is first asked for: a
points release never imports the region modules (nor networkx)."""
from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module

from ...options.locations import LABEL, NO_LOCATION, POINTS, ZIP
from .kind import LocationKind, Publisher

__all__ = ["KINDS", "LocationKind", "Publisher"]

_HOMES = {NO_LOCATION.name: ("absent", "Absent"), POINTS.name: ("points", "PointsKind"),
          ZIP.name: ("zip", "ZipKind"), LABEL.name: ("labels", "LabelKind")}


class _Kinds(Mapping):
    """Each kind's engine by its name, made once, on first use."""

    def __init__(self):
        self._made = {}

    def __getitem__(self, name) -> LocationKind:
        if name not in self._made:
            module, cls = _HOMES[name]
            self._made[name] = getattr(import_module(f".{module}", __name__), cls)()
        return self._made[name]

    def __iter__(self):
        return iter(_HOMES)

    def __len__(self) -> int:
        return len(_HOMES)


KINDS = _Kinds()
