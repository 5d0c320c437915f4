"""``DataFrame.geoanon``: the table functions as methods of a DataFrame.

Registered when geoanon is imported after pandas, or on first use of any
public name (``import geoanon`` alone loads no pandas, so that the command
line starts fast)::

    import pandas as pd
    import geoanon
    release = df.geoanon.anonymize(location=("lat", "lon"), qi=["age"], k=10)
    report = release.table.geoanon.audit(["age_min", "age_max"], k=10)
"""
from __future__ import annotations

import pandas as pd

__all__ = ["GeoanonAccessor"]


@pd.api.extensions.register_dataframe_accessor("geoanon")
class GeoanonAccessor:
    """``df.geoanon.f(...)`` is ``geoanon.f(df, ...)``."""

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def anonymize(self, columns=None, model=None, **kwargs):
        """:func:`geoanon.anonymize` on this table (``columns``: a :class:`geoanon.Columns`, ``model``: a
        :class:`geoanon.Model`, or their keywords)."""
        from .pipeline import anonymize

        return anonymize(self._df, columns, model, **kwargs)

    def audit(self, qi, sensitive=None, **kwargs):
        """:func:`geoanon.audit` of this table."""
        from .audit import audit

        return audit(self._df, qi, sensitive, **kwargs)

    def suppress(self, qi, **kwargs):
        """:func:`geoanon.suppress` on this table."""
        from .pipeline import suppress

        return suppress(self._df, qi, **kwargs)

    def generalize_points(self, k, **kwargs):
        """:func:`geoanon.generalize_points` on this table (a GeoDataFrame's geometry by default)."""
        from .pipeline import generalize_points

        return generalize_points(self._df, k, **kwargs)

    def generalize_regions(self, k, **kwargs):
        """:func:`geoanon.generalize_regions` on this table."""
        from .pipeline import generalize_regions

        return generalize_regions(self._df, k, **kwargs)

    def generalize_labels(self, k, **kwargs):
        """:func:`geoanon.generalize_labels` on this table."""
        from .pipeline import generalize_labels

        return generalize_labels(self._df, k, **kwargs)
