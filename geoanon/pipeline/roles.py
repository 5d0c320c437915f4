"""Columns without a role: a job refuses them (the default, ``strict``), or,
when told to publish them anyway, names them in a warning and measures how
many records they single out.

Every column of a table has one role (ARX's data definition): a
quasi-identifier or location (generalized), sensitive (kept, measured),
``keep`` (published as it is, by the user's choice) or ``identifiers``
(dropped). A column given none is *undeclared*: published raw, a
``person_id`` or ``home_city`` left there would undo the whole release, so
it is refused unless ``strict=False``.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .._text import plural, show
from .._validation import require_column
from ..errors import DataError, ParameterError, UndeclaredColumnsError
from ..options.locations import LOCATIONS

__all__ = ["check_roles", "declared_table", "looks_identifying", "measure_undeclared", "no_role", "undeclared",
           "undeclared_warning"]

IDENTIFYING = {        # what a column's name suggests it holds
    "a name": r"(first|last|full|sur|given|family|middle)?_?name|surname",
    "an address": r"address|addr|street|house_?number|road",
    "a place": r"city|town|village|state|county|province|district|zip|zip_?code|post_?code|postal_?code|country",
    "coordinates": r"lat|latitude|lon|lng|long|longitude|x|y|easting|northing|coordinates?|geom|geometry",
    "a contact or an identifier": r"phone|mobile|e_?mail|ssn|social_?security|passport|ip|ip_?address|mrn|id",
}


def declared_table(df: pd.DataFrame, identifiers=None, keep=None) -> tuple[pd.DataFrame, list]:
    """``df`` without its ``identifiers`` columns, and the ``keep`` list;
    DataError for a named column the table lacks (a column named in both is
    refused with the other roles: :func:`geoanon.options.checks.check_one_role`)."""
    identifiers, keep = _names("identifiers", identifiers), _names("keep", keep)
    for name, cols in (("identifiers", identifiers), ("keep", keep)):
        absent = [c for c in cols if c not in df.columns]
        if absent:
            raise DataError(f"{name} names {show(absent[0])}, which is not a column of the table")
    return (df.drop(columns=identifiers) if identifiers else df), keep


WAYS = ("make {each} a quasi-identifier (qi), list it under keep (published as it is) or identifiers (dropped), "
        "or pass strict=False to publish it with a warning")


def undeclared(df: pd.DataFrame, roles, keep, *, strict: bool = True) -> list:
    """The columns of ``df`` with no role (not in ``roles`` nor ``keep``, not
    its geometry, which a job replaces); :class:`~geoanon.errors.UndeclaredColumnsError`
    naming them when ``strict``; DataError first for a column of ``roles`` the table lacks."""
    from .._validation import require_column

    for col in roles:              # a misspelt column is named as such, not as its neighbour without a role
        if col is not None:
            require_column(df, col)
    geometry = getattr(df, "active_geometry_name", None)
    named = {*roles, *keep, geometry, "class_id"}
    loose = [c for c in df.columns if c not in named]
    if strict and loose:
        raise UndeclaredColumnsError(no_role(loose, WAYS), loose)
    return loose


def no_role(cols: list, ways: str) -> str:
    """The refusal of ``cols``: named, then the ``ways`` to declare them
    (``{each}``: "it" for one column, "each" for several)."""
    one = len(cols) == 1
    return (f"{plural(len(cols), 'column')} {_listed(cols)} {'has' if one else 'have'} no role and would be "
            f"published as {'it is' if one else 'they are'}: " + ways.format(each="it" if one else "each"))


def singled_out(table: pd.DataFrame, columns: list, k: int) -> dict:
    """What the ``columns`` published as they are add to the classes:
    records unique, and in groups smaller than ``k``, over ``class_id`` and
    those columns together (what an attacker reads)."""
    from ..audit import class_codes

    key = class_codes(table, ["class_id", *columns])
    size = np.bincount(key)[key]
    return {"columns": list(columns), "unique_records": int((size == 1).sum()),
            "records_below_k": int((size < k).sum())}


def measure_undeclared(table: pd.DataFrame, loose: list, k: int, warnings: list) -> dict:
    """The report's ``undeclared`` entry (:func:`singled_out`; empty without
    such columns), and its warning appended to ``warnings``."""
    if not loose:
        return {}
    found = singled_out(table, loose, k)
    warnings.append(undeclared_warning(found, len(table), k))
    return {"undeclared": found}


def undeclared_warning(found: dict, rows: int, k: int) -> str:
    """The warning about columns published with no role, and what they single out."""
    cols = found["columns"]
    hints = [f"{show(c)}" + (f" (its name suggests {kind})" if (kind := looks_identifying(c)) else "") for c in cols]
    return (f"{plural(len(cols), 'column')} {', '.join(hints)} {'has' if len(cols) == 1 else 'have'} no role and "
            f"{'is' if len(cols) == 1 else 'are'} published as {'it is' if len(cols) == 1 else 'they are'}: with "
            f"{'it' if len(cols) == 1 else 'them'}, {found['unique_records']:,} of {rows:,} records are unique and "
            f"{found['records_below_k']:,} in groups below k={k}; list {'it' if len(cols) == 1 else 'them'} under "
            "identifiers (dropped) or keep (published, deliberately), or make "
            f"{'it a quasi-identifier' if len(cols) == 1 else 'them quasi-identifiers'}")


def looks_identifying(name) -> str | None:
    """What a column's name suggests it holds (see ``IDENTIFYING``), or None:
    a pattern matching the whole name or one of its words (camelCase, spaces,
    dashes and underscores separate words)."""
    words = re.sub(r"[^0-9a-z]+", "_", re.sub(r"([a-z])([A-Z])", r"\1_\2", str(name)).lower()).strip("_")
    for kind, pattern in IDENTIFYING.items():
        if re.search(rf"(^|_)(?:{pattern})($|_)", words):
            return kind
    return None


def _names(name: str, cols) -> list:
    if cols is None:
        return []
    cols = [cols] if isinstance(cols, str) else list(cols)
    if not all(isinstance(c, str) for c in cols):
        raise ParameterError(f"{name} must be column names")
    return cols


def _listed(cols: list) -> str:
    return ", ".join(show(c) for c in cols[:8]) + (f" and {len(cols) - 8} more" if len(cols) > 8 else "")


def check_roles(df, kind, loc, qi, sensitive) -> None:
    """ParameterError for a column of the location's ``loc`` of ``kind``,
    the quasi-identifiers ``qi`` or ``sensitive`` whose name is not a
    string, DataError for one ``df`` lacks, or for ``class_id`` in it (one
    role per column: the spec's
    :func:`~geoanon.options.checks.check_one_role`)."""
    for col in [*(v for key, v in loc.items() if key in LOCATIONS[kind].columns), *qi,
                *([sensitive] if sensitive is not None else [])]:
        if not isinstance(col, str):
            raise ParameterError(f"column names must be strings, got {show(col)}")
        require_column(df, col)
    if "class_id" in df.columns:
        raise DataError("the output column 'class_id' already exists in the input")
