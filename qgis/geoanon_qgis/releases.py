"""The algorithms that release a table: points, zip and anonymize. Each
writes the released table (a layer: in a GeoPackage, GeoJSON or shapefile
each row carries its class's shape), the classes (a polygon layer), and on
request the JSON and HTML reports and the map."""
from __future__ import annotations

from pathlib import Path

from qgis.core import (QgsProcessing, QgsProcessingException, QgsProcessingParameterCrs, QgsProcessingParameterFile,
                       QgsProcessingParameterFileDestination, QgsProcessingParameterString,
                       QgsProcessingParameterVectorDestination)

from .algorithm import (GeoanonAlgorithm, Invocation, advance, choice_parameter, failure, field_parameter,
                        number_parameter)

TABLE_FORMATS = ("gpkg", "geojson", "shp", "csv")     # what geoanon writes that QGIS reads as a layer
ZIP_CHOICES = (("CONTIGUITY", "--contiguity", "Adjacency of region polygons", ("rook", "queen")),
               ("UNKNOWN", "--unknown", "Records whose region is not in REGIONS", ("error", "suppress")),
               ("SMALL", "--small", "Connected pieces lighter than k", ("error", "suppress", "nearest")),
               ("ZIP_LEVEL", "--zip-level", "Publish ZIP codes rolled up to", ("zip", "zip3", "county", "state")))


def k_parameter():
    return number_parameter("K", "k: every class holds at least k records", integer=True, default=10, minimum=1,
                            optional=False)


def point_parameters():
    return [field_parameter("LAT", "Latitude (or y) field; none: the layer's point geometry"),
            field_parameter("LON", "Longitude (or x) field"),
            advance(QgsProcessingParameterCrs("CRS", "CRS of the LAT and LON fields (default EPSG:4326)",
                                              optional=True))]


def region_parameters(*, optional: bool):
    regions_filter = "Regions (*.gpkg *.geojson *.shp *.csv *.csv.gz *.parquet)"
    return [QgsProcessingParameterFile("REGIONS", "Regions file: polygons, or a CSV of centroids",
                                       fileFilter=regions_filter, optional=optional),
            QgsProcessingParameterString("REGION_ID", "Region id column of the regions file", optional=optional),
            QgsProcessingParameterFile("EDGES", "Adjacency of the regions: an edge list CSV (for centroids)",
                                       fileFilter="CSV (*.csv *.csv.gz)", optional=True),
            *(choice_parameter(name, description, choices, advanced=name != "ZIP_LEVEL")
              for name, _, description, choices in ZIP_CHOICES)]


def release_outputs():
    """The released table and the classes (layers, created by default), the reports and the map (files, on request)."""
    def page(name, description, kind="HTML files (*.html)"):
        return QgsProcessingParameterFileDestination(name, description, kind, None, True, False)

    return [QgsProcessingParameterVectorDestination("OUTPUT", "Released table", QgsProcessing.TypeVectorAnyGeometry),
            QgsProcessingParameterVectorDestination("CLASSES", "Classes", QgsProcessing.TypeVectorPolygon, None, True,
                                                    True),
            page("REPORT", "Report (JSON)", "JSON files (*.json)"), page("HTML_REPORT", "Report (HTML page)"),
            page("MAP", "Map of the classes (HTML page)")]


class ReleaseAlgorithm(GeoanonAlgorithm):
    """A geoanon command that releases a table."""

    def declared_outputs(self):
        return release_outputs()

    def destinations(self, parameters, context, invocation):
        files = {name: (flag, self.parameterAsFileOutput(parameters, name, context) or None)
                 for name, flag in (("REPORT", "--report"), ("HTML_REPORT", "--html-report"), ("MAP", "--map"))}
        return {"OUTPUT": ("-o", self.layer_path(parameters, "OUTPUT", context)),
                "CLASSES": ("--classes", self.layer_path(parameters, "CLASSES", context) if invocation.shaped
                                else None),
                **files}

    def layer_path(self, parameters, name: str, context) -> str | None:
        path = self.parameterAsOutputLayer(parameters, name, context)
        if not path:
            return None
        if "|" in path or Path(path).suffix.lower().lstrip(".") not in TABLE_FORMATS:
            raise QgsProcessingException(f"{name}: geoanon writes {', '.join('.' + f for f in TABLE_FORMATS)} "
                                         f"files, not {path}")
        return path

    def results(self, outcome, destinations, feedback):
        if outcome.code != 0:
            raise failure(outcome)
        return {name: path for name, (_, path) in destinations.items()}

    def choice_flags(self, parameters, context, choices) -> list:
        """The flags of the choice parameters set to other than geoanon's default (their first choice)."""
        words = []
        for name, flag, _, options in choices:
            value = self.parameterAsEnumString(parameters, name, context)
            if value and value != options[0]:
                words += [flag, value]
        return words

    def zip_location(self, parameters, context, zip_field: str) -> Invocation:
        regions = self.parameterAsFile(parameters, "REGIONS", context)
        region_id = self.parameterAsString(parameters, "REGION_ID", context)
        if not (regions and region_id):
            raise QgsProcessingException("a ZIP (region) location needs REGIONS and REGION_ID")
        edges = self.parameterAsFile(parameters, "EDGES", context)
        return Invocation([zip_field], None, ["--zip-col", zip_field, "--regions", regions, "--region-id", region_id,
                                              *(["--edges", edges] if edges else []),
                                              *self.choice_flags(parameters, context, ZIP_CHOICES)], shaped=True)

    def k_flag(self, parameters, context) -> Invocation:
        return Invocation([], None, ["-k", str(self.parameterAsInt(parameters, "K", context))])


class PointsAlgorithm(ReleaseAlgorithm):
    VERB = "points"
    TITLE = "Generalize points"
    HELP = ("Generalizes a point layer's geometry (or its LAT and LON fields) into rectangles, each holding at least "
            "k records (geoanon points). The released table keeps the KEEP fields as they are and drops every other "
            "field. Outputs: the released table (in a GeoPackage each row carries its class's rectangle), the "
            "classes as polygons with their record counts, and on request the JSON and HTML reports and the map.")
    METHODS = (("METHOD", "--method", "Cuts", ("gaps", "balanced", "paper")),)

    def declared_parameters(self):
        return [*point_parameters(), k_parameter(),
                field_parameter("KEEP", "Fields published as they are", multiple=True),
                *(choice_parameter(name, description, choices) for name, _, description, choices in self.METHODS)]

    def invocation(self, parameters, context, source):
        return (self.point_location(parameters, context, source, required=True) + self.k_flag(parameters, context)
                + self.fields_flag(parameters, context, "KEEP", "--keep")
                + Invocation([], None, self.choice_flags(parameters, context, self.METHODS)))


class ZipAlgorithm(ReleaseAlgorithm):
    VERB = "zip"
    TITLE = "Generalize ZIP codes (regions)"
    HELP = ("Generalizes a ZIP code (or any region) field into connected groups of adjacent regions, each holding at "
            "least k records (geoanon zip). REGIONS is a file of region polygons (GeoPackage, GeoJSON, shapefile) or "
            "a CSV of centroids with EDGES; REGION_ID names its id column. The released table keeps the KEEP fields "
            "and drops every other field. Outputs: the released table, the groups as polygons, and on request the "
            "JSON and HTML reports and the map. The classes layer lists each group's member regions: it is for the "
            "data holder, not for publication.")
    METHODS = (("METHOD", "--method", "Grouping", ("balanced", "paper", "exact")),)

    def declared_parameters(self):
        return [field_parameter("ZIP_FIELD", "ZIP code (region) field", optional=False),
                *region_parameters(optional=False), k_parameter(),
                field_parameter("KEEP", "Fields published as they are", multiple=True),
                *(choice_parameter(name, description, choices, advanced=True)
                  for name, _, description, choices in self.METHODS)]

    def invocation(self, parameters, context, source):
        zip_field = self.parameterAsString(parameters, "ZIP_FIELD", context)
        return (self.zip_location(parameters, context, zip_field) + self.k_flag(parameters, context)
                + self.fields_flag(parameters, context, "KEEP", "--keep")
                + Invocation([], None, self.choice_flags(parameters, context, self.METHODS)))


class AnonymizeAlgorithm(ReleaseAlgorithm):
    VERB = "anonymize"
    TITLE = "Anonymize a table (location and quasi-identifiers)"
    HELP = ("Generalizes the location and the quasi-identifier fields of a layer together (geoanon anonymize), to "
            "k-anonymity and, with a sensitive field, l-diversity or t-closeness. The location is the LAT and LON "
            "fields, else ZIP_FIELD (with REGIONS), else LABEL_FIELD, else the layer's point geometry, else none. "
            "Only the fields given a role are passed to geoanon: the others are dropped. More options (weights, "
            "dates, hierarchies, budgets) go in OPTIONS as on the command line. Outputs: the released table (in a "
            "GeoPackage each row carries its location class's shape), the location classes as polygons, and on "
            "request the JSON and HTML reports and the map.")

    def declared_parameters(self):
        return [field_parameter("QI", "Quasi-identifier fields (besides the location)", multiple=True),
                field_parameter("SENSITIVE", "Sensitive field"),
                field_parameter("KEEP", "Fields published as they are", multiple=True),
                k_parameter(),
                number_parameter("L", "l: no sensitive value fills more than 1/l of a class", minimum=1),
                number_parameter("L_DISTINCT", "Distinct l: every class holds l distinct sensitive values",
                                 integer=True, minimum=1),
                number_parameter("T", "t: every class's sensitive distribution within EMD t of the table's",
                                 minimum=0, maximum=1),
                number_parameter("LOCATION_PRECISION", "Location precision, 0 (other fields first) to 1 (location "
                                 "first; default 0.5)", minimum=0, maximum=1),
                *point_parameters(),
                field_parameter("ZIP_FIELD", "ZIP code (region) field as the location"),
                *region_parameters(optional=True),
                field_parameter("LABEL_FIELD", "Label field as the location")]

    def invocation(self, parameters, context, source):
        zip_field = self.parameterAsString(parameters, "ZIP_FIELD", context)
        label = self.parameterAsString(parameters, "LABEL_FIELD", context)
        points = self.given(parameters, "LAT") or self.given(parameters, "LON")
        located_by = [name for name, value in (("LAT/LON", points), ("ZIP_FIELD", zip_field), ("LABEL_FIELD", label))
                      if value]
        if len(located_by) > 1:
            raise QgsProcessingException(f"give one location, not {' and '.join(located_by)}")
        if zip_field:
            location = self.zip_location(parameters, context, zip_field)
        elif label:
            location = Invocation([label], None, ["--label-col", label])
        else:
            location = self.point_location(parameters, context, source, required=False) or Invocation()
        levels = [word for name, flag in (("L", "-l"), ("L_DISTINCT", "--l-distinct"), ("T", "-t"),
                                          ("LOCATION_PRECISION", "--location-precision"))
                  for word in self.number_flag(parameters, context, name, flag)]
        return (location + self.fields_flag(parameters, context, "QI", "--qi")
                + self.fields_flag(parameters, context, "SENSITIVE", "--sensitive")
                + self.fields_flag(parameters, context, "KEEP", "--keep")
                + self.k_flag(parameters, context) + Invocation([], None, levels))
