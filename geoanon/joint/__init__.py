"""Joint partitions over all quasi-identifiers of a table: the location on
top (its classes never overlap), the other columns cut inside each location
class, every cut within the privacy model. See :mod:`geoanon.joint.search`."""

from ..choices import DESIGNS, EXTENTS

__all__ = ["DESIGNS", "EXTENTS"]
