"""Table-level jobs (points, regions, labels, suppress, anonymize): generalize a
table's quasi-identifying columns, audit, release.

A job reads the quasi-identifying columns of a DataFrame, hands the weighted
domain to a partitioner, writes the generalized values back in place of the
raw ones, and audits the released columns independently before anyone can
write them. Every other column and every row is kept, in order.
"""
from .anonymize import anonymize
from .labels import generalize_labels
from .points import generalize_points, numeric_column
from .regions import generalize_regions, region_graph
from .release import JobReport, Release, write_release
from .suppress import suppress

__all__ = ["JobReport", "Release", "anonymize", "generalize_labels", "generalize_points", "generalize_regions",
           "numeric_column", "region_graph", "suppress", "write_release"]
