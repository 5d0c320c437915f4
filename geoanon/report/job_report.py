"""What every job reports (:class:`JobReport`), on either engine."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..options.locations import LOCATIONS

__all__ = ["JobReport", "file_names", "joint_report"]

if TYPE_CHECKING:
    from ..audit import AuditReport
    from ..options import ReleaseSpec


def file_names(files: dict) -> dict:
    """A report's paths as file (or dataset folder) names."""
    return {key: None if path is None else Path(path).name for key, path in files.items()}


@dataclass(eq=False, repr=False)
class JobReport(Mapping):
    """What a job reports: the figures every job has, typed, and its own in
    ``details``. It reads as the flat dict :meth:`to_dict` gives (``report["k"]``,
    ``report.get("ncp")``), which is what :func:`write_release` writes.

    Attributes
    ----------
    job : str
        The job: "points", "regions", "labels", "suppress" or "anonymize"
        (not in the dict).
    rows, classes, min_class, max_class : int
        Rows of the table, classes of the release, smallest and largest class.
    model : dict
        The requested model: ``{"k": k}``, or :meth:`Model.as_dict <geoanon.models.Model.as_dict>`.
    audit : AuditReport
        The audit of the released table.
    seconds : float
    details : dict
        The job's own figures, in the dict after the class sizes.
    lead : tuple of str
        Keys that open the dict, in this order (where a job's layout differs).
    warnings : list of str or None
        The release's warnings (:class:`Release` sets them).
    files : dict
        Paths the command line read and wrote (``input``, ``output``, ...),
        written last and as file names only: the report is published, and a
        folder can name the person or the site that made it.

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"lat": [35.99, 36.01, 35.98, 36.02, 35.78, 35.80, 35.77, 35.79],
    ...                    "lon": [-78.90, -78.91, -78.93, -78.89, -78.64, -78.66, -78.62, -78.63]})
    >>> report = ga.generalize_points(df, k=2).report
    >>> report.job, report["k"], report["classes"], report.audit["k"]
    ('points', 2, 4, 2)
    >>> list(report)[:7]
    ['rows', 'k', 'classes', 'min_class', 'max_class', 'lower_bound', 'ratio']
    """

    job: str
    rows: int
    model: dict
    classes: int
    min_class: int
    max_class: int
    audit: AuditReport
    seconds: float
    details: dict = field(default_factory=dict)
    lead: tuple = ()
    warnings: list | None = None
    files: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The report as one flat dict, in the order it is written."""
        out = {"rows": self.rows, **self.model, "classes": self.classes, "min_class": self.min_class,
               "max_class": self.max_class, **self.details, "audit": self.audit, "seconds": self.seconds}
        if self.warnings is not None:
            out["warnings"] = self.warnings
        out.update(file_names(self.files))
        return {**{key: out[key] for key in self.lead}, **out}

    def __getitem__(self, key):
        return self.to_dict()[key]

    def __repr__(self) -> str:
        model = ", ".join(f"{name}={value!r}" for name, value in self.model.items() if value is not None)
        return (f"<JobReport of {self.job}: {self.rows:,} rows, {self.classes:,} classes of {self.min_class:,} to "
                f"{self.max_class:,}; {model}; keys {', '.join(self)}>")

    def __iter__(self):
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


def joint_report(spec: ReleaseSpec, *, rows: int, sizes: tuple, audit: AuditReport, seconds: float, treatments: dict,
                 location_classes: int, beyond: dict, suppressed_records: int, formats: dict, isolated: dict,
                 engine: dict, undeclared: dict) -> JobReport:
    """The report of a joint release (:func:`geoanon.anonymize`), on either
    engine: ``sizes`` the classes, smallest and largest class; ``beyond``
    the precision target's figures; ``engine`` the figures only one engine
    has, after the isolated records (in memory the location's own and the
    NCP; on dask the shards, resolution, bounds and engine name)."""
    from ..criteria import KEYWORDS

    o, (kind, loc), model = spec.options, spec.location, spec.model
    shape = LOCATIONS[kind]
    details = {
        "location": shape.report_entry(loc),
        "qi": treatments,
        "method": o["method"],
        "location_classes": int(location_classes),
        **({} if kind is None else {"location_loss": o["location_loss"]}),
        **({"zip_level": o["zip_level"]} if shape.rolls_up else {}),
        **({"weights": o["weights"]} if o["weights"] else {}),
        **({} if o["location_precision"] is None else {"location_precision": o["location_precision"]}),
        **beyond,
        **({} if o["max_suppressed"] is None else {"max_suppressed": o["max_suppressed"],
                                                   "suppressed_records": int(suppressed_records)}),
        **({"dates": formats} if formats else {}),
        **({"isolated": isolated} if isolated else {}),
        **engine,
        **undeclared,
    }
    classes, min_class, max_class = sizes
    return JobReport(job="anonymize", rows=int(rows), model=model.as_dict(), classes=int(classes),
                     min_class=int(min_class), max_class=int(max_class), audit=audit, seconds=seconds, details=details,
                     lead=("rows", *KEYWORDS, "sensitive", "location", "qi", "method"))
