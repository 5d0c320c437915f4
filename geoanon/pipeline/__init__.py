"""Table-level jobs (points, regions, labels, suppress, anonymize): generalize a
table's quasi-identifying columns, audit, release.

A job reads the quasi-identifying columns of a DataFrame, hands the weighted
domain to a partitioner, writes the generalized values back in place of the
raw ones, and audits the released columns independently before anyone can
write them. Every other column and every row is kept, in order.
"""
from .._lazy import attribute_loader

_HOMES = {"anonymize": "joint_release", "explore": "frontier", "generalize_labels": "labels", "generalize_points": "points",
          "numeric_column": "coordinates", "generalize_regions": "regions", "region_graph": "region_map",
          "JobReport": ".report.release", "Release": ".report.release",
          "write_release": ".report.release", "suppress": "suppression"}

__all__ = sorted(_HOMES)

# Each job's module loads when it is first used (the command line runs one job). No module is named like
# the function it holds, so an imported module never hides its function.
__getattr__ = attribute_loader(__name__, _HOMES, globals())
