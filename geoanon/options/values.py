"""The kinds of value an option takes, each read two ways: from command-line
text (:meth:`Kind.parse`, an ``argparse`` type) and from a job file's TOML
value (:meth:`Kind.read`). What the value must be beyond its kind (k >= 1, a
share in [0, 1)) is the option's own check (:mod:`geoanon.options.table`),
the same for the API, the command line and job files."""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .._text import show
from ..errors import ParameterError

__all__ = ["BOUNDS", "CHAR", "COLUMNS", "DATES", "FLAG", "GROUND", "HIERARCHY", "INTEGER", "KILOMETRES", "Kind",
           "NUMBER", "PATH", "RANGES", "RECURSIVE", "SEED", "SHARE", "TEXT", "VALUES", "WEIGHTS", "WIDTHS", "choice"]


@dataclass(frozen=True)
class Kind:
    """A kind of value: ``expected`` names it in errors (``"an integer"``),
    ``text`` turns command-line text into it (None: the text as it is),
    ``toml`` checks a job file's value (None when it is of the kind, else
    what was expected) and ``convert`` makes the value the API takes from it
    (a path relative to the job file's folder, a tuple from a list)."""

    expected: str
    text: Callable | None = None
    toml: Callable = lambda value: None
    convert: Callable | None = None
    relative: bool = False          # convert takes the job file's folder too

    def parse(self, text: str):
        """The value of a command-line flag's ``text`` (argparse's ``type``)."""
        if self.text is None:
            return text
        try:
            return self.text(text)
        except (TypeError, ValueError, IndexError):
            raise argparse.ArgumentTypeError(f"expected {self.expected}, got {text!r}") from None

    def read(self, value, folder: Path, where: str):
        """A job file's ``value``, checked to be of this kind; ParameterError
        naming ``where`` (the file, section and key) otherwise."""
        wrong = self.toml(value)
        if wrong is not None:
            raise ParameterError(f"{where}: expected {wrong}, got {show(value)}")
        if self.convert is None:
            return value
        return self.convert(value, folder) if self.relative else self.convert(value)


def _real(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _text(v) -> bool:
    return isinstance(v, str) and bool(v)


def _names(text: str) -> list:
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise ValueError(text)
    return names


def _char(text: str) -> str:
    if len(text) != 1:
        raise ValueError(text)
    return text


def _kilometres(text: str) -> float:
    return float(text.strip().lower().removesuffix("km").strip())


def _widths(text: str) -> tuple:
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(text)
    return tuple(_kilometres(p) for p in parts)


def _share(text: str) -> float:
    number = text.strip()
    return float(number.removesuffix("%")) / 100 if number.endswith("%") else float(number)


def _pairs(text: str) -> dict:
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if not name.strip():
            raise ValueError(text)
        out[name.strip()] = float(value)
    return out


def _recursive(text: str) -> tuple:
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(text)
    return float(parts[0]), int(parts[1])


def _seed(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be an integer >= 0, got {value}")
    return value


def _bounds(text: str) -> list:
    import math

    parts = [float(v) for v in text.split(",")]
    if len(parts) != 4:
        raise ValueError(text)
    if not all(math.isfinite(v) for v in parts):
        raise argparse.ArgumentTypeError(f"expected four finite numbers XMIN,YMIN,XMAX,YMAX, got {text!r}")
    return parts


def _relative(value, folder: Path) -> Path:
    return folder / value


def _is(test: Callable, expected: str) -> Callable:
    """A TOML check: None when ``test`` holds, else ``expected``."""
    return lambda v: None if test(v) else expected


def _column_list(v):
    if not (isinstance(v, list) and all(isinstance(c, str) and c for c in v)):
        return "a list of column names"
    return None if len(set(v)) == len(v) else "each column once"


def _pair_table(example: str) -> Callable:
    return _is(lambda v: isinstance(v, dict) and all(_real(x) for x in v.values()), example)


INTEGER = Kind("an integer", int, _is(_int, "an integer"))
NUMBER = Kind("a number", float, _is(_real, "a number"), float)
TEXT = Kind("a non-empty string", None, _is(_text, "a non-empty string"))
CHAR = Kind("one character", _char, _is(lambda v: isinstance(v, str) and len(v) == 1, "one character"))
FLAG = Kind("true or false", None, _is(lambda v: isinstance(v, bool), "true or false"))
SEED = Kind("an integer >= 0", _seed, _is(_int, "an integer"))
COLUMNS = Kind("column names separated by commas", _names, _column_list)
VALUES = Kind("values separated by commas", _names,
              _is(lambda v: isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v),
                  "a list of values"))
PATH = Kind("a non-empty string", None, _is(_text, "a non-empty string"), _relative, relative=True)
KILOMETRES = Kind("a distance in km such as 50km", _kilometres, _is(_real, "a number"), float)
SHARE = Kind("a share of the rows such as 2% or 0.02", _share, _is(_real, "a number"), float)
WEIGHTS = Kind("NAME=NUMBER pairs separated by commas", _pairs,
               _pair_table("a table of column = number, such as { location = 4, age = 1 }"),
               lambda v: {str(k): float(x) for k, x in v.items()})
RECURSIVE = Kind("C,L (a number and an integer)", _recursive,
                 _is(lambda v: isinstance(v, list) and len(v) == 2 and _real(v[0]) and _int(v[1]),
                     "[c, l] (a number and an integer)"),
                 lambda v: (float(v[0]), v[1]))
WIDTHS = Kind("MEDIAN,P90 in km such as 200,600", _widths,
              _is(lambda v: isinstance(v, list) and len(v) == 2 and all(map(_real, v)), "[median_km, p90_km]"),
              lambda v: tuple(float(x) for x in v))
BOUNDS = Kind("XMIN,YMIN,XMAX,YMAX", _bounds,
              _is(lambda v: isinstance(v, list) and len(v) == 4 and all(map(_real, v)), "[xmin, ymin, xmax, ymax]"),
              lambda v: [float(x) for x in v])


def choice(options: tuple) -> Kind:
    """One of ``options`` (the first is the default where one is used)."""
    return Kind(f"one of {', '.join(options)}", None, _is(lambda v: v in options, f"one of {', '.join(options)}"))


def _ground(value, folder: Path):
    from ..choices import GROUNDS

    return value if value in GROUNDS else folder / value


GROUND = Kind("a non-empty string", None, _is(_text, "a non-empty string"), _ground, relative=True)


@dataclass(frozen=True)
class Repeated(Kind):
    """A flag given once per column (``--hierarchy COL=FILE``), collected
    into the API's ``{column: value}``: ``item`` reads one text into a
    (column, value) pair, or None when it is malformed (then ``form`` shows
    what was expected)."""

    item: Callable = None
    form: str = ""

    def collect(self, flag: str, texts: list) -> dict:
        """``{column: value}`` of the texts given to ``flag``; ParameterError
        for a malformed text or a column given twice."""
        out = {}
        for text in texts:
            pair = self.item(text)
            if pair is None:
                raise ParameterError(f"{flag} expects {self.form}, got {text!r}")
            col, value = pair
            if col in out:
                raise ParameterError(f"{flag} {col}{'=' if '=' in self.form else ''} is given twice"
                                     + (f" ({out[col]} and {value})" if flag == "--hierarchy" else ""))
            out[col] = value
        return out


def _hierarchy_item(text: str):
    col, sep, path = text.partition("=")
    return (col, path) if sep and col and path else None


def _date_item(text: str):
    col, _, fmt = text.partition(":")
    return (col, fmt or None) if col else None


def _range_item(text: str):
    col, sep, span = text.partition("=")
    low, colon, high = span.partition(":")
    try:
        ends = tuple(float(v) if v.strip() else None for v in (low, high))
    except ValueError:
        return None
    return (col, ends) if sep and col and colon else None


def _file_table(v) -> bool:
    return isinstance(v, dict) and all(isinstance(p, str) and p for p in v.values())


def _date_table(v) -> bool:
    return (isinstance(v, list) and all(isinstance(c, str) for c in v)) or (
        isinstance(v, dict) and all(isinstance(f, str) for f in v.values()))


def _range_table(v) -> bool:
    def bound(x):
        return x is None or _real(x)

    return isinstance(v, dict) and all(isinstance(r, list) and len(r) == 2 and all(map(bound, r)) for r in v.values())


HIERARCHY = Repeated("COL=FILE", None, _is(_file_table, 'a table of column = "file"'),
                     lambda v, folder: {c: folder / p for c, p in v.items()}, relative=True,
                     item=_hierarchy_item, form="COL=FILE")
DATES = Repeated("COL[:FORMAT]", None,
                 _is(_date_table, 'a list of columns, or a table of column = format such as { visit = "%d/%m/%Y" }'),
                 lambda v: {c: None for c in v} if isinstance(v, list) else dict(v),
                 item=_date_item, form="COL or COL:FORMAT")
RANGES = Repeated("COL=LOW:HIGH", None, _is(_range_table, "a table of column = [low, high], such as { age = [0, 120] }"),
                  lambda v: {str(c): tuple(r) for c, r in v.items()},
                  item=_range_item, form="COL=LOW:HIGH such as age=0:120")
