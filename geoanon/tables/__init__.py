"""The suppression model for the quasi-identifiers that are neither locations
nor labels (Liang and Yuan; Blocki and Williams): classes publish a column's
value where their rows agree and ``*`` where they differ; the cost is the
number of ``*``."""
from .approx import k_lower_bound, m_approximation
from .instance import Instance, Levels, class_patterns
from .lattice import lattice
from .suppress import suppress

__all__ = ["Instance", "Levels", "class_patterns", "k_lower_bound", "lattice", "m_approximation", "suppress"]
