"""The options of :func:`geoanon.anonymize` in groups, beside
:class:`geoanon.Columns` and :class:`geoanon.Model`: how the search runs
(:class:`Search`) and what it may leave out (:class:`Budgets`). Each field
is a row of :data:`~geoanon.options.table.OPTIONS`, with the row's default;
the job functions take the same options as keywords too, and
:func:`ungrouped` turns the groups into those keywords."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ..choices import TAIL_REACH, WITHHELD

__all__ = ["Budgets", "GROUPS", "Search", "ungrouped"]


@dataclass(frozen=True)
class Search:
    """How the joint search cuts and publishes the location: ``method``,
    ``extent``, ``resolution``, ``weights``, ``location_precision``,
    ``location_loss``, ``tail_reach``, ``gain_ratio``, ``max_extent_km`` and ``n_jobs`` as
    :func:`geoanon.anonymize` documents them.

    Examples
    --------
    >>> import geoanon as ga
    >>> ga.Search(method="frontier", location_precision=0.8).method
    'frontier'
    """

    method: str | None = None
    extent: str = "box"
    resolution: float | None = None
    weights: dict | None = None
    location_precision: float | None = None
    location_loss: str | None = None
    tail_reach: float | None = TAIL_REACH
    gain_ratio: bool = True
    max_extent_km: float | None = None
    n_jobs: int = 1


@dataclass(frozen=True)
class Budgets:
    """The shares of the rows a release may leave out: ``max_suppressed``
    (records published fully suppressed), ``max_withheld`` (isolated
    records published without a location) and ``max_pooled`` (records
    partitioned apart, coarse in location, chosen as ``pool_by`` says), as
    :func:`geoanon.anonymize` documents them.

    Examples
    --------
    >>> import geoanon as ga
    >>> ga.Budgets(max_suppressed=0.02).max_withheld
    0.02
    """

    max_suppressed: float | None = None
    max_withheld: float = WITHHELD
    max_pooled: float | None = None
    pool_by: str = "places"


GROUPS = {"search": Search, "budgets": Budgets}


def ungrouped(keywords: dict, **groups) -> dict:
    """``keywords`` with the fields of the ``groups`` given (``search=``,
    ``budgets=``) among them; ParameterError for a group of the wrong type
    or an option given both in its group and as a keyword."""
    from .._text import show
    from ..errors import ParameterError

    out = dict(keywords)
    for name, group in groups.items():
        if group is None:
            continue
        if not isinstance(group, GROUPS[name]):
            raise ParameterError(f"{name} must be a geoanon.{GROUPS[name].__name__}, got {show(group)}")
        fields = asdict(group)
        twice = [field for field in fields if field in keywords]
        if twice:
            raise ParameterError(f"give {twice[0]} in {name}= or as a keyword, not both")
        out.update(fields)
    return out
