"""The shipped data sets as the tests use them: the Adult quasi-identifiers
of the suppression benchmarks, and the Adult columns published as they are.
conftest.py serves the tables themselves as fixtures (``adult_df``,
``nc_gdf``, ...)."""
from geoanon.datasets import ADULT_COLUMNS

# Adult's quasi-identifiers in the suppression tests and benchmarks (issue 12's target, bench_exact)
ADULT_QI = ["sex", "race", "marital-status", "workclass"]


def adult_keep(qi, sensitive=None):
    """Adult's columns besides ``qi`` and the sensitive one: published as they are."""
    return [c for c in ADULT_COLUMNS if c not in qi and c != sensitive]
