"""Typed errors. Every error a user can cause is a :class:`GeoanonError`.

The command line turns any of them into exit code 2 and one line on stderr;
anything else escaping is a bug.
"""

__all__ = ["AuditError", "ClusterError", "DataError", "DuplicateColumnError", "GeoanonError", "InfeasibleError",
           "ParameterError", "UndeclaredColumnsError", "VerificationError"]


class GeoanonError(Exception):
    """Base class of the errors geoanon raises for bad input or impossible requests."""


class ParameterError(GeoanonError, ValueError):
    """A parameter is invalid (k <= 0, unknown method, bad file extension, ...)."""


class DataError(GeoanonError, ValueError):
    """The data cannot be used as given (NaN or out-of-range coordinates, missing
    column, empty or malformed file, ...)."""


class UndeclaredColumnsError(ParameterError):
    """Columns with no role, which the release would publish as they are
    (refused by default); ``columns`` names them, so that each front end can
    say how to declare them in its own terms."""

    def __init__(self, message: str, columns):
        super().__init__(message)
        self.columns = list(columns)


class DuplicateColumnError(DataError, TypeError):
    """The table has two columns of one name (a copy could be published raw)."""


class InfeasibleError(GeoanonError):
    """The requested privacy level cannot be reached on this data (k larger than
    the data, a piece that can never hold k records, ...)."""


class VerificationError(GeoanonError, AssertionError):
    """A partition breaks its own rules (a class below k, overlapping rectangles, ...)."""


class AuditError(GeoanonError):
    """The output would violate the requested privacy model; nothing is released."""


class ClusterError(GeoanonError):
    """The Dask cluster lost the job (workers died more often than Dask retries,
    the scheduler went away); nothing is published."""
