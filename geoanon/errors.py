"""Typed errors. Every error a user can cause is a :class:`GeoanonError`.

The command line turns any of them into exit code 2 and one line on stderr;
anything else escaping is a bug.
"""

__all__ = ["AuditError", "ClusterError", "ColumnWarning", "DataError", "DuplicateColumnError", "GeoanonError",
           "GeoanonWarning", "InfeasibleError", "ParameterError", "UndeclaredColumnsError", "VerificationError"]


class GeoanonError(Exception):
    """Base class of the errors geoanon raises for bad input or impossible requests.

    Examples
    --------
    >>> import geoanon as ga
    >>> try:
    ...     ga.partition_points([[0, 0], [1, 1]], k=3)
    ... except ga.GeoanonError as error:
    ...     print(f"{type(error).__name__}: {error}")
    InfeasibleError: k=3 is larger than the data (total weight 2)
    """


class ParameterError(GeoanonError, ValueError):
    """A parameter is invalid (k <= 0, unknown method, bad file extension, ...).

    Examples
    --------
    >>> import geoanon as ga
    >>> ga.partition_points([[0, 0], [1, 1]], k=0)
    Traceback (most recent call last):
        ...
    geoanon.errors.ParameterError: k must be an integer >= 1, got 0
    """


class DataError(GeoanonError, ValueError):
    """The data cannot be used as given (NaN or out-of-range coordinates, missing
    column, empty or malformed file, ...).

    Examples
    --------
    >>> import geoanon as ga
    >>> ga.partition_points([[0, 0], [1, float("nan")]], k=1)
    Traceback (most recent call last):
        ...
    geoanon.errors.DataError: 1 point has NaN or infinite coordinates (first: row 1, x=1.0, y=nan)
    """


class UndeclaredColumnsError(ParameterError):
    """Columns with no role, which the release would publish as they are
    (refused by default); ``columns`` names them, so that each front end can
    say how to declare them in its own terms.

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"zip": ["27701", "27701", "27705"], "age": [30, 41, 52]})
    >>> try:
    ...     ga.suppress(df, ["zip"], k=2)
    ... except ga.UndeclaredColumnsError as error:
    ...     error.columns
    ['age']
    """

    def __init__(self, message: str, columns):
        super().__init__(message)
        self.columns = list(columns)


class DuplicateColumnError(DataError, TypeError):
    """The table has two columns of one name (a copy could be published raw).

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame([["27701", "27705"]], columns=["zip", "zip"])
    >>> ga.audit(df, ["zip"])
    Traceback (most recent call last):
        ...
    geoanon.errors.DuplicateColumnError: the table has 2 columns named 'zip'; rename them apart
    """


class InfeasibleError(GeoanonError):
    """The requested privacy level cannot be reached on this data (k larger than
    the data, a piece that can never hold k records, ...).

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> ga.audit(pd.DataFrame({"zip": ["27701", "27701", "27705"]}), ["zip"], k=4)
    Traceback (most recent call last):
        ...
    geoanon.errors.InfeasibleError: k=4 is larger than the table (3 rows)
    """


class VerificationError(GeoanonError, AssertionError):
    """A partition breaks its own rules (a class below k, overlapping rectangles, ...).

    Examples
    --------
    >>> import numpy as np
    >>> import geoanon as ga
    >>> part = ga.Partition(labels=np.array([0, 0, 1]), element_weights=np.array([1, 1, 1]), k=2,
    ...                     lower_bound=2, method="by hand")
    >>> part.verify()
    Traceback (most recent call last):
        ...
    geoanon.errors.VerificationError: 1 classes weigh less than k=2 (class 1 weighs 1)
    """


class AuditError(GeoanonError):
    """The output would violate the requested privacy model; nothing is released.

    Examples
    --------
    :func:`geoanon.audit.require`, which every job calls on its output before
    returning it:

    >>> import pandas as pd
    >>> from geoanon.audit import require
    >>> require(pd.DataFrame({"zip": ["27701", "27701", "27705"]}), ["zip"], k=2)
    Traceback (most recent call last):
        ...
    geoanon.errors.AuditError: refusing to release: 1 row in 1 class violates k=2 over columns zip
    """


class ClusterError(GeoanonError):
    """The Dask cluster lost the job (workers died more often than Dask retries,
    the scheduler went away); nothing is published."""


class GeoanonWarning(UserWarning):
    """Base class of the warnings geoanon issues with :func:`warnings.warn`
    (the same text is in a release's ``warnings`` and its report's).

    Examples
    --------
    >>> import warnings
    >>> import geoanon as ga
    >>> issubclass(ga.ColumnWarning, ga.GeoanonWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", ga.GeoanonWarning)     # a pipeline that stops on any of them
    ...     warnings.warn("a hint", ga.ColumnWarning)
    Traceback (most recent call last):
        ...
    geoanon.errors.ColumnWarning: a hint
    """


class ColumnWarning(GeoanonWarning):
    """A column is probably read other than it was meant (dates in a format
    not named, numbers with a decimal comma taken as categories, category
    codes published as intervals); the message says how to declare it.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"visit": ["04/30/2023", "05/02/2023"] * 4, "sex": list("FFMMFMFM")})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     release = ga.anonymize(df, qi=["visit", "sex"], k=2)
    >>> print(f"{caught[0].category.__name__}: {caught[0].message}")
    ColumnWarning: column 'visit' reads as dates in the format %m/%d/%Y but is published as categories (each date a value); to publish it as date intervals, give dates={'visit': '%m/%d/%Y'}
    """
