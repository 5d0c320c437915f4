"""The ``geoanon`` command line.

Every generalizing verb keeps each input row and non-QI column, replaces the
quasi-identifier columns by their generalized values, adds ``class_id``, and
audits the result before writing. Errors print one line on stderr and exit
with code 2; nothing is written then.
"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import signal
import sys
from pathlib import Path

from . import _outcome
from ._text import plural
from .errors import DataError, GeoanonError, ParameterError, UndeclaredColumnsError
from .choices import (CONTIGUITY, COORDINATES_MISSING, DESIGNS, DISTRIBUTION_LEVELS, EXTENTS, LABEL_METHODS,
                      LABEL_MISSING, LABEL_ORDERS, LOCATION_LOSSES, POINT_JOB_METHODS, REGION_METHODS, REGION_SMALL,
                      REGIONS_UNKNOWN, SUPPRESS_METHODS)

INPUT_HELP = ("table: .csv, .parquet (or a folder of Parquet parts, as the dask engine writes), .geojson, .gpkg "
              "or .shp")
# How to declare a column without a role, by whether the command has --qi.
CLI_WAYS = {True: "give {each} to --qi (generalized), --keep (published as it is) or --identifiers (dropped)",
            False: "give {each} to --keep (published as it is) or --identifiers (dropped), or generalize it with "
                   "geoanon anonymize --qi"}
DEMO_K = 10
DEMO_REGION_K = 100


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _bounds(text: str):
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected XMIN,YMIN,XMAX,YMAX, got {text!r}") from None
    if len(values) != 4:
        raise argparse.ArgumentTypeError(f"expected XMIN,YMIN,XMAX,YMAX, got {text!r}")
    if not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected four finite numbers XMIN,YMIN,XMAX,YMAX, got {text!r}")
    return values


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

    points = sub.add_parser("points", help="generalize GPS coordinates into rectangles of >= k records")
    points.add_argument("input", metavar="IN", help=INPUT_HELP)
    points.add_argument("-k", type=int, required=True, help="every class holds at least K records")
    points.add_argument("--lat", help="latitude column (omit both --lat and --lon to use point geometry)")
    points.add_argument("--lon", help="longitude column")
    points.add_argument("-o", "--output", required=True, metavar="OUT", help="output table (format by extension)")
    points.add_argument("--map", metavar="HTML", help="write an offline map preview of the classes")
    points.add_argument("--report", metavar="JSON", help="write the job's figures as JSON")
    _choice(points, "--method", POINT_JOB_METHODS, "gaps: every cut in a gap wide enough that no published edge "
            "lies near a record (classes of k to 2k-1); balanced: cuts chosen to keep classes near the lower bound; "
            "paper: Theorem 2's kd-tree rule (median cuts); with balanced and paper, more records lie near an edge "
            "and are published without a location")
    _choice(points, "--missing", COORDINATES_MISSING, "rows without coordinates: fail, or put them in one "
            "suppressed class")
    points.add_argument("--crs", default="EPSG:4326", help="CRS of the coordinate columns (default EPSG:4326)")
    points.add_argument("--bounds", type=_bounds, metavar="XMIN,YMIN,XMAX,YMAX",
                        help="region the rectangles tile (default: the data's bounding box padded out to round "
                             "numbers; XMIN > XMAX crosses the antimeridian); write --bounds=-125,24,-66,50 when it "
                             "starts with a minus sign")
    points.add_argument("--tiles", help="base map tiles for --map: a provider name (OpenStreetMap, OpenTopoMap, ...) "
                             "or a URL template with {z}, {x}, {y} (needs --attribution); the map then needs "
                             "network to show them")
    points.add_argument("--attribution", metavar="TEXT", help="the credit line of --tiles given as a URL")
    points.set_defaults(run=_run_points)

    zips = sub.add_parser("zip", help="generalize a region column (zip codes, counties) into connected groups "
                                      "of >= k records")
    zips.add_argument("input", metavar="IN", help=INPUT_HELP)
    zips.add_argument("-k", type=int, required=True, help="every group holds at least K records")
    zips.add_argument("--zip-col", required=True, metavar="COL", help="the region column of IN")
    zips.add_argument("--regions", required=True, metavar="FILE",
                      help="regions: polygons (.geojson, .gpkg, .shp) or a CSV with centroid lat/lon columns")
    zips.add_argument("--region-id", required=True, metavar="COL", help="region id column of --regions")
    zips.add_argument("--edges", metavar="FILE", help="adjacency as an edge list CSV of two region id columns")
    zips.add_argument("-o", "--output", required=True, metavar="OUT", help="output table (format by extension)")
    zips.add_argument("--classes", metavar="FILE", help="write the groups (dissolved shapes, members, weight)")
    zips.add_argument("--map", metavar="HTML", help="write an offline choropleth of the groups")
    zips.add_argument("--report", metavar="JSON", help="write the job's figures as JSON")
    _choice(zips, "--method", REGION_METHODS, "balanced: tree pass and local search; paper: Theorem 1's tree "
            "pass; exact: the flow program (small graphs)")
    _choice(zips, "--contiguity", CONTIGUITY, "polygon adjacency: shared boundary (rook) or any contact (queen)")
    _choice(zips, "--unknown", REGIONS_UNKNOWN, "records whose region is not in --regions: fail, or generalize "
            "them to '*'")
    _choice(zips, "--small", REGION_SMALL, "connected pieces with records but lighter than k: fail, generalize "
            "their records to '*', or join the group of the nearest region (by centroid)")
    zips.add_argument("--tiles", help="base map tiles for --map: a provider name (OpenStreetMap, OpenTopoMap, ...) "
                             "or a URL template with {z}, {x}, {y} (needs --attribution); the map then needs "
                             "network to show them")
    zips.add_argument("--attribution", metavar="TEXT", help="the credit line of --tiles given as a URL")
    zips.set_defaults(run=_run_zip)

    labels = sub.add_parser("labels", help="generalize an unordered label column (names, diagnoses) into "
                                           "classes of labels covering >= k records")
    labels.add_argument("input", metavar="IN", help=INPUT_HELP)
    labels.add_argument("-k", type=int, required=True, help="every class covers at least K records")
    labels.add_argument("--label-col", "--col", dest="col", required=True, metavar="COL",
                        help="the label column of IN (as anonymize --label-col; --col is its older name)")
    labels.add_argument("-o", "--output", required=True, metavar="OUT", help="output table (format by extension)")
    labels.add_argument("--classes", metavar="FILE", help="write the label -> class table (.csv or .parquet)")
    labels.add_argument("--report", metavar="JSON", help="write the job's figures as JSON")
    _choice(labels, "--method", LABEL_METHODS, "balanced: classes filled to equal weight, then improved; fold: "
            "Theorem 5; spread: Section 5's Theorem 8; paper-5/2: Theorem 8 as proved; exact: the program over sizes")
    _choice(labels, "--label-order", LABEL_ORDERS, "order in which fold and spread take the labels (given: "
            "sorted, as the job numbers them; decreasing: by records; random: from --seed)", dest="order")
    _choice(labels, "--missing", LABEL_MISSING, "rows without a label (missing values, empty strings): a label "
            "like any other, or fail")
    labels.add_argument("--class-counts", action="store_true",
                        help="list each label's record count in --classes (off: a count of 1 names a record)")
    labels.set_defaults(run=_run_labels)

    supp = sub.add_parser("suppress", help="generalize other quasi-identifiers by suppression (cells -> '*') "
                                           "to k-anonymity, l-diversity or t-closeness")
    _table_model_arguments(supp)
    supp.add_argument("-o", "--output", required=True, metavar="OUT", help="output table (format by extension)")
    supp.add_argument("--classes", metavar="FILE", help="write one row per class (.csv or .parquet)")
    supp.add_argument("--report", metavar="JSON", help="write the job's figures and its audit as JSON")
    _choice(supp, "--method", SUPPRESS_METHODS, "auto: exact, matching or the optimal program where the instance "
            "allows, else lattice; exact (<= 16 rows), milp (Liang-Yuan Theorem 9), matching (2-anonymity, "
            "2-diversity), lattice (any size), approx (Theorem 10, k only)")
    supp.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS",
                      help="time for the optimal program (milp, auto); the report gives the gap if it stops first")
    supp.set_defaults(run=_run_suppress)

    anon = sub.add_parser("anonymize", help="generalize the location and the other quasi-identifiers together: "
                                            "one release that meets the model over all of them")
    _table_model_arguments(anon, qi_required=False)
    where = anon.add_argument_group("location (one of: --lat/--lon, --zip-col/--regions/--region-id, --label-col, "
                                    "or none)")
    where.add_argument("--lat", help="latitude column (points, published as non-overlapping rectangles)")
    where.add_argument("--lon", help="longitude column")
    where.add_argument("--zip-col", metavar="COL", help="region column (published as connected groups)")
    where.add_argument("--regions", metavar="FILE", help="regions for --zip-col: polygons or a CSV of centroids")
    where.add_argument("--region-id", metavar="COL", help="region id column of --regions")
    where.add_argument("--edges", metavar="FILE", help="adjacency of --regions as an edge list CSV")
    _choice(where, "--contiguity", CONTIGUITY, "for --zip-col, as in geoanon zip (default: rook)", default=False)
    _choice(where, "--unknown", REGIONS_UNKNOWN, "for --zip-col: records whose region is not in --regions: fail "
            "(default), or publish '*'", default=False)
    _choice(where, "--small", REGION_SMALL, "for --zip-col: connected pieces of the regions whose records cannot "
            "meet the model: fail (default), publish '*', or link to the nearest region", default=False)
    where.add_argument("--label-col", metavar="COL", help="a label column as the location (published as groups)")
    anon.add_argument("--interval", type=_columns, metavar="A,...", help="QIs published as {col}_min, {col}_max "
                      "(default for numeric columns)")
    anon.add_argument("--hierarchy", action="append", default=[], metavar="COL=FILE",
                      help="a QI published as the node of an ARX hierarchy CSV (leaf;...;root); repeatable")
    anon.add_argument("--date", action="append", default=[], metavar="COL[:FORMAT]",
                      help="a date QI (ISO 8601 text and datetime columns are found without it), with its strftime "
                           "format when not ISO (visit:%%d/%%m/%%Y); published as ISO intervals; repeatable")
    anon.add_argument("--range", action="append", default=[], metavar="COL=LOW:HIGH",
                      help="the values an interval QI can take (age=0:120; either end may be empty): published ends "
                           "never leave it (default: from 0 for a column without negative values); repeatable")
    anon.add_argument("--suppress", type=_columns, metavar="A,...", help="QIs published as the shared value or '*' "
                      "(default for other columns)")
    anon.add_argument("--sets", type=_columns, metavar="A,...", help="QIs published as the values their class holds, "
                      "joined by '|' (cheaper than '*', but every value present is shown)")
    anon.add_argument("-o", "--output", required=True, metavar="OUT", help="output table (format by extension)")
    anon.add_argument("--report", metavar="JSON", help="write the job's figures, NCP and audit as JSON")
    anon.add_argument("--map", metavar="HTML", help="write an offline map of the location classes")
    anon.add_argument("--classes", metavar="FILE", help="write one row per location class")
    _choice(anon, "--method", DESIGNS, "where the location cuts go: frontier (the least loss over the location "
            "tree), location-first (one class size for all), greedy, joint (anywhere, as Mondrian: least NCP, but "
            "the classes' rectangles may overlap)")
    _choice(anon, "--extent", EXTENTS, "box: a location class publishes its records' box rounded outward to "
            "--resolution, an interval its class's range; tile: both publish the class's tile (a cover of the "
            "bounds, higher NCP)")
    anon.add_argument("--resolution", type=float, metavar="STEP",
                      help="grid of box edges in coordinate units (default: a power of ten near 1/1000 of the span)")
    anon.add_argument("--jobs", type=int, default=1, metavar="N",
                      help="processes solving the location's shards (-1: every core; the release is the same)")
    _choice(anon, "--missing", COORDINATES_MISSING, "rows without coordinates: fail, or give them a location class "
            "of their own")
    anon.add_argument("--crs", default="EPSG:4326", help="CRS of --lat/--lon (default EPSG:4326)")
    anon.add_argument("--bounds", type=_bounds, metavar="XMIN,YMIN,XMAX,YMAX", help="region the rectangles tile")
    anon.add_argument("--max-extent", type=_kilometres, metavar="KM", help="precision target of a --lat/--lon "
                      "location: classes wider than this (box diagonal, e.g. 50km) are cut further wherever the model "
                      "allows; the report counts the records still wider")
    anon.add_argument("--max-suppressed", type=_share, metavar="SHARE",
                      help="record suppression budget (e.g. 2%%): the classes with the widest boxes (or the highest "
                           "NCP), up to this share of the rows, are published with every quasi-identifier empty or * "
                           "as one class, and the rest partitioned again without them (default: none)")
    _choice(anon, "--location-loss", LOCATION_LOSSES, "what a --lat/--lon location costs the search: spacing "
            "(default of the frontier and location-first methods: distance against the records' local spacing, so "
            "boxes stay about as small as the location alone allows), spread (NCP over the coordinates' "
            "interquartile range), range (NCP over their range; default of greedy and joint)", default=False)
    anon.add_argument("--weight", type=_weights, metavar="location=W,A=W,...",
                      help="columns' weights in the objective (default 1; each from 1e-6 to 1e6, as they are "
                           "relative): location=4 keeps the location finer "
                           "and generalizes the other quasi-identifiers more")
    anon.add_argument("--tiles", help="base map tiles for --map (see geoanon points --help)")
    anon.add_argument("--attribution", metavar="TEXT", help="the credit line of --tiles given as a URL")
    anon.set_defaults(run=_run_anonymize)

    aud = sub.add_parser("audit", help="measure a released table: k, l, l_distinct, t, classes, suppressed cells; "
                                       "exit 1 if it misses a requested level")
    _table_model_arguments(aud)
    aud.add_argument("--original", metavar="FILE", help="the input the release was made from (same rows and order): "
                     "adds the information loss (NCP) of its columns published among --qi")
    aud.add_argument("--population", metavar="FILE", help="the population IN is a sample of, published the same "
                     "way: adds the journalist and marketer risk")
    aud.add_argument("--hierarchy", action="append", default=[], metavar="COL=FILE",
                     help="with --original: a column published as nodes of this ARX hierarchy; repeatable")
    aud.add_argument("--report", metavar="JSON", help="write the measures as JSON")
    aud.set_defaults(run=_run_audit)
    run = sub.add_parser("run", help="run the jobs described by TOML files (the joint release of one table each); "
                                     "every file is checked before any job starts",
                         description=_job_file_format(), formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("jobs", nargs="+", metavar="JOB.toml", help="job files (the format above)")
    run.add_argument("--dry-run", action="store_true", help="check the jobs and print their plans; write nothing")
    run.set_defaults(run=_run_jobs)
    for job in (points, zips, labels, supp, anon, aud):
        job.add_argument("--engine", choices=("pandas", "dask"), default=None,
                         help="pandas (default: in this process) or dask: IN is a Parquet dataset, a folder or "
                              "glob of CSV files, read by Dask workers"
                              + ("" if job is aud else "; -o is a new Parquet dataset folder")
                              + "; without --scheduler a LocalCluster runs here")
        job.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask cluster (implies --engine dask)")
        job.add_argument("--scheduler-file", metavar="FILE", help="run on the Dask cluster this file describes "
                         "(implies --engine dask)")
    for job in (points, zips, labels, supp, anon, aud):
        job.add_argument("--sep", default=",", metavar="CHAR", help="CSV delimiter (default ,)")
        job.add_argument("--encoding", default="utf-8", help="CSV text encoding (default utf-8)")
    for job in (points, zips, labels, supp, anon):
        job.add_argument("--html-report", metavar="HTML",
                         help="write a self-contained page on the release: the model met, the columns' treatment "
                              "and information loss, class sizes, re-identification risk, location precision in "
                              "km and the map")
        job.add_argument("--escape-formulas", action="store_true",
                         help="also prefix ' to cells of untouched columns that could start a spreadsheet formula "
                              "(generated cells always are)")
        job.add_argument("--keep", type=_columns, default=[], metavar="A,...",
                         help="columns published as they are, deliberately (no warning)")
        job.add_argument("--identifiers", type=_columns, default=[], metavar="A,...",
                         help="columns dropped from the release (names, record ids)")
        job.add_argument("--keep-order", action="store_true",
                         help="write the rows in the input's order (default: a random order from --seed, since the "
                              "input's order can tell who a row is: a table sorted by name whose names were dropped)")
        job.add_argument("--seed", type=_seed, default=0, metavar="N",
                         help="seed of what the job draws: the rows' order, --label-order random, anonymize's box "
                              "margins (default 0; the same seed gives the same output)")
        job.add_argument("--timings", action="store_true",
                         help="write the run time into --report and --html-report (off by default, so that the same "
                              "job writes the same bytes)")
    for name, command in sub.choices.items():
        command.add_argument("-q", "--quiet", action="store_true",
                             help="print nothing on stdout (no summary, no 'wrote' lines) and no progress display; "
                                  "warnings and errors still go to stderr, and the exit code tells the outcome")
        command.add_argument("-v", "--verbose", action="count", default=0,
                             help="log every step and its time on stderr (-vv: more)")
        command.set_defaults(flags=_flags(command, API_NAMES.get(name, {})))
    return parser


# The library's parameter names that the command line spells differently.
API_NAMES = {"zip": {"on_small": "small", "column": "zip_col"}, "labels": {"column": "col"}}


def _flags(command, renamed: dict) -> dict:
    """API parameter name -> this command's flag, for error messages."""
    flags = {a.dest: max(a.option_strings, key=len) for a in command._actions
             if a.option_strings and a.dest not in ("help", "version")}
    flags.update({api: flags[dest] for api, dest in renamed.items() if dest in flags})
    return flags


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be an integer >= 0, got {value}")
    return value


def _columns(text: str) -> list:
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {text!r}")
    return names


def _choice(parser, flag: str, choices: tuple, what: str, *, default=True, **kwargs) -> None:
    """A flag taking one of ``choices`` (from :mod:`geoanon.choices`), its
    default the first of them (None: the library decides, as ``what`` says)."""
    if default:
        kwargs["default"] = choices[0]
        what += f" (default: {choices[0]})"
    parser.add_argument(flag, choices=choices, metavar="{" + ",".join(choices) + "}", help=what, **kwargs)


def _table_model_arguments(p, qi_required=True) -> None:
    p.add_argument("input", metavar="IN", help=INPUT_HELP)
    p.add_argument("--qi", required=qi_required, type=_columns, default=[], metavar="A,B,C",
                   help="the quasi-identifier columns" + ("" if qi_required else " (besides the location)"))
    p.add_argument("--sensitive", metavar="S", help="the sensitive column (for -l, --l-distinct, -t)")
    p.add_argument("-k", type=int, help="every class holds at least K rows (default: 1 when another level is "
                   "given)")
    p.add_argument("-l", type=float, help="no sensitive value fills more than 1/L of a class (Liang-Yuan)")
    p.add_argument("--l-distinct", type=int, metavar="L", help="every class holds at least L distinct sensitive values")
    p.add_argument("-t", type=float, help="every class's sensitive distribution is within EMD T of the table's")
    p.add_argument("--l-entropy", type=float, metavar="L", help="entropy l-diversity: every class's sensitive "
                   "entropy is at least ln L")
    p.add_argument("--recursive", type=_recursive, metavar="C,L", help="recursive (c,l)-diversity: in every class "
                   "the most frequent value's count is below C times the sum of the L-th most frequent and rarer")
    p.add_argument("--beta", type=float, help="basic beta-likeness: no value's share in a class exceeds its share "
                   "in the table by more than BETA times the latter")
    p.add_argument("--beta-enhanced", type=float, metavar="BETA", help="enhanced beta-likeness: as --beta, with the "
                   "bound min(BETA, -ln of the value's share in the table)")
    p.add_argument("--delta", type=float, help="delta-disclosure: |ln(share in the class / share in the table)| is "
                   "below DELTA for every value a class holds")
    p.add_argument("--ground", default="equal", metavar="GROUND",
                   help="EMD ground distance: equal (default), ordered, or an ARX hierarchy CSV file (leaf;...;root)")
    p.add_argument("--order", type=_columns, metavar="V1,V2,...",
                   help="order of the sensitive values for --ground ordered (default: sorted, numerically if numbers)")


def _kilometres(text: str) -> float:
    number = text.strip().lower().removesuffix("km").strip()
    try:
        return float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a distance in km such as 50km, got {text!r}") from None


def _share(text: str) -> float:
    """A share of the rows: ``2%`` or ``0.02``."""
    number = text.strip()
    try:
        return float(number.removesuffix("%")) / 100 if number.endswith("%") else float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share of the rows such as 2% or 0.02, got {text!r}") from None


def _weights(text: str) -> dict:
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected NAME=NUMBER pairs separated by commas, got {text!r}") from None
        if not name.strip():
            raise argparse.ArgumentTypeError(f"expected NAME=NUMBER pairs separated by commas, got {text!r}")
    return out


def _recursive(text: str) -> tuple:
    parts = text.split(",")
    try:
        c, l = float(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"expected C,L (a number and an integer), got {text!r}") from None
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected C,L (a number and an integer), got {text!r}")
    return c, l


DISTRIBUTION_FLAGS = {name: "--" + name.replace("_", "-") for name in DISTRIBUTION_LEVELS}   # --l-entropy, ...


def _version() -> str:
    from . import __version__

    return __version__


def _check_outputs(inputs: dict, args, classes_formats=None) -> None:
    """Refuse bad output paths of the command's output flags before any work is done."""
    from .io import check_outputs

    flags = (("output", "-o", "table"), ("report", "--report", "report"), ("map", "--map", "map"),
             ("classes", "--classes", "classes"), ("html_report", "--html-report", "html_report"))
    check_outputs(inputs, {flag: (kind, getattr(args, dest, None)) for dest, flag, kind in flags},
                  classes_formats=classes_formats)


def _on_cluster(args) -> bool:
    """Whether the command runs on the dask engine; ParameterError for a
    contradiction."""
    if args.engine == "pandas" and (args.scheduler or args.scheduler_file):
        raise ParameterError("--scheduler and --scheduler-file run on the dask engine, not --engine pandas")
    if args.scheduler and args.scheduler_file:
        raise ParameterError("give --scheduler or --scheduler-file, not both")
    if args.engine == "dask" or bool(args.scheduler or args.scheduler_file):
        from .cluster.client import quiet

        quiet()
        return True
    return False


def _write_json(path, report) -> None:
    from .io import StagedOutputs
    from .pipeline.release import report_json

    with StagedOutputs() as out:
        Path(out.stage(path)).write_text(report_json(report), encoding="utf-8")


def _check_cluster_flags(args, unavailable, inputs=None) -> None:
    """Refuse the flags the dask engine has no output for, and a bad --report
    (naming the dataset, the output or any other input: ``inputs``, flag ->
    path); the output dataset itself is checked by the job, before any work."""
    from .io import check_outputs

    for flag, value in unavailable:
        if value:
            raise ParameterError(f"{flag} is not available on the dask engine: the classes stay on the workers")
    check_outputs({"IN": args.input, "-o": args.output, **(inputs or {})}, {"--report": ("report", args.report)})


def _run_points_on_cluster(args) -> int:
    from .cluster import generalize_points

    _check_cluster_flags(args, (("--map", args.map), ("--html-report", args.html_report), ("--tiles", args.tiles)))
    if (args.lat is None) != (args.lon is None):
        raise ParameterError("give both --lat and --lon, or neither to use the point geometry")
    release = generalize_points(args.input, args.k, args.output, lat=args.lat or "lat", lon=args.lon or "lon",
                                method=args.method,
                                crs=args.crs, bounds=args.bounds, scheduler=args.scheduler,
                                scheduler_file=args.scheduler_file, sep=args.sep, encoding=args.encoding,
                                seed=args.seed, **_cluster_roles(args))
    return _cluster_summary(args, release)


def _cluster_summary(args, release, line=None) -> int:
    """Write a cluster job's JSON report if asked, then say what it did
    (:func:`_done`): its summary ``line`` (default: the partition's figures)."""
    from .pipeline.release import file_names, without_timings

    r = release.report
    r["files"] = file_names({"input": args.input, "output": args.output})
    if args.report:
        _write_json(args.report, r if args.timings else without_timings(r))
    if line is None:
        shards = f" in {plural(r['shards'], 'shard')}" if "shards" in r else ""
        line = (f"{plural(r['rows'], 'row')}, {plural(r['classes'], 'class', 'classes')}{shards}, "
                + _largest(r["max_class"], r["lower_bound"], r["ratio"], r.get("suppressed_rows", 0)))
    return _done(args, r.get("warnings", []), f"{line}, audited k = {r['audit']['k']}",
                 [path for path in (args.output, args.report) if path])


def _run_groups_on_cluster(args) -> int:
    """``zip`` and ``labels`` on the dask engine: the in-memory release, row for row."""
    from .cluster import generalize_labels, generalize_regions
    from .io import read_table

    _check_cluster_flags(args, (("--map", getattr(args, "map", None)), ("--html-report", args.html_report),
                                ("--classes", args.classes)),
                         {"--regions": getattr(args, "regions", None), "--edges": getattr(args, "edges", None)})
    cluster = {"scheduler": args.scheduler, "scheduler_file": args.scheduler_file, "sep": args.sep,
               "encoding": args.encoding, **_cluster_roles(args)}
    if args.command == "zip":
        release = generalize_regions(args.input, args.k, args.output, column=args.zip_col,
                                     regions=read_table(args.regions), region_id=args.region_id, edges=args.edges,
                                     contiguity=args.contiguity, method=args.method, unknown=args.unknown,
                                     on_small=args.small, **cluster)
    else:
        release = generalize_labels(args.input, args.k, args.output, column=args.col, method=args.method,
                                    missing=args.missing, order=args.order, seed=args.seed, **cluster)
    return _cluster_summary(args, release)


def _run_points(args) -> int:
    from .io import has_geometry, read_table
    from .pipeline import generalize_points, write_release

    if _on_cluster(args):
        return _run_points_on_cluster(args)
    _check_outputs({"IN": args.input}, args)
    _check_tiles(args)
    if (args.lat is None) != (args.lon is None):
        raise ParameterError("give both --lat and --lon, or neither to use the point geometry")
    if args.lat is not None and args.lat == args.lon:
        raise ParameterError(f"--lat and --lon both name the column {args.lat!r}")
    df = read_table(args.input, sep=args.sep, encoding=args.encoding)
    if args.lat is None and not has_geometry(df):
        raise ParameterError(f"{args.input} has no point geometry: give --lat and --lon")
    release = generalize_points(df, args.k, lat=args.lat, lon=args.lon, method=args.method,
                                missing=args.missing, crs=args.crs, bounds=args.bounds, seed=args.seed, **_roles(args))
    release.report.files = {"input": str(args.input), "output": str(args.output)}
    written = write_release(release, args.output, report=args.report, map_html=args.map, html_report=args.html_report,
                            map_options=_map_options(args),
                            escape_all=args.escape_formulas, from_text=_from_text(args.input), timings=args.timings,
                            shuffle=_shuffle(args))
    return _done(args, release.warnings, _summary(release), written)


def _run_zip(args) -> int:
    from .io import read_table
    from .pipeline import generalize_regions, write_release

    if _on_cluster(args):
        return _run_groups_on_cluster(args)
    _check_outputs({"IN": args.input, "--regions": args.regions, "--edges": args.edges}, args)
    _check_tiles(args)
    df = read_table(args.input, sep=args.sep, encoding=args.encoding)
    regions = read_table(args.regions)
    release = generalize_regions(df, args.k, column=args.zip_col, regions=regions, region_id=args.region_id,
                                 edges=args.edges, contiguity=args.contiguity, method=args.method,
                                 unknown=args.unknown, on_small=args.small, **_roles(args))
    release.report.files = {"input": str(args.input), "regions": str(args.regions), "output": str(args.output)}
    written = write_release(release, args.output, report=args.report, map_html=args.map, classes=args.classes,
                            html_report=args.html_report,
                            map_options=_map_options(args),
                            escape_all=args.escape_formulas, from_text=_from_text(args.input), timings=args.timings,
                            shuffle=_shuffle(args))
    return _done(args, release.warnings, _summary(release), written)


def _run_labels(args) -> int:
    from .io import read_table
    from .pipeline import generalize_labels, write_release

    if _on_cluster(args):
        return _run_groups_on_cluster(args)
    _check_outputs({"IN": args.input}, args, classes_formats={"csv", "parquet"})
    df = read_table(args.input, sep=args.sep, encoding=args.encoding)
    release = generalize_labels(df, args.k, column=args.col, method=args.method, missing=args.missing,
                                order=args.order, seed=args.seed, class_counts=args.class_counts, **_roles(args))
    release.report.files = {"input": str(args.input), "output": str(args.output)}
    written = write_release(release, args.output, report=args.report, classes=args.classes,
                            html_report=args.html_report, escape_all=args.escape_formulas,
                            from_text=_from_text(args.input), timings=args.timings,
                            shuffle=_shuffle(args))
    return _done(args, release.warnings, _summary(release), written)


def _check_tiles(args) -> None:
    if args.attribution is not None and not args.tiles:
        raise ParameterError("--attribution is the credit line of --tiles: give --tiles too")
    if args.tiles:                      # the maps module (folium, xyzservices) loads only when there is something to check
        from .maps import check_tiles

        check_tiles(args.tiles, args.attribution)


def _roles(args) -> dict:
    """The columns the command line gave a role besides the job's own."""
    return {"keep": args.keep, "identifiers": args.identifiers}


def _roles_of(args, location, hierarchies, options: dict):
    """The columns' roles of ``anonymize`` from its flags; the sensitive
    column taken from the model's ``options``, unless they are one Model."""
    from .columns import Columns

    return Columns(location=location, qi=args.qi, interval=args.interval, dates=_date_formats(args),
                   hierarchies=hierarchies, suppress=args.suppress, sets=args.sets,
                   sensitive=options.pop("sensitive", None), identifiers=args.identifiers, keep=args.keep,
                   ranges=_ranges(args))


def _cluster_roles(args) -> dict:
    """:func:`_roles`, and the shuffle a dask job applies as it writes."""
    return {**_roles(args), "shuffle": _shuffle(args)}


def _shuffle(args):
    """The seed of the written rows' random order, or None with ``--keep-order``."""
    return None if args.keep_order else args.seed


def _map_options(args) -> dict:
    return {"tiles": args.tiles, "tiles_attribution": args.attribution, "title": Path(args.input).name}


def _model_options(args) -> dict:
    from .audit import check_roles
    from .models import GROUNDS, Hierarchy, Model, check_levels

    extra = {name: getattr(args, name) for name in DISTRIBUTION_FLAGS if getattr(args, name) is not None}
    check_levels(k=args.k, l=args.l, l_distinct=args.l_distinct, t=args.t, **extra)
    check_roles(args.qi, args.sensitive)
    if args.ground not in GROUNDS and not Path(args.ground).is_file():
        raise ParameterError(f"--ground {args.ground!r} is neither {', '.join(GROUNDS)} nor a hierarchy file")
    ground = args.ground if args.ground in GROUNDS else Hierarchy.read_csv(args.ground)
    options = {"k": args.k, "sensitive": args.sensitive, "l": args.l, "l_distinct": args.l_distinct, "t": args.t,
               "ground": ground, "order": args.order}
    if not extra:
        return options
    if args.sensitive is None:
        raise ParameterError(f"{', '.join(DISTRIBUTION_FLAGS[n] for n in extra)} need{'s' if len(extra) == 1 else ''} "
                             "a sensitive column (--sensitive)")
    return {"model": Model(**options, **extra)}


def _ground_file(args):
    from .models import GROUNDS

    return None if args.ground in GROUNDS else args.ground


def _require_level(args) -> None:
    if all(getattr(args, name) is None for name in ("k", "l", "l_distinct", "t", *DISTRIBUTION_FLAGS)):
        raise ParameterError("give at least one of -k, -l, --l-distinct, -t, " + ", ".join(DISTRIBUTION_FLAGS.values())
                             + " (a release at k = 1 protects no one)")


def _run_suppress(args) -> int:
    from .io import read_table
    from .pipeline import write_release
    from .pipeline import suppress

    _require_level(args)
    if _on_cluster(args):
        return _run_suppress_on_cluster(args)
    _check_outputs({"IN": args.input, "--ground": _ground_file(args)}, args, classes_formats={"csv", "parquet"})
    options = _model_options(args)
    df = read_table(args.input, sep=args.sep, encoding=args.encoding)
    release = suppress(df, args.qi, method=args.method, time_limit=args.time_limit, **_roles(args), **options)
    release.report.files = {"input": str(args.input), "output": str(args.output)}
    written = write_release(release, args.output, report=args.report, classes=args.classes,
                            html_report=args.html_report, escape_all=args.escape_formulas,
                            from_text=_from_text(args.input), timings=args.timings,
                            shuffle=_shuffle(args))
    r = release.report
    d = r.details
    quality = "proven optimal" if d["optimal"] else f"lower bound {d['lower_bound']}, gap {d['gap']:.1%}"
    method = d["method"] if d["solver"] == d["method"] else f"{d['method']} ({d['solver']} asked)"
    return _done(args, release.warnings, f"{plural(r.rows, 'row')}, {plural(r.classes, 'class', 'classes')}, "
                 f"{plural(d['cost'], 'suppressed cell')} by {method} ({quality}), {_audited(r.audit)}", written)


def _run_jobs(args) -> int:
    """Every job file checked before any job runs; the jobs then run one after
    the other, their outputs staged, and renamed into place only when every
    job of the batch has succeeded: a failing job leaves the earlier ones'
    outputs as they were."""
    from .io import StagedOutputs, read_table
    from .jobs import anonymize_options, check_columns, check_files, input_columns, load_job, numeric_columns, plan, \
        read_input
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
            if job.decimal != ".":
                for col in numeric_columns(job):
                    df[col] = df[col].astype(str).str.replace(job.decimal, ".", regex=False)
            location = dict(job.location) if job.location else None
            if location and "regions" in location:
                location["regions"] = read_table(location["regions"])
            release = anonymize(df, **anonymize_options(job, location))
            release.report.files = {"job": str(job.source), "input": str(job.input),
                                    "output": str(job.outputs["table"])}
            shuffle = job.outputs.get("shuffle", True)
            if job.identifiers and not shuffle:
                release.warnings.append("the rows keep the input's order, which can tell who they are once "
                                        f"{', '.join(job.identifiers)} {'is' if len(job.identifiers) == 1 else 'are'}"
                                        " dropped (a table sorted by name): drop [output] shuffle = false")
            written = write_release(release, job.outputs["table"], report=job.outputs.get("report"),
                                    map_html=job.outputs.get("map"), classes=job.outputs.get("classes"),
                                    html_report=job.outputs.get("html_report"), map_options={"title": job.input.name},
                                    escape_all=job.outputs.get("escape_formulas", False),
                                    from_text=_from_text(job.input), timings=job.outputs.get("timings", False),
                                    shuffle=job.release.get("seed", 0) if shuffle else None, staged=staged)
            done.append((job, release, written))
    for job, release, written in done:           # every output is in place: say what each job did
        print(f"geoanon run: {job.source}")
        _done(args, [*job.warnings, *release.warnings], _joint_summary(release), written)
    return 0


def _check_sep(args) -> None:
    """DataError when a CSV input's header lacks columns the flags name and
    another delimiter splits it into columns that include them: the file was
    read with the wrong ``--sep``."""
    from ._text import show
    from .io import DELIMITERS, likely_delimiter

    if getattr(args, "sep", None) is None:
        return
    names = [getattr(args, dest, None) for dest in ("lat", "lon", "zip_col", "col", "label_col", "sensitive")]
    for dest in ("qi", "keep", "identifiers", "interval", "suppress", "sets"):
        names += getattr(args, dest, None) or []
    names += [item.partition(":")[0] for item in getattr(args, "date", [])]
    names += [item.partition("=")[0] for item in getattr(args, "hierarchy", [])]
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


def _audited(a) -> str:
    """An audit's figures for a summary line: k, and l, l_distinct, t with a sensitive column."""
    return f"audited k = {a.k}" + (f", l = {a.l:.3f}, l_distinct = {a.l_distinct}, t = {a.t:.4f}"
                                   if a.sensitive else "")


def _run_anonymize(args) -> int:
    from .io import read_table
    from .models import Hierarchy
    from .pipeline import anonymize, write_release

    _require_level(args)
    location = _location_option(args)
    hierarchy_files = _hierarchy_files(args)
    if _on_cluster(args):
        return _run_anonymize_on_cluster(args, location, hierarchy_files)
    inputs = {"IN": args.input, "--regions": args.regions, "--edges": args.edges, "--ground": _ground_file(args),
              **{f"--hierarchy {c}": p for c, p in hierarchy_files.items()}}
    _check_outputs(inputs, args)
    _check_tiles(args)
    for flag, value in (("--map", args.map), ("--classes", args.classes)):
        if value and location is None:
            raise ParameterError(f"{flag} needs a location (--lat/--lon, --zip-col or --label-col): without one "
                                 "there are no location classes")
    options = _model_options(args)
    hierarchies = {c: Hierarchy.read_csv(p) for c, p in hierarchy_files.items()}
    df = read_table(args.input, sep=args.sep, encoding=args.encoding)
    if location is not None and "regions" in location:
        location["regions"] = read_table(location["regions"])
    release = anonymize(df, _roles_of(args, location, hierarchies, options),
                        method=args.method, extent=args.extent, resolution=args.resolution, missing=args.missing,
                        crs=args.crs, bounds=args.bounds, n_jobs=args.jobs, seed=args.seed, weights=args.weight,
                        max_extent_km=args.max_extent, location_loss=args.location_loss,
                        max_suppressed=args.max_suppressed, **options)
    release.report.files = {"input": str(args.input), "output": str(args.output)}
    written = write_release(release, args.output, report=args.report, map_html=args.map, classes=args.classes,
                            html_report=args.html_report,
                            map_options=_map_options(args), escape_all=args.escape_formulas,
                            from_text=_from_text(args.input), timings=args.timings,
                            shuffle=_shuffle(args))
    return _done(args, release.warnings, _joint_summary(release), written)


def _run_anonymize_on_cluster(args, location, hierarchy_files) -> int:
    """``anonymize`` on the dask engine: sharded by location, each shard released by the in-memory engine."""
    from .cluster import anonymize
    from .models import Hierarchy

    _check_cluster_flags(args, (("--map", args.map), ("--html-report", args.html_report), ("--classes", args.classes),
                                ("--tiles", args.tiles)),
                         {"--ground": _ground_file(args), **{f"--hierarchy {c}": p for c, p in hierarchy_files.items()}})
    if location is None or "lat" not in location:
        raise ParameterError("the dask engine's anonymize needs --lat and --lon")
    if args.extent != "box" or args.missing != "error":
        raise ParameterError("the dask engine's anonymize publishes boxes of located rows: --extent box, "
                             "--missing error")
    hierarchies = {c: Hierarchy.read_csv(p) for c, p in hierarchy_files.items()}
    options = _model_options(args)
    release = anonymize(args.input, args.output,
                        _roles_of(args, (location["lat"], location["lon"]), hierarchies, options),
                        method=args.method, resolution=args.resolution,
                        crs=args.crs, bounds=args.bounds, scheduler=args.scheduler,
                        scheduler_file=args.scheduler_file, sep=args.sep, encoding=args.encoding, seed=args.seed,
                        weights=args.weight, max_extent_km=args.max_extent, location_loss=args.location_loss,
                        max_suppressed=args.max_suppressed, shuffle=_shuffle(args), **options)
    r = release.report
    return _cluster_summary(args, release, f"{plural(r['rows'], 'row')}, {plural(r['classes'], 'class', 'classes')} in "
                                           f"{plural(r['location_classes'], 'location class', 'location classes')} "
                                           f"and {plural(r['shards'], 'shard')}, smallest {r['min_class']}")


def _joint_summary(release) -> str:
    """The summary line of a joint release (anonymize, a job file)."""
    r = release.report
    return (f"{plural(r.rows, 'row')}, {plural(r.classes, 'class', 'classes')} in "
            f"{plural(r.details['location_classes'], 'location class', 'location classes')}, "
            f"smallest {r.min_class}, NCP {r.details['ncp']['overall']:.4f}, {_audited(r.audit)}"
            + (f", {plural(r.details['suppressed_records'], 'record')} suppressed"
               if r.details.get("suppressed_records") else ""))


def _location_option(args):
    """The location of ``geoanon anonymize`` from its flags, or None."""
    points = args.lat is not None or args.lon is not None
    zips = any(v is not None for v in (args.zip_col, args.regions, args.region_id, args.edges))
    options = {key: getattr(args, key) for key in ("contiguity", "unknown", "small") if getattr(args, key) is not None}
    if options and not zips:
        raise ParameterError(f"--{next(iter(options))} is for a region location (--zip-col)")
    label = args.label_col is not None
    if points + zips + label > 1:
        raise ParameterError("give one location: --lat/--lon, --zip-col/--regions/--region-id, or --label-col")
    if points:
        if args.lat is None or args.lon is None:
            raise ParameterError("give both --lat and --lon")
        return {"lat": args.lat, "lon": args.lon}
    if zips:
        missing = [f for f, v in (("--zip-col", args.zip_col), ("--regions", args.regions),
                                  ("--region-id", args.region_id)) if v is None]
        if missing:
            raise ParameterError(f"a region location needs {', '.join(missing)}")
        return {"zip": args.zip_col, "regions": args.regions, "region_id": args.region_id, "edges": args.edges,
                **options}
    return {"label": args.label_col} if label else None


def _date_formats(args) -> dict | None:
    """{column: format or None} of the repeatable ``--date COL[:FORMAT]``."""
    out = {}
    for item in args.date:
        col, _, fmt = item.partition(":")
        if not col:
            raise ParameterError(f"--date expects COL or COL:FORMAT, got {item!r}")
        if col in out:
            raise ParameterError(f"--date {col} is given twice")
        out[col] = fmt or None
    return out or None


def _ranges(args) -> dict:
    """{column: (low, high)} of the repeatable ``--range COL=LOW:HIGH`` (an empty end: no bound)."""
    out = {}
    for item in args.range:
        col, sep, span = item.partition("=")
        low, colon, high = span.partition(":")
        try:
            ends = tuple(float(v) if v.strip() else None for v in (low, high))
        except ValueError:
            ends = None
        if not sep or not col or not colon or ends is None:
            raise ParameterError(f"--range expects COL=LOW:HIGH such as age=0:120, got {item!r}")
        if col in out:
            raise ParameterError(f"--range {col}= is given twice")
        out[col] = ends
    return out


def _hierarchy_files(args) -> dict:
    """{column: path} of the repeatable ``--hierarchy COL=FILE``."""
    out = {}
    for item in args.hierarchy:
        col, sep, path = item.partition("=")
        if not sep or not col or not path:
            raise ParameterError(f"--hierarchy expects COL=FILE, got {item!r}")
        if col in out:
            raise ParameterError(f"--hierarchy {col}= is given twice ({out[col]} and {path})")
        out[col] = path
    return out


def _run_audit(args) -> int:
    from .audit import audit
    from .io import read_table
    from .models import Hierarchy

    hierarchy_files = _hierarchy_files(args)
    if _on_cluster(args):
        return _run_audit_on_cluster(args)
    if hierarchy_files and args.original is None:
        raise ParameterError("--hierarchy needs --original (it only serves the information loss)")
    _check_outputs({"IN": args.input, "--ground": _ground_file(args), "--original": args.original,
                    "--population": args.population, **{f"--hierarchy {c}": p for c, p in hierarchy_files.items()}},
                   args)
    options = _model_options(args)
    df = read_table(args.input, sep=args.sep, encoding=args.encoding)
    original = read_table(args.original, sep=args.sep, encoding=args.encoding) if args.original is not None else None
    hierarchies = {c: Hierarchy.read_csv(p) for c, p in hierarchy_files.items()}
    population = read_table(args.population, sep=args.sep, encoding=args.encoding) if args.population else None
    report = audit(df, args.qi, original=original, hierarchies=hierarchies, population=population, **options)
    report["input"] = str(args.input)
    return _print_audit(args, report)


def _figure(v) -> str:
    """A measure for a summary line; 'none' where no level can hold."""
    return "none" if v is None else f"{v:.4g}"


def _print_audit(args, report) -> int:
    print(f"  {plural(report['rows'], 'row')}, {plural(report['classes'], 'class', 'classes')}, k = {report['k']}"
          + (f", l = {report['l']:.3f}, l_distinct = {report['l_distinct']}, t = {report['t']:.4f}"
             if args.sensitive else "") + f", {plural(report['suppressed_cells'], 'suppressed cell')}")
    if "ncp" in report:
        print(f"  NCP {report['ncp']['overall']:.4f} (" + ", ".join(f"{c} {v:.4f}" for c, v in
                                                        report["ncp"]["columns"].items()) + ")")
    if args.sensitive and "l_entropy" in report:
        rec = report.get("recursive")
        print(f"  entropy l = {_figure(report['l_entropy'])}, recursive c = "
              + (f"{_figure(rec['c'])} at l = {rec['l']}" if rec else "-")
              + f", beta = {_figure(report['beta'])}, enhanced beta = {_figure(report['beta_enhanced'])}, "
              f"delta = {_figure(report['delta'])}")
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


def _run_suppress_on_cluster(args) -> int:
    """``suppress`` on the dask engine: the in-memory release, row for row."""
    from .cluster import suppress

    _check_cluster_flags(args, (("--html-report", args.html_report), ("--classes", args.classes)),
                         {"--ground": _ground_file(args)})
    release = suppress(args.input, args.qi, args.output, method=args.method,
                       time_limit=args.time_limit, scheduler=args.scheduler, scheduler_file=args.scheduler_file,
                       sep=args.sep, encoding=args.encoding, **_cluster_roles(args), **_model_options(args))
    r = release.report
    quality = "proven optimal" if r["optimal"] else f"lower bound {r['lower_bound']}, gap {r['gap']:.1%}"
    return _cluster_summary(args, release, f"{plural(r['rows'], 'row')}, {plural(r['classes'], 'class', 'classes')}, "
                                           f"{plural(r['cost'], 'suppressed cell')} by {r['method']} ({quality})")


def _run_audit_on_cluster(args) -> int:
    from .cluster import audit
    from .io import check_outputs

    if args.original or args.hierarchy or args.population:
        raise ParameterError("--original, --hierarchy and --population are not available on the dask engine")
    check_outputs({"IN": args.input, "--ground": _ground_file(args)}, {"--report": ("report", args.report)})
    report = audit(args.input, args.qi, **_model_options(args), scheduler=args.scheduler,
                   scheduler_file=args.scheduler_file, sep=args.sep, encoding=args.encoding)
    report["input"] = str(args.input)
    return _print_audit(args, report)


def _run_demo(args) -> int:
    from .columns import Columns
    from .datasets import DEMO_ATTRIBUTION, NC_ATTRIBUTION, demo_nc_births, demo_records, nc_counties
    from .io import check_writable
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
    _done(args, points.warnings, _joint_summary(points),
          write_release(points, out / "points.csv", report=out / "points_report.json",
                        map_html=out / "points_map.html", html_report=out / "points_report.html",
                        map_options={"title": f"geoanon demo: GPS points, k={DEMO_K}",
                                     "attribution": DEMO_ATTRIBUTION}))
    print(f"Regions: {regions.report.rows} synthetic births in North Carolina counties (county, sex, birth "
          f"weight), k={DEMO_REGION_K}")
    return _done(args, regions.warnings, _joint_summary(regions),
                 write_release(regions, out / "regions.csv", report=out / "regions_report.json",
                               map_html=out / "regions_map.html", classes=out / "regions_classes.geojson",
                               html_report=out / "regions_report.html",
                               map_options={"title": f"geoanon demo: NC counties, k={DEMO_REGION_K}",
                                            "attribution": NC_ATTRIBUTION}))


def _summary(release) -> str:
    """The summary line of a points, zip or labels job."""
    r, d = release.report, release.report.details
    return (f"{plural(r.rows, 'row')}, {plural(r.classes, 'class', 'classes')}, "
            f"{_largest(r.max_class, d['lower_bound'], d['ratio'], d.get('suppressed_rows', 0))}, "
            f"audited k = {r.audit.k}")


def _largest(max_class: int, lower_bound: int, ratio: float, suppressed: int) -> str:
    """The largest class against the proven lower bound on it. The ratio is
    the partition's largest group over that bound; suppressed records form a
    class outside the partition, counted apart."""
    bound = f"{ratio:.3f} x the lower bound {lower_bound}"
    if not suppressed:
        return f"largest {max_class} ({bound})"
    return f"largest group {bound}, {plural(suppressed, 'record')} suppressed"


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


def _warn(args, warnings) -> None:
    for line in warnings:
        print(f"geoanon {args.command}: warning: {_cli_words(line, args)}", file=sys.stderr)


def _cli_words(message: str, args) -> str:
    """A library message in the command line's terms: one line, and each
    ``name='value'`` that names a parameter of this command as its flag."""
    flags = getattr(args, "flags", {})

    def flag(match):
        name, value = match[1], match[2]
        return f"{flags[name]} {value}" if name in flags else match[0]

    return re.sub(r"\b([a-z_]+)='([^'\s]*)'", flag, " ".join(message.split()))


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
    try:
        with _interrupts(), open(os.devnull, "w") if args.quiet else contextlib.nullcontext(sys.stdout) as stdout, \
                contextlib.redirect_stdout(stdout):
            from . import progress

            progress.configure(quiet=args.quiet, verbose=args.verbose)
            _check_sep(args)
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
