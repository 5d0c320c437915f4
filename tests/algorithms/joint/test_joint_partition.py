"""JointPartition.verify: every row in one class, every class within the
model, every class publishing its location class's location."""
from dataclasses import replace

import numpy as np
import pytest
from test_joint_batch import _problem, _table

from geoanon.errors import VerificationError
from geoanon.joint import search
from geoanon.joint.outliers import with_suppressed_class


@pytest.mark.parametrize("design", list(search.ALGORITHMS))
@pytest.mark.parametrize("model", ["k", "l"])
def test_every_design_gives_a_partition_that_verifies(design, model):
    problem = _problem(_table(300, 3), 3, model, "box")
    part = search.joint_partition(problem, design)
    assert part.verify(problem) is part
    assert part.shared_location == (design != "joint")


def test_a_partition_of_some_rows_with_a_suppressed_class_verifies():
    problem = _problem(_table(300, 4), 4, "k", "box")
    rows = np.arange(300)
    part = search.joint_partition(problem, "frontier", rows=rows[problem.check.model.k * 2:])
    assert (part.row_class == -1).sum() == problem.check.model.k * 2
    with_suppressed_class(problem, part, rows[:problem.check.model.k * 2]).verify(problem)


def test_broken_partitions_are_refused():
    problem = _problem(_table(300, 5), 5, "k", "box")
    part = search.joint_partition(problem, "frontier")
    sizes = np.bincount(part.row_class)
    small = int(np.argmin(sizes))
    assert sizes[small] < 2 * problem.check.model.k
    row_class = part.row_class.copy()
    row_class[np.flatnonzero(row_class == small)[0]] = (small + 1) % len(part.states)   # one row leaves its class
    with pytest.raises(VerificationError, match="miss"):
        replace(part, row_class=row_class).verify(problem)
    row_class = part.row_class.copy()
    row_class[row_class == 0] = 1                                                     # class 0 left empty
    with pytest.raises(VerificationError, match="contiguous"):
        replace(part, row_class=row_class).verify(problem)
    with pytest.raises(VerificationError, match="rows have a class"):
        replace(part, row_class=part.row_class[:-1]).verify(problem)
    first = part.states[0]
    assert first[0] != (0, 1, 0, 1)
    moved = [((0, 1, 0, 1), *first[1:]), *part.states[1:]]                             # class 0 elsewhere
    with pytest.raises(VerificationError, match="location of its location class"):
        replace(part, states=moved).verify(problem)
    with pytest.raises(VerificationError, match="in number"):
        replace(part, location_states=part.location_states[:-1]).verify(problem)
