"""How a map stacks its classes' shapes so that none hides another: classes
that publish the same shape drawn once, the largest drawn first (a small
class shows, and takes the click, above every larger one and every one
holding it), and where shapes overlap (boxes rounded out onto their grids;
the joint design's boxes, cut along every column, widely) the largest of
them filled fainter and the legend told."""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["FILL_OPACITY", "drawing_order", "faded_fills", "ground_areas", "one_per_shape", "overlap_notes",
           "overlapping", "touching"]

FILL_OPACITY = 0.6
FADE_FROM = 0.02       # a shape covering more of the classes' extent than this is filled fainter the larger it is
FADE_FLOOR = 0.08      # ... down to this opacity


def one_per_shape(gdf, drawn: np.ndarray, digits: int) -> tuple:
    """The classes (popup values escaped) and their ``drawn`` shapes, one row
    per distinct shape (to ``digits`` decimals): classes that publish the same
    area (boxes may coincide) are drawn once, so that none lies hidden under
    another; that row lists their ids and published values, and adds up
    their records and classes."""
    import shapely

    rounded = shapely.transform(gdf.geometry.to_numpy(), lambda c: np.round(c, digits))
    owner = pd.factorize(pd.Series(shapely.to_wkb(rounded)))[0]     # numbered in order of first appearance
    first = np.unique(owner, return_index=True)[1]
    if len(first) == len(gdf):
        return gdf, drawn
    out = gdf.iloc[first].reset_index(drop=True)
    out["class_id"] = out["class_id"].astype(object)
    for shape in np.flatnonzero(np.bincount(owner) > 1).tolist():
        rows = np.flatnonzero(owner == shape)
        out.at[shape, "class_id"] = ", ".join(str(v) for v in gdf["class_id"].iloc[rows])
        out.at[shape, "records"] = int(gdf["records"].iloc[rows].sum())
        if "classes" in gdf.columns:
            out.at[shape, "classes"] = int(gdf["classes"].iloc[rows].sum())
        if "label" in gdf.columns:
            out.at[shape, "label"] = "<br>".join(gdf["label"].iloc[rows])
    return out, drawn[first]


def ground_areas(geoms: np.ndarray) -> np.ndarray:
    """Shapes' (longitude/latitude) areas on the ground, up to a constant:
    their area with latitudes as the sine of the latitude (a cylindrical
    equal-area projection)."""
    import shapely

    return shapely.area(shapely.transform(geoms, lambda c: np.c_[c[:, 0], np.sin(np.radians(c[:, 1]))]))


def drawing_order(geoms: np.ndarray) -> np.ndarray:
    """The order to draw shapes (longitude/latitude) in: largest
    :func:`ground_areas` first, so that a shape is drawn after every larger
    one and every one that holds it, and shows on top; ties in the given order."""
    return np.argsort(-ground_areas(geoms), kind="stable")


def touching(geoms: np.ndarray) -> tuple:
    """The pairs of distinct shapes that touch or overlap, both ways round (``a``, ``b``)."""
    import shapely

    a, b = shapely.STRtree(geoms).query(geoms, predicate="intersects")
    return a[a != b], b[a != b]


def overlapping(geoms: np.ndarray, pairs: tuple) -> np.ndarray:
    """Which shapes overlap another (``pairs``: :func:`touching`'s): their
    interiors meet (shapes that only share an edge, as tiles do, do not).
    Two rectangles (shapes that fill their bounding box, as boxes do) meet
    where their boxes overlap along both axes; other pairs are asked of
    their shapes."""
    import shapely

    a, b = pairs
    a, b = a[a < b], b[a < b]
    box = shapely.bounds(geoms)
    rectangle = np.isclose(shapely.area(geoms), (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1]), rtol=1e-9)
    meet = ((np.minimum(box[a, 2], box[b, 2]) > np.maximum(box[a, 0], box[b, 0]))
            & (np.minimum(box[a, 3], box[b, 3]) > np.maximum(box[a, 1], box[b, 1])))
    shaped = meet & ~(rectangle[a] & rectangle[b])
    meet[shaped] = shapely.relate_pattern(geoms[a[shaped]], geoms[b[shaped]], "T********")
    found = np.zeros(len(geoms), dtype=bool)
    found[a[meet]] = found[b[meet]] = True
    return found


def faded_fills(geoms: np.ndarray, overlaps: np.ndarray) -> dict:
    """The fill opacity of each overlapping shape that covers more than
    ``FADE_FROM`` of the classes' extent (the box of them all), by index:
    ``FILL_OPACITY`` times the square root of ``FADE_FROM`` over its share,
    at least ``FADE_FLOOR``, so that boxes stacked over a country leave the
    smaller ones above them readable."""
    if not overlaps.any():
        return {}
    import shapely

    extent = float(ground_areas(np.array([shapely.box(*shapely.total_bounds(geoms))]))[0])
    share = ground_areas(geoms) / max(extent, 1e-12)
    fade = np.flatnonzero(overlaps & (share > FADE_FROM))
    opacity = np.maximum(FILL_OPACITY * np.sqrt(FADE_FROM / share[fade]), FADE_FLOOR)
    return {str(i): round(float(o), 2) for i, o in zip(fade.tolist(), opacity.tolist())}


def overlap_notes(overlaps: np.ndarray, shapes: str) -> list:
    """A legend line where ``shapes`` (the legend's name for them:
    ``"boxes of …"``, ``"groups of …"``) overlap (``overlaps``:
    :func:`overlapping`): how they are drawn, and how to ask for classes that
    never overlap; none when they tile."""
    if not overlaps.any():
        return []
    what, asked = (("the group of regions its own records hold", "method \"frontier\" publishes groups")
                   if shapes.startswith("groups")
                   else ("its own records' box, rounded outward",
                         "method \"frontier\" and extent \"tile\" publishes boxes"))
    return [f"The {shapes} overlap (each class publishes {what}): the smaller are drawn on top, the largest "
            f"fainter. geoanon anonymize with {asked} that never overlap"]
