"""What a job is asked for, declared and checked once for every engine and
front end: the options' table (:mod:`~geoanon.spec.options`), how their
values are read (:mod:`~geoanon.spec.kinds`), what they must be
(:mod:`~geoanon.spec.checks`) and the checked request itself
(:mod:`~geoanon.spec.release`)."""
from .options import OPTIONS, Option
from .release import ReleaseSpec, options_of, release_spec

__all__ = ["OPTIONS", "Option", "ReleaseSpec", "options_of", "release_spec"]
