"""geoanon: make location columns safe to publish.

Generalize quasi-identifying location columns so that every equivalence class
holds at least k records, audit the result, and preview the classes on a map.
"""
from .errors import AuditError, DataError, GeoanonError, InfeasibleError, ParameterError, VerificationError
from .audit import AuditReport, audit
from .labels import LabelPartition, cover_labels, three_partition_instance
from .partition import Partition
from .pipeline import Release, generalize_labels, generalize_points, generalize_regions
from .models import Hierarchy, emd
from .points import RectanglePartition, partition_points
from .regions import (GraphPartition, graph_from_points, graph_from_polygons, graph_summary,
                      low_degree_spanning_tree, partition_graph, read_edge_list)
from .tables import suppress

__version__ = "0.1.0"

__all__ = [
    "AuditError", "DataError", "GeoanonError", "InfeasibleError", "ParameterError", "VerificationError",
    "AuditReport", "GraphPartition", "Hierarchy", "LabelPartition", "Partition", "RectanglePartition", "Release",
    "audit", "cover_labels", "emd", "generalize_labels", "generalize_points", "generalize_regions",
    "graph_from_points", "graph_from_polygons", "graph_summary", "low_degree_spanning_tree", "partition_graph",
    "partition_points", "read_edge_list", "suppress", "three_partition_instance",
]
