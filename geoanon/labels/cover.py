"""Unordered labels as Min-Max Bin Covering (Du, Eppstein, Goodrich and
Lueker, Sections 4 and 5): group labels so that every group covers >= k
records and the largest group is as small as possible."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._codes import first_appearance_ids
from .._validation import check_choice, check_k, check_seed, check_total, check_weights
from ..errors import DataError
from ..partition import Partition
from . import greedy
from .balanced import balanced, bins_upper_bound
from . import exact
from .exact import exact_cover

from ..choices import LABEL_ORDERS as ORDERS

__all__ = ["LabelPartition", "cover_labels", "cover_lower_bound"]


@dataclass(frozen=True, eq=False, repr=False)
class LabelPartition(Partition):
    """A :class:`~geoanon.partition.Partition` of labels into classes (sets of labels).

    ``labels`` follow ``items`` (the input's labels, in input order; None
    when the input was an array, whose labels are its positions). With
    ``method="exact"`` the lower bound is raised to the integer HiGHS' dual
    bound proves (ceil(bound - 1e-6)), so ``proven_optimal`` holds only when
    that certificate meets the largest class; a time limit that stops HiGHS
    with a covering leaves it False, the bound as far as it got.

    Examples
    --------
    >>> import geoanon as ga
    >>> part = ga.cover_labels({"flu": 5, "copd": 2, "asthma": 1, "cancer": 3, "gout": 1}, k=4)
    >>> part.verify()
    LabelPartition(method='balanced', k=4, classes=2, max_weight=6, lower_bound=6, ratio=1.0000)
    >>> part.class_of()
    {'flu': 0, 'copd': 1, 'asthma': 0, 'cancer': 1, 'gout': 1}
    """

    items: list = field(default=None)

    def element_names(self) -> list | None:
        return self.items


def cover_lower_bound(x: np.ndarray, k: int) -> int:
    """max(k, largest item, ceil(W / B)) with B the most classes the items can
    cover (:func:`~geoanon.labels.balanced.bins_upper_bound`, at most floor(W / k))."""
    x = np.asarray(x, dtype=np.int64)
    total = int(x.sum())
    return int(max(k, int(x.max()), -(-total // bins_upper_bound(x, k))))


def cover_labels(counts, k, *, method="balanced", order="given", seed=None) -> LabelPartition:
    """Group labels into classes of >= k records, the largest as small as possible.

    Parameters
    ----------
    counts : mapping, Series or array_like
        Records per label: a mapping label -> count, a Series (index = labels)
        or an array (labels 0..n-1). Counts are non-negative integers; labels
        with count 0 join the lightest class.
    k : int
    method : {"balanced", "fold", "spread", "paper-5/2", "exact"}
        ``"fold"``: Theorem 5. Labels >= k alone, next-fit on the rest in
        ``order``, the leftover merged into the lightest class; largest class
        <= max(k - 1 + largest label, 3k - 3).
        ``"spread"``: the simplified Theorem 8 of Section 5: greedy packing in
        ``order``, leftover labels spread first into classes below the maximum,
        then round-robin (:func:`~geoanon.labels.greedy.spread`).
        ``"paper-5/2"``: Theorem 8 as proved (decreasing order, Lemmas 6 and 7,
        exact search with fewer than four bins); at most 5/2 the optimum.
        ``"balanced"`` (default): B classes as many as the items can cover,
        filled largest-first to equal weight, repaired, then improved by moves
        and swaps (:mod:`geoanon.labels.balanced`); the best of that, fold and
        spread (in ``order``) is returned, so it is never worse than either.
        ``"exact"``: the optimum, by a MILP over label sizes (HiGHS); small
        instances. Proven only by HiGHS' dual bound (see ``proven_optimal``);
        stopped by its time limit (:data:`geoanon.labels.exact.TIME_LIMIT`),
        the best covering found is returned with the bound proven so far, or,
        with none, :class:`~geoanon.errors.InfeasibleError` says the time limit.
    order : {"given", "decreasing", "random"}
        The order in which fold and spread process labels; ``"random"``
        shuffles with ``seed``.
    seed : int or None
        Seed of the random order.

    Returns
    -------
    LabelPartition
        With ``lower_bound`` from :func:`cover_lower_bound` (raised by the case
        analysis of paper-5/2 when it proves more) and ``ratio``.

    Examples
    --------
    Twelve records under five diagnoses, in classes of at least 4:

    >>> import geoanon as ga
    >>> counts = {"flu": 5, "copd": 2, "asthma": 1, "cancer": 3, "gout": 1}
    >>> part = ga.cover_labels(counts, k=4)
    >>> part.members()
    [['flu', 'asthma'], ['copd', 'cancer', 'gout']]
    >>> part.weights, part.lower_bound, part.proven_optimal
    (array([6, 6]), 6, True)
    """
    k = check_k(k)
    method = check_choice("method", method, METHODS)
    order = check_choice("order", order, ORDERS)
    seed = check_seed(seed)
    items, x = _items(counts)
    check_total(int(x.sum()), k)
    positive = slice(None) if x.min() > 0 else np.flatnonzero(x > 0)
    xp = x[positive]
    sequence = _sequence(xp, order, seed)
    bins, bound = ALGORITHMS[method](xp, k, sequence, cover_lower_bound(xp, k))
    labels = np.empty(x.size, dtype=np.int64)
    labels[positive] = first_appearance_ids(bins)
    if xp.size < x.size:
        weights = np.bincount(labels[positive], weights=xp)
        labels[x == 0] = int(np.argmin(weights))
    params = {"order": order, "seed": seed} if method in ORDERED else {}
    return LabelPartition(labels=labels, element_weights=x, k=k, lower_bound=bound, method=method,
                          params=params, items=items)


# -- the methods: one function each, (counts, k, order of the labels, lower bound) -> (bins, lower bound) ------

def _fold(x, k, sequence, bound):
    """Theorem 5 ("Fold") in ``sequence``: largest class <= max(k - 1 + largest label, 3k - 3)."""
    bins = np.empty(x.size, dtype=np.int64)
    bins[sequence] = greedy.fold(x[sequence], k)
    return bins, bound


def _spread(x, k, sequence, bound):
    """The simplified Theorem 8 of Section 5 ("Spread") in ``sequence``."""
    bins = np.empty(x.size, dtype=np.int64)
    bins[sequence] = greedy.spread(x[sequence], k)
    return bins, bound


def _five_halves(x, k, sequence, bound):
    """Theorem 8 as proved (decreasing order, whatever ``sequence``): at most
    5/2 the optimum; its case analysis may raise the lower bound."""
    bins = np.empty(x.size, dtype=np.int64)
    bins[:], proven = greedy.five_halves(x, k, lambda sizes, k: exact_cover(sizes, k, bins=4))
    return bins, max(bound, proven)


def _exact(x, k, sequence, bound):
    """The optimum by a MILP over label sizes (HiGHS), proven only by its dual
    bound, which raises the lower bound; stopped by ``exact.TIME_LIMIT``."""
    bins = np.empty(x.size, dtype=np.int64)
    bins[:], proven, _ = exact.bounded_cover(x, k, bins=bins_upper_bound(x, k), time_limit=exact.TIME_LIMIT)
    return bins, max(bound, proven)


def _balanced(x, k, sequence, bound):
    """The best of balanced, fold and spread (:func:`_best_of`): never worse than either greedy method."""
    bins = np.empty(x.size, dtype=np.int64)
    bins[:] = _best_of(x, k, sequence, bound)
    return bins, bound


ALGORITHMS = {"balanced": _balanced, "fold": _fold, "spread": _spread, "paper-5/2": _five_halves,
              "exact": _exact}         # method -> (x, k, sequence, bound) -> (bins, bound)
METHODS = tuple(ALGORITHMS)            # what ``method`` is checked against; the order of choices.LABEL_METHODS
ORDERED = ("balanced", "fold", "spread")   # the methods that read ``order`` and ``seed`` (kept in ``params``)


def _best_of(x, k, sequence, bound):
    """The lightest largest class of balanced, fold and spread (ties: balanced;
    fold and spread are skipped when balanced already meets the lower bound)."""
    candidates = [balanced(x, k, bound)]
    if np.bincount(candidates[0], weights=x).max() == bound:
        return candidates[0]                   # at the lower bound: fold and spread cannot do better
    for solver in (greedy.fold, greedy.spread):
        bins = np.empty(x.size, dtype=np.int64)
        bins[sequence] = solver(x[sequence], k)
        candidates.append(bins)
    return min(candidates, key=lambda b: np.bincount(b, weights=x).max())


def _sequence(x, order, seed) -> np.ndarray:
    if order == "given":
        return np.arange(x.size)
    if order == "decreasing":
        return np.argsort(-x, kind="stable")
    return np.random.default_rng(seed).permutation(x.size)


def _items(counts) -> tuple[list, np.ndarray]:
    """(labels, counts as int64) from a mapping, Series or array."""
    if isinstance(counts, pd.Series):
        items, values = counts.index.tolist(), counts.to_numpy()
    elif isinstance(counts, Mapping):
        items, values = list(counts.keys()), np.asarray(list(counts.values()))
    else:
        values = np.asarray(counts)
        if values.ndim != 1:
            raise DataError(f"counts must be one-dimensional, got shape {values.shape}")
        items = None
    if values.size == 0:
        raise DataError("there are no labels to group")
    return items, check_weights(values, values.size)
