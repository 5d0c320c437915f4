"""Theorem 1 of Du, Eppstein, Goodrich and Lueker (Section 2), and the balanced
tree pass built on it.

Theorem 1 (:func:`greedy_tree_partition`): on a spanning tree of maximum
degree d, merge greedily in post-order: a node's piece (the node and its
children's open pieces) closes as a group once it weighs >= k, else it passes
up; the leftover at the root joins an adjacent group. Every group weighs at
most heaviest node + d (k - 1) <= (d + 1) OPT.

The balanced pass (:func:`balanced_tree_partition`, not in the paper) also
keeps pieces at most a target M by handing children's open pieces to adjacent
groups with room; :func:`best_tree_partition` bisects M between a lower bound
and Theorem 1's result on the same tree, so it is never worse than Theorem 1.

The passes are compiled with numba (cached on first use). An open piece's
regions are a linked list (from its top node through ``after`` to ``tail``), so joining pieces
costs O(1) and every pass O(n + edges).
"""
from __future__ import annotations

import numba
import numpy as np

from .graphs import CompactGraph

__all__ = ["TreeShape", "best_tree_partition", "greedy_tree_partition"]

_jit = numba.njit(cache=True, nogil=True)
SHED_OPTIONS = 4     # a node's heaviest open child pieces the balanced pass considers handing away


class TreeShape:
    """A rooted spanning tree: children (CSR: ``children[child_ptr[v]:child_ptr[v + 1]]``,
    in increasing order) and a post-order."""

    def __init__(self, parent: np.ndarray):
        parent = np.asarray(parent, dtype=np.int64)
        n = parent.size
        child = np.flatnonzero(parent >= 0)
        self.children = child[np.argsort(parent[child], kind="stable")]
        self.child_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(parent[child], minlength=n), out=self.child_ptr[1:])
        self.root = int(np.flatnonzero(parent < 0)[0])
        self.postorder = _postorder(self.child_ptr, self.children, self.root)


@_jit
def _postorder(child_ptr, children, root):
    """Post-order: the reverse of a preorder that visits the last child first."""
    n = child_ptr.size - 1
    order = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    stack[0], top, count = root, 1, 0
    while top:
        top -= 1
        v = stack[top]
        order[count] = v
        count += 1
        for i in range(child_ptr[v], child_ptr[v + 1]):
            stack[top] = children[i]
            top += 1
    return order[::-1].copy()


def greedy_tree_partition(tree: TreeShape, w: np.ndarray, k: int) -> np.ndarray:
    """Theorem 1's greedy on a rooted tree: labels 0..c-1 per node."""
    return _greedy(tree.child_ptr, tree.children, tree.postorder, tree.root, np.asarray(w, dtype=np.int64), k)


def balanced_tree_partition(graph: CompactGraph, tree: TreeShape, w: np.ndarray, k: int, target: int) -> np.ndarray:
    """One pass aiming at groups in [k, target]: a node's piece closes at k;
    when its children's open pieces would push it past the target, some of them
    (of its ``SHED_OPTIONS`` heaviest) join the lightest adjacent closed group
    with room instead, choosing the subset that leaves the piece in [k, target]
    (else below k, else as light as possible). Labels 0..c-1."""
    return _balanced(graph.indptr, graph.indices, tree.child_ptr, tree.children, tree.postorder, tree.root,
                     np.asarray(w, dtype=np.int64), k, target)


def best_tree_partition(graph: CompactGraph, shape: TreeShape, w: np.ndarray, k: int, lower: int):
    """Bisect the target M of :func:`balanced_tree_partition` between the lower
    bound and Theorem 1's result on the same tree; labels and largest group."""
    labels, reached = _best(graph.indptr, graph.indices, shape.child_ptr, shape.children, shape.postorder,
                            shape.root, np.asarray(w, dtype=np.int64), k, lower)
    return labels, int(reached)


@_jit
def _largest(labels, w):
    return np.bincount(labels, weights=w).max()


@_jit
def _best(indptr, indices, child_ptr, children, postorder, root, w, k, lower):
    best = _greedy(child_ptr, children, postorder, root, w, k)
    low, high = lower, int(_largest(best, w))
    while low < high:
        target = (low + high) // 2
        labels = _balanced(indptr, indices, child_ptr, children, postorder, root, w, k, target)
        reached = int(_largest(labels, w))
        if reached <= target:
            high, best = reached, labels
        else:
            low = target + 1
    return best, high


@_jit
def _greedy(child_ptr, children, postorder, root, w, k):
    n = w.size
    label = np.full(n, -1, dtype=np.int64)
    group_weight = np.zeros(n, dtype=np.int64)
    groups = 0
    open_weight = np.zeros(n, dtype=np.int64)
    nearest = np.full(n, -1, dtype=np.int64)     # the lightest closed group adjacent to v's open piece
    tail = np.full(n, -1, dtype=np.int64)
    after = np.full(n, -1, dtype=np.int64)
    for v in postorder:
        total, near = w[v], -1
        for i in range(child_ptr[v], child_ptr[v + 1]):
            c = children[i]
            g = label[c] if label[c] >= 0 else nearest[c]
            if g >= 0 and (near < 0 or (group_weight[g], g) < (group_weight[near], near)):
                near = g
            if label[c] < 0:
                total += open_weight[c]
        if _settle(v, total, k, groups, child_ptr, children, label, group_weight, open_weight, tail, after):
            groups += 1
        else:
            nearest[v] = near
    if label[root] < 0:
        _join(root, nearest[root], label, after)
    return label


@_jit
def _settle(v, total, k, gid, child_ptr, children, label, group_weight, open_weight, tail, after):
    """v's piece: v and its children's open pieces, linked into one list from v.
    It closes as group ``gid`` if it weighs ``total`` >= k (True), else stays open."""
    last = v
    for i in range(child_ptr[v], child_ptr[v + 1]):
        c = children[i]
        if label[c] < 0:
            after[last] = c
            last = tail[c]
    tail[v] = last
    if total < k:
        open_weight[v] = total
        return False
    group_weight[gid] = total
    _join(v, gid, label, after)
    return True


@_jit
def _join(v, gid, label, after):
    x = v
    while x >= 0:
        label[x] = gid
        x = after[x]


@_jit
def _room_for(v, need, target, indptr, indices, label, group_weight, after):
    """The lightest closed group adjacent to v's piece that can take ``need`` (first met on ties), or -1."""
    best, x = -1, v
    while x >= 0:
        for i in range(indptr[x], indptr[x + 1]):
            g = label[indices[i]]
            if g >= 0 and group_weight[g] + need <= target and (best < 0 or group_weight[g] < group_weight[best]):
                best = g
        x = after[x]
    return best


@_jit
def _balanced(indptr, indices, child_ptr, children, postorder, root, w, k, target):
    n = w.size
    label = np.full(n, -1, dtype=np.int64)
    group_weight = np.zeros(n, dtype=np.int64)
    groups = 0
    open_weight = np.zeros(n, dtype=np.int64)
    tail = np.full(n, -1, dtype=np.int64)
    after = np.full(n, -1, dtype=np.int64)
    options = np.empty(SHED_OPTIONS, dtype=np.int64)
    for v in postorder:
        total, pieces = w[v], 0
        for i in range(child_ptr[v], child_ptr[v + 1]):
            c = children[i]
            if label[c] < 0:
                total += open_weight[c]
                pieces += 1
        if total > target and pieces:
            # the heaviest open pieces, first child first on ties (insertion into a short sorted list)
            m = 0
            for i in range(child_ptr[v], child_ptr[v + 1]):
                c = children[i]
                if label[c] >= 0:
                    continue
                j = m
                while j > 0 and open_weight[options[j - 1]] < open_weight[c]:
                    j -= 1
                if j < SHED_OPTIONS:
                    for s in range(min(m, SHED_OPTIONS - 1), j, -1):
                        options[s] = options[s - 1]
                    options[j] = c
                    m = min(m + 1, SHED_OPTIONS)
            best_rank, best_value, best_mask = 3, 0, 0
            for mask in range(1 << m):
                rest = total
                for i in range(m):
                    if mask >> i & 1:
                        rest -= open_weight[options[i]]
                rank, value = (0, -rest) if k <= rest <= target else (1, -rest) if rest < k else (2, rest)
                if (rank, value) < (best_rank, best_value):
                    best_rank, best_value, best_mask = rank, value, mask
            for i in range(m):
                c = options[i]
                if not best_mask >> i & 1:
                    continue
                g = _room_for(c, open_weight[c], target, indptr, indices, label, group_weight, after)
                if g < 0:
                    continue
                group_weight[g] += open_weight[c]
                _join(c, g, label, after)
                total -= open_weight[c]
        if _settle(v, total, k, groups, child_ptr, children, label, group_weight, open_weight, tail, after):
            groups += 1
    if label[root] < 0:
        best, x = -1, root
        while x >= 0:
            for i in range(indptr[x], indptr[x + 1]):
                g = label[indices[i]]
                if g >= 0 and (best < 0 or (group_weight[g], g) < (group_weight[best], best)):
                    best = g
            x = after[x]
        _join(root, best, label, after)
    return label
