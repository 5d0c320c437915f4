"""The suppression model for the quasi-identifiers that are neither locations
nor labels (Liang and Yuan; Blocki and Williams): classes publish a column's
value where their rows agree and ``*`` where they differ; the cost is the
number of ``*``. Solvers only: the job (:func:`geoanon.suppress`) lives in
:mod:`geoanon.pipeline`."""
from .approx import k_lower_bound, m_approximation
from .exact import exact_small
from .hardness import (HardInstance, binary_3_anonymity_from_graph, half_anonymity_from_bisection,
                       t_closeness_from_3dm, t_closeness_from_k_anonymity, three_dm_yes_instance,
                       triangles_and_stars_graph)
from .grouping import Grouping
from .instance import Instance, class_patterns
from .lattice import lattice
from .matching import simplex_matching
from .milp import kernelize, optimal_suppression
from .solve import choose, solve

__all__ = [
    "Grouping", "HardInstance", "Instance", "binary_3_anonymity_from_graph", "class_patterns", "exact_small",
    "half_anonymity_from_bisection", "k_lower_bound", "kernelize", "lattice", "m_approximation",
    "optimal_suppression", "simplex_matching", "choose", "solve", "t_closeness_from_3dm", "t_closeness_from_k_anonymity",
    "three_dm_yes_instance", "triangles_and_stars_graph",
]
