"""Integer codes shared by the audit and the partitioners."""
from __future__ import annotations

import numpy as np
import pandas as pd


def dense_unique(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of non-negative integer keys
    below ``bound``, by counting where the range is small."""
    if bound > 4 * key.size + 1024:
        return np.unique(key, return_inverse=True)
    present = np.bincount(key, minlength=bound) > 0
    index = np.cumsum(present) - 1
    return np.flatnonzero(present), index[key]


def combined_key(codes) -> np.ndarray:
    """One id per distinct row of ``codes`` (non-negative ints: rows x
    columns, or a non-empty sequence of columns), in order of first
    appearance. Columns are packed into one integer (mixed radix) while it
    fits in 62 bits, and factorized only where the next would not fit and at
    the end."""
    columns = codes.T if isinstance(codes, np.ndarray) else codes
    key = np.zeros(len(columns[0]) if len(columns) else codes.shape[0], dtype=np.int64)
    bound = 1                                   # key < bound
    for column in columns:
        column = np.asarray(column, dtype=np.int64)
        radix = int(column.max()) + 1 if len(column) else 1
        if bound * radix > 1 << 62:
            key = pd.factorize(key)[0].astype(np.int64)
            bound = int(key.max()) + 1 if key.size else 1
        key, bound = key * radix + column, bound * radix
    return pd.factorize(key)[0].astype(np.int64)


COUNTED = 100_000     # stable_order counts keys of tables at least this large


def stable_order(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of float keys: by counting
    (:func:`geoanon._counting.counting_order`) in large tables whose keys
    are whole numbers up to the table's length (class ids).

    >>> stable_order(np.array([2.0, 0.0, 2.0, 1.0])).tolist()
    [1, 3, 0, 2]
    """
    if keys.size >= COUNTED and keys.min() >= 0 and keys.max() <= keys.size:
        whole = keys.astype(np.int64)
        if (whole == keys).all():
            from ._counting import counting_order

            return counting_order(whole, int(whole.max()) + 1)
    return np.argsort(keys, kind="stable")


def first_appearance_ids(labels: np.ndarray) -> np.ndarray:
    """Relabel to 0..C-1 in order of first appearance."""
    return pd.factorize(np.asarray(labels))[0].astype(np.int64)


def factorize_exact(values) -> tuple[np.ndarray, pd.Index | np.ndarray]:
    """``pd.factorize`` that keeps values of different kinds apart.

    pandas hashes ``True``, ``1`` and ``1.0`` alike, so one factorization would
    make them one value, although a table publishes them as three different
    cells ("True", "1", "1.0"). Here values are equal only when they are equal
    and of one kind (bool, integer, float, complex, other); all missing values
    (None, NaN, NA) are one value. Codes follow first appearance; ``uniques``
    holds each value as it first appeared. Only the cells of values that can
    merge (numbers and booleans in an object column) are looked at one by one.
    Nested cells (lists, records, maps) are compared by their JSON text.
    """
    from ._cells import is_nested, nested_text

    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    if is_nested(values):
        values = nested_text(values)
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    codes = codes.astype(np.int64)
    if values.dtype != object or len(values) == 0:
        return codes, uniques
    numeric = np.flatnonzero([_kind(u) in _MERGING for u in uniques])
    if numeric.size == 0:
        return codes, uniques
    cells = np.flatnonzero(np.isin(codes, numeric))
    kinds = np.zeros(codes.size, dtype=np.int64)
    kinds[cells] = [_MERGING.index(_kind(v)) for v in values.iloc[cells].tolist()]
    if np.unique(kinds[cells]).size < 2:
        return codes, uniques
    key = combined_key(np.column_stack([codes, kinds]))
    first = np.unique(key, return_index=True)[1]
    return key, pd.Index(values.iloc[first].to_numpy(dtype=object), dtype=object)


_MERGING = ("bool", "int", "float", "complex")


def _kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float" if not pd.isna(v) else "missing"
    if isinstance(v, (complex, np.complexfloating)):
        return "complex"
    return "other"
