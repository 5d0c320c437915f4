"""Simple baselines the partitioners are measured against.

mondrian_median  the textbook Mondrian (LeFevre et al.) in plain numpy: cut the
                 widest normalized dimension at its median while both halves keep
                 >= k records, one Python loop iteration per node. This is what
                 anonypy does with pandas.
"""
import numpy as np


def mondrian_median(xy: np.ndarray, k: int) -> np.ndarray:
    """Class id per row."""
    n = len(xy)
    scale = np.ptp(xy, axis=0)
    scale[scale == 0] = 1.0
    labels = np.empty(n, dtype=np.int64)
    stack, n_classes = [np.arange(n)], 0
    while stack:
        idx = stack.pop()
        pts = xy[idx]
        spans = np.ptp(pts, axis=0) / scale
        for dim in np.argsort(-spans, kind="stable"):
            median = np.median(pts[:, dim])
            left = pts[:, dim] < median
            n_left = int(left.sum())
            if n_left >= k and len(idx) - n_left >= k:
                stack += [idx[left], idx[~left]]
                break
        else:
            labels[idx] = n_classes
            n_classes += 1
    return labels
