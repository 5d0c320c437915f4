"""Jobs on a Dask cluster, for tables larger than one machine (``pip install
"geoanon[dask]"``): the same guarantees as the in-memory engine, datasets in
and out (a Parquet dataset or many CSV files, read lazily by the workers; the
release written by the workers as a Parquet dataset, staged, audited and
renamed into place). The client never gathers the rows: it sees counts,
a sample of the coordinates and the shards' summaries.

- :func:`generalize_points`: top-level cuts from a sample, placed between
  neighbouring records and checked by exact distributed counts, shard the
  plane into rectangles of many times k records sized to the workers' memory;
  each shard is partitioned on a worker by :func:`geoanon.partition_points`
  inside its rectangle (Theorem 2's rule, applied at the top).
- :func:`generalize_regions`, :func:`generalize_labels`: counts by the
  workers, the partition on the client (the graph and the label list are
  small), the relabelling on the workers: the same release as the in-memory
  engine, row for row.
- :func:`suppress`: row types and their counts by the workers, the solvers
  on the type table, the mapping back on the workers: the same release as
  the in-memory engine for the same method, row for row.
- :func:`anonymize`: the joint release, sharded by location (shards cut only
  where both sides meet the whole model), each shard released on a worker by
  :func:`geoanon.anonymize` inside its rectangle, the whole audited.
- :func:`audit`: a distributed group-by; the same figures as
  :func:`geoanon.audit`.

Each takes ``scheduler=``: a ``distributed.Client``, a scheduler address, or
None for a ``LocalCluster`` on this machine (:func:`cluster_client`).
"""
from .anonymize import anonymize
from .client import cluster_client
from .audit import audit
from .labels import generalize_labels
from .points import generalize_points
from .regions import generalize_regions
from .release import ClusterRelease
from .suppression import suppress

__all__ = ["ClusterRelease", "anonymize", "audit", "cluster_client", "generalize_labels", "generalize_points",
           "generalize_regions", "suppress"]
