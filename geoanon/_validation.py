"""Parameter and array validation shared by all partitioners (scikit-learn style:
check early, fail with one line that names the parameter and the value)."""
from __future__ import annotations

import numbers

import numpy as np

from ._text import plural
from .constraints import POSITIVE, StrOptions, check
from .errors import DataError, DuplicateColumnError, InfeasibleError, ParameterError


def check_k(k) -> int:
    """Return k as an int, or raise ParameterError unless it is an integer >= 1."""
    if isinstance(k, (bool, np.bool_)):
        raise ParameterError(f"k must be an integer >= 1, got {k!r}")
    if not isinstance(k, numbers.Integral):
        if not (isinstance(k, numbers.Real) and float(k).is_integer()):
            raise ParameterError(f"k must be an integer >= 1, got {k!r}")
        k = int(k)
    if k < 1:
        raise ParameterError(f"k must be an integer >= 1, got {k}")
    return int(k)


def check_positive(name: str, value) -> None:
    """ParameterError unless ``value`` is a finite number > 0 (never a boolean)."""
    check(name, value, POSITIVE)


def check_unique_columns(df, owner: str = "the table has") -> None:
    """DuplicateColumnError (a DataError and a TypeError) when ``df`` has two
    columns of one name: a job could generalize one and publish the other raw.
    ``owner`` starts the message (``"the regions have"``)."""
    columns = df.columns
    if columns.has_duplicates:
        name = columns[columns.duplicated()][0]
        raise DuplicateColumnError(f"{owner} {plural(int((columns == name).sum()), 'column')} named "
                                   f"{str(name)!r}; rename them apart")


def check_seed(seed):
    """A seed for numpy's generators: None or an integer >= 0 (ParameterError otherwise)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ParameterError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


def check_choice(name: str, value, choices) -> str:
    """Raise ParameterError unless value is one of choices."""
    return check(name, value, StrOptions(tuple(choices)))


def check_weights(weights, n: int) -> np.ndarray:
    """Return weights as an int64 array of length n (all ones when None)."""
    if weights is None:
        return np.ones(n, dtype=np.int64)
    w = np.asarray(weights)
    if w.shape != (n,):
        raise DataError(f"weights must have shape ({n},), got {w.shape}")
    if w.dtype.kind == "b" or w.dtype.kind not in "iuf":
        raise DataError(f"weights must be non-negative integers, got dtype {w.dtype}")
    if w.dtype.kind == "f":
        bad = ~np.isfinite(w) | (w != np.round(w))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(f"weights must be non-negative integers, got {w[i]!r} at position {i}")
    if n and w.min() < 0:
        i = int(np.argmin(w))
        raise DataError(f"weights must be non-negative integers, got {w[i]!r} at position {i}")
    return w.astype(np.int64)


def check_total(total: int, k: int, what: str = "the data") -> None:
    """Raise InfeasibleError when the total weight cannot fill one class of k."""
    if total < k:
        raise InfeasibleError(f"k={k} is larger than {what} (total weight {total})")


def check_scalar_columns(df, columns) -> None:
    """DataError naming the first of ``columns`` that holds lists, arrays,
    mappings or sets (a Parquet list or struct column): a quasi-identifier,
    location or sensitive value must be one value per row."""
    from ._cells import is_nested

    for col in columns:
        if col is not None and col in df.columns and is_nested(df[col]):
            raise DataError(f"column {col!r} holds lists or records (a nested column); a quasi-identifier, "
                            "location or sensitive column must hold one value per row")


def require_column(df, column: str) -> None:
    """DataError unless ``df`` has ``column``."""
    if column not in df.columns:
        raise DataError(f"no column {column!r} in the table (columns: {', '.join(map(str, df.columns[:12]))})")


def check_job_columns(df, column: str) -> None:
    """DataError unless ``df`` has the column to generalize and no ``class_id`` yet."""
    require_column(df, column)
    if "class_id" in df.columns:
        raise DataError("the output column 'class_id' already exists in the input")
