"""Mixed integer programs solved with HiGHS (highspy), stopped at once by
Ctrl-C and by their deadline.

HiGHS looks at its interrupt callbacks and its time limit between steps, and
on large programs some steps run for many seconds without looking (measured:
a root cut round of 18 s on Adult's l = 3 program, 312,000 nonzeros; 1.1 s
at 8,000). So a program of more than ``INLINE_NONZEROS`` nonzeros is solved
in a child process, which this process kills on KeyboardInterrupt (or any
exception) and at the deadline; the child sends every improving solution and
the rising dual bound as HiGHS finds them, so a kill keeps the best answer
found. HiGHS' own time limit ends ``STOP_MARGIN`` before the deadline (at
most a tenth of the time), so that it usually stops by itself and hands back
what a running heuristic found (measured: a sub-MIP that ran from 35 s to the
60 s limit on the 10^6-row k = 10 program returned, as it stopped, a
solution 0.2% above the bound). Smaller programs, whose steps are short, are
solved in a thread of this process (a child costs about 0.3 s to start) that
HiGHS' interrupt callback stops. Either way no solver is left running when
:func:`solve_highs` returns or raises. The child ignores SIGINT (its parent
decides) and exits when its standard input closes (its parent is gone).

HiGHS runs on one thread with a fixed seed and a relative gap of 0, so a
proven optimum is exact (the default gap of 1e-4 accepts 1 star off at
10,000) and the same on every run. An answer is called optimal only with a
certificate (:func:`certified`): HiGHS' dual bound equal to its cost, not
HiGHS' status; a time limit that stops HiGHS is reported as such.
"""
from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from .errors import InfeasibleError

INLINE_NONZEROS = 5_000      # larger programs are solved in a child process
STOP_MARGIN = 1.0            # seconds between HiGHS' own time limit and the deadline, at most
BOUND_EVERY = 0.5            # seconds between the child's reports of a rising dual bound
TIME_LIMIT_STATUS = "Time limit reached"     # the status of a solve stopped by its time limit
BOUND_TOLERANCE = 1e-6       # HiGHS' absolute gap (mip_abs_gap): a bound this close to the cost meets it


def certified(cost, bound, *, integral: bool = True) -> bool:
    """Whether the dual (lower) bound proves ``cost`` a minimum: a finite bound
    equal to the cost, up to the objective's integrality when its optimum is a
    whole number (ceil(bound - 1e-6) >= cost, as in
    :func:`geoanon.tables.milp.optimal_suppression`), else within HiGHS'
    absolute gap of 1e-6. HiGHS' status is no certificate."""
    if cost is None or bound is None or not np.isfinite(bound):
        return False
    if integral:
        return bool(np.ceil(bound - BOUND_TOLERANCE) >= cost - BOUND_TOLERANCE)
    return bool(bound >= cost - BOUND_TOLERANCE)


def no_solution(solver: str, status: str, time_limit: float) -> str:
    """Why ``solver`` has no answer: its time limit (not an infeasible request), or HiGHS' status."""
    if status == TIME_LIMIT_STATUS:
        return f"{solver} found no solution within the time limit of {max(time_limit, 0.0):.3g} s"
    return f"{solver} found no solution ({status})"


def not_proven(solver: str, status: str, time_limit: float, cost, bound) -> str:
    """Why an answer of ``solver`` is not proven optimal: its cost above the dual bound, and what stopped HiGHS."""
    why = (f"stopped at the time limit of {max(time_limit, 0.0):.3g} s" if status == TIME_LIMIT_STATUS
           else f"ended: {status}")
    return f"{solver} {why} with cost {cost:g} above its lower bound {bound:g}: not proven optimal"


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

    def solve(self, c, *, integrality, upper, time_limit: float):
        """Solve min c x over these rows, 0 <= x <= upper, with HiGHS: (x,
        objective, dual bound, status), proven optimal or not (see
        :func:`certified`); InfeasibleError when HiGHS found no solution, saying
        so when its time limit stopped it."""
        from scipy.sparse import coo_matrix

        matrix = coo_matrix((self.vals, (self.rows, self.cols)), shape=(len(self.low), len(c)))
        x, objective, bound, _, status = solve_highs(np.asarray(c, dtype=float), matrix,
                                                     np.asarray(self.low, dtype=float),
                                                     np.asarray(self.high, dtype=float),
                                                     np.asarray(upper, dtype=float), np.asarray(integrality),
                                                     time_limit=time_limit)
        if x is None:
            raise InfeasibleError(no_solution("the exact solver", status, time_limit))
        return x, objective, bound, status

    def minimize(self, c, *, integrality, upper, time_limit: float, integral: bool = False):
        """The solution vector of :meth:`solve`, or InfeasibleError unless its
        dual bound certifies it (:func:`certified`; ``integral``: the optimum
        is a whole number)."""
        x, objective, bound, status = self.solve(c, integrality=integrality, upper=upper, time_limit=time_limit)
        if not certified(objective, bound, integral=integral):
            raise InfeasibleError(not_proven("the exact solver", status, time_limit, objective, bound))
        return x


def solve_highs(c, matrix, row_low, row_high, col_high, integrality, *, time_limit: float, start=None,
                in_thread: bool = False):
    """min c x, row_low <= matrix x <= row_high, 0 <= x <= col_high, with HiGHS
    for at most ``time_limit`` seconds from now, from an optional start (index
    array, value array; HiGHS completes a partial one). Returns (x or None,
    objective or None, dual bound, HiGHS' status is optimal, status text);
    only the bound certifies an optimum (:func:`certified`). Interruptible
    at any point (see the module); ``in_thread`` keeps a large program in this
    process (for short time limits, which HiGHS' steps then keep)."""
    if not time_limit > 0:
        return None, None, -np.inf, False, TIME_LIMIT_STATUS
    deadline = time.monotonic() + time_limit
    stop_at = time.time() + time_limit - min(STOP_MARGIN, 0.1 * time_limit)     # HiGHS' own limit, wall clock
    matrix = matrix.tocsr()
    program = {
        "cost": np.asarray(c, dtype=float), "shape": matrix.shape,
        "start": matrix.indptr.astype(np.int32), "index": matrix.indices.astype(np.int32),
        "value": matrix.data.astype(float), "row_low": np.asarray(row_low, dtype=float),
        "row_high": np.asarray(row_high, dtype=float), "col_high": np.asarray(col_high, dtype=float),
        "integer": np.asarray(integrality) != 0, "solution": start, "stop_at": stop_at,
    }
    if in_thread or matrix.nnz <= INLINE_NONZEROS or not sys.executable:
        answer = _solve_in_thread(program, deadline)
    else:
        answer = _solve_in_child(program, deadline)
    return answer["x"], answer["objective"], answer["bound"], answer["optimal"], answer["status"]


def _highs(program: dict):
    """A silent, single-threaded, seeded HiGHS holding the program, with its time limit."""
    import highspy

    h = highspy.Highs()
    options = {"output_flag": False, "time_limit": max(program["stop_at"] - time.time(), 1e-3), "threads": 1,
               "random_seed": 0, "mip_rel_gap": 0.0}
    for name, value in options.items():
        h.setOptionValue(name, value)
    lp = highspy.HighsLp()                      # infinite bounds are numpy's inf, which is kHighsInf
    lp.num_row_, lp.num_col_ = program["shape"]
    lp.col_cost_ = program["cost"]
    lp.col_lower_ = np.zeros(lp.num_col_)
    lp.col_upper_ = program["col_high"]
    lp.row_lower_ = program["row_low"]
    lp.row_upper_ = program["row_high"]
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = program["start"]
    lp.a_matrix_.index_ = program["index"]
    lp.a_matrix_.value_ = program["value"]
    kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
    lp.integrality_ = [kinds[i] for i in program["integer"].tolist()]
    h.passModel(lp)
    if program["solution"] is not None:
        index, value = program["solution"]
        h.setSolution(len(index), np.asarray(index, dtype=np.int32), np.asarray(value, dtype=float))
    return h


def _answer(h) -> dict:
    """What a finished (or stopped) HiGHS holds: solution, objective, bound, status."""
    import highspy

    status = h.getModelStatus()
    info = h.getInfo()
    solution = h.getSolution()
    has_x = solution.value_valid and info.primal_solution_status == 2
    return {"x": np.asarray(solution.col_value) if has_x else None,
            "objective": float(info.objective_function_value) if has_x else None,
            "bound": float(info.mip_dual_bound), "optimal": status == highspy.HighsModelStatus.kOptimal,
            "status": h.modelStatusToString(status)}


def _solve_in_thread(program: dict, deadline: float) -> dict:
    """HiGHS in a thread of this process, cancelled at the deadline or when
    this thread is interrupted (the exception is raised once HiGHS stopped)."""
    h = _highs(program)
    h.HandleUserInterrupt = True
    stopped = False
    try:
        h.startSolve()
        while not h.wait(0.1)[0]:
            if time.monotonic() >= deadline and not stopped:
                h.cancelSolve()
                stopped = True
    except BaseException:
        h.cancelSolve()
        h.wait()
        raise
    answer = _answer(h)
    if stopped and not answer["optimal"]:
        answer["status"] = TIME_LIMIT_STATUS
    return answer


def _solve_in_child(program: dict, deadline: float) -> dict:
    """HiGHS in a child process (see the module), killed at the deadline or on
    any exception here; the last solution and bound it sent are kept."""
    root = str(Path(__file__).resolve().parent.parent)
    code = f"import sys; sys.path.insert(0, {root!r}); from geoanon._milp import _child_main; _child_main()"
    received = {"x": None, "objective": None, "bound": -np.inf, "optimal": False}
    with tempfile.TemporaryFile() as errors:
        with subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=errors) as child:
            reader = threading.Thread(target=_receive, args=(child.stdout, received), daemon=True)
            try:
                reader.start()
                pickle.dump(program, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                child.stdin.flush()
                while reader.is_alive() and time.monotonic() < deadline:
                    reader.join(min(0.1, max(deadline - time.monotonic(), 0.0)))
            except BrokenPipeError:          # the child ended early; its exit code and stderr say why
                pass
            finally:
                child.kill()
                child.wait()
                reader.join()
        if "status" not in received:
            if time.monotonic() >= deadline:
                received["status"] = TIME_LIMIT_STATUS
            else:
                errors.seek(0)
                last = (errors.read().decode(errors="replace").strip().splitlines() or [""])[-1]
                received["status"] = f"the solver process ended without an answer (exit code {child.returncode}" \
                                     f"{'; ' + last if last else ''})"
    return received


def _receive(stream, received: dict) -> None:
    """Read the child's messages (solution updates, bounds, the final answer) until it ends."""
    try:
        while True:
            received.update(pickle.load(stream))
    except (EOFError, OSError, pickle.UnpicklingError):
        return


def _child_main() -> None:
    """The child process: read the program, solve it, send updates and the answer."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    program = pickle.load(source)
    threading.Thread(target=_exit_at_eof, daemon=True).start()
    h = _highs(program)
    sent = {"bound": -np.inf, "at": time.monotonic()}

    def send(message):
        pickle.dump(message, sink, protocol=pickle.HIGHEST_PROTOCOL)
        sink.flush()

    def improving(event):
        out = event.data_out
        sent["bound"] = out.mip_dual_bound
        send({"x": np.array(out.mip_solution), "objective": float(out.objective_function_value),
              "bound": float(out.mip_dual_bound)})

    def progress(event):
        bound, now = event.data_out.mip_dual_bound, time.monotonic()
        if bound > sent["bound"] and now - sent["at"] >= BOUND_EVERY:
            sent["bound"], sent["at"] = bound, now
            send({"bound": float(bound)})

    h.cbMipImprovingSolution += improving
    h.cbMipInterrupt += progress
    h.run()
    send(_answer(h))


def _exit_at_eof() -> None:
    """End this process once the parent closes our input (it is gone or done).
    Reads the file descriptor, not ``sys.stdin``, whose lock would stall the
    interpreter's shutdown."""
    import os

    while os.read(0, 1 << 16):
        pass
    os._exit(1)
