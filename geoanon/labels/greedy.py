"""The approximation algorithms of Du, Eppstein, Goodrich and Lueker for
Min-Max Bin Covering (Section 4), and the simplified one they ran (Section 5).

Every function takes the item sizes ``x`` (positive int64, in the order to
process them) and ``k``, and returns the class id of each item. Sizes are
record counts; a class ("bin") is covered when it holds >= k.
"""
from __future__ import annotations

import numpy as np

__all__ = ["five_halves", "fold", "spread"]


def next_fit(x: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """Greedy covering in the given order: a bin closes as soon as it holds >= k.

    Returns the bin of every item and the number of closed bins; items after
    the last closed bin (together lighter than k) get the id ``closed``.
    One binary search per bin on the prefix sums.
    """
    prefix = np.concatenate(([0], np.cumsum(x)))
    ends, start = [], 0
    while True:
        end = int(np.searchsorted(prefix, prefix[start] + k))
        if end >= prefix.size:
            break
        ends.append(end)
        start = end
    sizes = np.diff(np.asarray([0, *ends, x.size], dtype=np.int64))
    return np.repeat(np.arange(sizes.size, dtype=np.int64), sizes), len(ends)


def _alone_then_next_fit(x: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """Items >= k in bins of their own (ids first), next-fit on the rest.

    Returns the bins and the number of covered bins; the leftover items (if
    any) carry the id equal to that number.
    """
    big = x >= k
    n_big = int(big.sum())
    bins = np.empty(x.size, dtype=np.int64)
    bins[big] = np.arange(n_big)
    small, closed = next_fit(x[~big], k)
    bins[~big] = n_big + small
    return bins, n_big + closed


def fold(x: np.ndarray, k: int) -> np.ndarray:
    """Theorem 5 ("Fold"): items >= k alone, next-fit on the rest in the given
    order, and the leftover (lighter than k) merged into the lightest bin.

    Guarantee: largest class <= max(k - 1 + largest item, 3k - 3) (each
    next-fit bin is at most 2k - 2 and the leftover at most k - 1), so at most
    3 times the optimum. Linear time after the prefix sums.
    """
    bins, covered = _alone_then_next_fit(x, k)
    leftover = bins == covered
    if leftover.any():
        levels = np.bincount(bins[~leftover], weights=x[~leftover], minlength=covered)
        bins[leftover] = int(np.argmin(levels))
    return bins


def spread(x: np.ndarray, k: int) -> np.ndarray:
    """The simplified Theorem 8 run in Section 5 ("Spread"): greedy packing as
    in :func:`fold`, then the leftover items spread over the covered classes.

    The paper describes the spreading as: first add items to classes below the
    current maximum until adding an item to any class would raise it, then
    deal the rest round-robin. Our reading, which keeps it linear: classes in
    increasing order of level each take the next leftover items while they stay
    at or below the maximum M of the covered classes; the items still left are
    then dealt one by one to the classes in increasing order of their new
    level, cyclically. No class exceeds M before the round-robin starts.
    """
    bins, covered = _alone_then_next_fit(x, k)
    leftover = np.flatnonzero(bins == covered)
    if leftover.size == 0:
        return bins
    kept = bins != covered
    levels = np.bincount(bins[kept], weights=x[kept], minlength=covered).astype(np.int64)
    ceiling = int(levels.max())
    prefix = np.concatenate(([0], np.cumsum(x[leftover])))
    start = 0
    for c in np.argsort(levels, kind="stable").tolist():
        end = int(np.searchsorted(prefix, prefix[start] + ceiling - levels[c], side="right")) - 1
        if end > start:
            bins[leftover[start:end]] = c
            levels[c] += prefix[end] - prefix[start]
            start = end
        if start == leftover.size:
            return bins
    rest = leftover[start:]
    cycle = np.argsort(levels, kind="stable")
    bins[rest] = cycle[np.arange(rest.size) % covered]
    return bins


def five_halves(x: np.ndarray, k: int, exact) -> tuple[np.ndarray, int]:
    """Theorem 8 as proved: a 5/2-approximation.

    Items >= k go in bins of their own (all other items join the lightest of
    them when together they cannot cover a bin). The other ("nominal") items
    are packed greedily in decreasing order. If the last bin is covered, every
    bin is below 2k. Otherwise, with at most three bins in all, the nominal
    items are solved exactly (``exact(sizes, k)``, the paper's exhaustive
    search). Otherwise let f be the largest item of the last bin and r the
    rest of it:

    - Case 1, f <= k/2: split the last bin into three parts of at most k/2
      each (Lemma 7: f alone, the rest cut at a prefix by Lemma 6) and add
      them to the first three bins, which stay below 5k/2;
    - Case 2.1, f > k/2 and x1 + r >= k (x1 the largest item): swap x1 and f;
      every bin is then covered and below 2k;
    - Case 2.2, otherwise: every optimal class holds two or more items larger
      than k/2 and one holds three, so OPT > 3k/2, and :func:`fold` (< 3k) is
      within a factor 2.

    Returns the bins (for ``x`` in its given order) and a lower bound the case
    analysis proves (0 when it proves none beyond the general one).
    """
    order = np.argsort(-x, kind="stable")
    xs = x[order]
    big = xs >= k
    n_big = int(big.sum())
    bins = np.empty(x.size, dtype=np.int64)
    bins[big] = np.arange(n_big)
    nominal = xs[~big]
    proven = 0
    if nominal.sum() < k:
        bins[~big] = n_big - 1           # the lightest item >= k comes last in decreasing order
    else:
        sub, closed = next_fit(nominal, k)
        last = np.flatnonzero(sub == closed)
        if last.size and closed + 1 <= 3:
            sub = exact(nominal, k)
        elif last.size:
            f, rest = int(nominal[last[0]]), last[1:]
            if 2 * f <= k:
                sub[last[0]] = 0
                sub[rest] = 1 + _lemma6_cut(nominal[rest])
            elif int(nominal[0]) + int(nominal[rest].sum()) >= k:
                sub[0], sub[last[0]] = closed, 0
            else:
                result = np.empty(x.size, dtype=np.int64)
                result[order] = fold(xs, k)
                return result, (3 * (k // 2 + 1) if n_big == 0 else 0)
        bins[~big] = n_big + sub
    result = np.empty(x.size, dtype=np.int64)
    result[order] = bins
    return result, proven


def _lemma6_cut(items: np.ndarray) -> np.ndarray:
    """Lemma 6: cut a list at a prefix into two parts of at most (s + m) / 2
    each (s its sum, m its largest item); returns 0/1 per item. The best prefix
    cut, which the lemma shows meets the bound."""
    if items.size == 0:
        return np.zeros(0, dtype=np.int64)
    prefix = np.concatenate(([0], np.cumsum(items)))
    cut = int(np.argmin(np.maximum(prefix, prefix[-1] - prefix)))
    return (np.arange(items.size) >= cut).astype(np.int64)
