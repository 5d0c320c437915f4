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
"""
from __future__ import annotations

import numpy as np

from .graphs import CompactGraph


class TreeShape:
    """A rooted spanning tree: children lists and a post-order."""

    def __init__(self, parent: np.ndarray):
        n = parent.size
        self.parent = parent.tolist()
        self.children = [[] for _ in range(n)]
        root = -1
        for v, p in enumerate(self.parent):
            if p >= 0:
                self.children[p].append(v)
            else:
                root = v
        order, stack = [], [root]
        while stack:
            v = stack.pop()
            order.append(v)
            stack.extend(self.children[v])
        self.root = root
        self.postorder = order[::-1]


def greedy_tree_partition(tree: TreeShape, w: np.ndarray, k: int) -> np.ndarray:
    """Theorem 1's greedy on a rooted tree: labels 0..c-1 per node."""
    n = len(tree.parent)
    label = [-1] * n
    group_weight = []
    open_weight = [0] * n
    open_members: list = [None] * n
    open_adjacent: list = [None] * n
    weights = w.tolist()
    for v in tree.postorder:
        total, members, adjacent = weights[v], [v], []
        for c in tree.children[v]:
            if label[c] >= 0:
                adjacent.append(label[c])
            else:
                total += open_weight[c]
                members.extend(open_members[c])
                adjacent.extend(open_adjacent[c])
                open_members[c] = open_adjacent[c] = None
        if total >= k:
            _close(members, total, label, group_weight)
        else:
            open_weight[v], open_members[v], open_adjacent[v] = total, members, adjacent
    root = tree.root
    if label[root] < 0:
        gid = min(open_adjacent[root], key=lambda g: (group_weight[g], g))
        for m in open_members[root]:
            label[m] = gid
    return np.asarray(label, dtype=np.int64)


def _close(members, total: int, label: list, group_weight: list) -> None:
    """Make ``members`` a new group of weight ``total``."""
    gid = len(group_weight)
    group_weight.append(total)
    for m in members:
        label[m] = gid


def balanced_tree_partition(graph: CompactGraph, tree: TreeShape, w: np.ndarray, k: int, target: int) -> np.ndarray:
    """One pass aiming at groups in [k, target]: a node's piece closes at k;
    when its children's open pieces would push it past the target, some of them
    join an adjacent closed group with room instead. Labels 0..c-1."""
    n = len(tree.parent)
    label = [-1] * n
    group_weight: list = []
    open_weight = [0] * n
    open_members: list = [None] * n
    weights = w.tolist()
    adj = graph.adjacency

    def room_for(members, need):
        """The lightest closed group adjacent to ``members`` that can take ``need``."""
        best = -1
        for m in members:
            for x in adj[m]:
                g = label[x]
                if g >= 0 and group_weight[g] + need <= target and (best < 0 or group_weight[g] < group_weight[best]):
                    best = g
        return best

    for v in tree.postorder:
        pieces = [c for c in tree.children[v] if label[c] < 0]
        total = weights[v] + sum(open_weight[c] for c in pieces)
        if total > target and pieces:
            total = _shed(pieces, total, open_weight, open_members, room_for, label, group_weight, k, target)
        members = [v]
        for c in pieces:
            if label[c] < 0:
                members.extend(open_members[c])
            open_members[c] = None
        if total >= k:
            _close(members, total, label, group_weight)
        else:
            open_weight[v], open_members[v] = total, members
    root = tree.root
    if label[root] < 0:
        leftover = open_members[root]
        candidates = {label[x] for m in leftover for x in adj[m]} - {-1}
        gid = min(candidates, key=lambda g: (group_weight[g], g))
        for m in leftover:
            label[m] = gid
    return np.asarray(label, dtype=np.int64)


def _shed(pieces, total, open_weight, open_members, room_for, label, group_weight, k, target):
    """Hand some children's open pieces to adjacent groups so that the rest
    lands in [k, target] (else below k, else as low as possible); returns the
    node's new piece weight. At most 2^4 subsets are tried."""
    options = [c for c in sorted(pieces, key=lambda c: -open_weight[c])][:4]
    best_key, best_set = None, ()
    for mask in range(1 << len(options)):
        chosen = [options[i] for i in range(len(options)) if mask >> i & 1]
        rest = total - sum(open_weight[c] for c in chosen)
        key = (0, -rest) if k <= rest <= target else (1, -rest) if rest < k else (2, rest)
        if best_key is None or key < best_key:
            best_key, best_set = key, chosen
    for c in best_set:
        g = room_for(open_members[c], open_weight[c])
        if g < 0:
            continue
        group_weight[g] += open_weight[c]
        for m in open_members[c]:
            label[m] = g
        total -= open_weight[c]
    return total


def best_tree_partition(graph: CompactGraph, shape, w: np.ndarray, k: int, lower: int):
    """Bisect the target M of :func:`balanced_tree_partition` between the lower
    bound and Theorem 1's result on the same tree; labels and largest group."""
    best = greedy_tree_partition(shape, w, k)
    low, high = lower, int(np.bincount(best, weights=w).max())
    while low < high:
        target = (low + high) // 2
        labels = balanced_tree_partition(graph, shape, w, k, target)
        reached = int(np.bincount(labels, weights=w).max())
        if reached <= target:
            high, best = reached, labels
        else:
            low = target + 1
    return best, high
