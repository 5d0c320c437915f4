"""The location kinds of the joint release, one module each, listed in
:data:`KINDS` by their name in :data:`geoanon.options.locations.LOCATIONS`
(where each is declared as written). The engines and the report ask a
kind's interface (:class:`~geoanon.pipeline.locations.kind.LocationKind`),
never its name."""
from .absent import Absent
from .kind import LocationKind, Publisher
from .labels import LabelKind
from .points import PointsKind
from .zip import ZipKind

__all__ = ["KINDS", "LocationKind", "Publisher"]

KINDS = {kind.shape.name: kind for kind in (Absent(), PointsKind(), ZipKind(), LabelKind())}
