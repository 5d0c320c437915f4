"""One dispatch table per family of solvers (issue 34, NetworkX's ALGORITHMS):
the method names a table maps are the choices the command line, the job
files and the API offer (geoanon.choices, which stays free of numpy), in the
same order, so that an unknown method's message lists them as before."""
import importlib

import networkx as nx
import pytest

import geoanon as ga
from geoanon import choices
from geoanon.errors import ParameterError
from geoanon.joint import search
from geoanon.labels import cover
from geoanon.points import partition as points
from geoanon.regions import partition as regions

solve = importlib.import_module("geoanon.tables.solve")    # the package exports the function solve

TABLES = [
    (points.ALGORITHMS, points.METHODS, choices.POINT_METHODS),
    (regions.ALGORITHMS, regions.METHODS, choices.REGION_METHODS),
    (cover.ALGORITHMS, cover.METHODS, choices.LABEL_METHODS),
    (search.ALGORITHMS, tuple(search.ALGORITHMS), choices.DESIGNS),
]


@pytest.mark.parametrize("table, checked, offered", TABLES)
def test_a_table_maps_exactly_the_methods_offered(table, checked, offered):
    assert tuple(table) == checked == offered
    assert all(callable(f) and f.__doc__ for f in table.values())


def test_the_suppression_solvers_are_the_methods_offered_but_auto():
    assert solve.METHODS == ("auto", *solve.SOLVERS) == choices.SUPPRESS_METHODS
    assert all(callable(f) and f.__doc__ for f in solve.SOLVERS.values())


def test_the_points_job_offers_the_same_methods_with_another_default():
    assert sorted(choices.POINT_JOB_METHODS) == sorted(points.ALGORITHMS)


def test_auto_chooses_a_solver_of_the_table():
    assert set(choices.SUPPRESS_METHODS[1:]) == set(solve.SOLVERS)


@pytest.mark.parametrize("call, names", [
    (lambda m: ga.partition_points([[0.0, 0.0], [1.0, 1.0]], 1, method=m), choices.POINT_METHODS),
    (lambda m: ga.cover_labels([3, 4], 2, method=m), choices.LABEL_METHODS),
    (lambda m: ga.partition_graph(nx.path_graph(3), 1, method=m), choices.REGION_METHODS),
])
@pytest.mark.parametrize("bad", ["nope", ["balanced"], None])
def test_an_unknown_or_unhashable_method_names_the_table(call, names, bad):
    options = ", ".join(repr(c) for c in names)
    with pytest.raises(ParameterError, match=f"^method must be one of {options}, got "):
        call(bad)
