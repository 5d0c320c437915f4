"""A label location: a label column as one dimension of nested groups of
labels, published as the groups' names
(:class:`~geoanon.pipeline.locations.groups.GroupPublisher`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...options.locations import LABEL
from .groups import GroupPublisher, group_dims
from .kind import LocationKind

__all__ = ["LabelKind"]


class LabelKind(LocationKind):
    """Labels (a missing one read as ``(missing)``), grouped in any way that
    meets the model: they have no place."""

    shape = LABEL

    def read(self, df, loc, check, options, warnings):
        values = df[loc["label"]]
        values = values.astype(object).where(values.notna(), None).map(lambda v: "(missing)" if v is None else str(v))
        leaf_codes, leaf_names = pd.factorize(values, sort=True)
        leaf_names = list(leaf_names)
        present = np.ones(len(leaf_names), dtype=bool)
        return group_dims(loc["label"], leaf_codes, leaf_names, present, check, GroupPublisher(loc["label"], None))
