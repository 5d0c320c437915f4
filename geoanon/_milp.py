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


def solve_highs(c, matrix, row_low, row_high, col_high, integrality, *, time_limit: float, start=None):
    """min c x, row_low <= matrix x <= row_high, 0 <= x <= col_high, with HiGHS
    (highspy), from an optional start (index array, value array; HiGHS completes
    a partial one). Returns (x or None, objective or None, dual bound, proven
    optimal, status text)."""
    import highspy

    matrix = matrix.tocsr()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = matrix.shape[1], matrix.shape[0]
    lp.col_cost_ = np.asarray(c, dtype=float)
    lp.col_lower_ = np.zeros(matrix.shape[1])
    lp.col_upper_ = np.where(np.isinf(col_high), highspy.kHighsInf, col_high).astype(float)
    lp.row_lower_ = np.where(np.isinf(row_low), -highspy.kHighsInf, row_low).astype(float)
    lp.row_upper_ = np.where(np.isinf(row_high), highspy.kHighsInf, row_high).astype(float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = matrix.indptr.astype(np.int32)
    lp.a_matrix_.index_ = matrix.indices.astype(np.int32)
    lp.a_matrix_.value_ = matrix.data.astype(float)
    lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                       for i in integrality]
    h.passModel(lp)
    if start is not None:
        index, value = start
        h.setSolution(len(index), np.asarray(index, dtype=np.int32), np.asarray(value, dtype=float))
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    solution = h.getSolution()
    has_x = solution.value_valid and info.primal_solution_status == 2
    x = np.asarray(solution.col_value) if has_x else None
    optimal = status == highspy.HighsModelStatus.kOptimal
    objective = float(info.objective_function_value) if has_x else None
    return x, objective, float(info.mip_dual_bound), optimal, h.modelStatusToString(status)
