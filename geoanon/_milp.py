"""Building mixed integer programs for scipy.optimize.milp one constraint row at a time."""
from __future__ import annotations

import numpy as np

from .errors import InfeasibleError


class ConstraintRows:
    """Sparse rows ``low <= sum(value * x[column]) <= high``, added one by one."""

    def __init__(self):
        self.rows, self.cols, self.vals, self.low, self.high = [], [], [], [], []

    def add(self, entries, low, high) -> None:
        """One row from (column, value) pairs and its bounds."""
        row = len(self.low)
        for col, val in entries:
            self.rows.append(row)
            self.cols.append(col)
            self.vals.append(val)
        self.low.append(low)
        self.high.append(high)

    def constraint(self, n_var: int):
        """The rows as a scipy LinearConstraint over ``n_var`` variables."""
        from scipy.optimize import LinearConstraint
        from scipy.sparse import coo_matrix

        matrix = coo_matrix((self.vals, (self.rows, self.cols)), shape=(len(self.low), n_var)).tocsr()
        return LinearConstraint(matrix, self.low, self.high)

    def minimize(self, c, *, integrality, upper, time_limit: float):
        """Solve min c x over these rows, 0 <= x <= upper, with HiGHS; the
        solution vector, or InfeasibleError unless an optimum was proven."""
        from scipy.optimize import Bounds, milp

        result = milp(c, constraints=self.constraint(len(c)), integrality=integrality,
                      bounds=Bounds(np.zeros(len(c)), upper), options={"time_limit": time_limit})
        if result.status != 0 or result.x is None:
            raise InfeasibleError(f"the exact solver did not prove an optimum ({result.message})")
        return result.x
