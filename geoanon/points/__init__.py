"""GPS coordinates: kd-tree rectangle partitioner."""
from .partition import RectanglePartition, partition_points

__all__ = ["RectanglePartition", "partition_points"]
