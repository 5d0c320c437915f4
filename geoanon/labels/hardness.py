"""Instances with a known optimum, from the NP-hardness proof of Theorem 3.

3-Partition asks whether 3m weights, each strictly between B/4 and B/2 and
summing to mB, split into m triples of sum B. With the weights as label counts
and k = B, a yes-instance has a covering whose largest class is exactly k
(the triples), and no covering does better, since every class holds >= k.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import ParameterError

__all__ = ["ThreePartitionInstance", "three_partition_instance"]


class ThreePartitionInstance(NamedTuple):
    counts: np.ndarray      # the 3m weights, shuffled
    k: int                  # = B, which is also the optimum
    triples: np.ndarray     # (m, 3) indices into counts of a solution


def three_partition_instance(m: int, B: int, *, seed=None) -> ThreePartitionInstance:
    """A random yes-instance of 3-Partition with m triples of sum B (B >= 12,
    so that integers strictly between B/4 and B/2 can sum to B).

    Examples
    --------
    >>> import geoanon as ga
    >>> instance = ga.three_partition_instance(3, 30, seed=1)
    >>> instance.counts
    array([11, 10,  9, 11,  8,  8,  9, 13, 11])
    >>> instance.counts[instance.triples].sum(axis=1)      # the planted triples
    array([30, 30, 30])
    >>> ga.cover_labels(instance.counts, k=instance.k).max_weight   # the optimum, k
    30
    """
    if m < 1 or B < 12:
        raise ParameterError(f"need m >= 1 and B >= 12, got m={m}, B={B}")
    rng = np.random.default_rng(seed)
    low, high = B // 4 + 1, (B - 1) // 2          # the integers strictly inside (B/4, B/2)
    triples = []
    while len(triples) < m:
        a, b = rng.integers(low, high + 1, size=2)
        c = B - a - b
        if low <= c <= high:
            triples.append((a, b, c))
    weights = np.asarray(triples, dtype=np.int64).ravel()
    perm = rng.permutation(weights.size)
    counts = weights[perm]
    position = np.empty_like(perm)
    position[perm] = np.arange(perm.size)
    return ThreePartitionInstance(counts=counts, k=int(B), triples=position.reshape(m, 3))
