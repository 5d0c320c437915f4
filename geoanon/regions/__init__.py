"""Zip codes and other regions: adjacency graphs, low-degree spanning trees and
connected partitions.

The public names load on first use (PEP 562): a points release reads
:mod:`~geoanon.regions.naming` alone, without networkx."""
from importlib import import_module

_HOMES = {"CompactGraph": "graphs", "graph_from_points": "graphs", "graph_from_polygons": "graphs",
          "graph_summary": "graphs", "read_edge_list": "graphs", "GraphPartition": "partition",
          "partition_graph": "partition", "SpanningTree": "spanning", "low_degree_spanning_tree": "spanning"}

__all__ = sorted(_HOMES)


def __getattr__(name):
    if name in _HOMES:
        value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
