"""Every option of every job, declared once (as scikit-learn declares an
estimator's ``_parameter_constraints``).

A row of :data:`OPTIONS` (an :class:`~geoanon.options.option.Option`) names
an option as the API takes it, the jobs (commands) that offer it, the
engines that support it, its kind (how command-line text and a job file's
value are read: :mod:`geoanon.options.values`), its default, its
command-line flag and help, and its job-file key. The
command line builds its parser from the rows (:func:`add_arguments`), job
files check their keys against them (:func:`job_keys`), and a test checks
every public function's keywords against them; what a value must be beyond
its kind is checked once, where the release spec is built
(:mod:`geoanon.options.release`). Adding an option is one row here plus its
implementation; a location kind's flags and job-file keys are rows of its
declaration (:data:`~geoanon.options.locations.LOCATIONS`), spliced in here
as the argument group :data:`LOCATION_GROUP`.
"""
from __future__ import annotations

from dataclasses import replace
from numbers import Integral, Real

from ..choices import (CONTIGUITY, COORDINATES_MISSING, DESIGNS, EXTENTS, LABEL_METHODS, LABEL_MISSING, LABEL_ORDERS,
                       LOCATION_LOSSES, POINT_JOB_METHODS, POOLS, REGION_METHODS, REGION_SMALL, REGIONS_UNKNOWN,
                       SUPPRESS_METHODS, TAIL_REACH, WITHHELD, ZIP_LEVELS)
from ..constraints import POSITIVE, Interval, Pair, StrOptions
from . import values
from .checks import DECIMAL_MARKS
from .locations import LOCATIONS, listed
from .option import MEMORY, Option, choice_option

__all__ = ["COMMANDS", "LOCATION_GROUP", "OPTIONS", "RELEASES", "add_arguments", "flag_values", "job_words", "unsupported_flags"]

COMMANDS = ("points", "zip", "labels", "suppress", "anonymize", "audit")
RELEASES = ("points", "zip", "labels", "suppress", "anonymize")        # the commands that write a release
TABLES = ("suppress", "anonymize", "audit")                           # the commands over a table's QIs and model


NON_NEGATIVE = Interval(Real, 0, None, "left", "a finite number >= 0")
SHARE = Interval(Real, 0, 1, "left", "a share of the rows, 0 <= share < 1 (0.02 for 2%)")
PROCESSES = (Interval(Integral, 1, None, "left", "a positive integer"),
             Interval(Integral, -1, -1, "both", "-1 (every core)"))
DASK_BOXES = "it publishes boxes of located rows (--extent box, --missing error)"
LOCATION_GROUP = "location (one of: " + listed([shape.flags(shape.needed) for shape in LOCATIONS.values()
                                                  if shape.options] + ["none"], ", or ") + ")"
TILES_HELP = ("base map tiles for --map: a provider name (OpenStreetMap, OpenTopoMap, ...) or a URL template with {z}, "
              "{x}, {y} (needs --attribution); the map then needs network to show them")

OPTIONS = (
    # -- the model ----------------------------------------------------------------------------
    Option("k", ("points",), values.INTEGER, "every class holds at least K records", flag="-k", required=True),
    Option("k", ("zip",), values.INTEGER, "every group holds at least K records", flag="-k", required=True),
    Option("k", ("labels",), values.INTEGER, "every class covers at least K records", flag="-k", required=True),
    Option("k", TABLES, values.INTEGER, "every class holds at least K rows (default: 1 when another level is given)",
           flag="-k", key="model.k"),
    Option("l", TABLES, values.NUMBER, "no sensitive value fills more than 1/L of a class (Liang-Yuan)", flag="-l",
           key="model.l"),
    Option("l_distinct", TABLES, values.INTEGER, "every class holds at least L distinct sensitive values",
           flag="--l-distinct", key="model.l_distinct", metavar="L"),
    Option("t", TABLES, values.NUMBER, "every class's sensitive distribution is within EMD T of the table's",
           flag="-t", key="model.t"),
    Option("l_entropy", TABLES, values.NUMBER, "entropy l-diversity: every class's sensitive entropy is at least ln L",
           flag="--l-entropy", api=(), key="model.l_entropy", metavar="L"),
    Option("recursive", TABLES, values.RECURSIVE, "recursive (c,l)-diversity: in every class the most frequent "
           "value's count is below C times the sum of the L-th most frequent and rarer", flag="--recursive",
           api=(), key="model.recursive", metavar="C,L"),
    Option("beta", TABLES, values.NUMBER, "basic beta-likeness: no value's share in a class exceeds its share in the "
           "table by more than BETA times the latter", flag="--beta", api=(), key="model.beta"),
    Option("beta_enhanced", TABLES, values.NUMBER, "enhanced beta-likeness: as --beta, with the bound min(BETA, -ln "
           "of the value's share in the table)", flag="--beta-enhanced", api=(), key="model.beta_enhanced", metavar="BETA"),
    Option("delta", TABLES, values.NUMBER, "delta-disclosure: |ln(share in the class / share in the table)| is below "
           "DELTA for every value a class holds", flag="--delta", api=(), key="model.delta"),
    Option("alpha", TABLES, values.NUMBER, "(alpha,k)-anonymity: no sensitive value fills more than ALPHA of a class",
           flag="--alpha", api=(), key="model.alpha"),
    Option("ground", TABLES, values.GROUND, "EMD ground distance: equal (default), ordered, or an ARX hierarchy CSV "
           "file (leaf;...;root)", flag="--ground", key="model.ground", default="equal", metavar="GROUND"),
    Option("order", TABLES, values.VALUES, "order of the sensitive values for --ground ordered (default: sorted, "
           "numerically if numbers)", flag="--order", key="model.order", metavar="V1,V2,..."),

    # -- the columns' roles -------------------------------------------------------------------
    Option("qi", ("suppress", "audit"), values.COLUMNS, "the quasi-identifier columns", flag="--qi", required=True,
           metavar="A,B,C", default=[]),
    Option("qi", ("anonymize",), values.COLUMNS, "the quasi-identifier columns (besides the location)", flag="--qi",
           key="columns.qi", metavar="A,B,C", default=[]),
    Option("sensitive", TABLES, values.TEXT, "the sensitive column (for -l, --l-distinct, -t)", flag="--sensitive",
           key="columns.sensitive", metavar="S"),
    Option("lat", ("points",), values.TEXT, "latitude column (omit both --lat and --lon to use point geometry)",
           flag="--lat"),
    Option("lon", ("points",), values.TEXT, "longitude column", flag="--lon"),
    Option("column", ("zip",), values.TEXT, "the region column of IN", flag="--zip-col", required=True, metavar="COL"),
    Option("regions", ("zip",), values.PATH, "regions: polygons (.geojson, .gpkg, .shp) or a CSV with centroid "
           "lat/lon columns", flag="--regions", required=True, metavar="FILE"),
    Option("region_id", ("zip",), values.TEXT, "region id column of --regions", flag="--region-id", required=True,
           metavar="COL"),
    Option("edges", ("zip",), values.PATH, "adjacency as an edge list CSV of two region id columns", flag="--edges",
           metavar="FILE"),
    choice_option("contiguity", ("zip",), CONTIGUITY, "polygon adjacency: shared boundary (rook) or any contact (queen)"),
    choice_option("unknown", ("zip",), REGIONS_UNKNOWN, "records whose region is not in --regions: fail, or generalize "
                  "them to '*'"),
    choice_option("on_small", ("zip",), REGION_SMALL, "connected pieces with records but lighter than k: fail, generalize "
                  "their records to '*', or join the group of the nearest region (by centroid)", flag="--small"),
    choice_option("zip_level", ("zip",), ZIP_LEVELS, "publish the ZIP codes rolled up: groups of whole ZIP3 areas (first "
                  "three digits), counties or states (from the regions' state and county columns, else the shipped "
                  "crosswalk), named after them, in a column named zip3, county or state", engines=MEMORY, why="the dask engine publishes ZIP codes"),
    Option("column", ("labels",), values.TEXT, "the label column of IN (as anonymize --label-col; --col is its older "
           "name)", flag="--label-col", aliases=("--col",), required=True, metavar="COL"),
    *(replace(row, group=LOCATION_GROUP) for shape in LOCATIONS.values() for row in shape.options),
    Option("interval", ("anonymize",), values.COLUMNS, "QIs published as {col}_min, {col}_max (default for numeric "
           "columns)", flag="--interval", key="columns.interval", metavar="A,..."),
    Option("hierarchies", ("anonymize",), values.HIERARCHY, "a QI published as the node of an ARX hierarchy CSV "
           "(leaf;...;root); repeatable", flag="--hierarchy", key="columns.hierarchy", metavar="COL=FILE",
           repeat=True),
    Option("hierarchies", ("audit",), values.HIERARCHY, "with --original: a column published as nodes of this ARX "
           "hierarchy; repeatable", flag="--hierarchy", metavar="COL=FILE", repeat=True, engines=MEMORY),
    Option("dates", ("anonymize",), values.DATES, "a date QI (ISO 8601 text and datetime columns are found without "
           "it), with its strftime format when not ISO (visit:%d/%m/%Y); published as ISO intervals; repeatable",
           flag="--date", key="columns.dates", metavar="COL[:FORMAT]", repeat=True),
    Option("ranges", ("anonymize",), values.RANGES, "the values an interval QI can take (age=0:120; either end may be "
           "empty): published ends never leave it (default: from 0 for a column without negative values); "
           "repeatable", flag="--range", key="columns.ranges", metavar="COL=LOW:HIGH", repeat=True, api=()),
    Option("suppress", ("anonymize",), values.COLUMNS, "QIs published as the shared value or '*' (default for other "
           "columns)", flag="--suppress", key="columns.suppress", metavar="A,..."),
    Option("sets", ("anonymize",), values.COLUMNS, "QIs published as the values their class holds, joined by '|' "
           "(cheaper than '*', but every value present is shown)", flag="--sets", key="columns.sets",
           metavar="A,..."),
    Option("keep", RELEASES, values.COLUMNS, "columns published as they are, deliberately (no warning)", flag="--keep",
           key="columns.keep", metavar="A,...", default=[]),
    Option("identifiers", RELEASES, values.COLUMNS, "columns dropped from the release (names, record ids)",
           flag="--identifiers", key="columns.identifiers", metavar="A,...", default=[]),
    Option("strict", RELEASES, values.FLAG, "refuse columns without a role (false: publish them with a warning)",
           key="columns.strict", default=True),

    # -- how the release is made --------------------------------------------------------------
    choice_option("method", ("points",), POINT_JOB_METHODS, "gaps: among the cuts that keep classes near the lower "
                  "bound, the one in the widest gap between records; balanced: cuts chosen to keep classes near the "
                  "lower bound; paper: Theorem 2's kd-tree rule (median cuts)"),
    choice_option("method", ("zip",), REGION_METHODS, "balanced: tree pass and local search; paper: Theorem 1's tree pass; "
                  "exact: the flow program (small graphs)"),
    choice_option("method", ("labels",), LABEL_METHODS, "balanced: classes filled to equal weight, then improved; fold: "
                  "Theorem 5; spread: Section 5's Theorem 8; paper-5/2: Theorem 8 as proved; exact: the program over "
                  "sizes"),
    choice_option("method", ("suppress",), SUPPRESS_METHODS, "auto: exact, matching or the optimal program where the "
                  "instance allows, else lattice; exact (<= 16 rows), milp (Liang-Yuan Theorem 9), matching "
                  "(2-anonymity, 2-diversity), lattice (any size), approx (Theorem 10, k only)"),
    choice_option("method", ("anonymize",), DESIGNS, "where the location cuts go: joint (anywhere, as Mondrian: the "
                  "least loss, but the classes' rectangles, or ZIP groups of the regions each class's records hold, may "
                  "overlap; default with --lat/--lon, --zip-col or no location), "
                  "frontier (location classes that never overlap, their boxes only by less than a grid step, none with "
                  "--extent tile; the least loss over the location tree; default for "
                  "label locations and ZIP codes rolled up by --zip-level), location-first (one class size for all), greedy", key="release.method",
                  default=False),
    Option("time_limit", ("suppress",), values.NUMBER, "time for the optimal program (milp, auto); the report gives "
           "the gap if it stops first", flag="--time-limit", default=60.0, metavar="SECONDS",
           rule=Interval(Real, 0, None, "neither", "a positive number of seconds")),
    choice_option("order", ("labels",), LABEL_ORDERS, "order in which fold and spread take the labels (given: sorted, as "
                  "the job numbers them; decreasing: by records; random: from --seed)", flag="--label-order"),
    choice_option("missing", ("labels",), LABEL_MISSING, "rows without a label (missing values, empty strings): a label "
                  "like any other, or fail"),
    Option("class_counts", ("labels",), values.FLAG, "list each label's record count in --classes (off: a count of 1 "
           "names a record)", flag="--class-counts", default=False),
    choice_option("missing", ("points",), COORDINATES_MISSING, "rows without coordinates: fail, or put them in one "
                  "suppressed class", engines=MEMORY, why=DASK_BOXES),
    choice_option("missing", ("anonymize",), COORDINATES_MISSING, "rows without coordinates: fail, or give them a location "
                  "class of their own", key="release.missing", engines=MEMORY, why=DASK_BOXES),
    choice_option("extent", ("anonymize",), EXTENTS, "box: a location class publishes its records' box rounded outward to "
                  "--resolution, an interval its class's range; tile: both publish the class's tile (a cover of the "
                  "bounds, higher NCP)", key="release.extent", engines=MEMORY, why=DASK_BOXES),
    Option("resolution", ("anonymize",), values.NUMBER, "grid of box edges in coordinate units (default: a power of "
           "ten near 1/1000 of the span)", flag="--resolution", key="release.resolution", metavar="STEP",
           rule=(None, Interval(Real, 0, None, "neither", "a positive number"))),
    Option("n_jobs", ("anonymize",), values.INTEGER, "processes solving the location's shards (-1: every core; the "
           "release is the same)", flag="--jobs", key="release.jobs", default=1, metavar="N", engines=MEMORY,
           rule=PROCESSES),
    Option("n_jobs", ("points",), values.INTEGER, "processes: with 2 or more, the points are sorted, the isolated "
           "records searched and the partition cut in as many threads, and the release checked and audited in one "
           "while another measures and orders it (-1: every core; the release is the same)", flag="--jobs",
           default=1, metavar="N", engines=MEMORY, rule=PROCESSES),
    Option("crs", ("points",), values.TEXT, "CRS of the coordinate columns (default EPSG:4326)", flag="--crs",
           default="EPSG:4326"),
    Option("crs", ("anonymize",), values.TEXT, "CRS of --lat/--lon (default EPSG:4326)", flag="--crs",
           key="release.crs", default="EPSG:4326"),
    Option("bounds", ("points",), values.BOUNDS, "region the rectangles tile (default: the data's bounding box padded "
           "out to round numbers; XMIN > XMAX crosses the antimeridian); write --bounds=-125,24,-66,50 when it "
           "starts with a minus sign", flag="--bounds", metavar="XMIN,YMIN,XMAX,YMAX"),
    Option("bounds", ("anonymize",), values.BOUNDS, "region the rectangles tile", flag="--bounds",
           key="release.bounds", metavar="XMIN,YMIN,XMAX,YMAX"),
    Option("max_extent_km", ("anonymize",), values.KILOMETRES, "precision target of the location: classes wider than "
           "this (box diagonal, e.g. 50km; for ZIP codes, of the group's centroids) are cut further wherever the "
           "model allows, and a class that cannot be has its records published without a location within "
           "--max-withheld, else the release is refused (ZIP codes under --method frontier: by default 4 times a "
           "typical record's k-neighbourhood, over the square of the location's weight)", flag="--max-extent", key="release.max_extent_km", metavar="KM",
           rule=(None, POSITIVE)),
    Option("max_extent_km", ("points",), values.KILOMETRES, "no published box wider than this (diagonal on the "
           "ground, e.g. 500km): the records of wider classes are published without a location within "
           "--max-withheld and the rest partitioned again, else the release is refused", flag="--max-extent",
           key="release.max_extent_km", metavar="KM", rule=(None, POSITIVE), engines=MEMORY,
           why="its shards are partitioned apart"),
    Option("regroup_km", ("anonymize",), values.WIDTHS, "spend a median and p90 box (km, e.g. 200,600): after the "
           "search, neighbouring classes are pooled and cut again by the other columns while the records' median "
           "and p90 box (a record without one counts as infinitely wide) stay within these (or the search's own where wider; 0,0 keeps those) and no box "
           "grows past --max-extent (with the joint method and a points location; default: none)",
           flag="--regroup", key="release.regroup_km", metavar="MEDIAN,P90", engines=MEMORY,
           rule=(None, Pair(NON_NEGATIVE, NON_NEGATIVE, "a pair (median_km, p90_km) of numbers >= 0")),
           why="it pools neighbouring classes across the whole table"),
    Option("max_suppressed", ("anonymize",), values.SHARE, "record suppression budget (e.g. 2%): the classes with the "
           "widest boxes (or the highest NCP), up to this share of the rows, are published with every "
           "quasi-identifier empty or * as one class, and the rest partitioned again without them (default: none)",
           flag="--max-suppressed", key="release.max_suppressed", metavar="SHARE",
           rule=(None, SHARE)),
    Option("max_withheld", ("points", "anonymize"), values.SHARE, "budget of isolated records (far from the rest of "
           "their class: its box's far side would hold only them and few others) published without a location, "
           "the most isolated first (default 2%, at least 2k rows; 0: none)", flag="--max-withheld",
           key="release.max_withheld", default=WITHHELD, metavar="SHARE",
           rule=SHARE),
    Option("max_pooled", ("anonymize",), values.SHARE, "pooling budget (e.g. 9%): records up to this share of the "
           "rows, chosen as --pool-by says, are partitioned apart with the other columns first, so the rest keep fine "
           "locations and their classes need not mix whatever few records a place holds (with the joint method; "
           "default: none)",
           flag="--max-pooled", key="release.max_pooled", metavar="SHARE", rule=(None, SHARE), engines=MEMORY,
           why="it ranks every place or class against the whole table's"),
    choice_option("pool_by", ("anonymize",), POOLS, "which records --max-pooled spends: places (the sparsest places' "
                  "records, whole places, before the search) or classes (after the search, the whole classes whose "
                  "records lose most in the other columns)", key="release.pool_by", engines=MEMORY,
                  why="it ranks every place or class against the whole table's"),
    choice_option("location_loss", ("anonymize",), LOCATION_LOSSES, "what the location costs the search: spacing "
                  "(default for --lat/--lon with the frontier and location-first methods: distance against the records' "
                  "local spacing, so boxes stay about as small as the location alone allows), spread (NCP over the "
                  "coordinates' interquartile range), range (NCP over their range, or regions covered; default for "
                  "--label-col), km (a box's or group's diameter in km, on a log scale; default for --zip-col, and "
                  "for --lat/--lon with the joint and greedy methods)",
                  key="release.location_loss", default=False),
    Option("weights", ("anonymize",), values.WEIGHTS, "columns' weights in the objective (default 1; each from 1e-6 "
           "to 1e6, as they are relative): location=4 keeps the location finer and generalizes the other "
           "quasi-identifiers more", flag="--weight", key="release.weights", metavar="location=W,A=W,..."),
    Option("location_precision", ("anonymize",), values.NUMBER, "the trade-off between the location and the other "
           "quasi-identifiers, from 0 (the other columns first: wide boxes) to 1 (the location first: the finest "
           "boxes the model allows); it multiplies the location's weight by 1/8 at 0, 1 at 0.5 (the default: every "
           "column weighs the same) and 32 at 1, geometrically between", flag="--location-precision", key="release.location_precision",
           metavar="P",
           rule=(None, Interval(Real, 0, 1, "both", "a number from 0 to 1"))),
    Option("tail_reach", ("anonymize",), values.NUMBER, "with the km loss (the default for --zip-col, and for --lat/--lon with the joint method): a "
           "location class wider than this many typical k-neighbourhoods (over the square of the location's weight) "
           "costs the search more for each further such width, so few classes span a region to spare a category "
           "(default 4; higher: a longer tail of wide classes for finer other columns and a finer median box; "
           "for ZIP codes under --method frontier also the default --max-extent's multiple; None in the API: no price, "
           "no default target)",
           flag="--tail-reach", key="release.tail_reach", default=TAIL_REACH, metavar="N", rule=(None, POSITIVE)),
    Option("gain_ratio", ("anonymize",), values.FLAG, "rank the search's cuts by their gain per bit of split "
           "information beyond the first (Quinlan's gain ratio), so a category with many values is not split into all "
           "of them first: finer other columns on tables with many categorical quasi-identifiers (default on; "
           "--no-gain-ratio: by the gain itself)",
           flag="--gain-ratio", key="release.gain_ratio", default=True),
    Option("explore", ("anonymize",), values.FLAG, "also compute the releases at 8 settings of --location-precision "
           "(geoanon.explore) and show the trade-off as a table and, in --html-report, as a plot; the release "
           "written is the one at --location-precision", flag="--explore", api=(), engines=MEMORY,
           why="it computes several releases of a table in memory", default=False),
    Option("seed", ("labels",), values.SEED, "seed of --label-order random (default 0; the same seed gives the same "
           "output)", flag="--seed", default=0, metavar="N",
           rule=(None, Interval(Integral, 0, None, "left", "an integer >= 0"))),

    # -- audit's extra inputs -----------------------------------------------------------------
    Option("original", ("audit",), values.PATH, "the input the release was made from (same rows and order): adds the "
           "information loss (NCP) of its columns published among --qi", flag="--original", metavar="FILE",
           engines=MEMORY),
    Option("population", ("audit",), values.PATH, "the population IN is a sample of, published the same way: adds "
           "the journalist and marketer risk", flag="--population", metavar="FILE", engines=MEMORY),

    # -- reading the input --------------------------------------------------------------------
    Option("sep", COMMANDS, values.CHAR, "CSV delimiter (default ,)", flag="--sep", key="input.sep", default=",", api=("dask",),
           metavar="CHAR"),
    Option("encoding", COMMANDS, values.TEXT, "CSV text encoding (default utf-8)", flag="--encoding",
           key="input.encoding", default="utf-8", api=("dask",)),
    Option("decimal", ("points", "anonymize"), values.CHAR, "decimal mark of the numbers read from text: the "
           "location's coordinates and the number quasi-identifiers (default .; give , for -118,27)", flag="--decimal",
           key="input.decimal", default=".", engines=MEMORY, why="it reads numbers with a decimal point",
           metavar="CHAR", rule=StrOptions(DECIMAL_MARKS)),

    # -- the outputs --------------------------------------------------------------------------
    Option("report", ("points", "zip", "labels"), values.PATH, "write the job's figures as JSON", flag="--report", api=(),
           metavar="JSON"),
    Option("report", ("suppress",), values.PATH, "write the job's figures and its audit as JSON", flag="--report", api=(),
           metavar="JSON"),
    Option("report", ("anonymize",), values.PATH, "write the job's figures, NCP and audit as JSON", flag="--report", api=(),
           key="output.report", metavar="JSON"),
    Option("report", ("audit",), values.PATH, "write the measures as JSON", flag="--report", api=(), metavar="JSON"),
    Option("map", ("points",), values.PATH, "write an offline map preview of the classes", flag="--map", api=(),
           metavar="HTML"),
    Option("map", ("zip",), values.PATH, "write an offline choropleth of the groups", flag="--map", api=(), metavar="HTML"),
    Option("map", ("anonymize",), values.PATH, "write an offline map of the location classes", flag="--map", api=(),
           key="output.map", metavar="HTML"),
    Option("classes", ("points",), values.PATH, "write the classes (rectangles and record counts; .gpkg, .geojson, "
           ".shp or .parquet)", flag="--classes", api=(), metavar="FILE", engines=MEMORY),
    Option("classes", ("zip",), values.PATH, "write the groups (dissolved shapes, members, weight)", flag="--classes", api=(),
           metavar="FILE", engines=MEMORY),
    Option("classes", ("labels",), values.PATH, "write the label -> class table (.csv or .parquet)", flag="--classes", api=(),
           metavar="FILE", engines=MEMORY),
    Option("classes", ("suppress",), values.PATH, "write one row per class (.csv or .parquet)", flag="--classes", api=(),
           metavar="FILE", engines=MEMORY),
    Option("classes", ("anonymize",), values.PATH, "write one row per location class", flag="--classes", api=(),
           key="output.classes", metavar="FILE", engines=MEMORY),
    Option("html_report", RELEASES, values.PATH, "write a self-contained page on the release: the model met, the "
           "columns' treatment and information loss, class sizes, re-identification risk, location precision in km "
           "and the map", flag="--html-report", api=(), key="output.html_report", metavar="HTML"),
    Option("tiles", ("points", "zip"), values.TEXT, TILES_HELP, flag="--tiles", api=()),
    Option("tiles", ("anonymize",), values.TEXT, "base map tiles for --map (see geoanon points --help)",
           flag="--tiles", api=()),
    Option("attribution", ("points", "zip", "anonymize"), values.TEXT, "the credit line of --tiles given as a URL",
           flag="--attribution", api=(), metavar="TEXT"),
    Option("escape_formulas", RELEASES, values.FLAG, "also prefix ' to cells of untouched columns that could start a "
           "spreadsheet formula (generated cells always are)", flag="--escape-formulas", api=(),
           key="output.escape_formulas", default=False),
    Option("keep_order", RELEASES, values.FLAG, "write the rows in the input's order (default: ordered by what they "
           "publish, class by class, since the input's order can tell who a row is: a table sorted by name whose "
           "names were dropped)", flag="--keep-order", key="output.keep_order", default=False, api=("dask",)),
    Option("timings", RELEASES, values.FLAG, "write the run time into --report and --html-report (off by default, so "
           "that the same job writes the same bytes)", flag="--timings", api=(), key="output.timings", default=False),

    # -- the engine ---------------------------------------------------------------------------
    Option("scheduler", COMMANDS, values.TEXT, "run on this Dask cluster (implies --engine dask)", flag="--scheduler",
           metavar="ADDRESS", engines=("dask",)),
    Option("scheduler_file", COMMANDS, values.TEXT, "run on the Dask cluster this file describes (implies --engine "
           "dask)", flag="--scheduler-file", metavar="FILE", engines=("dask",)),
    Option("max_shard_rows", ("points", "anonymize"), values.INTEGER, "the most rows a shard holds (default: from "
           "the workers' memory)", engines=("dask",)),
)


def add_arguments(parser, command: str) -> None:
    """Add the flags of ``command``'s rows to ``parser``, in the table's
    order (rows with a ``group`` in that argument group)."""
    groups = {}
    for row in OPTIONS:
        if command in row.commands and row.flag is not None:
            where = parser if row.group is None else groups.setdefault(row.group, parser.add_argument_group(row.group))
            row.argument(where)


def flag_values(args, command: str) -> dict:
    """API name -> value of ``command``'s flags as ``args`` holds them (a
    repeated flag's texts collected into ``{column: value}``; ParameterError
    for a malformed one)."""
    out = {}
    for row in OPTIONS:
        if command in row.commands and row.flag is not None:
            value = getattr(args, row.dest)
            out[row.name] = row.kind.collect(row.flag, value) if row.repeat else value
    return out


def job_words() -> dict:
    """API name -> how a job file sets it (``[model] t =``), for messages."""
    return {row.name: f"[{row.key.partition('.')[0]}] {row.key.partition('.')[2]} =" for row in OPTIONS
            if row.key is not None}


def unsupported_flags(args, command: str, engine: str) -> list:
    """A refusal for each flag of ``command`` given in ``args`` that ``engine`` does not support."""
    name = "dask" if engine == "dask" else "pandas"
    return [f"{row.flag} is not available on the {name} engine" + (f": {row.why}" if row.why else "")
            for row in OPTIONS if command in row.commands and row.flag is not None
            and engine not in row.engines and getattr(args, row.dest) not in (None, [], row.default)]
