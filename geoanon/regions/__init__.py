"""Zip codes and other regions: adjacency graphs, low-degree spanning trees and
connected partitions.

The public names load on first use (PEP 562): a points release reads
:mod:`~geoanon.regions.naming` alone, without networkx."""
from .._lazy import attribute_loader

_HOMES = {"CompactGraph": "graphs", "graph_from_points": "graphs", "graph_from_polygons": "graphs",
          "graph_summary": "graphs", "read_edge_list": "graphs", "GraphPartition": "partition",
          "partition_graph": "partition", "SpanningTree": "spanning", "low_degree_spanning_tree": "spanning"}

__all__ = sorted(_HOMES)

__getattr__ = attribute_loader(__name__, _HOMES, globals())
