"""Work split across threads: NumPy and compiled loops that release the GIL,
each thread on its own part of the data, joined into what one thread computes."""
from __future__ import annotations

from functools import partial

import numba
import numpy as np

__all__ = ["THREADED", "argsort", "in_threads", "runs"]

THREADED = 200_000      # work over fewer items runs in one thread


def in_threads(calls: list) -> list:
    """Each of ``calls``, in threads of their own; their results in order."""
    if len(calls) == 1:
        return [calls[0]()]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def runs(n: int, threads: int, most: int | None = None) -> list:
    """``range(n)`` in runs ``(start, end)`` of about equal length, one per
    thread: at most ``threads`` (and ``most``), none shorter than
    :data:`THREADED` unless it is the only one.

    >>> runs(10, 3) == [(0, 10)], runs(500_000, 3)
    (True, [(0, 250000), (250000, 500000)])
    """
    count = max(1, min(threads, most or threads, n // max(THREADED, 1)))
    ends = np.linspace(0, n, count + 1).astype(np.int64).tolist()
    return list(zip(ends[:-1], ends[1:]))


def argsort(values: np.ndarray, threads: int = 1, stable: bool = False) -> np.ndarray:
    """:func:`numpy.argsort` of a 1-d float or complex array without NaN
    (complex: by real part, then imaginary), its ``threads`` runs sorted in
    threads of their own and merged. ``stable``: equal values in their order
    (``kind="stable"``, whatever ``threads``); else in an order that may
    depend on ``threads``.

    >>> v = np.array([3.0, 1.0, 2.0, 1.0, 0.5])
    >>> argsort(v, 2, stable=True).tolist() == np.argsort(v, kind="stable").tolist()
    True
    """
    kind = "stable" if stable else None
    parts = runs(values.size, threads)
    if len(parts) == 1:
        return np.argsort(values, kind=kind)
    done = in_threads([partial(_sorted_run, values, a, b, kind) for a, b in parts])
    while len(done) > 1:        # neighbouring runs merged, the earlier first among equals
        pairs = [partial(_merged, *done[i], *done[i + 1]) for i in range(0, len(done) - 1, 2)]
        done = in_threads(pairs) + done[len(done) - len(done) % 2:]
    return done[0][0]


def _sorted_run(values: np.ndarray, start: int, end: int, kind) -> tuple:
    """The order of ``values[start:end]`` (as positions in ``values``) and
    the values in that order: real and imaginary parts, or the values twice."""
    order = np.argsort(values[start:end], kind=kind).astype(np.int64)
    ordered = values[start:end][order]
    order += start
    if np.iscomplexobj(values):
        return order, np.ascontiguousarray(ordered.real), np.ascontiguousarray(ordered.imag)
    return order, ordered, ordered


@numba.njit(cache=True, nogil=True)
def _merged(a, a_major, a_minor, b, b_major, b_minor):
    """Two runs (positions and their keys, each sorted by (major, minor))
    merged, ``a``'s first among equals; the same triple."""
    n = a.size + b.size
    out, major, minor = np.empty(n, dtype=np.int64), np.empty(n, a_major.dtype), np.empty(n, a_minor.dtype)
    i = j = 0
    for m in range(n):
        if i < a.size and (j == b.size or not (b_major[j] < a_major[i] or (
                b_major[j] == a_major[i] and b_minor[j] < a_minor[i]))):
            out[m], major[m], minor[m] = a[i], a_major[i], a_minor[i]
            i += 1
        else:
            out[m], major[m], minor[m] = b[j], b_major[j], b_minor[j]
            j += 1
    return out, major, minor
