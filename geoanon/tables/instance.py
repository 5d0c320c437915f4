"""A table under the suppression model, reduced to what the solvers need.

Rows agreeing on every quasi-identifier form a *type*; the solvers group
types (and, in Theorem 10's Case 2, a few rows split off a type). A class
publishes a column's value where all its rows agree and ``*`` where they
differ; its cost is its size times its number of ``*`` (Liang-Yuan Section 2).
"""
from __future__ import annotations

import copy
from functools import cached_property

import numpy as np
import pandas as pd

from .._codes import combined_key
from .._text import plural, show
from ..audit import sensitive_codes
from ..errors import DataError, InfeasibleError
from ..models import Model, measure_classes


class Instance:
    """Quasi-identifier codes (rows x m; missing values are values), row types,
    and the sensitive values, with the checks of ``model`` the solvers share."""

    def __init__(self, df: pd.DataFrame, qi, model: Model):
        sensitive = model.sensitive
        missing = [c for c in [*qi, *([] if sensitive is None else [sensitive])] if c not in df.columns]
        if missing:
            raise DataError(f"no column {show(missing[0])} in the table")
        if not qi:
            raise DataError("no quasi-identifier columns given")
        if len(df) == 0:
            raise DataError("the table has no rows")
        self.qi, self.model = list(qi), model
        self.codes = np.column_stack([pd.factorize(df[c], use_na_sentinel=False)[0] for c in self.qi]).astype(np.int64)
        self.n, self.m = self.codes.shape
        self.type_of_row, first = _types(self.codes)
        self.type_codes = self.codes[first]
        self.type_size = np.bincount(self.type_of_row)
        if model.needs_sensitive:
            s, self.n_values, self.ground, self.values = sensitive_codes(df[sensitive], model.ground, model.order)
            self.sensitive = s
            self.q = np.bincount(s, minlength=self.n_values) / self.n
        else:
            self.sensitive, self.n_values, self.ground, self.q = None, 0, model.ground, None

    @cached_property
    def entries(self):
        """(type, sensitive value, rows) triples: the rows aggregated as far as the models allow."""
        if self.sensitive is None:
            return np.arange(self.type_size.size), None, self.type_size
        pairs, inverse = np.unique(self.type_of_row * self.n_values + self.sensitive, return_inverse=True)
        return pairs // self.n_values, pairs % self.n_values, np.bincount(inverse.ravel())

    @cached_property
    def entry_of_row(self) -> np.ndarray:
        """Index of every row's entry in :attr:`entries` (entries are sorted by type, then value)."""
        types, values, _ = self.entries
        if values is None:
            return self.type_of_row
        return np.searchsorted(types * self.n_values + values, self.type_of_row * self.n_values + self.sensitive)

    def passes(self, group_of_type: np.ndarray, n_groups: int) -> np.ndarray:
        """Whether each group of types (ids 0..n_groups-1; -1: not grouped) meets the model."""
        types, values, rows = self.entries
        group = group_of_type[types]
        keep = group >= 0
        return self.meets(self.measure(group[keep], None if values is None else values[keep], rows[keep]), n_groups)

    def measure(self, groups, values, rows) -> dict:
        """:func:`~geoanon.models.measure_classes` of entries (group, sensitive value, rows), against the table."""
        return measure_classes(groups, values, self.n_values, self.ground, weights=rows, q=self.q)

    def meets(self, measures: dict, n_groups: int | None = None) -> np.ndarray:
        """The model's verdict per class from :func:`~geoanon.models.measure_classes` figures."""
        return self.shortfall(measures, n_groups) <= 0

    def shortfall(self, measures: dict, n_groups: int | None = None) -> np.ndarray:
        """Per class, how far it misses the model: the largest relative shortfall
        over the requested levels (size / k, l, l_distinct, t); <= 0 when it meets them."""
        size = measures["size"].astype(float)
        pad = 0 if n_groups is None else n_groups - size.size
        get = (lambda name, fill: np.r_[measures[name], np.full(pad, fill)])
        lv = self.model
        out = 1.0 - get("size", 0.0) / lv.k
        if lv.l is not None:
            out = np.maximum(out, 1.0 - get("l", 0.0) / lv.l - 1e-12)
        if lv.l_distinct is not None:
            out = np.maximum(out, 1.0 - get("l_distinct", 0) / lv.l_distinct)
        if lv.t is not None:
            out = np.maximum(out, get("t", np.inf) - lv.t - 1e-12)
        return out

    def check_feasible(self) -> None:
        """InfeasibleError when even one class of the whole table misses the model."""
        lv = self.model
        if self.n < lv.k:
            raise InfeasibleError(f"k={lv.k} is larger than the table ({plural(self.n, 'row')})")
        if self.sensitive is None:
            return
        counts = np.bincount(self.sensitive, minlength=self.n_values)
        if lv.l is not None and self.n / counts.max() < lv.l - 1e-12:
            top = self.values[int(np.argmax(counts))]
            raise InfeasibleError(f"no grouping reaches l={lv.l}: the sensitive value {show(top)} fills "
                                  f"{counts.max() / self.n:.1%} of the table, more than 1/l")
        distinct = int((counts > 0).sum())
        if lv.l_distinct is not None and distinct < lv.l_distinct:
            raise InfeasibleError(f"no grouping reaches l_distinct={lv.l_distinct}: the table has only "
                                  f"{plural(distinct, 'distinct sensitive value')}")

    def lower_bound(self) -> int:
        """Stars every solution pays: Theorem 10's bound for k (Liang-Yuan), and
        one per row outside the largest part of its type that could be a class
        on its own. Rows without a star are in classes inside their type, and
        the union of those meets k, l and l_distinct too, so at most that many
        of a type's rows go free: for l, the largest sub-multiset whose counts
        are capped at c with l c <= its size (the largest such c)."""
        from .approx import k_lower_bound

        bound = k_lower_bound(self.type_size, self.model.k)
        lv = self.model
        if self.sensitive is not None and (lv.l is not None or lv.l_distinct is not None):
            types, values, rows = self.entries
            alone = self.meets(self.measure(types, values, rows))    # whole types that are classes already
            capped = np.bincount(types, weights=np.minimum(rows, self.free_caps[types]), minlength=alone.size)
            free = np.where(alone, self.type_size, capped.astype(np.int64))
            bound = max(bound, int((self.type_size - free).sum()))
        return bound

    @cached_property
    def free_caps(self) -> np.ndarray:
        """Per type, the rows per sensitive value of its largest part that meets
        k, l and l_distinct alone (:func:`_free_cap`; 0: no such part). Read-only:
        copy it to change it."""
        types, _, rows = self.entries
        cap = np.zeros(self.type_size.size, dtype=np.int64)
        order = np.lexsort((-rows, types))                     # per type, counts decreasing
        counts, owner = rows[order], types[order]
        starts = np.r_[0, np.flatnonzero(np.diff(owner)) + 1, owner.size]
        for a, b in zip(starts[:-1].tolist(), starts[1:].tolist()):
            cap[owner[a]] = _free_cap(counts[a:b], self.model)
        cap.flags.writeable = False
        return cap

    def with_free_parts(self) -> Instance:
        """The same rows, each type that misses the model on its own split into
        two types of the same codes: its largest part that meets the model
        alone (the free part of :meth:`lower_bound`: at most c rows of each
        sensitive value, the type's first ones) and the rest, which must join
        other rows and pay stars."""
        if self.sensitive is None:
            return self
        types, values, rows = self.entries
        alone = self.meets(self.measure(types, values, rows))
        cap = self.free_caps
        split = ~alone & (cap > 0)
        if not split.any():
            return self
        rank = rank_within(self.type_of_row * self.n_values + self.sensitive)
        rest = split[self.type_of_row] & (rank >= cap[self.type_of_row])
        out = copy.copy(self)
        for name in ("entries", "entry_of_row", "free_caps"):
            out.__dict__.pop(name, None)
        out.type_of_row, heads = _types(np.column_stack([self.type_of_row, rest]))
        out.type_codes = self.codes[heads]
        out.type_size = np.bincount(out.type_of_row)
        return out

    def cost(self, row_class: np.ndarray) -> tuple[int, np.ndarray]:
        """Stars of a row grouping, and each class's column pattern (-1: ``*``)."""
        patterns = class_patterns(self.codes, row_class)
        stars = (patterns < 0).sum(axis=1)
        return int((np.bincount(row_class) * stars).sum()), patterns


def _free_cap(counts: np.ndarray, lv: Model) -> int:
    """The rows per sensitive value of a type's largest part that meets k, l and
    l_distinct on its own (0: none; ``counts`` decreasing): counts capped at c
    keep the most rows, and l c <= sum min(counts, c) holds for every c up to
    the largest that works."""
    if lv.l_distinct is not None and counts.size < lv.l_distinct:
        return 0
    cap = int(counts[0])
    if lv.l is not None:
        caps = np.arange(1, int(counts[0]) + 1)
        kept = np.minimum(counts[None, :], caps[:, None]).sum(axis=1)
        ok = lv.l * caps <= kept + 1e-9
        cap = int(caps[np.flatnonzero(ok)[-1]]) if ok.any() else 0
    return cap if cap and np.minimum(counts, cap).sum() >= lv.k else 0


def rank_within(key: np.ndarray) -> np.ndarray:
    """Each element's place among the elements of its key before it."""
    order = np.argsort(key, kind="stable")
    first = np.r_[0, np.flatnonzero(np.diff(key[order])) + 1]
    rank = np.empty(key.size, dtype=np.int64)
    rank[order] = np.arange(key.size) - np.repeat(first, np.diff(np.r_[first, key.size]))
    return rank


def class_patterns(codes: np.ndarray, row_class: np.ndarray) -> np.ndarray:
    """Per class (ids 0..C-1, all used) and column: the code all its rows
    share, or -1 where they differ. One sort, then min/max per class."""
    order = np.argsort(row_class, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(row_class[order]) != 0])
    sorted_codes = codes[order]
    low = np.minimum.reduceat(sorted_codes, starts, axis=0)
    high = np.maximum.reduceat(sorted_codes, starts, axis=0)
    return np.where(low == high, low, -1)


def _types(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Type id of every row (order of first appearance) and each type's first row."""
    key = combined_key(codes)
    return key, np.unique(key, return_index=True)[1]
