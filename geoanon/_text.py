"""Wording of user-facing messages: counts with the right plural, values
without numpy's reprs (``np.float64(91.0)`` reads as ``91.0``). Imports no
numpy, so the command line can use it before loading anything heavy."""
from __future__ import annotations


def plural(n, word: str, many: str | None = None) -> str:
    """``"1 row"``, ``"2 rows"``; ``many`` for irregular plurals."""
    n = int(n)
    return f"{n} {word if n == 1 else (many or word + 's')}"


def plain(value):
    """A numpy scalar as the Python scalar it holds; anything else unchanged."""
    numpy_scalar = type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0
    return value.item() if numpy_scalar else value


def show(value) -> str:
    """``repr`` of a value as a user typed it: ``91.0``, ``'abc'``, never ``np.float64(91.0)``."""
    return repr(plain(value))
