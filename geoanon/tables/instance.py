"""A table under the suppression model, reduced to what the solvers need.

Rows agreeing on every quasi-identifier form a *type*; the solvers group
types (and, in Theorem 10's Case 2, a few rows split off a type). A class
publishes a column's value where all its rows agree and ``*`` where they
differ; its cost is its size times its number of ``*`` (Liang-Yuan Section 2).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from .._codes import combined_key
from .._text import plural, show
from ..models import sensitive_codes
from ..criteria import CRITERIA, DISTRIBUTION, meets, shortfall
from ..errors import DataError, InfeasibleError
from ..models import Model, measure_classes
from .grouping import Grouping

__all__ = ["Instance", "class_patterns", "rank_within", "value_texts"]


class Instance:
    """Row types and entries (type, sensitive value, rows) of a table under
    ``model``, with the checks the solvers share. Built from a table, which
    it can then map a :class:`~geoanon.tables.grouping.Grouping` back onto
    row by row (:meth:`row_classes`), or from counts (:meth:`from_counts`:
    the cluster engine's distributed group-by), without a row."""

    def __init__(self, df: pd.DataFrame, qi, model: Model):
        sensitive = model.sensitive
        missing = [c for c in [*qi, *([] if sensitive is None else [sensitive])] if c not in df.columns]
        if missing:
            raise DataError(f"no column {show(missing[0])} in the table")
        if not qi:
            raise DataError("no quasi-identifier columns given")
        if len(df) == 0:
            raise DataError("the table has no rows")
        factorized = [pd.factorize(df[c], use_na_sentinel=False) for c in qi]
        codes = np.column_stack([f[0] for f in factorized]).astype(np.int64)
        type_of_row, first = _types(codes)
        if model.needs_sensitive:
            s, n_values, ground, labels = sensitive_codes(df[sensitive], model.ground, model.order)
            pairs, entry_of_row = np.unique(type_of_row * n_values + s, return_inverse=True)
            types, values = pairs // n_values, pairs % n_values
        else:
            n_values, ground, labels = 0, model.ground, None
            entry_of_row, types, values = type_of_row, np.arange(first.size), None
        self._set(qi, model, codes[first], types, values, np.bincount(entry_of_row.ravel()), n_values, ground, labels,
                  [value_texts(u) for _, u in factorized])
        self.entry_of_row = entry_of_row.ravel()

    @classmethod
    def from_counts(cls, qi, model: Model, type_codes, types, values, rows, n_values=0, ground=None,
                    labels=None, texts=None) -> Instance:
        """An instance from its entries alone: ``type_codes`` (types x m, types
        numbered in order of first appearance), and per entry (sorted by type,
        then value; ``values`` None without a sensitive model) its type, value
        and rows; the sensitive values as :func:`~geoanon.models.sensitive_codes`
        numbers them (``n_values``, ``ground``, ``labels``); ``texts``, per
        column the :func:`value_texts` of its codes (for :meth:`canonical`)."""
        out = cls.__new__(cls)
        out._set(qi, model, np.asarray(type_codes, dtype=np.int64), np.asarray(types, dtype=np.int64),
                 None if values is None else np.asarray(values, dtype=np.int64), np.asarray(rows, dtype=np.int64),
                 n_values, model.ground if ground is None else ground, labels, texts)
        out.entry_of_row = None
        return out

    def _set(self, qi, model, type_codes, types, values, rows, n_values, ground, labels, texts=None):
        self.qi, self.model, self.texts = list(qi), model, texts
        self.type_codes, self.m = type_codes, type_codes.shape[1]
        self.entries = (types, values, rows)
        self.type_size = np.bincount(types, weights=rows, minlength=type_codes.shape[0]).astype(np.int64)
        self.n = int(rows.sum())
        self.n_values, self.ground, self.values = n_values, ground, labels
        self.q = None if values is None else np.bincount(values, weights=rows, minlength=n_values) / self.n
        self.origin = None         # per entry (entry of the instance it was split from, rank offset there)

    @property
    def has_sensitive(self) -> bool:
        return self.entries[1] is not None

    def row_classes(self, grouping: Grouping) -> tuple[np.ndarray, np.ndarray]:
        """The class of every row of the table the instance was built from
        (the grouping's ids) and each class's column pattern (-1: ``*``)."""
        if self.entry_of_row is None:
            raise ValueError("an instance built from counts has no rows to map a grouping onto")
        return (grouping.classes_of(self.entry_of_row, rank_within(self.entry_of_row), self.entries[2]),
                self.cost(grouping)[1])

    def canonical(self, grouping: Grouping) -> Grouping:
        """``grouping`` with its classes numbered by what they publish (per
        column the shared value's text or ``*``), then by size, then by a
        digest of their rows' values (quasi-identifiers and sensitive value,
        as text): numbers that say nothing about the rows' order, the same on
        every engine."""
        patterns = self.cost(grouping)[1]
        keys = []
        for j, texts in enumerate(self.texts):
            shown = np.where(patterns[:, j] < 0, SUPPRESSED_TEXT, np.asarray(texts, dtype=object)[patterns[:, j]])
            keys.append(pd.factorize(pd.Series(shown, dtype=object), sort=True)[0])
        types, values, _ = self.entries
        digest = _text_hash(self.texts, self.type_codes)[types]
        if values is not None:
            digest = _mix(digest, pd.util.hash_array(np.asarray(value_texts(self.values), dtype=object))[values])
        per_class = np.zeros(grouping.n_classes, dtype=np.uint64)
        np.add.at(per_class, grouping.cls, grouping.rows.astype(np.uint64) * digest[grouping.entry])
        order = np.lexsort((per_class, grouping.sizes(), *reversed(keys)))
        number = np.empty(order.size, dtype=np.int64)
        number[order] = np.arange(order.size)
        return Grouping(grouping.entry, grouping.start, grouping.rows, number[grouping.cls])

    def grouping_of(self, row_class) -> Grouping:
        """The grouping of a class per row of the table the instance was built from."""
        if self.entry_of_row is None:
            raise ValueError("an instance built from counts has no rows")
        return Grouping.from_slots(np.asarray(row_class)[np.argsort(self.entry_of_row, kind="stable")],
                                   self.entries[2])

    def passes(self, group_of_type: np.ndarray, n_groups: int) -> np.ndarray:
        """Whether each group of types (ids 0..n_groups-1; -1: not grouped) meets the model."""
        types, values, rows = self.entries
        group = group_of_type[types]
        keep = group >= 0
        return self.meets(self.measure(group[keep], None if values is None else values[keep], rows[keep]), n_groups)

    def measure(self, groups, values, rows) -> dict:
        """:func:`~geoanon.models.measure_classes` of entries (group, sensitive value, rows), against the table."""
        return measure_classes(groups, values, self.n_values, self.ground, weights=rows, q=self.q,
                               distribution=self.model.on_distribution, recursive_l=self.model.recursive_l)

    def meets(self, measures: dict, n_groups: int | None = None) -> np.ndarray:
        """The model's verdict per class from :func:`~geoanon.models.measure_classes` figures."""
        return self.shortfall(measures, n_groups) <= 0

    def shortfall(self, measures: dict, n_groups: int | None = None) -> np.ndarray:
        """Per class, how far it misses the model: the largest shortfall over the
        requested levels (:func:`geoanon.criteria.shortfall`: relative for size /
        k, l, l_distinct and l_entropy); <= 0 when it meets them."""
        pad = 0 if n_groups is None else n_groups - measures["size"].size
        out = None
        for name, level in self.model.levels().items():
            crit = CRITERIA[name]
            measure = np.r_[measures[crit.measure].astype(float), np.full(pad, 0.0 if crit.bound == "min" else np.inf)]
            short = shortfall(name, measure, level)
            out = short if out is None else np.maximum(out, short)
        return out

    def check_feasible(self) -> None:
        """InfeasibleError when even one class of the whole table misses the model."""
        lv = self.model
        if self.n < lv.k:
            raise InfeasibleError(f"k={lv.k} is larger than the table ({plural(self.n, 'row')})")
        if not self.has_sensitive:
            return
        _, values, rows = self.entries
        counts = np.bincount(values, weights=rows, minlength=self.n_values).astype(np.int64)
        if lv.l is not None and self.n / counts.max() < lv.l - 1e-12:
            top = self.values[int(np.argmax(counts))]
            raise InfeasibleError(f"no grouping reaches l={lv.l}: the sensitive value {show(top)} fills "
                                  f"{counts.max() / self.n:.1%} of the table, more than 1/l")
        distinct = int((counts > 0).sum())
        if lv.l_distinct is not None and distinct < lv.l_distinct:
            raise InfeasibleError(f"no grouping reaches l_distinct={lv.l_distinct}: the table has only "
                                  f"{plural(distinct, 'distinct sensitive value')}")
        if lv.on_distribution:
            whole = self.measure(np.zeros(values.size, dtype=np.int64), values, rows)
            for name in DISTRIBUTION:
                level = getattr(lv, name)
                if level is not None and not meets(name, whole[CRITERIA[name].measure], level)[0]:
                    raise InfeasibleError(f"no grouping reaches {name}={show(level)}: the whole table misses it")

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
        if self.has_sensitive and (lv.l is not None or lv.l_distinct is not None):
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
        other rows and pay stars. New types in the order of the old, each free
        part before its rest; :meth:`to_base` maps a grouping back."""
        if not self.has_sensitive:
            return self
        types, values, rows = self.entries
        alone = self.meets(self.measure(types, values, rows))
        cap = self.free_caps
        split = ~alone & (cap > 0)
        if not split.any():
            return self
        free = np.where(split[types], np.minimum(rows, cap[types]), rows)
        part_type = np.r_[types, types] * 2 + np.repeat([0, 1], types.size)
        part_rows = np.r_[free, rows - free]
        part_start = np.r_[np.zeros_like(free), free]
        keep = part_rows > 0
        kept_types, inverse = np.unique(part_type[keep], return_inverse=True)
        value = np.r_[values, values][keep]
        order = np.lexsort((value, inverse))
        out = Instance.from_counts(self.qi, self.model, self.type_codes[kept_types // 2], inverse[order], value[order],
                                   part_rows[keep][order], self.n_values, self.ground, self.values, self.texts)
        out.origin = (np.r_[np.arange(types.size), np.arange(types.size)][keep][order], part_start[keep][order])
        return out

    def to_base(self, grouping: Grouping) -> Grouping:
        """A grouping of this instance's entries as one of the instance it was split from."""
        if self.origin is None:
            return grouping
        entry, offset = self.origin
        return Grouping.of(entry[grouping.entry], offset[grouping.entry] + grouping.start, grouping.rows, grouping.cls)

    def cost(self, grouping: Grouping) -> tuple[int, np.ndarray]:
        """Stars of a grouping, and each class's column pattern (-1: ``*``)."""
        patterns = class_patterns(self.type_codes[self.entries[0][grouping.entry]], grouping.cls)
        stars = (patterns < 0).sum(axis=1)
        return int((grouping.sizes() * stars).sum()), patterns


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


SUPPRESSED_TEXT = "*"


def value_texts(values) -> list:
    """Each value as text, a missing one as NUL: what :meth:`Instance.canonical`
    orders and hashes (the same for a value read from CSV, Parquet or a worker)."""
    return ["\x00" if v is None or v is pd.NA or (isinstance(v, float) and v != v) else str(v) for v in values]


def _text_hash(texts: list, codes: np.ndarray) -> np.ndarray:
    """A 64-bit hash of every row of ``codes`` (types x columns) from its values' texts."""
    out = np.zeros(codes.shape[0], dtype=np.uint64)
    for j, column in enumerate(texts):
        out = _mix(out, pd.util.hash_array(np.asarray(column, dtype=object))[codes[:, j]])
    return out


def _mix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two 64-bit hashes combined (order matters), wrapping."""
    return (a * np.uint64(0x100000001B3)) ^ b


def _types(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Type id of every row (order of first appearance) and each type's first row."""
    key = combined_key(codes)
    return key, np.unique(key, return_index=True)[1]
