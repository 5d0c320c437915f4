"""The value rules on the options' rows and the model's levels
(geoanon.constraints): what each accepts, the one-line message naming the
option, and the value each gives back."""
from numbers import Integral, Real

import numpy as np
import pytest

from geoanon.constraints import Interval, Pair, StrOptions, Whole, check
from geoanon.errors import ParameterError

SHARE = Interval(Real, 0, 1, "left", "a share of the rows, 0 <= share < 1")


@pytest.mark.parametrize("value, expected", [(0, 0.0), (0.5, 0.5), (np.float64(0.25), 0.25)])
def test_an_interval_of_reals_gives_a_float(value, expected):
    out = check("max_withheld", value, SHARE)
    assert out == expected and type(out) is float


@pytest.mark.parametrize("value", [1, -0.1, float("nan"), float("inf"), True, "0.1", None])
def test_an_interval_refuses_what_lies_outside_or_is_no_number(value):
    with pytest.raises(ParameterError, match=r"^max_withheld must be a share of the rows, 0 <= share < 1, got "):
        check("max_withheld", value, SHARE)


def test_whole_numbers_and_integers():
    count = Interval(Whole, 1, None, "left", "an integer >= 1")
    assert check("k", 2.0, count) == 2 and type(check("k", 2.0, count)) is int
    with pytest.raises(ParameterError, match=r"k must be an integer >= 1, got 2\.5"):
        check("k", 2.5, count)
    with pytest.raises(ParameterError, match="seed must be an integer >= 0, got 2.0"):
        check("seed", 2.0, Interval(Integral, 0, None, "left", "an integer >= 0"))


def test_a_tuple_of_rules_takes_any_and_none_allows_none():
    processes = (Interval(Integral, 1, None, "left", "a positive integer"),
                 Interval(Integral, -1, -1, "both", "-1 (every core)"))
    assert check("n_jobs", -1, processes) == -1 and check("n_jobs", 3, processes) == 3
    with pytest.raises(ParameterError, match=r"n_jobs must be a positive integer or -1 \(every core\), got 0"):
        check("n_jobs", 0, processes)
    assert check("resolution", None, (None, Interval(Real, 0, None, "neither", "a positive number"))) is None


def test_str_options_show_the_value_as_typed():
    with pytest.raises(ParameterError, match=r"method must be one of 'joint', 'frontier', got 'Joint'"):
        check("method", "Joint", StrOptions(("joint", "frontier")))
    assert check("method", "joint", StrOptions(("joint", "frontier"))) == "joint"


def test_a_pair_checks_each_value():
    rule = Pair(Interval(Real, 0, None, "neither", "c > 0"), Interval(Whole, 1, None, "left", "l >= 1"), "a pair (c, l)")
    assert check("recursive", (2.0, 3), rule) == (2.0, 3)
    with pytest.raises(ParameterError, match=r"recursive must be a pair \(c, l\), got \(2\.0, 0\)"):
        check("recursive", (2.0, 0), rule)
