"""What a job is asked for, declared and checked once for every engine and
front end: the options' table (:mod:`~geoanon.options.table`) and its rows
(:mod:`~geoanon.options.option`), the location kinds
(:mod:`~geoanon.options.locations`), how the options' values are read
(:mod:`~geoanon.options.values`), how they bear on each other
(:mod:`~geoanon.options.checks`), the groups the job functions take them in
(:mod:`~geoanon.options.groups`) and the checked request itself
(:mod:`~geoanon.options.release`, loaded on first use: the command line builds
its parser from the table before numpy and pandas are imported)."""
from .._lazy import attribute_loader

from .groups import Budgets, Search
from .option import Option
from .table import OPTIONS

__all__ = ["Budgets", "OPTIONS", "Option", "ReleaseSpec", "Search", "options_of", "release_spec"]

__getattr__ = attribute_loader(__name__, dict.fromkeys(("ReleaseSpec", "options_of", "release_spec"), "release"),
                               globals())
