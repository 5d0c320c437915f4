"""The integer codes the audit counts classes with, and the test of a present cell."""
import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from geoanon._cells import MISSING_TOKENS, is_present
from geoanon._codes import combined_key


def _first_appearance(rows: list) -> list:
    seen: dict = {}
    return [seen.setdefault(row, len(seen)) for row in rows]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6).flatmap(lambda width: st.lists(
    st.tuples(*[st.sampled_from([0, 1, 2, 7, (1 << 31) - 1, (1 << 40) + 3]) for _ in range(width)]),
    min_size=1, max_size=40)))
def test_combined_key_numbers_distinct_rows_in_order_of_first_appearance(rows):
    """Wide codes make the packed key overflow 62 bits, so it is factorized between columns."""
    codes = np.array(rows, dtype=np.int64)
    expected = _first_appearance(rows)
    assert combined_key(codes).tolist() == expected
    assert combined_key(list(codes.T)).tolist() == expected


def test_combined_key_of_no_columns_is_one_class():
    assert combined_key(np.zeros((3, 0), dtype=np.int64)).tolist() == [0, 0, 0]


@given(st.lists(st.one_of(st.none(), st.just(float("nan")), st.sampled_from(sorted(MISSING_TOKENS)),
                          st.sampled_from([" NA ", "N/A", "x", "0", " 1"]), st.integers(-3, 3),
                          st.floats(allow_nan=False, allow_infinity=False)), max_size=30))
def test_a_cell_is_present_unless_missing_or_a_missing_marker(cells):
    s = pd.Series(cells, dtype=object)
    expected = [not (v is None or (isinstance(v, float) and np.isnan(v)) or str(v).strip().lower() in MISSING_TOKENS)
                for v in cells]
    assert is_present(s).tolist() == expected


def test_nested_cells_are_read_one_by_one():
    assert is_present(pd.Series([[1, 2], None, ["na"]], dtype=object)).tolist() == [True, False, True]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=200), st.booleans())
def test_stable_order_counts_as_argsort_sorts(keys, fractional):
    """Class ids are counted, other keys sorted: np.argsort's stable order either way."""
    from geoanon import _codes

    keys = np.array(keys, dtype=np.float64) + (0.5 if fractional else 0.0)
    before, _codes.COUNTED = _codes.COUNTED, 0
    try:
        order = _codes.stable_order(keys)
    finally:
        _codes.COUNTED = before
    assert order.tolist() == np.argsort(keys, kind="stable").tolist()
