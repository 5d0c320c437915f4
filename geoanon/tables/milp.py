"""Liang and Yuan, Theorem 9: the optimal suppression as a mixed integer program
over row types and their suppression patterns, not over rows; with Blocki and
Williams' kernelization (Lemma 2, Algorithm 1) first for k-anonymity.

For every entry e (rows identical on the quasi-identifiers, and on the
sensitive value when a model needs it; r_e rows) and every set S of columns to
suppress, an integer x[e, S] >= 0 counts the rows of e published with the
pattern v* = e's values with S starred. Every pattern is a class (empty or
not), of size N = sum of its x; cost = sum |S| x[e, S]; sum_S x[e, S] = r_e.
Per pattern, with X_i its rows of sensitive value i and q the table's shares:

- k-anonymity: N >= k y, N <= n y, y binary;
- l-diversity (Liang-Yuan): l X_i <= N for every i;
- distinct l-diversity: z_i <= X_i, sum_i z_i >= l y, z_i binary;
- t-closeness, equal ground: u_i >= X_i - q_i N, u_i >= 0, sum_i u_i <= t N
  (the EMD is the sum of the positive parts of p - q);
- t-closeness, ordered ground: w_j >= |sum_{i <= j} (X_i - q_i N)|,
  sum_j w_j <= (m - 1) t N.

These are Theorem 9's transport constraints in closed form for the two
grounds; they hold for empty patterns too. A class whose rows agree on a
starred column is published with the value, so the released cost can only be
lower than the program's. Solved with HiGHS (highspy) under a time limit
that building counts against (:mod:`geoanon._milp`: Ctrl-C stops it at once):
the result says whether the optimum was proven, else the solver's bound. The
program's size is counted exactly before it is built, and a program too large
for ``PROGRAM_BYTES`` or too slow to build in the time is skipped. A start
solution (a grouping of the rows, completed to every auxiliary variable) can
be given; measured on Adult with l = 3, starting from the lattice heuristic's
grouping kept HiGHS at the start for 40 s where it proves the optimum in
about 30 s without one, so :func:`geoanon.suppress` solves from scratch and
keeps the better of the program's answer and the heuristic's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import numpy as np

from .._codes import combined_key
from .._milp import certified, solve_highs
from ..errors import ParameterError
from .grouping import Grouping
from .instance import Instance
from .neighborhoods import improve
from .rounding import TIGHTEN, release_from_relaxation

__all__ = ["MAX_COLUMNS", "kernelize", "optimal_suppression"]

MAX_COLUMNS = 12                   # 2^m patterns per entry
PROGRAM_BYTES = 2 * 2**30          # memory budget of a program (built, and HiGHS' copy): larger ones are skipped
BYTES_PER_NONZERO = 160            # measured: about 80 to build it and 80 in HiGHS after a few seconds
BYTES_PER_ROW_OR_COLUMN = 500      # measured on the 10^6-row k = 10 program (search tree growth not included)
BUILT_NONZEROS_PER_SECOND = 5e6    # half the rate measured (8.8 million nonzeros in 0.9 s)


@dataclass
class MilpResult:
    grouping: Grouping | None      # None when the solver found no solution in time
    objective: float | None
    bound: float                   # the solver's proven lower bound on the optimum
    optimal: bool
    status: str
    variables: int
    integer_variables: int
    constraints: int
    kernel_rows: int               # rows left to the program after kernelization
    seconds: float
    nonzeros: int
    skipped: str | None            # why the program was not solved (too large, or out of time), else None


def kernelize(inst: Instance) -> np.ndarray:
    """Blocki-Williams Algorithm 1 (Lemma 2), for k-anonymity: a type with more
    than T = 2k^2 2^m rows keeps groups of k of its own until at most T are
    left; those groups cost nothing. Returns the rows per type left."""
    k, m = inst.model.k, inst.m
    threshold = 2 * k * k * 2 ** m
    over = np.maximum(inst.type_size - threshold, 0)
    return inst.type_size - k * (-(-over // k))


def optimal_suppression(inst: Instance, *, time_limit: float = 60.0, start=None) -> MilpResult:
    """Solve Theorem 9's program for the instance's model (see the module),
    from ``start`` (a :class:`Grouping`, e.g. a heuristic's) when given, within
    ``time_limit`` seconds from the call, building included. For t-closeness
    without a start, the start is the rounded relaxation
    (:mod:`~geoanon.tables.rounding`), given a third of the time, improved by
    :func:`~geoanon.tables.neighborhoods.improve` for half of the rest. The program
    is skipped (``skipped`` says why) when its estimated memory exceeds
    ``PROGRAM_BYTES`` or building it would take more than half the time; it
    is cut when the time runs out while it is built."""
    started = time.perf_counter()
    deadline = started + time_limit
    lv, m = inst.model, inst.m
    if m > MAX_COLUMNS:
        raise ParameterError(f"Theorem 9's program has 2^m patterns per type: {m} columns are too many "
                             f"(at most {MAX_COLUMNS}); use method='lattice'")
    if lv.on_distribution:
        raise ParameterError("Theorem 9's program handles k, l, l_distinct and t; use method='lattice' or 'exact' "
                             "for entropy or recursive l-diversity, beta-likeness and delta-disclosure")
    if lv.t is not None and not isinstance(inst.ground, str):
        raise ParameterError("the program handles t-closeness on the equal and ordered grounds; "
                             "use method='exact' (small tables) or method='lattice' for a hierarchy or a matrix")
    types = inst.entries[0]
    kernel = None if lv.needs_sensitive else kernelize(inst)
    result = partial(MilpResult, grouping=None, objective=None, bound=-np.inf, optimal=False,
                     kernel_rows=int((inst.entries[2] if kernel is None else kernel[types]).sum()))
    try:
        program = _Program.build(inst, kernel, lv.t, deadline)
    except _Skip as skip:
        return result(status=skip.status, skipped=skip.reason, seconds=time.perf_counter() - started,
                      **skip.size.figures())
    counts = None if start is None else _start_counts(inst, start, types, program.n_sets, kernel)
    if counts is None and lv.t is not None:
        counts = _rounded_relaxation(inst, _share(deadline, 1 / 3))
        if counts is not None:
            counts = improve(program, counts, _share(deadline, 1 / 2))
    warm = None if counts is None else (np.arange(program.n_var), program.complete(counts))
    x_values, objective, bound, optimal, status = solve_highs(
        program.cost, program.matrix, program.lows(), program.highs(), np.concatenate(program.upper),
        program.integer, time_limit=deadline - time.perf_counter(), start=warm)
    grouping = None
    if x_values is not None:
        counts = np.rint(x_values[:program.n_x]).astype(np.int64)
        grouping = _assign_rows(inst, counts, program.pattern, program.n_sets)
        objective = float(np.dot(program.cost[:program.n_x], counts))
    # a certificate, not a status: HiGHS' dual bound (costs are whole stars) must meet the rows' cost
    optimal = grouping is not None and certified(objective, bound)
    return result(grouping=grouping, objective=objective, bound=bound, optimal=optimal, status=status,
                  skipped=None, variables=program.n_var, integer_variables=int(program.integer.sum()),
                  constraints=program.n_row, nonzeros=program.matrix.nnz, seconds=time.perf_counter() - started)


def _share(deadline: float, fraction: float) -> float:
    """The time ``fraction`` of the way from now to ``deadline``."""
    now = time.perf_counter()
    return now + (deadline - now) * fraction


def _rounded_relaxation(inst: Instance, deadline: float) -> np.ndarray | None:
    """x of a release from the relaxation with t tightened by ``TIGHTEN``,
    solved by ``deadline`` and rounded (:func:`~.rounding.release_from_relaxation`);
    None when it does not fit, runs out of time or cannot be repaired."""
    try:
        relaxed = _Program.build(inst, None, inst.model.t * (1 - TIGHTEN), deadline)
    except _Skip:
        return None
    x, *_ = solve_highs(relaxed.cost, relaxed.matrix, relaxed.lows(), relaxed.highs(),
                        np.concatenate(relaxed.upper), np.zeros(relaxed.n_var, dtype=bool),
                        time_limit=deadline - time.perf_counter())
    if x is None:
        return None
    sets = relaxed.n_sets
    counts = release_from_relaxation(inst, relaxed.pattern.reshape(-1, sets), x[:relaxed.n_x].reshape(-1, sets))
    return None if counts is None else counts.ravel().astype(float)


@dataclass(frozen=True)
class _Size:
    """A program's size, and what building it costs (estimates)."""
    variables: int
    constraints: int
    nonzeros: int
    integer_variables: int = 0

    @property
    def bytes(self) -> int:
        return BYTES_PER_NONZERO * self.nonzeros + BYTES_PER_ROW_OR_COLUMN * (self.variables + self.constraints)

    @property
    def build_seconds(self) -> float:
        return self.nonzeros / BUILT_NONZEROS_PER_SECOND

    def figures(self) -> dict:
        return {"variables": self.variables, "integer_variables": self.integer_variables,
                "constraints": self.constraints, "nonzeros": self.nonzeros}


def _estimate(inst, types, n_patterns, pairs) -> _Size:
    """The program's size, counted as :func:`optimal_suppression` builds it
    (nonzeros before duplicates add up), from ``types`` entries, the patterns
    and ``pairs`` = (number of (pattern, value) pairs, sum of their patterns' x counts)."""
    lv = inst.model
    n_x = types << inst.m
    variables, integers, constraints, nonzeros = n_x, n_x, types, n_x
    if lv.k > 1 or lv.l_distinct is not None:
        variables, integers = variables + n_patterns, integers + n_patterns
        constraints, nonzeros = constraints + 2 * n_patterns, nonzeros + 2 * (n_x + n_patterns)
    if pairs is not None:
        n_pairs, pair_terms = pairs
        if lv.l is not None:
            constraints, nonzeros = constraints + n_pairs, nonzeros + pair_terms + n_x
        if lv.l_distinct is not None:
            variables, integers = variables + n_pairs, integers + n_pairs
            constraints, nonzeros = constraints + n_pairs + n_patterns, nonzeros + n_x + 2 * n_pairs + n_patterns
        if lv.t is not None and inst.ground == "equal":
            variables += n_pairs
            constraints, nonzeros = constraints + n_pairs + n_patterns, nonzeros + pair_terms + 2 * n_x + 2 * n_pairs
        elif lv.t is not None and inst.n_values > 1:
            w = n_patterns * (inst.n_values - 1)
            variables += w
            constraints, nonzeros = constraints + 2 * w + n_patterns, nonzeros + 2 * (n_x * (inst.n_values - 1) + w) + n_x + w
    return _Size(variables=variables, constraints=constraints, nonzeros=nonzeros, integer_variables=integers)


def _check_size(size: _Size, deadline: float) -> None:
    """Raise :class:`_Skip` when a program of this size is not worth building now."""
    left = deadline - time.perf_counter()
    if size.bytes > PROGRAM_BYTES:
        raise _Skip(f"its {size.nonzeros:,} nonzeros would need about {size.bytes / 2**30:.1f} GiB, "
                    f"over the {PROGRAM_BYTES / 2**30:.0f} GiB budget", size)
    if left <= 0:
        raise _Skip("no time was left for it", size)
    if size.build_seconds > left / 2:
        raise _Skip(f"building its {size.nonzeros:,} nonzeros would take more than half of the {left:.1f} s left",
                    size)


class _OutOfTime(Exception):
    """The deadline passed while the program was being built."""


class _Skip(Exception):
    """The program is not worth building now: why, its estimated size, and the status to report."""

    def __init__(self, reason: str, size: _Size, status: str = "skipped"):
        super().__init__(reason)
        self.reason, self.size, self.status = reason, size, status


def _start_counts(inst, grouping, types, n_sets, kernel):
    """x of a start solution from a grouping of the rows: each row at its
    class's pattern (the columns its class suppresses); the kernel's rows come
    out of the unstarred counts (None if the grouping suppresses them)."""
    starred = inst.cost(grouping)[1] < 0
    S = (starred * (1 << np.arange(inst.m))[None, :]).sum(axis=1)[grouping.cls]
    counts = np.bincount(grouping.entry * n_sets + S, weights=grouping.rows,
                         minlength=types.size * n_sets).astype(np.int64).reshape(-1, n_sets)
    if kernel is not None:
        removed = inst.type_size[types] - kernel[types]
        if (counts[:, 0] < removed).any():
            return None
        counts[:, 0] -= removed
    return counts.ravel().astype(float)


class _Program:
    """Variables and sparse constraint rows of a MILP, added in vectorized
    blocks; each block first checks the deadline."""

    @classmethod
    def build(cls, inst: Instance, kernel, t, deadline) -> _Program:
        """The program of the instance's model with t-closeness level ``t``,
        over the rows ``kernel`` leaves (every row when None). Raises
        :class:`_Skip` when it is too large or the time runs out."""
        lv, m = inst.model, inst.m
        types, values, rows = inst.entries
        if kernel is not None:
            rows = kernel[types]
        n_sets = 2 ** m
        n_x = types.size * n_sets
        size = _Size(variables=n_x, constraints=types.size, nonzeros=n_x)     # x alone, before the patterns
        _check_size(size, deadline)
        try:
            program = cls(n_x, np.repeat(rows, n_sets), deadline)
            program.n_sets = n_sets
            starred = (np.arange(n_sets)[:, None] >> np.arange(m)[None, :]) & 1          # sets x columns
            # variable x[e, S] is number e * n_sets + S; its pattern: the entry's codes with S starred
            codes = np.where(starred[None, :, :] == 1, -1, inst.type_codes[types][:, None, :]).reshape(-1, m)
            pattern = program.pattern = combined_key(codes + 1)
            del codes
            program.check_time()
            n_patterns = int(pattern.max()) + 1
            sums = _PatternSums(pattern)                                                # N of each pattern
            if lv.needs_sensitive:
                V = inst.n_values
                value = np.repeat(values, n_sets)
                pairs, pair_of = np.unique(pattern * V + value, return_inverse=True)
                pair_of = program.pair_of = pair_of.ravel()
                pair_pattern = program.pair_pattern = pairs // V
                pair_value = program.pair_value = pairs % V
                program.check_time()
            _check_size(_estimate(inst, types.size, n_patterns, None if not lv.needs_sensitive else
                                  (pairs.size, int(sums.sizes[pair_pattern].sum()))), deadline)
            x = np.arange(n_x)
            program.add(np.repeat(np.arange(types.size), n_sets), x, 1.0, rows, rows)     # every row published once
            if lv.k > 1 or lv.l_distinct is not None:
                program.y = program.new(n_patterns, integer=True, high=1)
                ids = np.arange(n_patterns)
                program.add(*sums.terms(ids, 1.0), 0, np.inf, extra=(ids, program.y, -float(lv.k)))   # N - k y >= 0
                program.add(*sums.terms(ids, 1.0), -np.inf, 0,
                            extra=(ids, program.y, -float(rows.sum())))                        # N - n y <= 0
            if lv.needs_sensitive:
                ids = np.arange(pairs.size)
                if lv.l is not None:                                                    # l X_i - N <= 0
                    program.add(*sums.terms(pair_pattern, -1.0), -np.inf, 0, extra=(pair_of, x, float(lv.l)))
                if lv.l_distinct is not None:
                    program.z = program.new(pairs.size, integer=True, high=1)
                    program.add(pair_of, x, 1.0, 0, np.inf, extra=(ids, program.z, -1.0))       # X_i - z_i >= 0
                    program.add(pair_pattern, program.z, 1.0, 0, np.inf,
                                extra=(np.arange(n_patterns), program.y, -float(lv.l_distinct)))  # sum z - l y >= 0
                if t is not None and inst.ground == "equal":
                    u = program.u = program.new(pairs.size, integer=False, high=np.inf)  # u_i - X_i + q_i N >= 0
                    r, c, v = sums.terms(pair_pattern, inst.q[pair_value])
                    program.add(np.r_[r, pair_of, ids], np.r_[c, x, u],
                                np.r_[v, -np.ones(n_x), np.ones(pairs.size)], 0, np.inf)
                    program.add(*sums.terms(np.arange(n_patterns), -float(t)), -np.inf, 0,
                                extra=(pair_pattern, u, 1.0))                           # sum u - t N <= 0
                elif t is not None and V > 1:
                    cumulative = np.cumsum(inst.q)[:-1]                                 # Q_j, j = 0..V-2
                    j = np.arange(V - 1)
                    w = program.w = program.new(n_patterns * (V - 1), integer=False, high=np.inf)
                    r = program.w_row = (pattern[:, None] * (V - 1) + j[None, :]).ravel()   # row (pattern, j)
                    coef = program.w_coef = ((value[:, None] <= j[None, :]) - cumulative[None, :]).ravel()
                    cols = np.repeat(x, V - 1)                                          # cum = sum coef x
                    for sign in (1.0, -1.0):                                            # w -/+ cum >= 0
                        program.add(np.r_[r, np.arange(w.size)], np.r_[cols, w],
                                    np.r_[-sign * coef, np.ones(w.size)], 0, np.inf)
                    program.add(*sums.terms(np.arange(n_patterns), -(V - 1) * float(t)), -np.inf, 0,
                                extra=(np.repeat(np.arange(n_patterns), V - 1), w, 1.0))  # sum w - (V-1) t N <= 0
            program.finish(inst, n_patterns, starred.sum(axis=1))
        except _OutOfTime:
            raise _Skip("the time limit ran out while it was built", size, "Time limit reached") from None
        return program

    def __init__(self, n_x, x_high, deadline):
        self.n_x, self.n_var, self.n_row, self.deadline = n_x, n_x, 0, deadline
        self.y = self.z = self.u = self.w = None
        self.integrality, self.upper = [np.ones(n_x)], [np.asarray(x_high, dtype=float)]
        self._r, self._c, self._v, self._low, self._high = [], [], [], [], []

    def check_time(self):
        if time.perf_counter() >= self.deadline:
            raise _OutOfTime

    def new(self, count, *, integer, high):
        self.check_time()
        first = self.n_var
        self.n_var += count
        self.integrality.append(np.full(count, 1.0 if integer else 0.0))
        self.upper.append(np.full(count, float(high)))
        return first + np.arange(count)

    def add(self, rows, cols, vals, low, high, extra=None):
        """Rows low <= sum vals * x[cols] <= high (row ids 0..R-1 in ``rows``;
        duplicates add up); ``extra`` = (rows, cols, vals) more terms."""
        self.check_time()
        rows, cols = np.asarray(rows), np.asarray(cols)
        vals = np.broadcast_to(np.asarray(vals, dtype=float), rows.shape)
        if extra is not None:
            er, ec = np.asarray(extra[0]), np.asarray(extra[1])
            rows, cols = np.r_[rows, er], np.r_[cols, ec]
            vals = np.r_[vals, np.broadcast_to(np.asarray(extra[2], dtype=float), er.shape)]
        count = int(rows.max()) + 1
        self._r.append(rows + self.n_row)
        self._c.append(cols)
        self._v.append(vals)
        self._low.append(np.broadcast_to(np.asarray(low, dtype=float), (count,)))
        self._high.append(np.broadcast_to(np.asarray(high, dtype=float), (count,)))
        self.n_row += count

    def finish(self, inst, n_patterns, stars_per_set):
        """The objective (stars of every x), the matrix and the integrality."""
        from scipy.sparse import coo_matrix

        self.inst, self.n_patterns = inst, n_patterns
        self.cost = np.zeros(self.n_var)
        self.cost[:self.n_x] = np.tile(stars_per_set, self.n_x // stars_per_set.size)
        self.matrix = coo_matrix((self.vals(), (self.rows(), self.cols())), shape=(self.n_row, self.n_var))
        self.integer = np.concatenate(self.integrality) != 0
        self.check_time()

    def complete(self, counts: np.ndarray) -> np.ndarray:
        """Every variable's value for the x ``counts``: a start HiGHS can use as it is."""
        inst = self.inst
        out = np.zeros(self.n_var)
        out[:self.n_x] = counts
        N = np.bincount(self.pattern, weights=counts, minlength=self.n_patterns)
        if self.y is not None:
            out[self.y] = N > 0
        if inst.model.needs_sensitive:
            X = np.bincount(self.pair_of, weights=counts, minlength=self.pair_value.size)
            if self.z is not None:
                out[self.z] = X > 0
            if self.u is not None:
                out[self.u] = np.maximum(X - inst.q[self.pair_value] * N[self.pair_pattern], 0)
            if self.w is not None:
                V = inst.n_values
                out[self.w] = np.abs(np.bincount(self.w_row, weights=self.w_coef * np.repeat(counts, V - 1),
                                                 minlength=self.w.size))
        return out

    def holds(self, values: np.ndarray) -> bool:
        """Whether every constraint holds for these variable values (tolerance 1e-6)."""
        product = self.matrix @ values
        return bool((product >= self.lows() - 1e-6).all() and (product <= self.highs() + 1e-6).all())

    def rows(self):
        return np.concatenate(self._r)

    def cols(self):
        return np.concatenate(self._c)

    def vals(self):
        return np.concatenate(self._v)

    def lows(self):
        return np.concatenate(self._low)

    def highs(self):
        return np.concatenate(self._high)


class _PatternSums:
    """The terms of N_p = sum of the x of pattern p, for constraint rows that each name a pattern."""

    def __init__(self, pattern):
        self.order = np.argsort(pattern, kind="stable")
        self.sizes = np.bincount(pattern)
        self.starts = np.r_[0, np.cumsum(self.sizes)[:-1]]

    def terms(self, row_pattern, coef):
        """(rows, cols, vals): row r gets every x of pattern row_pattern[r], times coef (scalar or per row)."""
        lengths = self.sizes[row_pattern]
        rows = np.repeat(np.arange(row_pattern.size), lengths)
        offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        cols = self.order[np.repeat(self.starts[row_pattern], lengths) + offsets]
        vals = np.repeat(np.broadcast_to(np.asarray(coef, dtype=float), row_pattern.shape), lengths)
        return rows, cols, vals


def _assign_rows(inst, counts, pattern, n_sets) -> Grouping:
    """The grouping of the solution: entry e's rows go, in row order, to its
    patterns by the counts x[e, S]; rows the kernel kept aside stay in their
    type's own pattern (S empty)."""
    rows = inst.entries[2]
    per_entry = counts.reshape(-1, n_sets).copy()
    per_entry[:, 0] += rows - per_entry.sum(axis=1)                   # the kernel's groups: unstarred
    sizes = per_entry.ravel()
    start = (np.cumsum(per_entry, axis=1) - per_entry).ravel()
    return Grouping.of(np.repeat(np.arange(rows.size), n_sets), start, sizes, pattern)
