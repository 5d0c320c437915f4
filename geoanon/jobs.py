"""Batch jobs described by a TOML file: ``geoanon run JOB.toml``.

A job is the joint release (:func:`geoanon.anonymize`) of one table, its
``[columns]`` one :class:`geoanon.Columns` (:meth:`Job.columns`)::

    [input]
    path = "patients.csv"          # any table the command line reads
    sep = ";"                      # CSV only: delimiter, encoding, decimal mark
    encoding = "latin-1"
    decimal = ","

    [columns]
    identifiers = ["name", "ssn"]  # dropped from the release
    location = { lat = "lat", lon = "lon" }   # or { zip, regions, region_id, edges, contiguity, unknown,
                                              # small } or { label }
    qi = ["sex"]                   # quasi-identifiers, published the default way
    interval = ["age"]             # ... as {col}_min, {col}_max
    hierarchy = { marital = "marital.csv" }   # ... as a node of an ARX hierarchy
    suppress = ["race"]            # ... as the shared value or '*'
    sets = []                      # ... as the values the class holds
    dates = []                     # ... as ISO intervals: date columns, or { admitted = "%d/%m/%Y" }
    ranges = { age = [0, 120] }    # the values an interval can take (default: from 0 without negatives)
    sensitive = "diagnosis"
    keep = ["visit"]               # published as they are, deliberately
    strict = true                  # refuse columns without a role (the default; false: publish them, warned)

    [model]                        # k, l, l_distinct, t, l_entropy, recursive = [c, l], beta,
                                   # beta_enhanced, delta (at least one), ground, order
    k = 10

    [release]                      # method, extent, resolution, jobs, missing, crs, bounds, max_withheld,
                                   # weights = { location = 4, age = 1 }, max_extent_km,
                                   # location_loss, max_suppressed = 0.02, max_pooled = 0.09, pool_by, zip_level
    method = "frontier"

    [output]                       # table (required), report, map, classes, html_report,
    table = "released.csv"         # escape_formulas, keep_order (default false: rows ordered by what
                                   # they publish; true keeps the input's order), timings

Paths are relative to the job file. :func:`load_job` checks every key's name,
type and value (levels, bounds, a model given, the decimal mark apart from
the delimiter), :func:`check_columns` the columns against the table (each
named column exists and has one role), before anything runs; errors name the
file, section and key in one line.
"""
from __future__ import annotations

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from ._text import show
from .criteria import CRITERIA
from .errors import DataError, ParameterError, UndeclaredColumnsError
from .options.values import PATH
from .constraints import check
from .options.checks import check_decimal, check_weights
from .options.locations import LOCATIONS, by_keys, listed
from .options.option import Option
from .options.table import OPTIONS

__all__ = ["anonymize_options", "check_columns", "check_files", "input_columns", "load_job", "plan", "read_input"]

TREATMENTS = ("qi", "interval", "hierarchy", "suppress", "sets")     # the quasi-identifiers' roles
JOB_WAYS = ("list {each} under [columns] qi (generalized), keep (published as it is) or identifiers (dropped), or "
            "set strict = false to publish it with a warning")


@dataclass
class Job:
    """A validated job file (paths resolved against its folder)."""

    source: Path
    input: Path
    csv: dict = field(default_factory=dict)          # sep, encoding
    decimal: str = "."
    identifiers: list = field(default_factory=list)
    location: dict | None = None
    treatments: dict = field(default_factory=dict)   # role in TREATMENTS -> columns (hierarchy: {col: path})
    sensitive: str | None = None
    keep: list = field(default_factory=list)
    strict: bool = True
    model: dict = field(default_factory=dict)
    release: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)      # table, report, map, classes, html_report -> path; flags
    dates: dict = field(default_factory=dict)        # date columns -> strftime format or None (ISO)
    ranges: dict = field(default_factory=dict)       # interval columns -> [low, high] of their possible values
    warnings: list = field(default_factory=list)     # about the file itself (a key under its old name)

    def inputs(self) -> dict:
        """Every file the job reads, by the key that names it."""
        files = {"the job file": self.source, "[input] path": self.input}
        for key, row in section_keys("columns.location").items():      # the location's files (regions, edges)
            if row.kind is PATH and self.location and self.location.get(key) is not None:
                files[f"[columns] location.{key}"] = self.location[key]
        for col, path in self.treatments.get("hierarchy", {}).items():
            files[f"[columns] hierarchy.{col}"] = path
        if isinstance(self.model.get("ground"), Path):
            files["[model] ground"] = self.model["ground"]
        return files

    def columns(self, read: bool = False):
        """The ``[columns]`` section as one :class:`geoanon.Columns` (its
        hierarchies read from their files when ``read``)."""
        from .columns import Columns
        from .models import Hierarchy

        t = self.treatments
        return Columns(location=self.location, qi=t.get("qi"), interval=t.get("interval"), dates=self.dates or None,
                       hierarchies={c: Hierarchy.read_csv(p) if read else p for c, p in t.get("hierarchy", {}).items()},
                       suppress=t.get("suppress"), sets=t.get("sets"), sensitive=self.sensitive,
                       identifiers=self.identifiers, keep=self.keep, ranges=self.ranges)

    def roles(self) -> dict:
        """Column -> its role, for the columns the job names."""
        named = {}
        for role, cols in (("identifiers", self.identifiers), ("keep", self.keep),
                           ("sensitive", [self.sensitive] if self.sensitive else []),
                           *((role, list(self.treatments.get(role, ()))) for role in TREATMENTS),
                           ("dates", list(self.dates))):
            for col in cols:
                named.setdefault(col, []).append(f"[columns] {role}")
        for key in by_keys(set(self.location)).columns if self.location else ():
            named.setdefault(self.location[key], []).append(f"[columns] location.{key}")
        return named


def load_job(path) -> Job:
    """Read and check a job file: sections, keys and the type of every value."""
    source = Path(path)
    if not source.is_file():
        raise DataError(f"{source}: no such job file")
    raw = _read_toml(source)
    sections = SECTIONS
    for name, value in raw.items():
        if name not in sections:
            raise ParameterError(f"{source}: unknown section [{name}] (sections: {', '.join(sections)})")
        if not isinstance(value, dict):
            raise ParameterError(f"{source}: {name} must be a section [{name}], not a value")
    checked, warnings = {}, []
    for name, keys in sections.items():
        section = _renamed(source, name, raw.get(name, {}), warnings)
        for key in section:
            if key not in keys:
                raise ParameterError(f"{source}: [{name}] unknown key {key!r} (keys: {', '.join(keys)})")
        checked[name] = {key: _read_value(source, name, key, value) for key, value in section.items()}
    for name, key in (("input", "path"), ("output", "table")):
        if key not in checked[name]:
            raise ParameterError(f"{source}: [{name}] {key} is required")
    inp, cols, out = checked["input"], checked["columns"], checked["output"]
    _check_values(source, inp, checked["model"], checked["release"])
    job = Job(source=source, input=inp["path"], csv={k: inp[k] for k in ("sep", "encoding") if k in inp},
              decimal=inp.get("decimal", "."), identifiers=cols.get("identifiers", []),
              location=cols.get("location"), treatments={r: cols[r] for r in TREATMENTS if r in cols},
              sensitive=cols.get("sensitive"), keep=cols.get("keep", []), strict=cols.get("strict", True),
              model=checked["model"], release=checked["release"], outputs=out, dates=cols.get("dates", {}),
              ranges=cols.get("ranges", {}), warnings=warnings)
    for col, roles in job.roles().items():     # qi and dates (a type) go with one treatment: one role
        others = [r for r in roles if r not in ("[columns] qi", "[columns] dates")]
        if len(others) > 1 or (others and len(others) < len(roles)
                               and others[0].removeprefix("[columns] ") not in TREATMENTS):
            raise ParameterError(f"{source}: column {col!r} has two roles: {' and '.join(roles)}")
    if "weights" in job.release:
        try:
            check_weights(job.release["weights"], job_qi(job), job.location is not None)
        except ParameterError as exc:
            raise ParameterError(f"{source}: [release] {exc}") from None
    return job


RENAMED = {("columns", "insensitive"): "keep"}     # (section, the key's old name) -> its name now


def _renamed(source: Path, section: str, values: dict, warnings: list) -> dict:
    """A section's keys under their names now (:data:`RENAMED`), each old
    name found noted in ``warnings``; ParameterError when a key is given
    under both names."""
    out = dict(values)
    for (where, old), new in RENAMED.items():
        if where == section and old in out:
            if new in out:
                raise ParameterError(f"{source}: [{section}] gives both {old!r} (an old name) and {new!r}: "
                                     f"give {new!r} alone")
            out[new] = out.pop(old)
            warnings.append(f"{source}: {old!r} is deprecated, use {new!r}")
    return out


def job_qi(job: "Job") -> list:
    """Every quasi-identifier of the job, whatever its treatment."""
    return job.columns().quasi_identifiers


def _check_values(source: Path, inp: dict, model: dict, release: dict) -> None:
    """What the keys' types do not say: the decimal mark apart from the
    delimiter, a model given and its levels in range, the release's values."""
    from ._geo import is_geographic
    from .models import check_levels
    from .points.frame import check_bounds

    try:
        check_decimal(inp.get("decimal", "."), inp.get("sep", ","))
    except ParameterError as exc:
        raise ParameterError(f"{source}: [input] {exc}") from None
    levels = {name: model[name] for name in CRITERIA if name in model}
    if not levels:
        raise ParameterError(f"{source}: [model] needs at least one of {', '.join(CRITERIA)} (a release at k = 1 "
                             "protects no one)")
    for section, checked in (("model", lambda: check_levels(**levels)),
                             ("release", lambda: _check_release(release, check_bounds, is_geographic))):
        try:
            checked()
        except ParameterError as exc:
            raise ParameterError(f"{source}: [{section}] {exc}") from None


def _check_release(release: dict, check_bounds, geographic) -> None:
    """The ``[release]`` values against their rows' rules, and the bounds against the CRS."""
    rows = {row.key.partition(".")[2]: row for row in OPTIONS if row.key and row.key.startswith("release.")}
    for key, value in release.items():
        check(rows[key].name, value, rows[key].rule)
    if "bounds" in release:
        check_bounds(release["bounds"], geographic(release.get("crs", "EPSG:4326")))


def check_files(jobs: list) -> None:
    """Refuse outputs that name an input or another output of any job of the
    batch, unknown formats, and folders that cannot be written or made."""
    from .io import check_outputs

    inputs, outputs = {}, {}
    for job in jobs:
        inputs.update({f"{job.source}: {key}": path for key, path in job.inputs().items()})
        outputs.update({f"{job.source}: [output] {key}": (key, path) for key, path in job.outputs.items()
                        if key in OUTPUT_FILES})
        for key in ("map", "classes"):
            if key in job.outputs and job.location is None:
                raise ParameterError(f"{job.source}: [output] {key} needs a location in [columns]")
    check_outputs(inputs, outputs, creatable=True)


def check_columns(job: Job, columns) -> list:
    """Refuse named columns the table lacks, and, when the job is strict,
    columns with no role; the columns with no role (the run measures what
    they single out)."""
    import pandas as pd

    from .pipeline.roles import no_role, undeclared

    from .io import DELIMITERS, likely_delimiter

    columns = list(columns)
    for col, roles in job.roles().items():
        if col not in columns:
            found = likely_delimiter(job.input, job.csv.get("sep", ","), job.csv.get("encoding", "utf-8"), [col])
            hint = "" if found is None else (f"; its columns are separated by {DELIMITERS[found[0]]}: set sep = "
                                             f"{json.dumps(found[0])} in [input]")
            raise DataError(f"{job.source}: {roles[0]}: no column {col!r} in {job.input.name}{hint}")
    try:
        return undeclared(pd.DataFrame(columns=columns), job.roles(), [], strict=job.strict)
    except UndeclaredColumnsError as exc:
        raise UndeclaredColumnsError(f"{job.source}: [columns] " + no_role(exc.columns, JOB_WAYS), exc.columns) from None


def input_columns(job: Job) -> list:
    """The column names of the job's table (its header), an error in the job file's terms."""
    from .io import table_columns

    with _job_terms(job):
        return table_columns(job.input, **job.csv)


def read_input(job: Job):
    """The job's table, as its ``[input]`` says to read it; an error in the job file's terms."""
    from .io import read_table

    with _job_terms(job):
        return read_table(job.input, **job.csv)


@contextmanager
def _job_terms(job: Job):
    """A reader's DataError with the job file first, and the ``[input]`` key
    it suggests (``encoding='latin-1'``) as the file would set it."""
    try:
        yield
    except DataError as exc:
        words = re.sub(r"give (sep|encoding)='([^']*)'", lambda m: f"set {m[1]} = {json.dumps(m[2])} in [input]",
                       str(exc))
        raise type(exc)(f"{job.source}: {words}") from None


def plan(job: Job) -> list[str]:
    """What the job will do, one line per column role, setting and output
    (``--dry-run``): every key the job file sets is shown."""
    read = {**job.csv, **({"decimal": job.decimal} if job.decimal != "." else {})}
    lines = [f"read {job.input}" + (f" ({_settings(read)})" if read else "")]
    if job.identifiers:
        lines.append(f"drop {', '.join(job.identifiers)}")
    if job.location:
        shape = by_keys(set(job.location))
        rest = {k: v for k, v in job.location.items() if k not in shape.columns}
        lines.append(f"location ({shape.report}): {', '.join(shape.column_names(job.location))}"
                     + (f" ({_settings(rest)})" if rest else ""))
    for role in TREATMENTS:
        cols = job.treatments.get(role)
        if cols:
            how = {"qi": "quasi-identifiers (default publication)", "interval": "as intervals",
                   "hierarchy": "as hierarchy nodes", "suppress": "as the shared value or '*'",
                   "sets": "as value sets"}[role]
            lines.append(f"{how}: " + (_settings(cols) if role == "hierarchy" else ", ".join(cols)))
    if job.dates:
        lines.append("as date intervals: " + ", ".join(col if fmt is None else f"{col} ({fmt})"
                                                        for col, fmt in job.dates.items()))
    if job.keep:
        lines.append(f"keep as they are: {', '.join(job.keep)}")
    if not job.strict:
        lines.append("columns without a role: published with a warning (strict = false)")
    lines.append(f"model: {_settings(job.model)}" + (f", sensitive {job.sensitive}" if job.sensitive else ""))
    if job.release:
        lines.append(f"release: {_settings(job.release)}")
    flags = {key: value for key, value in job.outputs.items() if key not in OUTPUT_FILES}
    if flags:
        lines.append(f"output: {_settings(flags)}")
    lines += [f"write {key}: {path}" + ("" if Path(path).parent.is_dir() else
                                        f" (the folder {Path(path).parent} is made)")
              for key, path in job.outputs.items() if key in OUTPUT_FILES]
    return lines


def _settings(values: dict) -> str:
    """``key=value`` pairs as a plan shows them (numbers plainly, tables in braces)."""
    def shown(v):
        if isinstance(v, dict):
            return "{" + _settings(v) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(map(shown, v)) + "]"
        if isinstance(v, bool):
            return "true" if v else "false"
        return f"{v:g}" if isinstance(v, float) else str(v)

    return ", ".join(f"{key}={shown(v)}" for key, v in values.items())


def anonymize_options(job: Job, location) -> dict:
    """The arguments of :func:`geoanon.anonymize` for the job (files read;
    ``location`` with its regions read), its ``[columns]`` as one
    :class:`geoanon.Columns` (the identifiers are dropped as the table is
    read; the sensitive column goes with a Model of the levels of
    :mod:`geoanon.criteria`)."""
    from .criteria import DISTRIBUTION
    from .models import Hierarchy, Model

    model = dict(job.model)
    ground = model.pop("ground", "equal")
    model["ground"] = Hierarchy.read_csv(ground) if isinstance(ground, Path) else ground
    sensitive = job.sensitive
    if any(name in model for name in DISTRIBUTION):
        model = {"model": Model(sensitive=sensitive, **model)}
        sensitive = None
    release = dict(job.release)
    if "jobs" in release:
        release["n_jobs"] = release.pop("jobs")
    columns = replace(job.columns(read=True), location=location, identifiers=(), sensitive=sensitive)
    return {"columns": columns, "strict": job.strict, "decimal": job.decimal, **model, **release}


# -- reading and checking values -------------------------------------------------------------

def _read_toml(source: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:      # Python 3.10
        import tomli as tomllib
    try:
        with open(source, "rb") as f:
            return tomllib.load(f)
    except UnicodeDecodeError:
        raise DataError(f"{source}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{source}: not valid TOML: {exc}") from None


def _location(where: str, folder: Path, value) -> dict:
    """``[columns] location``: a table of one location's keys (the rows of
    :data:`~geoanon.options.table.OPTIONS` under ``columns.location``), each
    read as its row says."""
    rows = section_keys("columns.location")
    if not isinstance(value, dict):
        raise ParameterError(f'{where}: expected a table such as {{ lat = "lat", lon = "lon" }}, got {show(value)}')
    keys = set(value)
    written = [s for s in LOCATIONS.values() if s.name is not None and set(s.keys) <= set(rows)]
    shape = by_keys(keys, written)
    if shape is None:
        shapes = ["{ " + ", ".join(s.keys) + " }" for s in written]
        raise ParameterError(f"{where}: expected {listed(shapes)}, got {show(value)}")
    if not set(shape.needed) <= keys:
        raise ParameterError(f"{where}: missing {', '.join(sorted(set(shape.needed) - keys))}")
    return {key: rows[key].kind.read(v, folder, f"{where}.{key}") for key, v in value.items()}


def section_keys(section: str) -> dict:
    """The job file's keys of ``section`` (``"release"``, or a nested table
    such as ``"columns.location"``) -> their rows of the options table."""
    prefix = section + "."
    return {row.key[len(prefix):]: row for row in OPTIONS
            if row.key is not None and row.key.startswith(prefix) and "." not in row.key[len(prefix):]}


def _read_value(source: Path, section: str, key: str, value):
    """A key's value, read as its row's kind says (the location: :func:`_location`)."""
    where = f"{source}: [{section}] {key}"
    if section == "columns" and key == "location":
        return _location(where, source.parent, value)
    return SECTIONS[section][key].kind.read(value, source.parent, where)


SECTIONS = {"input": {"path": Option("path", (), PATH, "the table", key="input.path"),
                      **section_keys("input")},
            "columns": {**section_keys("columns"), "location": None},
            "model": section_keys("model"), "release": section_keys("release"),
            "output": {"table": Option("table", (), PATH, "the released table", key="output.table"),
                       **section_keys("output")}}
OUTPUT_FILES = ("table", "report", "html_report", "map", "classes")
