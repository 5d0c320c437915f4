"""The privacy models on a class's sensitive distribution that ARX and pycanon
measure beyond Liang-Yuan l, distinct l and t-closeness.

With p the class's share of each sensitive value and q the table's (every
value the table holds has q > 0):

- entropy l-diversity (Machanavajjhala et al. 2007, Definition 4.1): the
  class's entropy -sum p ln p is >= ln l; measured as ``l_entropy`` =
  exp(entropy), the largest l the class meets.
- recursive (c, l)-diversity (ibid., Definition 4.2): with the class's counts
  r_1 >= r_2 >= ... >= r_m, r_1 < c (r_l + ... + r_m); measured as
  ``recursive_c`` = r_1 / (r_l + ... + r_m) (inf with fewer than l values):
  the class meets (c, l) for every c above it.
- basic beta-likeness (Cao and Karras 2012, Definition 2): (p - q) / q <= beta
  for every value with p > q; measured as ``beta``, the largest (p - q) / q.
- enhanced beta-likeness (ibid., Definition 3): (p - q) / q <= min(beta,
  -ln q) for every value with p > q; measured as ``beta_enhanced``, the
  smallest such beta (``beta``), or inf when a value exceeds -ln q and no
  beta can hold.
- delta-disclosure privacy (Brickell and Shmatikov 2008, Definition 4):
  |ln(p / q)| < delta; over the values the class holds, as ARX and pycanon
  check it (natural log, as pycanon; ARX takes log base 2); measured as
  ``delta``, the largest |ln(p / q)|: the class meets every delta above it.
- (alpha, k)-anonymity (Wong et al. 2006): p <= alpha for every value;
  measured as ``alpha``, a class's largest share.

Entropy l, recursive (c, l), both beta-likeness and the classic models survive
the union of two classes that meet them (entropy is concave; the shares of a
union are a convex combination of the parts'); delta over the values held
does not (a value rare in one part becomes rarer in the union), so every
search checks each class it publishes rather than relying on unions.

pycanon reports three of these differently (bench_models.py shows each): its
entropy l is exp(entropy) truncated to an integer; its recursive c is
floor(r / sum + 1) with the counts sorted increasing (r_1 the rarest value),
and its enhanced beta is min(basic beta, -ln of the rarest table share), a
figure no threshold of Definition 3 corresponds to.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import TYPE_CHECKING

from ._text import plain
from .constraints import POSITIVE, Interval, Pair, Whole, check

if TYPE_CHECKING:
    import numpy as np

__all__ = ["AGAINST_TABLE", "CRITERIA", "Criterion", "DISTRIBUTION", "KEYWORDS", "dense_measures",
           "distribution_measures", "level_value", "meets", "shortfall"]


@dataclass(frozen=True)
class Criterion:
    """How a requested level is met: the per-class ``measure`` (a key of
    :func:`geoanon.models.measure_classes`) at least (``"min"``) or at most
    (``"max"``) the level, ``strict`` when the definition's inequality is;
    ``rule`` what a level must be (:mod:`geoanon.constraints`);
    ``distribution``: a model of this module (measured by
    :func:`distribution_measures`, asked through a Model), else one the job
    functions take as a keyword; ``against_table``: measured against the
    table's distribution q; ``label`` names its measure in summaries."""

    measure: str
    bound: str
    rule: object
    strict: bool = False
    distribution: bool = True
    against_table: bool = False
    label: str = ""

    @property
    def wording(self) -> str:
        """How a class meets a level, in words: ``"at least"``, ``"below"``."""
        return {("min", False): "at least", ("max", False): "at most", ("max", True): "below"}[self.bound, self.strict]


COUNT = Interval(Whole, 1, None, "left", "an integer >= 1")
FACTOR = Interval(Real, 1, None, "left", "a finite number >= 1")

CRITERIA = {
    "k": Criterion("size", "min", COUNT, distribution=False),
    "l": Criterion("l", "min", FACTOR, distribution=False),
    "l_distinct": Criterion("l_distinct", "min", COUNT, distribution=False),
    "t": Criterion("t", "max", Interval(Real, 0, 1, "both", "a number in [0, 1]"), distribution=False,
                   against_table=True),
    "l_entropy": Criterion("l_entropy", "min", FACTOR, label="entropy l"),
    "recursive": Criterion("recursive_c", "max", Pair(POSITIVE, COUNT, "a pair (c, l): c a number > 0, l an integer "
                                                                          ">= 1"), strict=True,
                           label="recursive c"),
    "beta": Criterion("beta", "max", POSITIVE, against_table=True, label="beta"),
    "beta_enhanced": Criterion("beta_enhanced", "max", POSITIVE, against_table=True, label="enhanced beta"),
    "delta": Criterion("delta", "max", POSITIVE, strict=True, against_table=True, label="delta"),
    "alpha": Criterion("alpha", "max", Interval(Real, 0, 1, "right", "a share in (0, 1]"), label="alpha"),
}
KEYWORDS = tuple(name for name, c in CRITERIA.items() if not c.distribution)    # k, l, l_distinct, t
DISTRIBUTION = tuple(name for name, c in CRITERIA.items() if c.distribution)
AGAINST_TABLE = tuple(name for name, c in CRITERIA.items() if c.against_table)
TOLERANCE = 1e-12


def level_value(name: str, level):
    """``level`` of criterion ``name`` checked (ParameterError) and as a Model
    keeps it: whole numbers as int, numpy scalars as Python's."""
    rule = CRITERIA[name].rule
    check(name, level, rule)
    if isinstance(rule, Pair):
        return tuple(int(v) if r.type is Whole else plain(v) for r, v in zip(rule.rules, level))
    return int(level) if rule.type is Whole else plain(level)


def threshold(name: str, level):
    """The number a class's measure is compared with (c for recursive (c, l))."""
    return level[0] if isinstance(CRITERIA[name].rule, Pair) else level


def shortfall(name: str, measure: np.ndarray, level) -> np.ndarray:
    """How far each class misses ``name`` at ``level``: <= 0 when it meets it;
    relative for the levels met from below (size, l, l_distinct, l_entropy)."""
    import numpy as np

    crit, bound = CRITERIA[name], threshold(name, level)
    measure = np.asarray(measure, dtype=float)
    if crit.bound == "min":
        return 1.0 - measure / bound - (0.0 if crit.rule.type is Whole else TOLERANCE)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isinf(measure), np.inf, measure - bound)
    return gap + TOLERANCE if crit.strict else gap - TOLERANCE


def meets(name: str, measure: np.ndarray, level) -> np.ndarray:
    """Whether each class's ``measure`` meets ``name`` at ``level``."""
    return shortfall(name, measure, level) <= 0


def distribution_measures(cls, val, counts, sizes, starts, q, recursive_l=None) -> dict:
    """Per class, entropy l, beta, enhanced beta and delta (and recursive c at
    ``recursive_l``) from the (class, value, count) entries that occur,
    sorted by class then value (``starts``: each class's first entry)."""
    import numpy as np

    share = counts / sizes[cls]
    table = q[val]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = share / table
        entropy = -np.add.reduceat(share * np.log(share), starts)
        excess = ratio - 1.0
        beyond = (excess > 0) & (excess > -np.log(table))
        delta = np.abs(np.log(ratio))
    beta = np.maximum.reduceat(excess, starts)
    out = {"l_entropy": np.exp(entropy), "beta": beta,
           "beta_enhanced": np.where(np.add.reduceat(beyond, starts) > 0, np.inf, beta),
           "delta": np.maximum.reduceat(delta, starts), "alpha": np.maximum.reduceat(share, starts)}
    if recursive_l is not None:
        out["recursive_c"] = recursive_c(cls, counts, starts, recursive_l)
    return out


def dense_measures(hist: np.ndarray, q: np.ndarray, recursive_l=None) -> dict:
    """:func:`distribution_measures` of groups given by their counts (groups x
    values); an empty group measures as missing every model."""
    import numpy as np

    hist = np.asarray(hist)
    size = hist.sum(axis=1)
    full = np.flatnonzero(size > 0)
    cls, val = np.nonzero(hist[full])
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]) if cls.size else np.zeros(0, dtype=np.int64)
    inner = distribution_measures(cls, val, hist[full][cls, val].astype(float), size[full].astype(float), starts, q,
                                  recursive_l)
    out = {}
    for name, values in inner.items():
        filled = np.full(hist.shape[0], 0.0 if _bound(name) == "min" else np.inf)
        filled[full] = values
        out[name] = filled
    return out


def _bound(measure: str) -> str:
    return next(c.bound for c in CRITERIA.values() if c.measure == measure)


def recursive_c(cls, counts, starts, l: int) -> np.ndarray:
    """Per class, r_1 / (r_l + ... + r_m) of its counts sorted decreasing; inf
    for a class with fewer than l values."""
    import numpy as np

    order = np.lexsort((-counts, cls))
    ranked = counts[order]
    rank = np.arange(ranked.size) - np.repeat(starts, np.diff(np.r_[starts, ranked.size]))
    tail = np.add.reduceat(np.where(rank >= l - 1, ranked, 0.0), starts)
    with np.errstate(divide="ignore"):
        return np.where(tail > 0, ranked[starts] / np.where(tail > 0, tail, 1.0), np.inf)
