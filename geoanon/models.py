"""Privacy models on any grouping of a table: k-anonymity, l-diversity (two
definitions) and t-closeness with the Earth Mover's Distance; entropy and
recursive (c, l)-diversity, beta-likeness and delta-disclosure are in
:mod:`geoanon.criteria`.

- k-anonymity: every class holds >= k rows.
- l-diversity as Liang and Yuan define it (``l``): no sensitive value fills
  more than 1/l of a class, so a class's l is |M| / (count of its most frequent
  value). Distinct l-diversity (``l_distinct``): a class holds >= l distinct
  sensitive values.
- t-closeness (Li, Li and Venkatasubramanian): the EMD between a class's
  sensitive distribution and the whole table's is <= t.

Grounds of the EMD (:func:`emd`):

- ``"equal"``: every two values at distance 1; the EMD is half the L1 distance
  (Liang-Yuan Fact 1).
- ``"ordered"``: values in a given order v_1..v_m at distance |i - j| / (m - 1);
  the EMD is (1 / (m - 1)) * sum_i |sum_{j <= i} (p_j - q_j)| (one pass; the
  tutorial of Dosselmann, Sadeqi and Hamilton, Equation 2).
- a :class:`Hierarchy`: leaves at distance level(lowest common ancestor) / H;
  the EMD sums, over every inner node N, level(N) / H * min(positive extra,
  negative extra) of N's children (Li et al.).
- a matrix: any metric; the transport linear program (scipy.optimize.linprog).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ._text import plural, show
from .errors import DataError, InfeasibleError, ParameterError

from .choices import GROUNDS
from .criteria import (AGAINST_TABLE, CRITERIA, DISTRIBUTION, KEYWORDS, dense_measures, distribution_measures,
                       level_value, meets)

__all__ = ["GROUNDS", "Hierarchy", "Model", "ModelCheck", "check_levels", "emd", "emd_rows", "measure_classes",
           "one_model", "requested_model", "required_k", "sensitive_codes"]


@dataclass(frozen=True)
class Hierarchy:
    """A generalization hierarchy of the sensitive values, in ARX's layout: one
    row per leaf, its ancestors from the leaf (column 0) to the root (last).

    ``paths`` is an object array (leaves x (H + 1)); distributions given to
    :func:`emd` follow the order of its rows (``leaves``).

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> tree = ga.Hierarchy.from_frame(pd.DataFrame([["flu", "respiratory", "*"],
    ...                                              ["copd", "respiratory", "*"],
    ...                                              ["gout", "joints", "*"]]))
    >>> tree.leaves, tree.height
    (['flu', 'copd', 'gout'], 2)
    >>> tree.distance_matrix()
    array([[0. , 0.5, 1. ],
           [0.5, 0. , 1. ],
           [1. , 1. , 0. ]])

    ARX's hierarchies of the Adult data set are shipped:

    >>> ga.datasets.adult_hierarchy("race").leaves
    ['White', 'Asian-Pac-Islander', 'Amer-Indian-Eskimo', 'Other', 'Black']
    """

    paths: np.ndarray

    @classmethod
    def read_csv(cls, path, sep=";") -> "Hierarchy":
        """Read an ARX hierarchy file (no header, ``sep``-separated)."""
        try:
            frame = pd.read_csv(path, sep=sep, header=None, dtype=str, keep_default_na=False, encoding="utf-8")
        except OSError as exc:
            raise DataError(f"cannot read the hierarchy {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise DataError(f"cannot read the hierarchy {path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
                            ) from None
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise DataError(f"cannot read the hierarchy {path}: {str(exc).splitlines()[0]}") from None
        try:
            return cls.from_frame(frame)
        except DataError as exc:
            raise DataError(f"the hierarchy {path}: {exc}") from None

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> "Hierarchy":
        """A hierarchy from one row per leaf; DataError unless it is a tree
        whose every value has one place: no leaf twice, no empty value, one
        root, no value twice in a row (its own ancestor), no leaf that is
        also an inner node, no inner value under two parents."""
        paths = frame.astype(str).to_numpy(dtype=object)
        if paths.ndim != 2 or paths.shape[0] == 0 or paths.shape[1] < 2:
            raise DataError("a hierarchy needs one row per leaf and at least two levels (leaf and root)")
        if len(set(paths[:, 0])) != paths.shape[0]:
            raise DataError("a hierarchy lists a leaf twice")
        if len(set(paths[:, -1])) != 1:
            raise DataError("a hierarchy must end in one root")
        empty = np.flatnonzero((paths == "").any(axis=1))
        if empty.size:
            raise DataError(f"a hierarchy row has an empty value (the row of leaf {show(paths[empty[0], 0])}); "
                            "every row needs a value at every level")
        for row in paths:
            if len(set(row)) < row.size:
                twice = next(v for v in row if list(row).count(v) > 1)
                raise DataError(f"a hierarchy row lists {show(twice)} twice (the row of leaf {show(row[0])}): "
                                "a value cannot be its own ancestor")
        inner = set(paths[:, 1:].ravel().tolist())
        both = sorted(set(paths[:, 0].tolist()) & inner)
        if both:
            raise DataError(f"{show(both[0])} is a leaf of the hierarchy and also a node above other leaves")
        parent: dict = {}
        for row in paths:
            for node, up in zip(row[1:-1].tolist(), row[2:].tolist()):
                if parent.setdefault(node, up) != up:
                    raise DataError(f"{show(node)} has two parents in the hierarchy ({show(parent[node])} and "
                                    f"{show(up)})")
        return cls(paths)

    @property
    def leaves(self) -> list:
        return self.paths[:, 0].tolist()

    @property
    def height(self) -> int:
        return self.paths.shape[1] - 1

    @cached_property
    def parents(self) -> list[np.ndarray]:
        """For each level j = 1..H, the parent (a node of level j) of every node
        of level j - 1; nodes are identified by their path to the root."""
        out, below = [], np.arange(self.paths.shape[0])
        for j in range(1, self.height + 1):
            keys = ["\x1f".join(row) for row in self.paths[:, j:]]
            node = pd.factorize(pd.Series(keys))[0]
            parent = np.zeros(int(below.max()) + 1, dtype=np.int64)
            parent[below] = node
            out.append(parent)
            below = node
        return out

    def distance_matrix(self) -> np.ndarray:
        """level(lowest common ancestor) / H between every two leaves."""
        n, h = self.paths.shape[0], self.height
        d = np.full((n, n), float(h))
        for j in range(h - 1, 0, -1):       # leaves sharing their ancestor at level j meet at level <= j
            keys = pd.factorize(pd.Series(["\x1f".join(row) for row in self.paths[:, j:]]))[0]
            d[keys[:, None] == keys[None, :]] = j
        np.fill_diagonal(d, 0.0)
        return d / h


def check_ground(ground, n_values: int | None = None):
    """``ground`` validated: "equal", "ordered", a Hierarchy or a square matrix."""
    if isinstance(ground, Hierarchy):
        if n_values is not None and n_values != len(ground.leaves):
            raise DataError(f"the hierarchy has {len(ground.leaves)} leaves, the distributions {n_values} values")
        return ground
    if isinstance(ground, str):
        if ground not in GROUNDS:
            raise ParameterError(f"ground must be 'equal', 'ordered', a Hierarchy or a distance matrix, got {ground!r}")
        return ground
    d = np.asarray(ground, dtype=float)
    if d.ndim != 2 or d.shape[0] != d.shape[1]:
        raise ParameterError(f"a ground distance matrix must be square, got shape {d.shape}")
    if n_values is not None and d.shape[0] != n_values:
        raise DataError(f"the ground matrix is {d.shape[0]} x {d.shape[0]}, the distributions have {n_values} values")
    if not np.isfinite(d).all() or (d < 0).any() or np.any(np.diag(d) != 0) or not np.allclose(d, d.T):
        raise ParameterError("a ground distance matrix must be finite, non-negative, symmetric, zero on the diagonal")
    return d


def emd(p, q, *, ground="equal") -> float:
    """Earth Mover's Distance between two distributions over the same values.

    ``p`` and ``q`` are non-negative vectors (counts or probabilities, each
    normalized to sum 1) in the order of the ground: the value order for
    "ordered", the hierarchy's rows for a :class:`Hierarchy`, the matrix's rows.
    Or both are mappings (dicts, Series) from values to weights, a value
    missing from one weighing 0: ordered by value for "ordered" (numerically
    when they are numbers), as the hierarchy's leaves for a Hierarchy (a
    matrix ground needs vectors in its row order).

    Examples
    --------
    All of a class on the first of three values, against a table that holds
    them equally:

    >>> import pandas as pd
    >>> import geoanon as ga
    >>> round(ga.emd([1, 0, 0], [1, 1, 1]), 4)                      # every move costs 1
    0.6667
    >>> round(ga.emd([1, 0, 0], [1, 1, 1], ground="ordered"), 4)    # a move costs its distance / 2
    0.5
    >>> tree = ga.Hierarchy.from_frame(pd.DataFrame([["flu", "respiratory", "*"],
    ...                                              ["copd", "respiratory", "*"],
    ...                                              ["gout", "joints", "*"]]))
    >>> ga.emd({"flu": 1}, {"flu": 1, "copd": 1, "gout": 1}, ground=tree)   # flu to copd is cheap
    0.5
    """
    p, q = _by_value(p, q, ground)
    p, q = (np.asarray(v, dtype=float) for v in (p, q))
    if p.ndim != 1 or p.shape != q.shape or p.size == 0:
        raise DataError(f"p and q must be non-empty vectors of one length, got shapes {p.shape} and {q.shape}")
    for name, v in (("p", p), ("q", q)):
        if not np.isfinite(v).all() or (v < 0).any() or v.sum() <= 0:
            raise DataError(f"{name} must be non-negative with a positive sum")
    ground = check_ground(ground, p.size)
    return float(emd_rows(p[None, :] / p.sum(), q / q.sum(), ground)[0])


def _by_value(p, q, ground):
    """Mappings from values to weights as two vectors in the ground's order; vectors as they are."""
    from collections.abc import Mapping

    keyed = [isinstance(v, (Mapping, pd.Series)) for v in (p, q)]
    if not any(keyed):
        return p, q
    if not all(keyed):
        raise DataError("give p and q both as vectors or both as mappings from values to weights")
    p, q = dict(p.items()), dict(q.items())
    values = list(dict.fromkeys([*p, *q]))
    if isinstance(ground, Hierarchy):
        unknown = [v for v in values if str(v) not in set(ground.leaves)]
        if unknown:
            raise DataError(f"value {unknown[0]!r} is not a leaf of the hierarchy")
        p, q = ({str(v): w for v, w in d.items()} for d in (p, q))
        values = list(ground.leaves)
    elif isinstance(ground, str) and ground == "ordered":
        numbers = all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values)
        values = sorted(values) if numbers else sorted(values, key=str)
    elif not isinstance(ground, str):
        raise DataError("a matrix ground needs p and q as vectors in the order of its rows")
    return [p.get(v, 0) for v in values], [q.get(v, 0) for v in values]


def emd_rows(P: np.ndarray, q: np.ndarray, ground) -> np.ndarray:
    """EMD of every row of ``P`` (distributions) to ``q``, vectorized over rows."""
    diff = P - q[None, :]
    if isinstance(ground, str) and ground == "equal":
        return 0.5 * np.abs(diff).sum(axis=1)
    if isinstance(ground, str):
        m = q.size
        return np.abs(np.cumsum(diff, axis=1)[:, :-1]).sum(axis=1) / (m - 1) if m > 1 else np.zeros(len(P))
    if isinstance(ground, Hierarchy):
        total, extra = np.zeros(len(P)), diff
        for level, parent in enumerate(ground.parents, start=1):
            spread = np.zeros((parent.max() + 1, parent.size))
            spread[parent, np.arange(parent.size)] = 1.0
            pos, neg = np.maximum(extra, 0) @ spread.T, np.maximum(-extra, 0) @ spread.T
            total += level / ground.height * np.minimum(pos, neg).sum(axis=1)
            extra = extra @ spread.T
        return total
    return np.array([_transport(row, q, ground) for row in P])


def _transport(p, q, d) -> float:
    """The EMD as the transport linear program (Liang-Yuan Section 2.1)."""
    from scipy.optimize import linprog

    m = p.size
    rows = np.zeros((2 * m, m * m))
    for i in range(m):
        rows[i, i * m:(i + 1) * m] = 1.0          # flow out of i sums to p_i
        rows[m + i, i::m] = 1.0                   # flow into i sums to q_i
    result = linprog(d.ravel(), A_eq=rows[:-1], b_eq=np.r_[p, q][:-1], bounds=(0, None), method="highs")
    if result.status != 0:
        raise DataError(f"the transport program failed: {result.message}")
    return float(result.fun)


def measure_classes(classes: np.ndarray, sensitive: np.ndarray | None = None, n_values: int = 0, ground="equal",
                    *, weights=None, q=None, distribution=False, recursive_l=None) -> dict:
    """Per class (ids 0..G-1 in ``classes``): ``size``, and with ``sensitive``
    (value index 0..n_values-1 in the ground's order) ``l`` (|M| / count of
    the most frequent value), ``l_distinct`` and ``t`` (EMD to ``q``, by
    default the distribution of all the entries given); with
    ``distribution``, :func:`geoanon.criteria.distribution_measures` too
    (``recursive_c`` at ``recursive_l`` when given).

    Entries are rows, or (class, value) pairs carrying ``weights`` rows each.
    Vectorized over the (class, value) pairs that occur; a matrix ground solves
    one transport program per distinct class distribution.
    """
    weights = np.ones(classes.size, dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    sizes = np.bincount(classes, weights=weights).astype(np.int64)
    out = {"size": sizes}
    if sensitive is None:
        return out
    pairs, inverse = np.unique(classes.astype(np.int64) * n_values + sensitive, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=weights)
    cls, val = pairs // n_values, pairs % n_values
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
    out["l"] = sizes / np.maximum.reduceat(counts, starts)
    out["l_distinct"] = np.diff(np.r_[starts, cls.size])
    if q is None:
        q = np.bincount(sensitive, weights=weights, minlength=n_values) / weights.sum()
    share = counts / sizes[cls]
    if isinstance(ground, str) and ground == "equal":   # 1/2 (sum over present |p - q| + sum over absent q)
        t = 0.5 * (np.bincount(cls, weights=np.abs(share - q[val]) - q[val], minlength=sizes.size) + 1.0)
    elif isinstance(ground, str):
        t = _ordered_emd_entries(cls, val, share, starts, q)
    else:
        dense = np.zeros((sizes.size, n_values))
        dense[cls, val] = share
        unique, back = np.unique(dense, axis=0, return_inverse=True)
        t = emd_rows(unique, q, ground)[back.ravel()]
    out["t"] = np.clip(t, 0.0, None)
    if distribution:
        out.update(distribution_measures(cls, val, counts, sizes, starts, q, recursive_l))
    return out


def _ordered_emd_entries(cls, val, share, starts, q) -> np.ndarray:
    """Ordered-ground EMD of every class from the (class, value, share) entries
    that occur, sorted by class then value.

    Between two consecutive values a < b present in a class, the class's
    cumulative share is a constant c while the table's Q_v rises, so
    sum_{a <= v < b} |c - Q_v| follows from prefix sums of Q and one binary
    search. O(entries log m) instead of classes x m.
    """
    m = q.size
    if m == 1:
        return np.zeros(starts.size)
    Q = np.cumsum(q)[:-1]                           # Q_v for v = 0..m-2 (the EMD's terms)
    prefix = np.r_[0.0, np.cumsum(Q)]
    counts = np.diff(np.r_[starts, cls.size])
    running = np.cumsum(share)
    level = running - np.repeat(running[starts] - share[starts], counts)   # the class's cumulative share
    last = np.r_[cls[1:] != cls[:-1], True]
    end = np.where(last, m - 1, np.r_[val[1:], 0])
    split = np.clip(np.searchsorted(Q, level, side="right"), val, end)     # Q_v <= level before split
    stretch = (level * (split - val) - (prefix[split] - prefix[val])
               + (prefix[end] - prefix[split]) - level * (end - split))
    before_first = prefix[val[starts]]                                        # share 0 before the first value
    return (np.add.reduceat(stretch, starts) + before_first) / (m - 1)


def required_k(k, *levels) -> int:
    """``k``, or 1 when only levels on the sensitive column are given;
    ParameterError when none is: a release at k = 1 and nothing else
    protects no one."""
    if k is None and all(level is None for level in levels):
        raise ParameterError(f"give at least one of {', '.join(KEYWORDS)}")
    return 1 if k is None else k


def one_model(model, *, ground, **keywords) -> Model:
    """``model``, or the :class:`~geoanon.models.Model` the keywords describe
    (None: not requested); ParameterError when both are given."""
    if model is None:
        return Model(ground=ground, **keywords)
    if not isinstance(model, Model):
        raise ParameterError(f"model must be a geoanon.Model, got {type(model).__name__}")
    if any(v is not None for v in keywords.values()) or not (isinstance(ground, str) and ground == "equal"):
        raise ParameterError(f"give model= or the keywords {', '.join(KEYWORDS)}, sensitive, ground and order, not both")
    return model


def requested_model(model, **keywords) -> "Model":
    """The model a job is asked for: ``model`` (a :class:`Model` with at least
    one level; its k None counts as 1), or the one the keywords k, l,
    l_distinct, t, sensitive, ground and order describe; ParameterError when
    both or no level are given: a release at k = 1 and nothing else protects
    no one."""
    from dataclasses import replace

    if model is None:
        levels = [keywords.get(name) for name in KEYWORDS if name != "k"]
        return Model(**{**keywords, "k": required_k(keywords.get("k"), *levels)})
    model = one_model(model, **{"ground": "equal", **keywords})
    if not model.levels():
        raise ParameterError(f"the model requests no level: give at least one of {', '.join(KEYWORDS)}")
    return model if model.k is not None else replace(model, k=1)


def check_levels(**levels) -> dict:
    """The requested levels that were given, each checked against its
    criterion's rule (:data:`geoanon.criteria.CRITERIA`) and as a Model keeps
    it (:func:`~geoanon.criteria.level_value`)."""
    return {name: level_value(name, level) for name, level in levels.items() if level is not None}


@dataclass(frozen=True)
class Model:
    """A privacy requirement: what every equivalence class of a release meets.

    ``k``: every class holds >= k rows; ``l`` (Liang-Yuan): no sensitive value
    fills more than 1/l of a class; ``l_distinct``: a class holds >= l_distinct
    sensitive values; ``t``: a class's sensitive distribution lies within EMD
    t of the table's under ``ground`` (``order`` orders the values for an
    ordered or matrix ground, see :func:`geoanon.audit`). All four survive the
    union of classes, which is what lets a top-down search cut only where both
    sides still meet the model (Du et al., Theorem 2's rule). Validated on
    construction. ``k=None`` requests no k (an audit that only measures it).

    The models of :mod:`geoanon.criteria` on the sensitive column:
    ``l_entropy`` (entropy l-diversity), ``recursive`` = (c, l) (recursive
    (c, l)-diversity), ``beta`` and ``beta_enhanced`` (basic and enhanced
    beta-likeness), ``delta`` (delta-disclosure privacy).

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> model = ga.Model(k=3, l_entropy=1.8, sensitive="diagnosis")
    >>> model.levels()
    {'k': 3, 'l_entropy': 1.8}
    >>> df = pd.DataFrame({"zip": ["277**"] * 3 + ["276**"] * 3,
    ...                    "diagnosis": ["flu", "copd", "flu", "flu", "asthma", "copd"]})
    >>> report = ga.audit(df, ["zip"], model=model)
    >>> report["ok"], report["l_entropy"]
    (True, 1.889881574842)
    """

    k: int | None = 1
    l: float | None = None
    l_distinct: int | None = None
    t: float | None = None
    sensitive: str | None = None
    ground: Any = "equal"
    order: Any = None
    l_entropy: float | None = None
    recursive: tuple | None = None
    beta: float | None = None
    beta_enhanced: float | None = None
    delta: float | None = None
    alpha: float | None = None

    def __post_init__(self):
        levels = check_levels(**{name: getattr(self, name) for name in CRITERIA})
        for name in CRITERIA:
            object.__setattr__(self, name, levels.get(name))
        if self.needs_sensitive and self.sensitive is None:
            asked = [n for n in CRITERIA if n != "k" and getattr(self, n) is not None]
            raise ParameterError(f"{', '.join(asked)} (levels on a sensitive value) need a sensitive column")
        check_ground(self.ground)

    @property
    def needs_sensitive(self) -> bool:
        return any(getattr(self, name) is not None for name in CRITERIA if name != "k")

    @property
    def on_distribution(self) -> bool:
        """Whether a model of :mod:`geoanon.criteria` is requested."""
        return any(getattr(self, name) is not None for name in DISTRIBUTION)

    @property
    def recursive_l(self) -> int | None:
        return None if self.recursive is None else self.recursive[1]

    @property
    def against_table(self) -> bool:
        """Whether a requested level is measured against the table's
        distribution (t, beta, enhanced beta, delta): a shard of a larger
        table cannot check it alone."""
        return any(getattr(self, name) is not None for name in AGAINST_TABLE)

    def without_table_levels(self) -> "Model":
        """The model without the levels measured against the table's distribution."""
        from dataclasses import replace

        return replace(self, **{name: None for name in AGAINST_TABLE})

    def levels(self) -> dict:
        """The requested levels: those that are not None."""
        return {name: getattr(self, name) for name in CRITERIA if getattr(self, name) is not None}

    def as_dict(self) -> dict:
        extra = {name: list(v) if isinstance(v, tuple) else v for name in DISTRIBUTION
                 if (v := getattr(self, name)) is not None}
        return {**{name: getattr(self, name) for name in KEYWORDS}, **extra, "sensitive": self.sensitive}

    def compile(self, df: pd.DataFrame, distribution=None) -> "ModelCheck":
        """The model bound to a table's sensitive column: checks classes given
        their sensitive counts. InfeasibleError when the whole table misses it.
        ``distribution`` (value -> weight, values as text): the distribution
        t is measured against, instead of the table's (for a shard of a larger
        table; ``order`` should then list every value)."""

        n = len(df)
        if self.k > n:
            raise InfeasibleError(f"k={self.k} is larger than the table ({n} rows)")
        if not self.needs_sensitive:
            return ModelCheck(self, np.zeros(n, dtype=np.int64), 1, "equal", np.ones(1), ["*"])
        if self.sensitive not in df.columns:
            raise DataError(f"no column {self.sensitive!r} in the table")
        codes, m, ground, values = sensitive_codes(df[self.sensitive], self.ground, self.order)
        q = np.bincount(codes, minlength=m) / max(n, 1)
        if distribution is not None:
            q = np.array([float(distribution.get(str(v), 0.0)) for v in values])
            if not q.sum() > 0:
                raise DataError("the reference distribution gives no weight to the table's sensitive values")
            q = q / q.sum()
        check = ModelCheck(self, codes, m, ground, q, values)
        whole = np.bincount(codes, minlength=m)[None, :]
        if not check.holds(whole)[0]:
            raise InfeasibleError(f"no grouping meets {check.describe()}: the whole table misses it")
        return check


@dataclass(eq=False)
class ModelCheck:
    """A :class:`Model` bound to a table: each row's sensitive value code, the
    ground and the table's distribution ``q``."""

    model: Model
    codes: np.ndarray
    n_values: int
    ground: Any
    q: np.ndarray
    values: list

    def histogram(self, rows: np.ndarray) -> np.ndarray:
        """Sensitive counts of a group of rows (length ``n_values``)."""
        return np.bincount(self.codes[rows], minlength=self.n_values)

    def holds(self, hist: np.ndarray) -> np.ndarray:
        """Whether each group, given by its sensitive counts (groups x values), meets the model."""
        hist = np.asarray(hist)
        size = hist.sum(axis=1)
        m = self.model
        ok = size >= m.k
        if m.l is not None:
            ok &= hist.max(axis=1) <= (size + 1e-9) / m.l      # size >= l * max, without overflow
        if m.l_distinct is not None:
            ok &= (hist > 0).sum(axis=1) >= m.l_distinct
        if m.t is not None:
            check = np.flatnonzero(ok)
            if check.size:
                share = hist[check] / size[check, None]
                ok[check] = emd_rows(share, self.q, self.ground) <= m.t + 1e-12
        if m.on_distribution:
            check = np.flatnonzero(ok)
            if check.size:
                ok[check] = self._meets_distribution(hist[check])
        return ok

    def _meets_distribution(self, hist: np.ndarray) -> np.ndarray:
        """Whether each group meets the requested models of :mod:`geoanon.criteria`."""
        measures = dense_measures(hist, self.q, self.model.recursive_l)
        ok = np.ones(hist.shape[0], dtype=bool)
        for name in DISTRIBUTION:
            level = getattr(self.model, name)
            if level is not None:
                ok &= meets(name, measures[CRITERIA[name].measure], level)
        return ok

    def describe(self) -> str:
        return ", ".join(f"{name}={value}" for name, value in self.model.levels().items())


def sensitive_codes(values: pd.Series, ground="equal", order=None):
    """Index of every row's sensitive value in the ground's value order, the
    number of values, the checked ground and the values in that order.

    ``"equal"``: order of first appearance (irrelevant to the EMD).
    ``"ordered"``: ``order`` if given (every value must be in it), else the
    values sorted, numerically when all of them are numbers.
    A :class:`~geoanon.models.Hierarchy`: its leaves' order; every value must
    be a leaf. A matrix: ``order`` gives the values of its rows (required).
    """
    if isinstance(ground, Hierarchy):
        listed = ground.leaves
    elif order is not None:
        listed = list(order)
        if len(set(listed)) != len(listed):
            raise ParameterError("the order of the sensitive values lists a value twice")
    elif isinstance(ground, str) and ground == "ordered":
        listed = _sorted_values(values)
    elif isinstance(ground, str):
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        return codes.astype(np.int64), len(uniques), check_ground(ground), list(uniques)
    else:
        raise ParameterError("a ground matrix needs order=: the sensitive value of each of its rows")
    text = values.astype(object).where(values.notna(), None).map(lambda v: v if v is None else str(v))
    index = pd.Index([str(v) for v in listed])
    codes = index.get_indexer(text)
    if (codes < 0).any():
        bad = text[codes < 0].iloc[0]
        where = "hierarchy's leaves" if isinstance(ground, Hierarchy) else "given order"
        raise DataError(f"sensitive value {show(bad)} is not in the {where} ({plural((codes < 0).sum(), 'row')})")
    return codes.astype(np.int64), len(listed), check_ground(ground, len(listed)), listed


def _sorted_values(values: pd.Series) -> list:
    uniques = pd.unique(values.dropna())
    numbers = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce")
    if numbers.notna().all():
        listed = [uniques[i] for i in np.argsort(numbers.to_numpy(dtype=float), kind="stable")]
    else:
        listed = sorted(uniques, key=str)
    if values.isna().any():
        raise DataError("the ordered ground needs a value in every row: the sensitive column has missing values")
    return listed
