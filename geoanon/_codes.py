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
