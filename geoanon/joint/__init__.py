"""Joint partitions over all quasi-identifiers of a table: the location on
top (its classes never overlap), the other columns cut inside each location
class, every cut within the privacy model. See :mod:`geoanon.joint.search`."""

DESIGNS = ("frontier", "location-first", "greedy")   # where the location cuts stop (no numpy needed to list them)
EXTENTS = ("box", "tile")   # what a class publishes: its records' rounded box / range, or its whole tile
