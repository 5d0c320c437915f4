"""The roles of a table's columns, declared once (as ARX's data definition).

:class:`Columns` is what :func:`geoanon.anonymize` (in memory and on dask)
takes as ``columns=``, and what the command line's flags and a job file's
``[columns]`` section are turned into, so that the three agree: a column
named by a treatment (``interval``, ``dates``, ``hierarchies``,
``suppress``, ``sets``) is a quasi-identifier whether ``qi`` lists it or
not. The release checks the roles against the table (one role per column,
one treatment per quasi-identifier, every named column present), as
scikit-learn checks an estimator's parameters when it is fitted.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ._text import show
from .errors import ParameterError

__all__ = ["Columns", "declared", "with_sensitive"]


@dataclass(frozen=True)
class Columns:
    """Every column's role in a release.

    Parameters
    ----------
    location : optional
        ``(lat, lon)``, ``{"lat": .., "lon": ..}``, ``{"zip": .., "regions":
        .., ...}`` or ``{"label": ..}`` (see :func:`geoanon.anonymize`).
    qi : list of str
        Quasi-identifiers published the default way (numbers as intervals,
        the others suppressed).
    interval, suppress, sets : list of str
        Quasi-identifiers published as intervals, as the shared value or
        ``*``, as the set of the class's values.
    dates : list of str or dict
        Date and timestamp quasi-identifiers, or ``{col: strftime format}``.
    hierarchies : dict
        ``{col: Hierarchy}``: quasi-identifiers published as hierarchy nodes.
    sensitive : str, optional
        The sensitive column (l, t and the other levels on its values), or
        the model's (:class:`geoanon.Model`).
    identifiers : list of str
        Direct identifiers, dropped.
    keep : list of str
        Columns published as they are, deliberately.
    ranges : dict
        ``{col: (low, high)}``: the values an interval quasi-identifier can
        take (None for no bound; every value must lie inside); published ends
        never leave it. Default for a column without negative values: from 0.

    A plain string stands for a list of one column.

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> columns = ga.Columns(location=("lat", "lon"), interval="age", suppress="sex", sensitive="diagnosis")
    >>> columns.quasi_identifiers
    ['age', 'sex']
    >>> df = pd.DataFrame({"lat": [35.99, 36.01, 35.98, 36.02, 35.78, 35.80, 35.77, 35.79],
    ...                    "lon": [-78.90, -78.91, -78.93, -78.89, -78.64, -78.66, -78.62, -78.63],
    ...                    "age": [34, 38, 45, 51, 29, 33, 62, 58],
    ...                    "sex": ["F", "M", "F", "M", "F", "F", "M", "M"],
    ...                    "diagnosis": ["flu", "copd", "flu", "gout", "copd", "flu", "gout", "flu"]})
    >>> release = ga.anonymize(df, columns, k=2, l_distinct=2)
    >>> release.report["qi"], release.report["audit"]["l_distinct"]
    ({'age': 'interval', 'sex': 'suppress'}, 2)
    """

    location: object = None
    qi: tuple = ()
    interval: tuple = ()
    dates: object = ()
    hierarchies: dict = field(default_factory=dict)
    suppress: tuple = ()
    sets: tuple = ()
    sensitive: str | None = None
    identifiers: tuple = ()
    keep: tuple = ()
    ranges: dict = field(default_factory=dict)

    def __post_init__(self):
        for name in ("qi", "interval", "suppress", "sets", "identifiers", "keep"):
            object.__setattr__(self, name, _names(name, getattr(self, name)))
        if isinstance(self.dates, dict):
            object.__setattr__(self, "dates", dict(self.dates))
        else:
            object.__setattr__(self, "dates", _names("dates", self.dates))
        if self.hierarchies is None:
            object.__setattr__(self, "hierarchies", {})
        if not isinstance(self.hierarchies, dict):
            raise ParameterError(f"hierarchies must be a dict {{column: Hierarchy}}, got {show(self.hierarchies)}")
        object.__setattr__(self, "hierarchies", dict(self.hierarchies))
        object.__setattr__(self, "ranges", _ranges(self.ranges))

    @property
    def quasi_identifiers(self) -> list:
        """``qi``, then every treated column it does not list, in order."""
        out = list(self.qi)
        for name in ("interval", "dates", "hierarchies", "suppress", "sets"):
            out += [c for c in getattr(self, name) if c not in out]
        return out


def _ranges(value) -> dict:
    """``{col: (low, high)}`` checked: numbers or None, low below high."""
    import math
    from numbers import Real

    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ParameterError(f"ranges must be a dict {{column: (low, high)}}, got {show(value)}")
    out = {}
    for col, bounds in value.items():
        try:
            low, high = bounds
        except (TypeError, ValueError):
            raise ParameterError(f"ranges[{show(col)}] must be (low, high), got {show(bounds)}") from None
        ends = []
        for end, default in ((low, -math.inf), (high, math.inf)):
            if end is None:
                ends.append(default)
            elif isinstance(end, bool) or not isinstance(end, Real) or math.isnan(end):
                raise ParameterError(f"ranges[{show(col)}] must hold numbers or None, got {show(bounds)}")
            else:
                ends.append(float(end))
        if not ends[0] < ends[1]:
            raise ParameterError(f"ranges[{show(col)}] must have its low below its high, got {show(bounds)}")
        out[col] = tuple(ends)
    return out


def _names(role: str, value) -> tuple:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    try:
        return tuple(value)
    except TypeError:
        raise ParameterError(f"{role} must be a column name or a list of them, got {show(value)}") from None


def declared(columns, **keywords) -> Columns:
    """``columns`` (a :class:`Columns`), or the one the role keywords
    describe; ParameterError when both are given."""
    if columns is None:
        return Columns(**keywords)
    if not isinstance(columns, Columns):
        raise ParameterError(f"columns must be a geoanon.Columns, got {type(columns).__name__}")
    given = [name for name, value in keywords.items() if value is not None and value != () and value != []
             and value != {}]
    if given:
        raise ParameterError(f"give the columns' roles as columns= or as keywords, not both (also given: "
                             f"{', '.join(given)})")
    return columns


def with_sensitive(model, sensitive):
    """``model`` with the sensitive column of :class:`Columns` (None: none
    named there); ParameterError when the two name different columns."""
    from dataclasses import replace

    if model is None or sensitive is None or model.sensitive == sensitive:
        return model
    if model.sensitive is not None:
        raise ParameterError(f"columns names the sensitive column {show(sensitive)}, the model "
                             f"{show(model.sensitive)}")
    return replace(model, sensitive=sensitive)
