"""Joint top-down partitions of a table over all its quasi-identifiers: the
search's entry (:func:`joint_partition`), and where each of its stages lives.

The engine hands the search one :class:`~geoanon.joint.problem.SearchProblem`:
the dimensions (:mod:`~geoanon.joint.dims`), the model, the weights, how the
location is priced (:mod:`~geoanon.joint.location_loss`), the precision
target and whether classes share their location class's location. Every
cut keeps both sides within the model (Du et al., Theorem 2's rule, the
model in place of k), so every class of every design meets it. The designs
(``method``; ``"joint"`` is the default for a points or ZIP location or none,
``"frontier"`` for labels and ZIP codes rolled up, :func:`geoanon.options.release_spec`):

``"joint"`` (:mod:`~geoanon.joint.mondrian`)
    Mondrian cuts (LeFevre et al., 2006) over all dimensions with location
    cuts anywhere: every class is its own location class and publishes its
    own records' box (a ZIP location: the group of the regions its records
    hold, cut at their places as points,
    :mod:`~geoanon.pipeline.locations.placed_groups`; labels: the lowest
    node of their hierarchy above them), which may overlap other classes'; the
    classes are disjoint only over all quasi-identifiers together. The least
    loss, at the price of the location tiling. Its stages, in order:

    1. *Shards*: the rows with a location and those without apart
       (:func:`~geoanon.joint.sharding.located_apart`).
    2. *Category starts* (tables of at most ``FIRST_CUT_ROWS`` rows): the
       table as it is, and after each category's own cut of it made first
       (:func:`~geoanon.joint.mondrian.joint_partitions`); a start is skipped
       under a weighting whose search makes that cut first anyway.
    3. *Target pieces*: with a precision target, each start's location
       alone cut down to pieces no wider, each cut leaving the fullest
       side within it (:func:`~geoanon.joint.sharding.within_target`,
       :mod:`~geoanon.joint.target_cuts`).
    4. *Weighted rounds with merging*: every node of a round cut at once
       with array operations under each weighting of its mask
       (:func:`~geoanon.joint.batch.split_weighted`; the node table
       :class:`~geoanon.joint.nodes.Nodes`, the candidate cuts
       :mod:`~geoanon.joint.plans`), nodes that weightings reach by
       different cuts merged into one.
    5. *Parked pieces*: in the table's own start, nodes of at most
       ``piece_rows(k)`` rows set aside; without first cuts, the nodes left
       at ``SHARD_ROWS`` rows finished in ``n_jobs`` processes
       (:func:`~geoanon.joint.sharding.map_shards`).
    6. *Lossiest-category finish*: every parked piece finished as it is and
       after the cut of the category it loses most in, keeping the cheaper
       (:func:`~geoanon.joint.first_cuts.finish_pieces`).
    7. *Memo reuse*: a node another start cut to the end is not cut again;
       its leaves are taken (:class:`~geoanon.joint.solved.Solved`, by
       :meth:`~geoanon.joint.nodes.Nodes.keys`).
    8. *Cheapest per weighting*: under each weighting, the start whose
       leaves cost least (with a precision target, the fewest rows beyond it
       first), its classes numbered by what they publish
       (:func:`~geoanon.joint.partition.partition_of`).

``"frontier"``, ``"location-first"``, ``"greedy"`` (:mod:`~geoanon.joint.tiling`)
    Location classes never overlap (rectangles tile the plane, ZIP groups
    partition the regions): every location cut lies above every other cut.
    The location is cut into shards (:func:`~geoanon.joint.sharding.shards_of`),
    each shard's location down to its finest classes (the location tree,
    :func:`~geoanon.joint.tiling.location_tree`), and the other columns are
    cut inside the location nodes chosen: by dynamic programming, the
    frontier of least total loss (``"frontier"``; a node is evaluated only
    while its location cost alone is below its children's best), or one
    location class size K' = k 2^j per tree (``"location-first"``); then
    finished with lookahead (:func:`~geoanon.joint.tiling.cut_down`).
    ``"greedy"``: one pass over all dimensions, a location cut admissible
    only while no other cut lies above the node.

The cut rules, node by node, are :mod:`~geoanon.joint.cuts`; the array
search reproduces them exactly, and the node-by-node cuts serve where a
search needs them one node at a time (lookahead, the greedy design, ZIP and
label location trees, value sets of more than 62 values, first cuts).
"""
from __future__ import annotations

import numpy as np

from .mondrian import joint_design, joint_partitions, location_first
from .partition import JointPartition
from .problem import SearchProblem
from .tiling import frontier_design, greedy_design, location_first_design

__all__ = ["ALGORITHMS", "JointPartition", "joint_partition", "joint_partitions", "location_first"]


def joint_partition(problem: SearchProblem, design: str = "frontier", n_jobs: int = 1, rows=None) -> JointPartition:
    """Partition the rows of ``problem`` by ``design`` (see the module), in
    ``n_jobs`` processes (the result does not depend on them). A tiling
    design's location class holds at most ``SHARD_ROWS`` rows, unless the
    location cannot be cut further. ``rows``: partition only these rows
    (default all); the others' class is -1."""
    rows = np.arange(problem.check.codes.size, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    return ALGORITHMS[design](problem, rows, n_jobs)


ALGORITHMS = {"joint": joint_design, "frontier": frontier_design, "location-first": location_first_design,
              "greedy": greedy_design}  # design -> (problem, rows, n_jobs) -> JointPartition
# the keys, in order, are choices.DESIGNS, which the release's ``method`` is checked against
