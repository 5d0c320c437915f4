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

import numpy as np

__all__ = ["coarsest_step", "coordinate_resolution", "snap_steps", "snapped", "window"]

ROUND = (1.0, 2.0, 5.0)


def snap_steps(spans, k: int, floor) -> np.ndarray:
    """The grid step of classes whose records span ``spans`` on an axis: the
    least round number at least ``spans / (k - 2)`` (``spans`` below k = 4)
    and at least ``floor`` (elementwise; ``floor`` > 0).

    >>> snap_steps(np.array([0.0, 0.3, 3.0]), 5, 0.01).tolist()
    [0.01, 0.1, 1.0]
    """
    need = np.maximum(np.asarray(spans, dtype=np.float64) / max(k - 2, 1), floor)
    power = np.floor(np.log10(need))
    base = 10.0 ** power
    step = np.full(need.shape, np.inf)
    for m in (*ROUND, 10.0):
        candidate = _rounded(m * base, power)
        step = np.where((candidate >= need * (1 - 1e-12)) & (candidate < step), candidate, step)
    return step


def snapped(low, high, step) -> tuple[np.ndarray, np.ndarray]:
    """The edges of boxes whose records span ``[low, high]`` on the grid of
    ``step`` (elementwise): the grid points strictly below ``low`` and
    strictly above ``high``, written with the step's decimals. An edge is a
    multiple of its step, never its own records' coordinate; it may equal
    another record's, which it tells nothing of.

    >>> [v.tolist() for v in snapped(np.array([35.94, 0.0]), np.array([36.02, 0.5]), np.array([0.05, 0.5]))]
    [[35.9, -0.5], [36.05, 1.0]]
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    return _outside(low, high, np.broadcast_to(np.asarray(step, dtype=np.float64), low.shape))


def _outside(low: np.ndarray, high: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grid points of ``step`` strictly below ``low`` and above ``high``."""
    power = np.floor(np.log10(step))
    lo = _rounded(np.floor(_quotient(low, step)) * step, power)
    lo = np.where(lo < low, lo, _rounded(lo - step, power))
    hi = _rounded(np.ceil(_quotient(high, step)) * step, power)
    return lo, np.where(hi > high, hi, _rounded(hi + step, power))


def coarsest_step(values, most, least=0.0) -> np.ndarray:
    """The coarsest round step (1, 2 or 5 times a power of ten, at most
    ``most``) of which each of ``values`` is a multiple: the grid it lies
    on, one step being all that it tells of a record beside it (0 where none
    is, elementwise). Steps below ``least`` are not looked for (0 then too).

    >>> coarsest_step(np.array([35.5, 35.43, -0.3, 35.43]), np.array([1.0, 1.0, 1.0, 0.001])).tolist()
    [0.5, 0.01, 0.1, 0.001]
    """
    shape = np.broadcast_shapes(np.shape(values), np.shape(most))
    v, most, least = (a.ravel() for a in np.broadcast_arrays(np.asarray(values, dtype=np.float64),
                                                             np.asarray(most, dtype=np.float64), least))
    top = np.floor(np.log10(np.where(most > 0, most, 1.0)))
    out = np.zeros(v.shape)
    todo = np.flatnonzero(most > 0)
    for drop in range(17):                    # coarsest first: a value leaves once a step fits it
        for m in ROUND[::-1]:
            power = np.maximum(top[todo] - drop, -15)
            step = _rounded(m * 10.0 ** power, power)
            with np.errstate(invalid="ignore"):   # a NaN value is on no grid
                q = _quotient(v[todo], step)
                fits = (step <= most[todo] * (1 + 1e-12)) & (q == np.round(q))
            out[todo[fits]] = step[fits]
            todo = todo[~fits & (step >= least[todo])]
    return out.reshape(shape)


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
            step = _rounded(m * 10.0 ** power, power)
            if _off_grid(sample, step) < allowed and _off_grid(v, step) < allowed:
                return float(step)
    return 0.0


def _off_grid(v: np.ndarray, step: float) -> int:
    """How many of ``v`` are no multiple of ``step`` (to 1e-6 of a step)."""
    q = v / step
    return int((np.abs(q - np.round(q)) > 1e-6).sum())


def _quotient(v: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``v / step`` with a quotient within 1e-9 of a whole number taken as it
    (0.3 is a multiple of 0.1)."""
    q = v / step
    whole = np.round(q)
    return np.where(np.abs(q - whole) < 1e-9, whole, q)


def _rounded(v, power) -> np.ndarray:
    """``v`` rounded to the decimals of a step of ``10 ** power`` (elementwise)."""
    places = np.clip(-np.asarray(power, dtype=np.float64), 0, 15)
    scale = 10.0 ** places
    return np.round(np.asarray(v, dtype=np.float64) * scale) / scale
