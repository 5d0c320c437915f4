"""Independent checkers of partitioner output.

Written from the definitions only, in plain Python loops, sharing no code with
geoanon: what a partition must satisfy, checked the slow and obvious way.
"""
import math
import re
from collections import Counter, defaultdict


def in_interval(v, lo, hi, outer_hi):
    """Half-open [lo, hi), closed at the outer edge of the tiled region."""
    return lo <= v < hi or (v == hi == outer_hi)


def intervals_meet(a_lo, a_hi, b_lo, b_hi, outer_hi):
    """Whether two such intervals share a point."""
    a_closed, b_closed = a_hi == outer_hi, b_hi == outer_hi
    lo, hi = max(a_lo, b_lo), min(a_hi, b_hi)
    return lo < hi or (a_closed and b_closed and lo <= hi)


def coarsest_step(v: float, most: float) -> float:
    """The coarsest round step (1, 2 or 5 times a power of ten, at most
    ``most``) of which ``v`` is a multiple; 0 when none is."""
    import math

    if most <= 0:
        return 0.0
    top = math.floor(math.log10(most))
    for power in range(top, top - 16, -1):
        for m in (5, 2, 1):
            step = m * 10.0 ** power
            if step <= most * (1 + 1e-9) and abs(v / step - round(v / step)) < 1e-6:
                return step
    return 0.0


def grid_edges(lo: float, hi: float, k: int) -> int:
    """How many of a box's two edges on one axis lie on a grid whose step is
    at least the box's width over max(k, 3): an edge that does tells no more
    of its class's extreme record than that window (geoanon.points.edges)."""
    need = (hi - lo) / max(k, 3)
    return sum(coarsest_step(v, 100 * (hi - lo)) >= need * (1 - 1e-9) for v in (lo, hi))


def check_published_boxes(xy, labels, boxes, k):
    """Assert the rules of published boxes (one row per record: ``boxes`` its
    class's xmin, ymin, xmax, ymax, NaN where it is published without a
    location); return the class sizes.

    - every class holds >= k rows, and publishes one box, or none;
    - a row lies strictly inside its box;
    - per axis, both of a box's edges lie on a grid whose step is at least
      its width over max(k, 3). Boxes may overlap (where a cut between two classes is finer
      than that, both boxes cross it); the partition's tiles are checked
      apart.
    """
    import numpy as np

    labels, boxes, xy = np.asarray(labels), np.asarray(boxes, dtype=float), np.asarray(xy, dtype=float)
    sizes = Counter(labels.tolist())
    assert min(sizes.values()) >= k, f"a class is below k={k}"
    boxed = ~np.isnan(boxes).any(axis=1)
    assert (np.isnan(boxes[~boxed]).all(axis=1)).all(), "a box with an empty edge"
    for axis in (0, 1):
        lo, hi, v = boxes[boxed, axis], boxes[boxed, axis + 2], xy[boxed, axis]
        assert (lo < v).all() and (v < hi).all(), "a row outside its box"
    per_class = {}
    for c, box in zip(labels[boxed].tolist(), map(tuple, boxes[boxed])):
        assert per_class.setdefault(c, box) == box, f"class {c} publishes two boxes"
    assert not set(per_class) & set(labels[~boxed].tolist()), "a class both with and without a box"
    for box in set(per_class.values()):
        for axis in (0, 1):
            assert grid_edges(box[axis], box[axis + 2], k) == 2, f"box {box}: an edge finer than its width over k"
    return sizes


def check_rectangle_partition(xy, weights, k, labels, rectangles, bounds):
    """Assert the rules of a rectangle partition; return the class weights.

    - every row is in exactly one class, and class ids are 0..C-1, all used;
    - every class weighs >= k;
    - every row lies in its class's rectangle;
    - rows at identical coordinates share a class;
    - rectangles are pairwise disjoint (as half-open sets) and tile ``bounds``.
    """
    n = len(xy)
    assert len(labels) == n
    C = len(rectangles)
    used = set(int(c) for c in labels)
    assert used == set(range(C)), "class ids must be 0..C-1, each used"
    weight = defaultdict(int)
    for c, w in zip(labels, weights):
        weight[int(c)] += int(w)
    assert all(weight[c] >= k for c in range(C)), f"a class is below k={k}: {min(weight.values())}"
    xmin, ymin, xmax, ymax = bounds
    at = {}
    for i in range(n):
        x, y = float(xy[i][0]), float(xy[i][1])
        c = int(labels[i])
        r0, r1, r2, r3 = (float(v) for v in rectangles[c])
        assert in_interval(x, r0, r2, xmax) and in_interval(y, r1, r3, ymax), \
            f"row {i} at {(x, y)} is outside its rectangle {rectangles[c]}"
        assert at.setdefault((x, y), c) == c, f"identical points {(x, y)} are in two classes"
    area = 0.0
    for a in range(C):
        a0, a1, a2, a3 = (float(v) for v in rectangles[a])
        assert xmin <= a0 <= a2 <= xmax and ymin <= a1 <= a3 <= ymax, "rectangle leaves the bounds"
        area += (a2 - a0) * (a3 - a1)
        for b in range(a + 1, C):
            b0, b1, b2, b3 = (float(v) for v in rectangles[b])
            assert not (intervals_meet(a0, a2, b0, b2, xmax) and intervals_meet(a1, a3, b1, b3, ymax)), \
                f"rectangles {a} and {b} overlap"
    full = (xmax - xmin) * (ymax - ymin)
    assert abs(area - full) <= 1e-9 * max(full, 1.0), "rectangles do not tile the bounds"
    return [weight[c] for c in range(C)]


def point_weights(xy, weights):
    """Weight of each distinct point (duplicates merged)."""
    total = defaultdict(int)
    for p, w in zip(xy, weights):
        total[(float(p[0]), float(p[1]))] += int(w)
    return total


def check_connected_partition(G, weights, k, class_of):
    """Assert the rules of a connected partition of graph G; return the group weights.

    - every node has one class (or -1 when suppressed), classes numbered 0..C-1;
    - every group weighs >= k and induces a connected subgraph of G;
    - suppressed nodes are exactly the components lighter than k.
    """
    import networkx as nx

    assert set(class_of) == set(G.nodes), "every region needs a class"
    groups = defaultdict(list)
    for v, c in class_of.items():
        groups[int(c)].append(v)
    kept = sorted(c for c in groups if c >= 0)
    assert kept == list(range(len(kept))), "class ids must be 0..C-1"
    total = {}
    for c in kept:
        total[c] = sum(int(weights.get(v, 0)) for v in groups[c])
        assert total[c] >= k, f"group {c} weighs {total[c]} < k={k}"
        assert nx.is_connected(G.subgraph(groups[c])), f"group {c} is not connected"
    for comp in nx.connected_components(G):
        light = sum(int(weights.get(v, 0)) for v in comp) < k
        assert all((class_of[v] < 0) == light for v in comp), "suppressed must be exactly the light components"
    return [total[c] for c in kept]


def check_region_groups(G, weights, k, groups):
    """Assert the rules of the groups of regions a release publishes
    (``groups``: each group's regions, as drawn); return the group weights.

    - no region is in two groups, and every region holding records is in one;
    - every group weighs >= k and induces a connected subgraph of G;
    - a region without records joins a group only to connect it: it has at
      least two neighbours in its group (no dead end of empty regions).
    """
    import networkx as nx

    seen = Counter(v for group in groups for v in group)
    assert max(seen.values()) == 1, "a region is in two groups"
    assert {v for v, w in weights.items() if w > 0} <= set(seen), "a region holding records is in no group"
    total = []
    for group in groups:
        total.append(sum(int(weights.get(v, 0)) for v in group))
        assert total[-1] >= k, f"a group weighs {total[-1]} < k={k}"
        sub = G.subgraph(group)
        assert nx.is_connected(sub), f"group {sorted(group)[:3]}... is not connected"
        for v in group:
            assert weights.get(v, 0) > 0 or sub.degree(v) >= 2, f"region {v} without records dangles from its group"
    return total


def brute_force_connected_partition(G, weights, k):
    """Smallest largest group over all partitions of a tiny connected graph into
    connected groups of weight >= k (None when there is none)."""
    import networkx as nx

    nodes = list(G.nodes)
    best = None

    def extend(i, blocks):
        nonlocal best
        if i == len(nodes):
            sums = [sum(weights[v] for v in b) for b in blocks]
            if min(sums) >= k and all(nx.is_connected(G.subgraph(b)) for b in blocks):
                best = max(sums) if best is None else min(best, max(sums))
            return
        for b in blocks:
            b.append(nodes[i])
            extend(i + 1, blocks)
            b.pop()
        blocks.append([nodes[i]])
        extend(i + 1, blocks)
        blocks.pop()

    extend(0, [])
    return best


def check_label_partition(counts, k, labels):
    """Assert the rules of a label partition; return the class weights.

    - every label is in exactly one class, and class ids are 0..C-1, all used;
    - every class covers >= k records, and no record is lost or added.
    """
    assert len(labels) == len(counts)
    C = max(int(c) for c in labels) + 1
    assert set(int(c) for c in labels) == set(range(C)), "class ids must be 0..C-1, each used"
    weight = [0] * C
    for c, w in zip(labels, counts):
        weight[int(c)] += int(w)
    assert sum(weight) == sum(int(w) for w in counts)
    assert min(weight) >= k, f"a class is below k={k}: {min(weight)}"
    return weight


def brute_force_cover(counts, k):
    """Optimal largest class over all set partitions of the labels (tiny inputs)."""
    counts = [int(c) for c in counts]
    best = None

    def place(i, sums):
        nonlocal best
        if i == len(counts):
            if all(s >= k for s in sums):
                value = max(sums)
                best = value if best is None else min(best, value)
            return
        for j in range(len(sums)):
            sums[j] += counts[i]
            place(i + 1, sums)
            sums[j] -= counts[i]
        place(i + 1, sums + [counts[i]])

    place(0, [])
    return best


def check_suppression(raw, released, qi, k, sensitive=None, l=None, l_distinct=None, t=None, emd=None):
    """Assert the rules of a release under the suppression model; return its cost in stars.

    - the same rows in the same order, every non-QI column unchanged, ``class_id`` added;
    - each QI cell is its raw value or ``*``; within a class, a column is ``*``
      in every row exactly when the raw values differ (the suppressor);
    - every class has >= k rows, and the requested l (no sensitive value above
      1/l of a class), l_distinct and t (``emd(class counts, table counts)``).
    """
    assert len(released) == len(raw)
    assert list(released.columns) == list(raw.columns) + ["class_id"]
    for col in raw.columns:
        if col not in qi:
            assert released[col].tolist() == raw[col].tolist(), col
    classes = defaultdict(list)
    for i, c in enumerate(released["class_id"].tolist()):
        classes[c].append(i)
    assert sorted(classes) == list(range(len(classes)))
    stars = 0
    table_counts = defaultdict(int)
    if sensitive is not None:
        for v in raw[sensitive].tolist():
            table_counts[v] += 1
    for rows in classes.values():
        assert len(rows) >= k
        for col in qi:
            raw_values = [raw[col].iloc[i] for i in rows]
            shown = [released[col].iloc[i] for i in rows]
            differ = len({repr(v) for v in raw_values}) > 1
            if differ:
                assert all(s == "*" for s in shown), col
                stars += len(rows)
            else:
                assert all(repr(s) == repr(r) for s, r in zip(shown, raw_values)), col
        if sensitive is not None:
            counts = _check_diversity(raw[sensitive], rows, l, l_distinct)
            if t is not None:
                values = list(table_counts)
                assert emd([counts.get(v, 0) for v in values], [table_counts[v] for v in values]) <= t + 1e-9
    return stars


def _check_diversity(values, rows, l, l_distinct):
    """Assert a class's l (no value above 1/l of it) and l_distinct; return its value counts."""
    counts = defaultdict(int)
    for i in rows:
        counts[values.iloc[i]] += 1
    if l is not None:
        assert max(counts.values()) * l <= len(rows) + 1e-9
    if l_distinct is not None:
        assert len(counts) >= l_distinct
    return counts


def made_diverse(values, l=None, l_distinct=None, choices=None):
    """``values`` with rows moved from the most frequent value to the least
    frequent of ``choices`` until the whole table meets Liang-Yuan's ``l`` and
    ``l_distinct``: a generated table the suppression model can release."""
    values = list(values)
    choices = sorted(set(choices or values))
    while True:
        counts = Counter(values)
        common, most = counts.most_common(1)[0]
        rare = min(choices, key=lambda v: (counts.get(v, 0), v))
        short_l = l is not None and most * l > len(values) + 1e-9
        short_distinct = l_distinct is not None and len(counts) < min(l_distinct, len(choices))
        if not (short_l or short_distinct) or counts.get(rare, 0) + 1 >= most:
            return values
        values[values.index(common)] = rare


def set_partitions(items):
    """Every partition of a list into non-empty blocks."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]
        yield [[first]] + part


def _distribution(counts):
    total = sum(counts)
    return [c / total for c in counts]


def emd_equal(p, q):
    """Earth Mover's Distance with every two values at distance 1 (Li et al.
    2007): half the L1 distance of the two distributions (counts normalized)."""
    return sum(abs(a - b) for a, b in zip(_distribution(p), _distribution(q))) / 2


def emd_ordered(p, q):
    """EMD with values i, j of m ordered ones at distance |i - j| / (m - 1) (Li
    et al. 2007): the summed absolute running difference, over m - 1."""
    if len(p) < 2:
        return 0.0
    running, total = 0.0, 0.0
    for a, b in zip(_distribution(p), _distribution(q)):
        running += a - b
        total += abs(running)
    return total / (len(p) - 1)


def emd_matrix(p, q, distance):
    """EMD under any ground distance matrix: the transport problem itself, as a
    linear program (scipy's linprog, not geoanon's code)."""
    from scipy.optimize import linprog

    a, b = _distribution(p), _distribution(q)
    m = len(a)
    cost = [distance[i][j] for i in range(m) for j in range(m)]
    equal_rows = [[1.0 if f // m == i else 0.0 for f in range(m * m)] for i in range(m)]
    equal_cols = [[1.0 if f % m == j else 0.0 for f in range(m * m)] for j in range(m)]
    result = linprog(cost, A_eq=equal_rows + equal_cols, b_eq=a + b, bounds=(0, None), method="highs")
    assert result.status == 0
    return result.fun


def brute_force_suppression(rows, k, sensitive=None, l=None, t=None, emd=None, l_distinct=None, order=None):
    """Minimum stars over every partition of ``rows`` (tuples of QI values)
    whose blocks all have >= k rows (and l, l_distinct, t on ``sensitive``
    values; ``emd`` takes count vectors over ``order``, default the values in
    order of appearance)."""
    n, m = len(rows), len(rows[0])
    table_counts = defaultdict(int)
    for v in sensitive or []:
        table_counts[v] += 1
    best = None
    for part in set_partitions(list(range(n))):
        cost = 0
        for block in part:
            if len(block) < k:
                break
            if sensitive is not None:
                counts = defaultdict(int)
                for i in block:
                    counts[sensitive[i]] += 1
                if l is not None and max(counts.values()) * l > len(block) + 1e-9:
                    break
                if l_distinct is not None and len(counts) < l_distinct:
                    break
                values = list(order or table_counts)
                if t is not None and emd([counts.get(v, 0) for v in values],
                                         [table_counts[v] for v in values]) > t + 1e-9:
                    break
            cost += len(block) * sum(len({rows[i][j] for i in block}) > 1 for j in range(m))
        else:
            best = cost if best is None else min(best, cost)
    return best


def brute_force_set_ncp(rows, k):
    """Least NCP over every partition of ``rows`` into blocks of >= k rows,
    each column published as the set of the block's values."""
    n, m = len(rows), len(rows[0])
    distinct = [len({r[j] for r in rows}) for j in range(m)]
    best = None
    for part in set_partitions(list(range(n))):
        if any(len(block) < k for block in part):
            continue
        cost = sum(len(block) * (len({rows[i][j] for i in block}) - 1) / max(distinct[j] - 1, 1)
                   for block in part for j in range(m))
        best = cost if best is None else min(best, cost)
    return best / (n * m)


def great_circle(p, q):
    """Great-circle distance in degrees between two (lon, lat) points (haversine)."""
    import math

    lon1, lat1, lon2, lat2 = map(math.radians, (p[0], p[1], q[0], q[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return math.degrees(2 * math.asin(min(1.0, math.sqrt(h))))


def check_bridged_partition(G, weights, k, class_of, bridges, centroids, distance):
    """Assert the rules of a connected partition whose light components were
    linked to their nearest regions (``on_small="nearest"``); return the group
    weights.

    - every bridge (u, v) joins two different components of G, both with records;
    - every component of G with records but lighter than k has a bridge that
      is as short as its nearest pair (``distance`` between ``centroids``) with
      a region of another component with records (the first round of links);
    - with the bridges as edges, the rules of check_connected_partition hold.
    """
    import math

    import networkx as nx

    component = {}
    for i, comp in enumerate(nx.connected_components(G)):
        for v in comp:
            component[v] = i
    comp_weight = defaultdict(int)
    for v in G.nodes:
        comp_weight[component[v]] += int(weights.get(v, 0))
    lengths = defaultdict(list)
    for u, v in bridges:
        assert component[u] != component[v], f"bridge {u}-{v} lies inside one component"
        assert comp_weight[component[u]] > 0 and comp_weight[component[v]] > 0, "bridges join components with records"
        d = distance(centroids[u], centroids[v])
        lengths[component[u]].append(d)
        lengths[component[v]].append(d)
    targets = [v for v in G.nodes if comp_weight[component[v]] > 0]
    for c, total in comp_weight.items():
        if 0 < total < k:
            inside = [u for u in targets if component[u] == c]
            nearest = min(distance(centroids[u], centroids[v]) for u in inside for v in targets if component[v] != c)
            assert any(math.isclose(d, nearest, rel_tol=1e-9, abs_tol=1e-12) for d in lengths[c]), \
                f"component {c} is not linked to its nearest region ({nearest})"
    H = nx.Graph(G)
    H.add_edges_from(bridges)
    return check_connected_partition(H, weights, k, class_of)


def check_wrapped_rectangle_partition(xy, weights, k, labels, rectangles, bounds):
    """Assert the rules of a rectangle partition of longitudes/latitudes whose
    region may cross the antimeridian; return the class weights.

    A region or rectangle with xmin > xmax wraps (RFC 7946, 3.1.9): longitudes
    below the region's xmin are read 360 degrees further east (an upper edge
    at xmin too), exactly, with fractions; then the rules of
    check_rectangle_partition hold, with -180 and 180 one meridian.
    """
    from fractions import Fraction

    west, wrapped = float(bounds[0]), float(bounds[0]) > float(bounds[2])

    def lon(v, upper=False):
        v = Fraction(float(v))
        return v + 360 if wrapped and (v < west or (upper and v == west)) else v

    def unwrap(r):
        return lon(r[0]), Fraction(float(r[1])), lon(r[2], upper=True), Fraction(float(r[3]))

    pts = [(lon(p[0]), Fraction(float(p[1]))) for p in xy]   # -180 becomes 180 when wrapped
    rects = [unwrap(r) for r in rectangles]
    xmin, ymin, xmax, ymax = unwrap(bounds)
    C = len(rects)
    assert set(int(c) for c in labels) == set(range(C)), "class ids must be 0..C-1, each used"
    weight = defaultdict(int)
    for c, w in zip(labels, weights):
        weight[int(c)] += int(w)
    assert all(weight[c] >= k for c in range(C)), f"a class is below k={k}"
    at = {}
    for i, ((x, y), c) in enumerate(zip(pts, labels)):
        r0, r1, r2, r3 = rects[int(c)]
        assert in_interval(x, r0, r2, xmax) and in_interval(y, r1, r3, ymax), \
            f"row {i} at {tuple(xy[i])} is outside its rectangle {tuple(rectangles[int(c)])}"
        assert at.setdefault((x, y), int(c)) == int(c), f"identical points {tuple(xy[i])} are in two classes"
    area = Fraction(0)
    for a in range(C):
        a0, a1, a2, a3 = rects[a]
        assert xmin <= a0 <= a2 <= xmax and ymin <= a1 <= a3 <= ymax, f"rectangle {a} leaves the bounds"
        assert a2 - a0 <= 360, f"rectangle {a} is wider than the globe"
        area += (a2 - a0) * (a3 - a1)
        for b in range(a + 1, C):
            b0, b1, b2, b3 = rects[b]
            assert not (intervals_meet(a0, a2, b0, b2, xmax) and intervals_meet(a1, a3, b1, b3, ymax)), \
                f"rectangles {a} and {b} overlap"
    assert area == (xmax - xmin) * (ymax - ymin), "rectangles do not tile the bounds"
    return [weight[c] for c in range(C)]


def check_joint_release(raw, released, k, *, lat=None, lon=None, intervals=(), suppressed=(), hierarchies=None,
                        sets=(), sensitive=None, l=None, l_distinct=None, tiles=None):
    """Assert the rules of a joint release; return its NCP, computed here.

    - the same rows in order; every column that is not a quasi-identifier unchanged;
    - one published tuple per class (``class_id``), every class >= k rows, and
      the requested l (no sensitive value above 1/l of a class) and l_distinct;
    - a row's coordinates lie in its rectangle (half-open, closed at the outer
      edge), never on its edge; a box's edges lie on a grid of at least its
      width over max(k, 3) per axis (as :func:`check_published_boxes`: boxes
      may overlap); ``tiles``
      (``"disjoint"`` from a tiling design, ``"overlapping"`` from the joint
      one) are the partition's cuts and frame instead, and in a tiling
      design two distinct tiles never overlap; a row
      with coordinates may be published without a rectangle (an isolated
      record withheld), never one without them with one;
    - an interval holds the row's value (NaN only for a missing value or a
      class mixing missing and present ones; one end NaN is an open end, the
      value on its side of the other); a suppressed cell is the raw
      value or ``*``, ``*`` exactly where the class's values differ; a
      hierarchy cell is an ancestor of the raw value (or the value itself); a
      set cell names exactly the class's values that k rows hold, then ``*``
      for its rarer ones (``*`` alone for all of the values or none common).
    """
    hierarchies = hierarchies or {}
    assert len(released) == len(raw)
    qi_columns = set(intervals) | set(suppressed) | set(hierarchies) | set(sets) | ({lat, lon} - {None})
    for col in raw.columns:
        if col not in qi_columns:
            assert released[col].tolist() == raw[col].tolist(), col
    published = [c for c in released.columns if c not in raw.columns or c in qi_columns]
    published = [c for c in published if c != "class_id"]
    classes = defaultdict(list)
    for i, c in enumerate(released["class_id"].tolist()):
        classes[c].append(i)
    cells = defaultdict(float)
    n = len(raw)
    for c, rows in classes.items():
        assert len(rows) >= k, f"class {c} has {len(rows)} rows"
        shown = {repr([released[col].iloc[i] for col in published]) for i in rows}
        assert len(shown) == 1, f"class {c} publishes {len(shown)} different tuples"
        if sensitive is not None:
            _check_diversity(raw[sensitive], rows, l, l_distinct)
    if lat is not None:
        ys = [float(v) for v in raw[lat]]
        xs = [float(v) for v in raw[lon]]
        rect, boxed = {}, []
        for i in range(n):
            r = tuple(float("nan") if _missing(v) else float(v) for v in (released[f"{name}_{side}"].iloc[i] for name, side in
                      ((lon, "min"), (lat, "min"), (lon, "max"), (lat, "max"))))
            if any(v != v for v in r):            # no location published: all four cells empty
                assert all(v != v for v in r), "a rectangle with an empty edge"
                continue
            assert xs[i] == xs[i] and ys[i] == ys[i], "a row without coordinates published with a rectangle"
            rect[released["class_id"].iloc[i]] = r
            boxed.append(i)
            assert xs[i] not in (r[0], r[2]) and ys[i] not in (r[1], r[3]), "an edge is its own record's coordinate"
        outer = (min(r[0] for r in rect.values()), min(r[1] for r in rect.values()),
                 max(r[2] for r in rect.values()), max(r[3] for r in rect.values()))
        for i in boxed:
            r = rect[released["class_id"].iloc[i]]
            assert in_interval(xs[i], r[0], r[2], outer[2]) and in_interval(ys[i], r[1], r[3], outer[3])
        for r in set(rect.values()) if not tiles else ():
            for axis in (0, 1):
                assert grid_edges(r[axis], r[axis + 2], k) == 2, f"rectangle {r}: an edge finer than its width over k"
        distinct = sorted(set(rect.values())) if tiles == "disjoint" else []
        for a in range(len(distinct)):
            for b in range(a + 1, len(distinct)):
                p, q = distinct[a], distinct[b]
                assert not (intervals_meet(p[0], p[2], q[0], q[2], outer[2])
                            and intervals_meet(p[1], p[3], q[1], q[3], outer[3])), f"rectangles {p} and {q} overlap"
        for name, values, lo_i, hi_i in ((lat, ys, 1, 3), (lon, xs, 0, 2)):
            span = max(values) - min(values)
            boxes = [rect[released["class_id"].iloc[i]] for i in boxed]
            cells[name] = sum(_clipped(r[lo_i], r[hi_i], values) / span if span else 0.0
                              for r in boxes) / n + (n - len(boxed)) / n
    for col in intervals:
        raw_values = [None if _missing(v) else float(v) for v in raw[col]]
        present = [v for v in raw_values if v is not None]
        span = max(present) - min(present)
        total = 0.0
        members = defaultdict(list)
        for i, c in enumerate(released["class_id"].tolist()):
            members[c].append(raw_values[i])
        for i, v in enumerate(raw_values):
            lo, hi = released[f"{col}_min"].iloc[i], released[f"{col}_max"].iloc[i]
            if _missing(lo) and _missing(hi):
                mixed = any(u is None for u in members[released["class_id"].iloc[i]])
                assert v is None or mixed, f"{col}: a present value published empty in a class without missing"
                total += 0.0 if v is None else 1.0
            elif _missing(lo) or _missing(hi):    # an open end: the value on the side of the other
                assert v is not None and (float(lo) <= v if _missing(hi) else v <= float(hi)), (col, v, lo, hi)
                ends = (float(lo), max(present)) if _missing(hi) else (min(present), float(hi))
                total += _clipped(*ends, present) / span if span else 0.0
            else:
                assert v is not None and float(lo) <= v <= float(hi), f"{col}: {v} not in [{lo}, {hi}]"
                total += _clipped(float(lo), float(hi), present) / span if span else 0.0
        cells[col] = total / n
    for col in suppressed:
        total = 0
        for rows in classes.values():
            raw_values = [raw[col].iloc[i] for i in rows]
            shown = [str(released[col].iloc[i]).lstrip("'") for i in rows]
            if len({repr(v) for v in raw_values}) > 1:
                assert all(s == "*" for s in shown), col
                total += len(rows)
            else:
                assert all(s == str(r) for s, r in zip(shown, raw_values)), col
        cells[col] = total / n
    for col in sets:
        distinct = {repr(v) for v in raw[col]}
        count = Counter(_text(v) for v in raw[col])
        total = 0.0
        for rows in classes.values():
            held = {_text(raw[col].iloc[i]) for i in rows}
            shown = {_text(released[col].iloc[i]).lstrip("'") for i in rows}
            assert len(shown) == 1, col
            label = shown.pop()
            common = sorted(v for v in held if count[v] >= k)
            if len(held) == 1:
                assert label == held.pop(), col
            elif len(held) == len(distinct) or not common:
                assert label == "*", col
            else:       # the values k rows hold, NA for the records without one, '*' for the rarer ones, never named
                parts = [p.replace("\\|", "|").replace("\\\\", "\\")
                         for p in re.split(r"(?<!\\)\|", label)]
                named = [v for v in common if v != ""] + (["NA"] if "" in common else [])
                assert parts == named + (["*"] if len(common) < len(held) else []), (col, label, held)
            total += len(rows) * (len({repr(raw[col].iloc[i]) for i in rows}) - 1) / max(len(distinct) - 1, 1)
        cells[col] = total / n
    for col, paths in hierarchies.items():
        above = {row[0]: list(row) for row in paths}
        for i in range(n):
            assert str(released[col].iloc[i]) in above[str(raw[col].iloc[i])], col
    return cells


def _text(v):
    return "" if _missing(v) else str(v)


def _clipped(lo, hi, values):
    """The width of [lo, hi] within the range of ``values`` (NCP's interval, clipped to the input's range)."""
    return max(min(hi, max(values)) - max(lo, min(values)), 0.0)


def _missing(v):
    return v is None or (isinstance(v, float) and v != v) or str(v) in ("", "nan", "<NA>", "None")


def drawn_shapes(html: str) -> int:
    """How many class shapes a map page embeds (each a GeoJSON geometry of its class layer)."""
    return html.count('{"type":"Polygon"') + html.count('{"type":"MultiPolygon"')


def drawn_geometries(html: str) -> list:
    """The class shapes a map page embeds, as GeoJSON geometries (the first
    argument of the class layer's builder)."""
    import json

    start = html.index("return layer;\n})(") + len("return layer;\n})(")
    return json.JSONDecoder().raw_decode(html, start)[0]


def without_context(html: str) -> str:
    """A map page without its Natural Earth context layers (public coastlines,
    borders and places, whose coordinates may coincide with a record's by chance)."""
    import json

    context = re.search(r'L\.geoJSON\(\{"type":"FeatureCollection".*?interactive: false', html, flags=re.S)
    html = html if context is None else html.replace(context[0], "")
    places = re.search(r'\}\)\(map_\w+, (?=\{"name":)', html)
    if places is None:
        return html
    end = json.JSONDecoder().raw_decode(html, places.end())[1]
    return html[:places.end()] + html[end:]


def by_definition(groups: dict, table: Counter, recursive_l: int) -> dict:
    """The figures of every criterion, class by class, straight from the definitions."""
    n = sum(table.values())
    q = {v: c / n for v, c in table.items()}
    out = {"l_entropy": math.inf, "beta": 0.0, "beta_enhanced": 0.0, "delta": 0.0, "c": 0.0}
    for values in groups.values():
        counts = Counter(values)
        size = len(values)
        p = {v: c / size for v, c in counts.items()}
        out["l_entropy"] = min(out["l_entropy"], math.exp(-sum(x * math.log(x) for x in p.values())))
        excess = {v: (p[v] - q[v]) / q[v] for v in p}
        out["beta"] = max(out["beta"], max(excess.values()))
        reachable = all(e <= -math.log(q[v]) for v, e in excess.items() if e > 0)
        out["beta_enhanced"] = max(out["beta_enhanced"], max(excess.values()) if reachable else math.inf)
        out["delta"] = max(out["delta"], max(abs(math.log(p[v] / q[v])) for v in p))
        r = sorted(counts.values(), reverse=True)
        tail = sum(r[recursive_l - 1:])
        out["c"] = max(out["c"], r[0] / tail if tail else math.inf)
    return out
