"""What every geoanon algorithm does: write the input layer's chosen fields to
a temporary CSV file, run one geoanon command on it with the outputs' paths,
and hand back what it wrote (geoanon audits a release before it writes
anything, and writes all of its outputs or none)."""
from __future__ import annotations

import re
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from qgis.core import (QgsProcessing, QgsProcessingAlgorithm, QgsProcessingException, QgsProcessingParameterDefinition,
                       QgsProcessingParameterEnum, QgsProcessingParameterFeatureSource, QgsProcessingParameterField,
                       QgsProcessingParameterNumber, QgsProcessingParameterString)

from .command import SETTING, CommandNotFound, geoanon_command, quoted, run, taken_flag
from .table import coordinate_names, crs_text, is_point_layer, write_csv

INPUT, OPTIONS = "INPUT", "OPTIONS"
# flags whose columns or files the algorithm's own parameters give (a column named only in OPTIONS would not be
# in the table geoanon reads; a file written behind QGIS's back would not be loaded)
MANAGED_FLAGS = {"-o", "--output", "--report", "--html-report", "--map", "--classes", "--qi", "--sensitive", "--keep",
                 "--identifiers", "--lat", "--lon", "--zip-col", "--label-col", "--engine", "--scheduler",
                 "--scheduler-file", "-q", "--quiet"}


@dataclass
class Invocation:
    """A geoanon command's share of the input: the fields it reads, the
    column names of the point geometry's coordinates (y, x) if it reads
    them, its arguments besides IN and the outputs, and whether its location
    classes have shapes (points, regions: a classes layer)."""

    fields: list = field(default_factory=list)
    coordinates: tuple | None = None
    arguments: list = field(default_factory=list)
    shaped: bool = False

    def __add__(self, other: "Invocation") -> "Invocation":
        return Invocation([*self.fields, *other.fields], self.coordinates or other.coordinates,
                          [*self.arguments, *other.arguments], self.shaped or other.shaped)


def field_parameter(name: str, description: str, *, multiple: bool = False, optional: bool = True):
    return QgsProcessingParameterField(name, description, None, INPUT, QgsProcessingParameterField.Any, multiple,
                                       optional)


def number_parameter(name: str, description: str, *, integer: bool = False, default=None, minimum=None,
                     maximum=None, optional: bool = True):
    kind = QgsProcessingParameterNumber.Integer if integer else QgsProcessingParameterNumber.Double
    parameter = QgsProcessingParameterNumber(name, description, kind, default, optional)
    if minimum is not None:
        parameter.setMinimum(minimum)
    if maximum is not None:
        parameter.setMaximum(maximum)
    return parameter


def choice_parameter(name: str, description: str, choices: tuple, *, advanced: bool = False):
    """A choice among ``choices`` (the first the default), given by name (METHOD=balanced)."""
    parameter = QgsProcessingParameterEnum(name, description, choices, False, choices[0], False, True)
    return advance(parameter) if advanced else parameter


def advance(parameter):
    parameter.setFlags(parameter.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
    return parameter


def number_text(value) -> str:
    """A number as a flag's value: 2.0 -> "2", 0.25 -> "0.25"."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class GeoanonAlgorithm(QgsProcessingAlgorithm):
    """One geoanon command. A subclass names it (``VERB``, ``TITLE``,
    ``HELP``), declares its parameters and outputs, turns their values into
    an :class:`Invocation` and reads its results."""

    VERB = TITLE = HELP = ""

    def name(self):
        return self.VERB

    def displayName(self):
        return self.TITLE

    def shortHelpString(self):
        return self.HELP

    def createInstance(self):
        return type(self)()

    def initAlgorithm(self, config=None):
        self.addParameter(QgsProcessingParameterFeatureSource(INPUT, "Input layer", [QgsProcessing.TypeVector]))
        for parameter in self.declared_parameters():
            self.addParameter(parameter)
        self.addParameter(advance(QgsProcessingParameterString(
            OPTIONS, "More geoanon options, as on its command line (e.g. --max-withheld 1%)", optional=True)))
        for output in self.declared_outputs():
            if isinstance(output, QgsProcessingParameterDefinition):
                self.addParameter(output)
            else:
                self.addOutput(output)

    def declared_parameters(self) -> list:
        raise NotImplementedError

    def declared_outputs(self) -> list:
        raise NotImplementedError

    def invocation(self, parameters, context, source) -> Invocation:
        raise NotImplementedError

    def destinations(self, parameters, context, invocation) -> dict:
        """{output name: (flag, path or None)} of the files geoanon writes."""
        raise NotImplementedError

    def results(self, outcome, destinations: dict, feedback) -> dict:
        """The algorithm's results once geoanon has ended with ``outcome``."""
        raise NotImplementedError

    def processAlgorithm(self, parameters, context, feedback):
        source = self.parameterAsSource(parameters, INPUT, context)
        if source is None:
            raise QgsProcessingException(self.invalidSourceError(parameters, INPUT))
        invocation = self.invocation(parameters, context, source)
        destinations = self.destinations(parameters, context, invocation)
        arguments = [*invocation.arguments, *(word for flag, path in destinations.values() if path
                                              for word in (flag, path))]
        arguments += self.more_options(parameters, context, arguments)
        with tempfile.TemporaryDirectory(prefix="geoanon-qgis-") as folder:
            table = Path(folder) / f"{_file_stem(source.sourceName())}.csv"
            rows = write_csv(source, invocation.fields, invocation.coordinates, table, feedback)
            if feedback.isCanceled():
                raise QgsProcessingException("canceled before geoanon ran")
            feedback.pushInfo(f"{rows:,} rows of {', '.join(_columns(invocation)) or 'no field'} passed to geoanon")
            outcome = run_geoanon([self.VERB, str(table), *arguments, "-v"], feedback)
        return self.results(outcome, destinations, feedback)

    def more_options(self, parameters, context, arguments) -> list:
        """The words of the OPTIONS parameter; QgsProcessingException for one
        that sets what the algorithm's own parameters set."""
        text = self.parameterAsString(parameters, OPTIONS, context) or ""
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise QgsProcessingException(f"OPTIONS: {exc}") from None
        flag = taken_flag(words, MANAGED_FLAGS | {word for word in arguments if word.startswith("-")})
        if flag is not None:
            raise QgsProcessingException(f"OPTIONS: {flag} is set by this algorithm's own parameters; give it there")
        return words

    # -- parameter values shared by the algorithms ---------------------------------------------------------------

    def given(self, parameters, name: str) -> bool:
        value = parameters.get(name)
        return value is not None and value != "" and not (hasattr(value, "isNull") and value.isNull())

    def number_flag(self, parameters, context, name: str, flag: str) -> list:
        """[flag, value] for a number parameter given, else []."""
        if not self.given(parameters, name):
            return []
        return [flag, number_text(self.parameterAsDouble(parameters, name, context))]

    def fields_flag(self, parameters, context, name: str, flag: str) -> Invocation:
        """The fields of a field parameter, and [flag, "a,b"] if any."""
        names = self.parameterAsFields(parameters, name, context)
        for named in names:
            if "," in named:
                raise QgsProcessingException(f"{name}: the field {named!r} has a comma in its name, which geoanon's "
                                             "command line reads as two fields: rename it")
        return Invocation(list(names), None, [flag, ",".join(names)] if names else [])

    def point_location(self, parameters, context, source, *, required: bool) -> Invocation | None:
        """The LAT and LON fields (in the CRS parameter's CRS, else
        EPSG:4326), else the layer's point geometry (in the layer's CRS),
        else None (QgsProcessingException if ``required``)."""
        lat = self.parameterAsString(parameters, "LAT", context)
        lon = self.parameterAsString(parameters, "LON", context)
        if lat or lon:
            if not (lat and lon):
                raise QgsProcessingException("give both LAT and LON fields, or neither to use the layer's point "
                                             "geometry")
            crs = self.parameterAsCrs(parameters, "CRS", context) if self.given(parameters, "CRS") else None
            return Invocation([lat, lon], None, ["--lat", lat, "--lon", lon, *_crs_flag(crs)], shaped=True)
        if is_point_layer(source):
            y, x = coordinate_names(source)
            return Invocation([], (y, x), ["--lat", y, "--lon", x, *_crs_flag(source.sourceCrs())], shaped=True)
        if required:
            raise QgsProcessingException("the input has no point geometry: give its LAT and LON fields")
        return None


def run_geoanon(arguments: list, feedback):
    """Run geoanon with ``arguments``, its lines shown in ``feedback`` (its
    error line becomes the exception, once it has ended); stopped when
    ``feedback`` is canceled."""
    from processing.core.ProcessingConfig import ProcessingConfig

    try:
        command = [*geoanon_command(ProcessingConfig.getSetting(SETTING)), *arguments]
    except CommandNotFound as exc:
        raise QgsProcessingException(str(exc)) from None
    feedback.pushCommandInfo(quoted(command))
    try:
        outcome = run(command, on_line=lambda stream, text: _show(feedback, stream, text),
                      canceled=feedback.isCanceled)
    except OSError as exc:
        raise QgsProcessingException(f"cannot run {quoted(command[:1])}: {exc.strerror or exc}") from None
    if outcome.canceled:
        raise QgsProcessingException("canceled: geoanon was stopped and wrote nothing")
    feedback.setProgress(100)
    return outcome


def failure(outcome) -> QgsProcessingException:
    """The exception for a run that failed: geoanon's one-line message."""
    return QgsProcessingException(outcome.error or f"geoanon ended with exit code {outcome.code}")


def _show(feedback, stream: str, text: str) -> None:
    if stream == "stderr" and ": error: " in text:
        return                                   # it becomes the exception
    if stream == "stderr" and ": warning: " in text:
        feedback.pushWarning(text)
    else:
        feedback.pushInfo(text)


def _crs_flag(crs) -> list:
    """--crs for a CRS other than geoanon's default (EPSG:4326); none for no CRS."""
    if crs is None or not crs.isValid() or crs_text(crs) == "EPSG:4326":
        return []
    return ["--crs", crs_text(crs)]


def _columns(invocation: Invocation) -> list:
    return [*invocation.fields, *(invocation.coordinates or ())]


def _file_stem(name: str) -> str:
    """A layer's name as a file name (the map's and report's title)."""
    return re.sub(r"[^\w.-]+", "_", Path(name or "").stem).strip("._") or "input"
