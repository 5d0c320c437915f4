"""A grouping of a table's rows into classes, held without a row.

Rows of one *entry* (equal on every quasi-identifier and on the sensitive
value) are interchangeable to every solver, so a solver's answer is, per
entry, how many of its rows go to which class: runs of its rows in row order
(block b: ``rows[b]`` rows of entry ``entry[b]`` from rank ``start[b]`` on,
in class ``cls[b]``). The in-memory engine reads a row's class from its entry
and its rank among the entry's rows (:meth:`Instance.row_classes`); the
cluster engine does the same on the workers, each rank offset by the entry's
rows in the partitions before, so both release the same table.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import VerificationError

__all__ = ["Grouping"]


@dataclass(frozen=True)
class Grouping:
    """Blocks (entry, start, rows, cls), sorted by entry then start, no block
    empty, class ids 0..C-1 all used (in the order of the ids given)."""

    entry: np.ndarray
    start: np.ndarray
    rows: np.ndarray
    cls: np.ndarray

    @classmethod
    def of(cls, entry, start, rows, klass) -> Grouping:
        """The blocks given (any order), sorted, empty ones dropped, classes renumbered compactly."""
        entry, start, rows, klass = (np.asarray(a, dtype=np.int64).ravel() for a in (entry, start, rows, klass))
        keep = rows > 0
        order = np.lexsort((start[keep], entry[keep]))
        return cls(entry[keep][order], start[keep][order], rows[keep][order],
                   np.unique(klass[keep][order], return_inverse=True)[1].ravel().astype(np.int64))

    @classmethod
    def by_entry(cls, class_of_entry, entry_rows) -> Grouping:
        """Each entry's rows all in one class."""
        n = np.asarray(entry_rows).size
        return cls.of(np.arange(n), np.zeros(n), entry_rows, class_of_entry)

    @classmethod
    def from_slots(cls, class_of_slot, entry_rows) -> Grouping:
        """From the class of every row with the rows in canonical order (by
        entry, then rank): runs of one class within an entry become blocks."""
        class_of_slot = np.asarray(class_of_slot, dtype=np.int64)
        entry_rows = np.asarray(entry_rows, dtype=np.int64)
        entry = np.repeat(np.arange(entry_rows.size), entry_rows)
        cut = np.flatnonzero(np.r_[True, (np.diff(entry) != 0) | (np.diff(class_of_slot) != 0)])
        first = np.r_[0, np.cumsum(entry_rows)[:-1]]
        return cls.of(entry[cut], cut - first[entry[cut]], np.diff(np.r_[cut, class_of_slot.size]), class_of_slot[cut])

    @property
    def n_classes(self) -> int:
        return int(self.cls.max()) + 1 if self.cls.size else 0

    def sizes(self) -> np.ndarray:
        """Rows per class."""
        return np.bincount(self.cls, weights=self.rows, minlength=self.n_classes).astype(np.int64)

    def verify(self, entry_rows, k: int = 1) -> Grouping:
        """Check the grouping's rules; raise :class:`~geoanon.errors.VerificationError`
        if one fails: the blocks tile every entry's rows (``entry_rows``) exactly
        once, class ids are 0..C-1 all used, and every class holds >= ``k`` rows.
        Returns ``self``."""
        entry_rows = np.asarray(entry_rows, dtype=np.int64)
        covered = np.bincount(self.entry, weights=self.rows, minlength=entry_rows.size)
        first = np.r_[True, np.diff(self.entry) != 0]
        expected = np.where(first, 0, np.r_[0, self.start[:-1] + self.rows[:-1]])
        if covered.size != entry_rows.size or (covered != entry_rows).any() or (self.start != expected).any():
            raise VerificationError("a grouping does not give every row of every entry exactly one class")
        sizes = self.sizes()
        if (sizes == 0).any():
            raise VerificationError(f"class ids are not contiguous: class {int(np.argmin(sizes))} is empty")
        light = np.flatnonzero(sizes < k)
        if light.size:
            raise VerificationError(f"{light.size} classes hold fewer than k={k} rows "
                                    f"(class {int(light[0])} holds {int(sizes[light[0]])})")
        return self

    def classes_of(self, entry, rank, entry_rows) -> np.ndarray:
        """The class of rows given by their entry and their rank among its rows."""
        first = np.r_[0, np.cumsum(entry_rows)[:-1]]
        at = np.searchsorted(first[self.entry] + self.start, first[entry] + rank, side="right") - 1
        return self.cls[at]
