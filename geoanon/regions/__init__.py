"""Zip codes and other regions: adjacency graphs, low-degree spanning trees and
connected partitions."""
from .graphs import CompactGraph, graph_from_points, graph_from_polygons, graph_summary, read_edge_list
from .partition import GraphPartition, partition_graph
from .spanning import SpanningTree, low_degree_spanning_tree

__all__ = ["CompactGraph", "GraphPartition", "SpanningTree", "graph_from_points", "graph_from_polygons",
           "graph_summary", "low_degree_spanning_tree", "partition_graph", "read_edge_list"]
