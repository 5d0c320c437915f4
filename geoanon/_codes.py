"""Integer codes shared by the audit and the partitioners."""
from __future__ import annotations

import numpy as np
import pandas as pd


def combined_key(codes: np.ndarray) -> np.ndarray:
    """One id per distinct row of ``codes`` (non-negative ints, rows x columns),
    in order of first appearance; one factorization per column."""
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):
        key = pd.factorize(key * (int(codes[:, j].max()) + 1) + codes[:, j])[0]
    return key


def first_appearance_ids(labels: np.ndarray) -> np.ndarray:
    """Relabel to 0..C-1 in order of first appearance."""
    return pd.factorize(np.asarray(labels))[0].astype(np.int64)


def factorize_exact(values) -> tuple[np.ndarray, pd.Index | np.ndarray]:
    """``pd.factorize`` that keeps values of different kinds apart.

    pandas hashes ``True``, ``1`` and ``1.0`` alike, so one factorization would
    make them one value, although a table publishes them as three different
    cells ("True", "1", "1.0"). Here values are equal only when they are equal
    and of one kind (bool, integer, float, complex, text, other); all missing
    values (None, NaN, NA) are one value. Codes follow first appearance;
    ``uniques`` holds each value as it first appeared.
    """
    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    if values.dtype != object or len(values) == 0:
        return codes.astype(np.int64), uniques
    kinds = pd.factorize(values.map(_kind, na_action="ignore").fillna("missing").to_numpy())[0]
    if kinds.max(initial=0) == 0:
        return codes.astype(np.int64), uniques
    key = combined_key(np.column_stack([codes, kinds]))
    first = np.unique(key, return_index=True)[1]
    return key, pd.Index(values.iloc[first].to_numpy(dtype=object), dtype=object)


def _kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    if isinstance(v, (complex, np.complexfloating)):
        return "complex"
    if isinstance(v, str):
        return "str"
    return type(v).__name__
