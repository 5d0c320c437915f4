"""Sorts split across threads (:func:`geoanon._threads.argsort`): the order
one thread gives, equal values included."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from geoanon import _threads


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 400), st.integers(2, 5), st.sampled_from([1, 3, 1000]))
def test_sorts_in_threads_as_in_one(seed, n, threads, values):
    """Stable: np.argsort(kind="stable") exactly, equal values in their
    order; complex (pairs, x then y): the same values in the same order."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, values, n) / 7.0 - 1.0        # few distinct values: many equal ones
    pairs = np.column_stack([x, rng.integers(0, values, n) * 0.5]).view(np.complex128).ravel()
    before, _threads.THREADED = _threads.THREADED, 0
    try:
        stable = _threads.argsort(x, threads, stable=True)
        paired = _threads.argsort(pairs, threads)
    finally:
        _threads.THREADED = before
    assert stable.tolist() == np.argsort(x, kind="stable").tolist()
    assert sorted(paired.tolist()) == list(range(n))
    assert pairs[paired].tolist() == np.sort(pairs).tolist()
