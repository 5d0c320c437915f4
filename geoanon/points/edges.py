"""Box edges that tell no more about a class's extreme records than the box
itself, divided by k.

An edge of a published box is its class's extreme record moved out onto a
grid: whoever knows the rule learns that the record lies within one grid
step inside the edge, and nothing finer. So the step grows with the box. On
each axis a class whose records span ``r`` is published on the grid of the
least round step (1, 2 or 5 times a power of ten)

    s >= max(r / (k - 2), floor)            (r / 1 when k < 4),

its edges the grid points strictly outside its records. Its width is then
``W <= r + 2 s <= k s`` (``3 s`` below k = 4): no record's position along an
axis can be narrowed below ``W / max(k, 3)`` of its box, the extreme records'
no more than the others', and no edge is a record's coordinate. A box is
held to a cut between two classes of a tiling only where the cut lies on a
grid of at least its width over max(k, 3) (:func:`coarsest_step`): a cut is
the roundest number in the middle of the gap between its two neighbouring
records, so one in a narrow gap tells both to within the gap; there the
box's edge crosses the cut, and neighbouring boxes overlap by less than a
step.

The **floor** keeps records that share a coordinate from publishing it: at
least ``k`` times the coordinates' own resolution (their decimals, or the
step of a lattice they lie on, :func:`coordinate_resolution`), so a box holds
at least k positions the data could have on each axis, and at least the grid
of published edges the caller sets (its ``resolution``).
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["coarsest_step", "coordinate_resolution", "snap_steps", "snapped", "window"]

_jit = numba.njit(cache=True, nogil=True)


def snap_steps(spans, k: int, floor) -> np.ndarray:
    """The grid step of classes whose records span ``spans`` on an axis: the
    least round number at least ``spans / (k - 2)`` (``spans`` below k = 4)
    and at least ``floor`` (elementwise; ``floor`` > 0).

    >>> snap_steps(np.array([0.0, 0.3, 3.0]), 5, 0.01).tolist()
    [0.01, 0.1, 1.0]
    """
    spans, floor = np.broadcast_arrays(np.asarray(spans, dtype=np.float64), np.asarray(floor, dtype=np.float64))
    return _snap_steps(spans.ravel(), floor.ravel(), float(max(k - 2, 1))).reshape(spans.shape)


def snapped(low, high, step) -> tuple[np.ndarray, np.ndarray]:
    """The edges of boxes whose records span ``[low, high]`` on the grid of
    ``step`` (elementwise): the grid points strictly below ``low`` and
    strictly above ``high``, written with the step's decimals. An edge is a
    multiple of its step, never its own records' coordinate; it may equal
    another record's, which it tells nothing of.

    >>> [v.tolist() for v in snapped(np.array([35.94, 0.0]), np.array([36.02, 0.5]), np.array([0.05, 0.5]))]
    [[35.9, -0.5], [36.05, 1.0]]
    """
    low, high, step = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (low, high, step)))
    lo, hi = _outside(low.ravel(), high.ravel(), step.ravel())
    return lo.reshape(low.shape), hi.reshape(low.shape)


@_jit
def _snap_steps(spans, floor, divisor):
    """:func:`snap_steps`, one class at a time (NaN spans give inf)."""
    out = np.empty(spans.size)
    for i in range(spans.size):
        need = spans[i] / divisor
        if not need >= floor[i]:        # NaN stays NaN, as np.maximum keeps it
            need = floor[i] if need == need else need
        power = np.floor(np.log10(need))
        base = 10.0 ** power
        step = np.inf
        for m in (1.0, 2.0, 5.0, 10.0):
            candidate = _round_to(m * base, power)
            if candidate >= need * (1 - 1e-12) and candidate < step:
                step = candidate
        out[i] = step
    return out


@_jit
def _outside(low, high, step):
    """The grid points of ``step`` strictly below ``low`` and above ``high``."""
    lo, hi = np.empty(low.size), np.empty(low.size)
    for i in range(low.size):
        s = step[i]
        power = np.floor(np.log10(s))
        a = _round_to(np.floor(_quotient(low[i], s)) * s, power)
        lo[i] = a if a < low[i] else _round_to(a - s, power)
        b = _round_to(np.ceil(_quotient(high[i], s)) * s, power)
        hi[i] = b if b > high[i] else _round_to(b + s, power)
    return lo, hi


@_jit
def _round_to(v, power):
    """``v`` rounded to the decimals of a step of ``10 ** power``."""
    places = min(max(-power, 0.0), 15.0)
    scale = 10.0 ** places
    return np.rint(v * scale) / scale


@_jit
def _quotient(v, step):
    """``v / step``, a quotient within 1e-9 of a whole number taken as it (0.3
    is a multiple of 0.1)."""
    q = v / step
    whole = np.rint(q)
    return whole if abs(q - whole) < 1e-9 else q


def coarsest_step(values, most, least=0.0) -> np.ndarray:
    """The coarsest round step (1, 2 or 5 times a power of ten, at most
    ``most``) of which each of ``values`` is a multiple: the grid it lies
    on, one step being all that it tells of a record beside it (0 where none
    is, elementwise). Steps below ``least`` are not looked for (0 then too).

    >>> coarsest_step(np.array([35.5, 35.43, -0.3, 35.43]), np.array([1.0, 1.0, 1.0, 0.001])).tolist()
    [0.5, 0.01, 0.1, 0.001]
    """
    v, most, least = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (values, most, least)))
    return _coarsest_step(v.ravel(), most.ravel(), least.ravel()).reshape(v.shape)


@_jit
def _coarsest_step(values, most, least):
    """:func:`coarsest_step`, one value at a time, coarsest step first."""
    out = np.zeros(values.size)
    for i in range(values.size):
        if not most[i] > 0:
            continue
        top = np.floor(np.log10(most[i]))
        for drop in range(17):
            for m in (5.0, 2.0, 1.0):
                power = max(top - drop, -15.0)
                step = _round_to(m * 10.0 ** power, power)
                q = _quotient(values[i], step)
                if step <= most[i] * (1 + 1e-12) and q == np.rint(q):      # a NaN value is on no grid
                    out[i] = step
                    break
                if not step >= least[i]:
                    break
            else:
                continue
            break
    return out


def window(width, k: int) -> np.ndarray:
    """The least window, along one axis, to which the rule lets anyone narrow
    a record of a box ``width`` wide: ``width / max(k, 3)``."""
    return np.asarray(width, dtype=np.float64) / max(k, 3)


def coordinate_resolution(values) -> float:
    """The step the coordinates ``values`` are written on: the largest power of
    ten (or 2 or 5 times one) of which all but a thousandth of them are
    multiples, as a lattice or a fixed number of decimals gives; 0 for
    coordinates of full float precision.

    >>> coordinate_resolution(np.array([35.12345, 35.1, -78.00002]))
    1e-05
    >>> coordinate_resolution(np.array([3.4, 3.5, 4.0]))
    0.1
    """
    v = np.asarray(values, dtype=np.float64)
    if not (v[1:] > v[:-1]).all():       # not already sorted and distinct
        v = np.unique(v)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return 0.0
    magnitude = max(float(np.abs(v).max()), 1e-300)
    allowed = max(1, v.size // 1000)
    top = int(np.floor(np.log10(float(v[-1] - v[0])))) if v[-1] > v[0] else int(np.floor(np.log10(magnitude)))
    sample = v[::max(1, v.size // 10_000)]       # a step that misses in the sample misses in all
    for power in range(top, int(np.floor(np.log10(magnitude))) - 13, -1):
        for m in (5.0, 2.0, 1.0):
            step = _round_to(m * 10.0 ** power, float(power))
            if _off_grid(sample, step) < allowed and _off_grid(v, step) < allowed:
                return float(step)
    return 0.0


def _off_grid(v: np.ndarray, step: float) -> int:
    """How many of ``v`` are no multiple of ``step`` (to 1e-6 of a step)."""
    q = v / step
    return int((np.abs(q - np.round(q)) > 1e-6).sum())
