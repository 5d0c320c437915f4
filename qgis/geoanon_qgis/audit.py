"""The audit algorithm: measure a released table (k, l, t, ...) as geoanon
audit does, the measures written to a JSON report and given as outputs."""
from __future__ import annotations

import json

from qgis.core import QgsProcessingOutputBoolean, QgsProcessingOutputNumber, QgsProcessingParameterFileDestination

from .algorithm import GeoanonAlgorithm, failure, field_parameter, number_parameter

MISSED = 1        # geoanon audit's exit code when the table misses a level asked for


class AuditAlgorithm(GeoanonAlgorithm):
    VERB = "audit"
    TITLE = "Audit a released table"
    HELP = ("Measures a released table (geoanon audit): its classes of equal QI fields, the smallest (k), and with "
            "a sensitive field l, distinct l, t and the other models, written to the JSON report. MET tells whether "
            "the levels asked for (K, L, L_DISTINCT, T) are met; a table that misses one is reported, not an error.")

    def declared_parameters(self):
        return [field_parameter("QI", "Quasi-identifier fields, as released", multiple=True, optional=False),
                field_parameter("SENSITIVE", "Sensitive field"),
                number_parameter("K", "k to check", integer=True, minimum=1),
                number_parameter("L", "l to check", minimum=1),
                number_parameter("L_DISTINCT", "Distinct l to check", integer=True, minimum=1),
                number_parameter("T", "t to check", minimum=0, maximum=1)]

    def declared_outputs(self):
        return [QgsProcessingParameterFileDestination("REPORT", "Audit report (JSON)", "JSON files (*.json)"),
                QgsProcessingOutputNumber("ROWS", "Rows"),
                QgsProcessingOutputNumber("CLASSES", "Classes"),
                QgsProcessingOutputNumber("SMALLEST_CLASS", "Smallest class (the table's k)"),
                QgsProcessingOutputBoolean("MET", "Every level asked for is met")]

    def invocation(self, parameters, context, source):
        levels = [word for name, flag in (("K", "-k"), ("L", "-l"), ("L_DISTINCT", "--l-distinct"), ("T", "-t"))
                  for word in self.number_flag(parameters, context, name, flag)]
        invocation = (self.fields_flag(parameters, context, "QI", "--qi")
                      + self.fields_flag(parameters, context, "SENSITIVE", "--sensitive"))
        invocation.arguments += levels
        return invocation

    def destinations(self, parameters, context, invocation):
        return {"REPORT": ("--report", self.parameterAsFileOutput(parameters, "REPORT", context))}

    def results(self, outcome, destinations, feedback):
        if outcome.code not in (0, MISSED):
            raise failure(outcome)
        path = destinations["REPORT"][1]
        with open(path, encoding="utf-8") as report_file:
            report = json.load(report_file)
        if outcome.code == MISSED:
            feedback.pushWarning("the table misses a level asked for: see the report's violations")
        return {"REPORT": path, "ROWS": report["rows"], "CLASSES": report["classes"],
                "SMALLEST_CLASS": report["k"], "MET": outcome.code == 0}
