"""geoanon: make location columns safe to publish.

Generalize quasi-identifying location columns so that every equivalence class
holds at least k records, audit the result, and preview the classes on a map.

The public names are imported on first use (PEP 562), so the command line
starts, and answers Ctrl-C, before numpy and pandas are loaded.
"""
import sys
import types
from importlib import import_module

from .errors import (AuditError, ColumnWarning, DataError, DuplicateColumnError, GeoanonError, GeoanonWarning,
                     InfeasibleError, ParameterError, UndeclaredColumnsError, VerificationError)

from ._version import __version__  # noqa: F401  (geoanon.__version__)

_HOMES = {
    "AuditReport": "audit", "audit": "audit",
    "LabelPartition": "labels", "cover_labels": "labels", "three_partition_instance": "labels",
    "Partition": "partition",
    "JobReport": "pipeline", "Release": "pipeline", "generalize_labels": "pipeline",
    "generalize_points": "pipeline", "generalize_regions": "pipeline",
    "Budgets": "options.groups", "Search": "options.groups",
    "Columns": "columns", "Hierarchy": "models", "Model": "models", "emd": "models", "date_hierarchy": "dates",
    "anonymize": "pipeline", "explore": "pipeline", "information_loss": "ncp",
    "RectanglePartition": "points", "partition_points": "points",
    "GraphPartition": "regions", "graph_from_points": "regions", "graph_from_polygons": "regions",
    "graph_summary": "regions", "low_degree_spanning_tree": "regions", "partition_graph": "regions",
    "read_edge_list": "regions",
    "suppress": "pipeline",
}

__all__ = ["AuditError", "ColumnWarning", "DataError", "DuplicateColumnError", "GeoanonError", "GeoanonWarning",
           "InfeasibleError", "ParameterError", "UndeclaredColumnsError", "VerificationError", *sorted(_HOMES)]


_SUBMODULES = ("cluster", "criteria", "datasets", "dates", "jobs", "report")   # ga.datasets.adult() after import geoanon


def __getattr__(name):
    if name in _SUBMODULES:
        module = import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    if name in _HOMES:
        value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        import_module(".accessor", __name__)          # DataFrame.geoanon, now that pandas is loaded
        return value
    raise AttributeError(f"module 'geoanon' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """Importing the submodule ``geoanon.audit`` binds it as the package's
    attribute ``audit``; the public name ``audit`` is the function."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and _HOMES.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
if "pandas" in sys.modules:
    import_module(".accessor", __name__)
