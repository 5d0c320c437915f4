"""Value rules of the options and the model's levels, as scikit-learn's
parameter constraints: an :class:`Interval` of numbers, :class:`StrOptions`,
a type, or None (the value may be None). :func:`check` tests a value against
a rule and raises ParameterError in one line that names the option, says
what it must be and shows the value. Imports no numpy: the command line
checks job files before its heavy imports."""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from ._text import show
from .errors import ParameterError

__all__ = ["POSITIVE", "Interval", "Pair", "StrOptions", "Whole", "check", "described"]


class _WholeType(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()


class Whole(metaclass=_WholeType):
    """The type of a number whose value is an integer (``2`` and ``2.0``)."""


@dataclass(frozen=True)
class Interval:
    """A finite number of ``type`` (``numbers.Integral``, ``numbers.Real`` or
    :class:`Whole`; never a boolean) between ``left`` and ``right`` (None:
    unbounded), the ends included as ``closed`` says (``"both"``, ``"left"``,
    ``"right"`` or ``"neither"``); ``text`` says it in a message."""

    type: type
    left: float | None
    right: float | None
    closed: str
    text: str

    def holds(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.type) or not math.isfinite(value):
            return False
        above = self.left is None or (value >= self.left if self.closed in ("both", "left") else value > self.left)
        below = self.right is None or (value <= self.right if self.closed in ("both", "right") else value < self.right)
        return above and below


@dataclass(frozen=True)
class StrOptions:
    """One of ``options``; the message lists them (``'a', 'b'``) and shows the value as typed."""

    options: tuple

    @property
    def text(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.options)

    def holds(self, value) -> bool:
        return value in self.options


@dataclass(frozen=True)
class Pair:
    """A pair (tuple or list of two) whose values meet ``rules``, one each; ``text`` says it in a message."""

    rules: tuple
    text: str

    def __init__(self, first, second, text: str):
        object.__setattr__(self, "rules", (first, second))
        object.__setattr__(self, "text", text)

    def holds(self, value) -> bool:
        return isinstance(value, (tuple, list)) and len(value) == 2 and all(
            r.holds(v) for r, v in zip(self.rules, value))


POSITIVE = Interval(numbers.Real, 0, None, "neither", "a finite number > 0")


def _holds(rule, value) -> bool:
    if rule is None:
        return value is None
    if isinstance(rule, type):
        return isinstance(value, rule)
    return rule.holds(value)


def described(rule) -> str:
    """What a value meeting ``rule`` (one rule, or a tuple of rules any of which will do) is."""
    rules = [r for r in (rule if isinstance(rule, tuple) else (rule,)) if r is not None]
    return " or ".join(r.text if not isinstance(r, type) else f"a {r.__name__}" for r in rules)


def check(name: str, value, rule):
    """``value`` if it meets ``rule`` (or one rule of a tuple; a number in an
    :class:`Interval` of reals as a float, of integers as an int), else
    ParameterError: ``{name} must be {what}, got {value}``."""
    rules = rule if isinstance(rule, tuple) else (rule,)
    met = next((r for r in rules if _holds(r, value)), False)
    if met is False:
        shown = repr(value) if any(isinstance(r, StrOptions) for r in rules) else show(value)
        raise ParameterError(f"{name} must be {described(rule)}, got {shown}")
    if isinstance(met, Interval):
        return float(value) if met.type is numbers.Real else int(value)
    return value
