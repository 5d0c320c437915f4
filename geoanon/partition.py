"""The one result type of every partitioner, and the lower bounds shared by all kinds.

A partitioner sees a *domain* (distinct points, graph nodes, labels) with integer
weights (records per element) and assigns every element to a class. The result is
a :class:`Partition`: like SciPy's ``OptimizeResult``, one rich object carrying
the solution (``labels``), its quality (``max_weight``), a proven ``lower_bound``
on the optimum for this instance and the certificate ``ratio`` between the two.
Kinds add their own fields and rules by subclassing (``RectanglePartition``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

import numpy as np

from .errors import VerificationError

__all__ = ["Partition", "count_lower_bound"]


def count_lower_bound(total: int, k: int, heaviest: int) -> int:
    """Lower bound on the largest class of any partition into classes of weight >= k.

    Every class holds >= k; the class holding the heaviest element weighs at least
    that element; and at most ``floor(total / k)`` classes exist, so the heaviest of
    them weighs at least ``ceil(total / floor(total / k))``.
    """
    classes = total // k
    return int(max(k, heaviest, -(-total // classes)))


@dataclass(frozen=True, eq=False)
class Partition:
    """A partition of weighted domain elements into classes of weight >= k.

    Attributes
    ----------
    labels : ndarray of int64, shape (n,)
        Class id of each domain element, in input order; ids are 0..n_classes-1.
        -1 marks a *suppressed* element, published in no class (e.g. the regions
        of a graph component too light to reach k on its own).
    element_weights : ndarray of int64, shape (n,)
        Weight (number of records) of each domain element.
    k : int
        The anonymity parameter the partition was built for.
    lower_bound : int
        A proven lower bound on the optimal largest class for this instance.
    method : str
        The algorithm that produced it.
    params : mapping
        Further parameters used.

    Examples
    --------
    Five elements, the first of weight 2, in two classes of weight >= 3:

    >>> import numpy as np
    >>> from geoanon import Partition
    >>> part = Partition(labels=np.array([0, 0, 1, 1, 1]), element_weights=np.array([2, 1, 1, 1, 1]),
    ...                  k=3, lower_bound=3, method="by hand")
    >>> part.members()
    [[0, 1], [2, 3, 4]]
    >>> part.weights, part.max_weight, part.proven_optimal
    (array([3, 3]), 3, True)
    >>> part.verify()
    Partition(method='by hand', k=3, classes=2, max_weight=3, lower_bound=3, ratio=1.0000)
    """

    labels: np.ndarray
    element_weights: np.ndarray
    k: int
    lower_bound: int
    method: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def n_classes(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size else 0

    @property
    def suppressed(self) -> np.ndarray:
        """Whether each element is suppressed (in no class)."""
        return self.labels < 0

    @cached_property
    def weights(self) -> np.ndarray:
        """Total weight of each class (int64, length ``n_classes``)."""
        kept = self.labels >= 0
        return np.bincount(self.labels[kept], weights=self.element_weights[kept],
                           minlength=self.n_classes).astype(np.int64)

    @property
    def max_weight(self) -> int:
        """The objective: weight of the largest class."""
        return int(self.weights.max())

    @property
    def min_weight(self) -> int:
        return int(self.weights.min())

    @property
    def ratio(self) -> float:
        """``max_weight / lower_bound``: how far from optimal, at most."""
        return self.max_weight / self.lower_bound

    @property
    def proven_optimal(self) -> bool:
        """Whether the largest class is certified optimal: it equals the proven lower bound."""
        return self.max_weight == self.lower_bound

    def element_names(self) -> list | None:
        """The elements' names, for :meth:`members` and :meth:`class_of`; None
        (the default): their positions."""
        return None

    def members(self) -> list[list]:
        """The elements (names, or positions) of each class, in class order."""
        names = self.element_names()
        return [group.tolist() if names is None else [names[i] for i in group] for group in self.groups()]

    def class_of(self) -> dict:
        """Element (name, or position) -> class id (-1 for a suppressed element)."""
        names = self.element_names()
        return dict(zip(range(self.labels.size) if names is None else names, self.labels.tolist()))

    def groups(self) -> list[np.ndarray]:
        """The element indices of each class, in class order."""
        kept = np.flatnonzero(self.labels >= 0)
        order = kept[np.argsort(self.labels[kept], kind="stable")]
        bounds = np.cumsum(np.bincount(self.labels[kept], minlength=self.n_classes))[:-1]
        return np.split(order, bounds)

    def verify(self) -> "Partition":
        """Check the partition's rules; raise :class:`VerificationError` if one fails.

        Every element has a class, class ids are contiguous, every class weighs
        >= k, and the kind's own rule holds (see subclasses). Returns ``self``.
        """
        labels, w = self.labels, self.element_weights
        if labels.shape != w.shape or labels.ndim != 1:
            raise VerificationError("labels and element weights differ in shape")
        if labels.size == 0 or (labels < 0).all():
            raise VerificationError("the partition is empty")
        if labels.min() < -1:
            raise VerificationError("an element has no class")
        counts = np.bincount(labels[labels >= 0])
        if (counts == 0).any():
            raise VerificationError(f"class ids are not contiguous: class {int(np.argmin(counts))} is empty")
        weights = self.weights
        light = np.flatnonzero(weights < self.k)
        if light.size:
            c = int(light[0])
            raise VerificationError(
                f"{light.size} classes weigh less than k={self.k} (class {c} weighs {int(weights[c])})")
        if weights.max() < self.lower_bound:
            raise VerificationError(
                f"max class {int(weights.max())} is below the claimed lower bound {self.lower_bound}")
        self._verify_kind()
        return self

    def _verify_kind(self) -> None:
        """Kind-specific rules; the base kind (arbitrary groups) has none."""
        return None

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(method={self.method!r}, k={self.k}, classes={self.n_classes}, "
                f"max_weight={self.max_weight}, lower_bound={self.lower_bound}, ratio={self.ratio:.4f})")
