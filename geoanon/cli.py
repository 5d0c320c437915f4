"""The ``geoanon`` command line.

Every generalizing verb keeps each input row and non-QI column, replaces the
quasi-identifier columns by their generalized values, adds ``class_id``, and
audits the result before writing. Errors print one line on stderr and exit
with code 2; nothing is written then. The flags are the rows of
:data:`geoanon.options.table.OPTIONS`; each verb's run is one row of
:data:`JOBS`.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import re
import signal
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import _outcome
from ._text import plural
from .errors import DataError, GeoanonError, GeoanonWarning, ParameterError, UndeclaredColumnsError
from .constraints import Pair
from .criteria import CRITERIA, DISTRIBUTION, KEYWORDS
from .report.summary import in_units
from .options.table import COMMANDS, OPTIONS, RELEASES, add_arguments, flag_values, job_words, unsupported_flags
from .options.checks import check_decimal

__all__ = ["build_parser", "entry", "main"]

INPUT_HELP = ("table: .csv, .parquet (or a folder of Parquet parts, as the dask engine writes), .geojson, .gpkg "
              "or .shp")
# How to declare a column without a role, by whether the command has --qi.
CLI_WAYS = {True: "give {each} to --qi (generalized), --keep (published as it is) or --identifiers (dropped)",
            False: "give {each} to --keep (published as it is) or --identifiers (dropped), or generalize it with "
                   "geoanon anonymize --qi"}
DEMO_K = 10
DEMO_REGION_K = 100
HELP = {
    "points": "generalize GPS coordinates into rectangles of >= k records",
    "zip": "generalize a region column (zip codes, counties) into connected groups of >= k records",
    "labels": "generalize an unordered label column (names, diagnoses) into classes of labels covering >= k records",
    "suppress": "generalize other quasi-identifiers by suppression (cells -> '*') to k-anonymity, l-diversity or "
                "t-closeness",
    "anonymize": "generalize the location and the other quasi-identifiers together: one release that meets the "
                 "model over all of them",
    "audit": "measure a released table: k, l, l_distinct, t, classes, suppressed cells; exit 1 if it misses a "
             "requested level",
}
LEVEL_FLAGS = {row.name: row.flag for row in OPTIONS if row.name in CRITERIA}      # -k, ..., --l-entropy, ...


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="geoanon", description="Generalize location columns so that every class holds >= k records.",
                     epilog="Safe to publish: the output table, the --map and the --report. For the data holder "
                            "only: the --classes files (they list raw values).")
    parser.add_argument("--version", action="version", version=f"geoanon {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    demo = sub.add_parser("demo", help="run the points and zip jobs on the shipped demo records: a table, a report "
                                       "and a map each")
    demo.add_argument("--out", default="geoanon-demo", help="output folder (default ./geoanon-demo)")
    demo.set_defaults(run=_run_demo)
    for command in COMMANDS:
        p = sub.add_parser(command, help=HELP[command])
        p.add_argument("input", metavar="IN", help=INPUT_HELP)
        if command in RELEASES:
            p.add_argument("-o", "--output", required=True, metavar="OUT", help="output table (format by extension)")
        add_arguments(p, command)
        p.add_argument("--engine", choices=("pandas", "dask"), default=None,
                       help="pandas (default: in this process) or dask: IN is a Parquet dataset, a folder or glob of "
                            "CSV files or one large CSV file, read by Dask workers"
                            + ("" if command == "audit" else "; -o is a new Parquet dataset folder")
                            + "; without --scheduler a LocalCluster runs here")
        p.set_defaults(run=_run_audit if command == "audit" else _run_release)
    run = sub.add_parser("run", help="run the jobs described by TOML files (the joint release of one table each); "
                                     "every file is checked before any job starts",
                         description=_job_file_format(), formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("jobs", nargs="+", metavar="JOB.toml", help="job files (the format above)")
    run.add_argument("--dry-run", action="store_true", help="check the jobs and print their plans; write nothing")
    run.set_defaults(run=_run_jobs)
    for command in sub.choices.values():
        command.add_argument("-q", "--quiet", action="store_true",
                             help="print nothing on stdout (no summary, no 'wrote' lines) and no progress display; "
                                  "warnings and errors still go to stderr, and the exit code tells the outcome")
        command.add_argument("-v", "--verbose", action="count", default=0,
                             help="log every step and its time on stderr (-vv: more)")
        command.set_defaults(flags={a.dest: max(_named(a), key=len) for a in command._actions
                                    if a.option_strings and a.dest not in ("help", "version")})
    sub.choices["demo"].set_defaults(flags=sub.choices["anonymize"].get_default("flags"))   # its releases' words
    return parser


def _version() -> str:
    from ._version import __version__

    return __version__


@dataclass(frozen=True)
class Job:
    """How the command line runs one verb: ``inputs`` (flag -> path of every
    file it reads besides IN), ``call`` (engine, IN, the API's keywords) ->
    the release, and the formats ``--classes`` may take."""

    inputs: Callable
    call: Callable
    classes_formats: tuple | None = None


def _run_release(args) -> int:
    """A generalizing verb: its flags turned into the job function's keywords
    (one per row of the options table), checked, run on its engine, written
    (every output staged, then renamed together) and summarized."""
    command = args.command
    engine = _engine(args)
    unsupported = unsupported_flags(args, command, engine)
    if unsupported:
        raise ParameterError(unsupported[0])
    job = JOBS[command]
    values = {**flag_values(args, command), "output": args.output}
    if command in ("suppress", "anonymize"):
        _require_level(values)
    inputs = {"IN": args.input, **{flag: path for flag, path in job.inputs(values).items() if path is not None}}
    _check_outputs(inputs, args, job.classes_formats, dataset=engine == "dask")
    _check_tiles(values)
    from .staging import StagedOutputs, batch

    with StagedOutputs() as out, batch(out):
        release = job.call(engine, args.input, values)
        release.report.files = {"input": str(args.input), **({"regions": str(values["regions"])}
                                                             if command == "zip" else {}), "output": str(args.output)}
        written = release.to_file(args.output, report=values.get("report"), map_html=values.get("map"),
                                  classes=values.get("classes"), html_report=values.get("html_report"),
                                  map_options={"tiles": values.get("tiles"), "tiles_attribution": values.get("attribution"),
                                               "title": Path(args.input).name},
                                  escape_all=values["escape_formulas"], from_text=engine == "memory" and _from_text(args.input),
                                  timings=values["timings"], keep_order=values["keep_order"], staged=out)
    return _done(args, release.warnings, release.summary(), written)


def _engine(args) -> str:
    """``"dask"`` or ``"memory"``; ParameterError for a contradiction."""
    if args.engine == "pandas" and (args.scheduler or args.scheduler_file):
        raise ParameterError("--scheduler and --scheduler-file run on the dask engine, not --engine pandas")
    if args.scheduler and args.scheduler_file:
        raise ParameterError("give --scheduler or --scheduler-file, not both")
    if args.engine == "dask" or bool(args.scheduler or args.scheduler_file):
        from .cluster.client import quiet

        quiet()
        return "dask"
    return "memory"


def _api(command: str, engine: str, values: dict, **fixed) -> dict:
    """The keywords of ``command``'s function on ``engine`` among ``values``
    (the rows it takes; the model's and the quasi-identifiers go apart:
    :func:`_model_options`), with ``fixed`` ones."""
    from .options import options_of

    taken = options_of(command, engine, api=True)
    out = {name: values[name] for name in taken if name in values and name not in APART}
    if engine == "dask" and command in JOBS:
        out["output"] = values["output"]
    return {**out, **fixed}


APART = (*KEYWORDS, "ground", "order", "sensitive", "qi")


def _table(engine: str, source, values: dict):
    """The input as the engine reads it: a DataFrame in memory, the path on dask."""
    from .io import read_table

    return read_table(source, sep=values["sep"], encoding=values["encoding"]) if engine == "memory" else source


def _function(engine: str, name: str):
    if engine == "memory":
        from . import pipeline

        return getattr(pipeline, name)
    from . import cluster

    return getattr(cluster, name)


def _points(engine, source, values):
    from .io import has_geometry

    lat, lon = values["lat"], values["lon"]
    if (lat is None) != (lon is None):
        raise ParameterError("give both --lat and --lon, or neither to use the point geometry")
    if lat is not None and lat == lon:
        raise ParameterError(f"--lat and --lon both name the column {lat!r}")
    table = _table(engine, source, values)
    if engine == "memory" and lat is None and not has_geometry(table):
        raise ParameterError(f"{source} has no point geometry: give --lat and --lon")
    if engine == "dask":
        values = {**values, "lat": lat or "lat", "lon": lon or "lon"}
    return _function(engine, "generalize_points")(table, values["k"], **_api("points", engine, values))


def _zip(engine, source, values):
    from .io import read_table

    return _function(engine, "generalize_regions")(_table(engine, source, values), values["k"],
                                                   **_api("zip", engine, values, regions=read_table(values["regions"])))


def _labels(engine, source, values):
    return _function(engine, "generalize_labels")(_table(engine, source, values), values["k"],
                                                  **_api("labels", engine, values))


def _suppress(engine, source, values):
    model = _model_options(values)
    return _function(engine, "suppress")(_table(engine, source, values), values["qi"],
                                         **_api("suppress", engine, values, **model))


def _anonymize(engine, source, values):
    from .columns import Columns
    from .models import Hierarchy

    location = _location_option(values)
    for flag, value in (("--map", values["map"]), ("--classes", values["classes"])):
        if value and location is None:
            raise ParameterError(f"{flag} needs a location ({_location_flags()}): without one there are no "
                                 "location classes")
    model = _model_options(values)
    if location is not None and "regions" in location:
        from .io import read_table

        location["regions"] = read_table(location["regions"])
    columns = Columns(location=location, qi=values["qi"], interval=values["interval"], dates=values["dates"] or None,
                      hierarchies={c: Hierarchy.read_csv(p) for c, p in values["hierarchies"].items()},
                      suppress=values["suppress"], sets=values["sets"], sensitive=model.pop("sensitive", None),
                      identifiers=values["identifiers"], keep=values["keep"], ranges=values["ranges"])
    roles = ("qi", "sensitive", "interval", "dates", "hierarchies", "suppress", "sets", "identifiers", "keep")
    api = {name: v for name, v in _api("anonymize", engine, values).items() if name not in roles}
    job = _function(engine, "explore" if values.get("explore") else "anonymize")
    return job(_table(engine, source, values), columns=columns, **api, **model)


def _location_flags() -> str:
    """The flags of each location kind's columns: ``--lat/--lon, --zip-col or --label-col``."""
    from .options.locations import LOCATIONS, listed

    return listed([shape.flags(shape.columns) for shape in LOCATIONS.values() if shape.options])


def _location_option(values: dict):
    """The location of ``geoanon anonymize`` from its flags, or None: the
    kind (:data:`~geoanon.options.locations.LOCATIONS`, those whose keys have
    flags) whose keys' flags are given; its settings' flags (``--small``)
    alone name no kind."""
    from .options.locations import LOCATIONS, listed
    from .options.table import OPTIONS

    flag = {o.key.rpartition(".")[2]: o.flag for o in OPTIONS if (o.key or "").startswith("columns.location.")}
    kinds = [shape for shape in LOCATIONS.values() if shape.name is not None and set(shape.keys) <= set(flag)]
    given = [shape for shape in kinds
             if any(values[key] is not None for key in shape.keys if key not in shape.choices)]
    for shape in kinds:
        settings = [key for key in shape.choices if values[key] is not None]
        if settings and shape not in given:
            raise ParameterError(f"--{settings[0]} is for a {shape.noun} ({flag[shape.columns[0]]})")
    if len(given) > 1:
        raise ParameterError(f"give one location: {listed(['/'.join(flag[k] for k in s.needed) for s in kinds], ', or ')}")
    if not given:
        return None
    shape = given[0]
    missing = [flag[key] for key in shape.needed if values[key] is None]
    if missing:
        raise ParameterError(f"give both {' and '.join(flag[key] for key in shape.needed)}" if len(shape.needed) == 2
                             else f"a {shape.noun} needs {', '.join(missing)}")
    return {**{key: values[key] for key in shape.keys if key not in shape.choices},
            **{key: values[key] for key in shape.choices if values[key] is not None}}


def _model_options(values: dict) -> dict:
    """The model's keywords (k, l, l_distinct, t, sensitive, ground, order),
    or ``{"model": Model}`` when a level of :mod:`geoanon.criteria` is asked."""
    from .audit import check_roles
    from .models import GROUNDS, Hierarchy, Model, check_levels

    extra = {name: values[name] for name in DISTRIBUTION if values[name] is not None}
    levels = {name: values[name] for name in KEYWORDS}
    check_levels(**levels, **extra)
    check_roles(values["qi"], values["sensitive"])
    ground = values["ground"]
    if ground not in GROUNDS and not Path(ground).is_file():
        raise ParameterError(f"--ground {ground!r} is neither {', '.join(GROUNDS)} nor a hierarchy file")
    options = {**levels, "sensitive": values["sensitive"],
               "ground": ground if ground in GROUNDS else Hierarchy.read_csv(ground), "order": values["order"]}
    if not extra:
        return options
    if values["sensitive"] is None:
        raise ParameterError(f"{', '.join(LEVEL_FLAGS[n] for n in extra)} need{'s' if len(extra) == 1 else ''} "
                             "a sensitive column (--sensitive)")
    return {"model": Model(**options, **extra)}


def _ground_file(values: dict):
    from .models import GROUNDS

    return None if values["ground"] in GROUNDS else values["ground"]


def _require_level(values: dict) -> None:
    if all(values[name] is None for name in CRITERIA):
        raise ParameterError("give at least one of " + ", ".join(LEVEL_FLAGS.values())
                             + " (a release at k = 1 protects no one)")


def _check_tiles(values: dict) -> None:
    tiles, attribution = values.get("tiles"), values.get("attribution")
    if attribution is not None and not tiles:
        raise ParameterError("--attribution is the credit line of --tiles: give --tiles too")
    if tiles:                      # the maps module (folium, xyzservices) loads only when there is something to check
        from .report.maps import check_tiles

        check_tiles(tiles, attribution)


JOBS = {
    "points": Job(lambda v: {}, _points),
    "zip": Job(lambda v: {"--regions": v["regions"], "--edges": v["edges"]}, _zip),
    "labels": Job(lambda v: {}, _labels, ("csv", "parquet")),
    "suppress": Job(lambda v: {"--ground": _ground_file(v)}, _suppress, ("csv", "parquet")),
    "anonymize": Job(lambda v: {"--regions": v["regions"], "--edges": v["edges"], "--ground": _ground_file(v),
                                **{f"--hierarchy {c}": p for c, p in v["hierarchies"].items()}},
                     _anonymize),
}


def _run_audit(args) -> int:
    from .models import Hierarchy

    engine = _engine(args)
    unsupported = unsupported_flags(args, "audit", engine)
    if unsupported:
        raise ParameterError(unsupported[0])
    values = flag_values(args, "audit")
    if values["hierarchies"] and values["original"] is None:
        raise ParameterError("--hierarchy needs --original (it only serves the information loss)")
    from .io import check_outputs, read_table

    check_outputs({"IN": args.input, "--ground": _ground_file(values), "--original": values["original"],
                   "--population": values["population"],
                   **{f"--hierarchy {c}": p for c, p in values["hierarchies"].items()}},
                  {"--report": ("report", values["report"])})
    model = _model_options(values)
    if engine == "dask":
        from .cluster import audit

        report = audit(args.input, values["qi"], **model, **_api("audit", "dask", values))
    else:
        from .audit import audit

        read = {"sep": values["sep"], "encoding": values["encoding"]}
        report = audit(read_table(args.input, **read), values["qi"],
                       original=read_table(values["original"], **read) if values["original"] else None,
                       hierarchies={c: Hierarchy.read_csv(p) for c, p in values["hierarchies"].items()},
                       population=read_table(values["population"], **read) if values["population"] else None, **model)
    report["input"] = Path(args.input).name          # a file name, as the releases' reports: never its folder
    return _print_audit(args, report)


def _job_file_format() -> str:
    """What ``run --help`` says of the job files: :mod:`geoanon.jobs`' example and rules."""
    import textwrap

    from . import jobs

    example = jobs.__doc__.split("::", 1)[1].split("\nPaths are relative", 1)[0]
    return (textwrap.fill("Run the jobs described by TOML files, each the joint release of one table (geoanon "
                          "anonymize); every file is checked before any job starts. A job file:", 79)
            + "\n" + textwrap.dedent(example).rstrip() + "\n\n"
            + textwrap.fill("Paths are relative to the job file. Every key's name, type and value, and the "
                            "columns against the table, are checked before anything runs.", 79))


def _check_outputs(inputs: dict, args, classes_formats=None, dataset: bool = False) -> None:
    """Refuse bad output paths of the command's output flags before any work
    is done. ``dataset``: -o is a Parquet dataset folder, checked by the dask
    job itself; here only that no other output names it."""
    from .io import check_outputs

    if dataset:
        inputs = {**inputs, "-o": args.output}
    flags = ((() if dataset else (("output", "-o", "table"),))
             + (("report", "--report", "report"), ("map", "--map", "map"), ("classes", "--classes", "classes"),
                ("html_report", "--html-report", "html_report")))
    check_outputs(inputs, {flag: (kind, getattr(args, dest, None)) for dest, flag, kind in flags},
                  classes_formats=classes_formats)


def _write_json(path, report) -> None:
    from .staging import StagedOutputs
    from .report.release import report_json

    with StagedOutputs() as out:
        Path(out.stage(path)).write_text(report_json(report), encoding="utf-8")


def _check_sep(args) -> None:
    """DataError when a CSV input's header lacks columns the flags name and
    another delimiter splits it into columns that include them: the file was
    read with the wrong ``--sep``."""
    from ._text import show
    from .io import DELIMITERS, likely_delimiter
    from .options.locations import LOCATIONS

    if getattr(args, "sep", None) is None:
        return
    location = {key for shape in LOCATIONS.values() for key in shape.columns}      # every location kind's columns
    names = [getattr(args, dest, None) for dest in (*sorted(location), "column", "sensitive")]
    for dest in ("qi", "keep", "identifiers", "interval", "suppress", "sets"):
        names += getattr(args, dest, None) or []
    names += [item.partition(":")[0] for item in getattr(args, "dates", [])]
    names += [item.partition("=")[0] for item in getattr(args, "hierarchies", [])]
    found = likely_delimiter(args.input, args.sep, args.encoding, [n for n in names if n])
    if found is not None:
        other, named = found
        quoted = "$'\\t'" if other == "\t" else f"'{other}'"
        raise DataError(f"{args.input}: no column {show(named[0])} in its header, whose columns are separated by "
                        f"{DELIMITERS[other]}: give --sep {quoted}")


def _from_text(path) -> bool:
    """Whether the input is CSV: every cell was read as text."""
    from .io import table_format

    return table_format(path) == "csv"






def _run_jobs(args) -> int:
    """Every job file checked before any job runs; the jobs then run one after
    the other, their outputs staged, and renamed into place only when every
    job of the batch has succeeded: a failing job leaves the earlier ones'
    outputs as they were."""
    from .io import read_table
    from .staging import StagedOutputs
    from .jobs import anonymize_options, check_columns, check_files, input_columns, load_job, plan, read_input
    from .pipeline import anonymize, write_release
    from .pipeline.roles import looks_identifying

    jobs = [load_job(path) for path in args.jobs]
    check_files(jobs)
    loose = [check_columns(job, input_columns(job)) for job in jobs]
    if args.dry_run:
        for job, cols in zip(jobs, loose):
            print(f"geoanon run: {job.source} (dry run)")
            for line in plan(job):
                print(f"  {line}")
            _warn(args, job.warnings)
            for col in cols:
                kind = looks_identifying(col)
                print(f"geoanon run: warning: {job.source}: column {col!r} has no role and would be published as "
                      f"it is" + (f" (its name suggests {kind})" if kind else ""), file=sys.stderr)
        return 0
    done = []
    with StagedOutputs() as staged:
        for job in jobs:
            df = read_input(job).drop(columns=job.identifiers)
            location = dict(job.location) if job.location else None
            if location and "regions" in location:
                location["regions"] = read_table(location["regions"])
            release = anonymize(df, **anonymize_options(job, location))
            release.report.files = {"job": str(job.source), "input": str(job.input),
                                    "output": str(job.outputs["table"])}
            keep_order = job.outputs.get("keep_order", False)
            if job.identifiers and keep_order:
                release.warnings.append("the rows keep the input's order, which can tell who they are once "
                                        f"{', '.join(job.identifiers)} {'is' if len(job.identifiers) == 1 else 'are'}"
                                        " dropped (a table sorted by name): drop [output] keep_order = true")
            written = write_release(release, job.outputs["table"], report=job.outputs.get("report"),
                                    map_html=job.outputs.get("map"), classes=job.outputs.get("classes"),
                                    html_report=job.outputs.get("html_report"), map_options={"title": job.input.name},
                                    escape_all=job.outputs.get("escape_formulas", False),
                                    from_text=_from_text(job.input), timings=job.outputs.get("timings", False),
                                    keep_order=keep_order, staged=staged)
            done.append((job, release, written))
    for job, release, written in done:           # every output is in place: say what each job did
        print(f"geoanon run: {job.source}")
        _done(args, [*job.warnings, *release.warnings], release.summary(), written)
    return 0


def _figure(v) -> str:
    """A measure for a summary line; 'none' where no level can hold."""
    return "none" if v is None else f"{v:.4g}"


def _level_figure(name: str, figure) -> str:
    """An audit's figure for a model of :mod:`geoanon.criteria`; a pair level's (recursive (c, l)) as its c at its l."""
    if not isinstance(CRITERIA[name].rule, Pair):
        return _figure(figure)
    return "-" if figure is None else f"{_figure(figure['c'])} at l = {figure['l']}"


def _print_audit(args, report) -> int:
    print(f"  {plural(report['rows'], 'row')}, {plural(report['classes'], 'class', 'classes')}, k = {report['k']}"
          + (f", l = {report['l']:.3f}, l_distinct = {report['l_distinct']}, t = {report['t']:.4f}"
             if args.sensitive else "") + f", {plural(report['suppressed_cells'], 'suppressed cell')}")
    if "ncp" in report:
        print(f"  NCP {report['ncp']['overall']:.4f} (" + ", ".join(f"{c} {v:.4f}" for c, v in
                                                        report["ncp"]["columns"].items()) + ")")
        print(f"  {in_units(report['units'])}")
    if args.sensitive and all(name in report for name in DISTRIBUTION):
        print("  " + ", ".join(f"{CRITERIA[name].label} = {_level_figure(name, report[name])}"
                               for name in DISTRIBUTION))
    if "journalist" in report.get("risk", {}):
        r = report["risk"]
        print(f"  risk: prosecutor {r['prosecutor']['max']:.2%} at most, journalist {r['journalist']['max']:.2%} at "
              f"most, marketer {r['marketer']:.2%}")
    for name, v in report["violations"].items():
        print(f"  {name}={v['level']}: " + ("met" if not v["classes"] else
                                          f"VIOLATED by {plural(v['classes'], 'class', 'classes')} "
                                          f"({plural(v['rows'], 'row')})"))
    if args.report is not None:
        _write_json(args.report, report)
        print(f"  wrote {args.report}")
    return 0 if report["ok"] else 1


def _run_demo(args) -> int:
    from .columns import Columns
    from .datasets import DEMO_ATTRIBUTION, NC_ATTRIBUTION, demo_nc_births, demo_records, nc_counties
    from .staging import check_writable
    from .pipeline import anonymize, write_release

    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(f"{out}: cannot make the output folder ({exc.strerror or exc})") from None
    for name in ("points.csv", "points_report.json", "points_map.html", "points_report.html", "regions.csv",
                 "regions_report.json", "regions_map.html", "regions_classes.geojson", "regions_report.html"):
        check_writable(out / name)
    points = anonymize(demo_records(), Columns(location=("lat", "lon"), qi=["cost_usd"], sensitive="diagnosis",
                                               identifiers=["record_id", "zip"]), k=DEMO_K, l=2)
    points.report.files = {"input": "demo_patients.csv", "output": "points.csv"}
    regions = anonymize(demo_nc_births(), Columns(location={"zip": "county_fips", "regions": nc_counties(),
                                                            "region_id": "FIPS"},
                                                  qi=["sex", "birth_weight_g"], identifiers=["record_id"]),
                        k=DEMO_REGION_K)
    regions.report.files = {"input": "demo_nc_births.csv", "output": "regions.csv"}
    print(f"geoanon demo: writing into {out.resolve()}")
    print(f"GPS points: {points.report.rows} synthetic patient records at US ZIP centroids (location, cost_usd; "
          f"diagnosis sensitive), k={DEMO_K}, l=2")
    _done(args, points.warnings, points.summary(),
          write_release(points, out / "points.csv", report=out / "points_report.json",
                        map_html=out / "points_map.html", html_report=out / "points_report.html",
                        map_options={"title": f"geoanon demo: GPS points, k={DEMO_K}",
                                     "attribution": DEMO_ATTRIBUTION}))
    print(f"Regions: {regions.report.rows} synthetic births in North Carolina counties (county, sex, birth "
          f"weight), k={DEMO_REGION_K}")
    return _done(args, regions.warnings, regions.summary(),
                 write_release(regions, out / "regions.csv", report=out / "regions_report.json",
                               map_html=out / "regions_map.html", classes=out / "regions_classes.geojson",
                               html_report=out / "regions_report.html",
                               map_options={"title": f"geoanon demo: NC counties, k={DEMO_REGION_K}",
                                            "attribution": NC_ATTRIBUTION}))




def _done(args, warnings, line: str, written) -> int:
    """Say what a job did, once all its outputs are in place (a refusal
    before then is its error line alone): its ``warnings`` on stderr, then
    its summary ``line`` and the files ``written`` (none of it with
    ``--quiet``, which leaves stdout empty)."""
    _warn(args, warnings)
    print(f"  {line}")
    for path in written:
        print(f"  wrote {path}")
    return 0


def _named(action) -> list:
    """The flags that name ``action``'s value (an on-by-default flag's, not its ``--no-`` form)."""
    off = isinstance(action, argparse.BooleanOptionalAction)
    return [s for s in action.option_strings if not (off and s.startswith("--no-"))]


def _warn(args, warnings) -> None:
    for line in warnings:
        print(f"geoanon {args.command}: warning: {_cli_words(line, args)}", file=sys.stderr)


def _cli_words(message: str, args) -> str:
    """A library message in the command line's terms: one line, and each
    ``name='value'`` that names a parameter of this command as its flag (of
    ``geoanon run``: as its job file's key, ``[model] t = 0.5``)."""
    run = args.command == "run"
    flags = job_words() if run else getattr(args, "flags", {})

    def flag(match):
        name, value = match[1], match[2]
        return f"{flags[name]} {value}" if name in flags else match[0]

    def listed(match):                  # sets=['race_code']: --sets race_code, [columns] sets = ["race_code"]
        name, value = match[1], match[2]
        return (f'{flags[name]} ["{value}"]' if run else f"{flags[name]} {value}") if name in flags else match[0]

    def dated(match):                   # dates={'visit': '%m/%d/%Y'}: --date visit:%m/%d/%Y
        if "dates" not in flags:
            return match[0]
        return f'{flags["dates"]} {{ {match[1]} = "{match[2]}" }}' if run else f"{flags['dates']} {match[1]}:{match[2]}"

    message = re.sub(r"\bdates=\{'([^'\s]*)': '([^']*)'\}", dated, " ".join(message.split()))
    message = re.sub(r"\b([a-z_]+)=\['([^'\s]*)'\]", listed, message)
    return re.sub(r"\b([a-z_]+)='([^'\s]*)'", flag, message)


@contextlib.contextmanager
def _interrupts():
    """SIGINT, SIGTERM and SIGHUP end the command as Ctrl-C does (a
    KeyboardInterrupt, so staged outputs are removed on the way out; the exit
    code is 128 + the signal's number) and are recorded in
    ``_outcome.interrupted``, so that an interrupt a library swallowed still
    stops the renames; handlers restored afterwards."""
    previous = {}
    for name, handler in (("SIGINT", _interrupt), ("SIGTERM", _interrupt), ("SIGHUP", _interrupt),
                          ("SIGALRM", _when_safe)):
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            previous[number] = signal.signal(number, handler)
        except ValueError:       # not the main thread: leave the handlers alone
            break
    try:
        yield
    finally:
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)          # no retry of _when_safe outlives the command
        for number, handler in previous.items():
            signal.signal(number, handler)


def _interrupt(signum, frame):
    _outcome.interrupted.append(signum)
    if not _outcome.holding:         # a commit in another thread raises it once its outputs are in place
        _when_safe(signum, frame)


def _when_safe(signum, frame):
    """Raise the KeyboardInterrupt of the first interrupt received, unless
    numba's Python code is running (compiling, or unpickling a constant for
    compiled code, which crashes on an exception it does not expect): then
    try again in 10 ms (SIGALRM comes back here)."""
    if not _outcome.interrupted:
        return
    if _in_numba(frame) and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        return
    raise KeyboardInterrupt(signal.Signals(_outcome.interrupted[0]).name)


def _in_numba(frame) -> bool:
    while frame is not None:
        if frame.f_globals.get("__name__", "").partition(".")[0] == "numba":
            return True
        frame = frame.f_back
    return False


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _outcome.committed.clear()
    _outcome.interrupted.clear()
    hook = sys.unraisablehook
    sys.unraisablehook = functools.partial(_unless_interrupted, hook)
    try:
        with _interrupts(), open(os.devnull, "w") if args.quiet else contextlib.nullcontext(sys.stdout) as stdout, \
                contextlib.redirect_stdout(stdout):
            from . import progress

            progress.configure(quiet=args.quiet, verbose=args.verbose)
            _check_sep(args)
            if getattr(args, "decimal", None) is not None:
                check_decimal(args.decimal, args.sep, ("--decimal", "--sep"))
            with warnings.catch_warnings():          # said once, in the command line's words, with the job's
                warnings.simplefilter("ignore", GeoanonWarning)
                code = args.run(args)
        if _outcome.interrupted:     # swallowed on the way (after the renames: the outputs are whole)
            raise KeyboardInterrupt(_outcome.interrupted[0])
        return code
    except BaseException as exc:
        # an interrupt may reach us wrapped (numba turns it into a SystemError, a reader into a DataError)
        if isinstance(exc, KeyboardInterrupt) or _outcome.interrupted:
            done = "the outputs were already written" if _outcome.committed else "nothing written"
            print(f"geoanon {args.command}: interrupted; {done}", file=sys.stderr)
            return 128 + (_outcome.interrupted[0] if _outcome.interrupted else signal.SIGINT)   # the shell's code
        if isinstance(exc, UndeclaredColumnsError) and args.command != "run":
            from .pipeline.roles import no_role

            exc = UndeclaredColumnsError(no_role(exc.columns, CLI_WAYS["--qi" in args.flags.values()]), exc.columns)
        if isinstance(exc, (GeoanonError, NotImplementedError)):
            print(f"geoanon {args.command}: error: {_cli_words(str(exc), args)}", file=sys.stderr)
            return 2
        raise
    finally:                         # what this command did is no one else's (a later call in the same process)
        if _outcome.interrupted:
            gc.collect()             # what the interrupt left half-built goes now, its complaints dropped
        sys.unraisablehook = hook
        _outcome.committed.clear()
        _outcome.interrupted.clear()


def _unless_interrupted(hook, unraisable) -> None:
    """``hook`` of an exception Python cannot raise (a finalizer's), unless
    the command was interrupted: the interrupt may have hit a library's object
    half-built (multiprocessing's ``Finalize`` before its key), whose end then
    fails; the command's last line stays its one line."""
    if not _outcome.interrupted:
        hook(unraisable)


def entry() -> None:
    """The ``geoanon`` program: :func:`main`'s exit code. After an interrupt
    the process ends at once with 128 + the signal's number (130 for Ctrl-C,
    143 for SIGTERM, 129 for SIGHUP): an interrupt that surfaced inside a
    library's C code (numba's cache loading) can leave the interpreter set to
    end by SIGINT on its way out instead."""
    code = main()
    if code > 128:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
