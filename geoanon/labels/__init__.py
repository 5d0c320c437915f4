"""Unordered labels (names, diagnoses): Min-Max Bin Covering."""
from .cover import LabelPartition, cover_labels, cover_lower_bound
from .hardness import ThreePartitionInstance, three_partition_instance

__all__ = ["LabelPartition", "ThreePartitionInstance", "cover_labels", "cover_lower_bound",
           "three_partition_instance"]
