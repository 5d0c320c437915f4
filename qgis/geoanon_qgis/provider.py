"""The geoanon Processing provider: its algorithms, the output formats
geoanon writes, and the 'geoanon command' setting."""
from __future__ import annotations

from qgis.core import QgsProcessingProvider

from .audit import AuditAlgorithm
from .command import SETTING
from .releases import TABLE_FORMATS, AnonymizeAlgorithm, PointsAlgorithm, ZipAlgorithm

ALGORITHMS = (AnonymizeAlgorithm, PointsAlgorithm, ZipAlgorithm, AuditAlgorithm)


class GeoanonProvider(QgsProcessingProvider):
    """Algorithms ``geoanon:anonymize``, ``geoanon:points``, ``geoanon:zip`` and ``geoanon:audit``."""

    def id(self):
        return "geoanon"

    def name(self):
        return "geoanon"

    def longName(self):
        return "geoanon: k-anonymous releases of location data"

    def load(self):
        from processing.core.ProcessingConfig import ProcessingConfig, Setting

        ProcessingConfig.settingIcons[self.name()] = self.icon()
        ProcessingConfig.addSetting(Setting(
            self.name(), SETTING, "geoanon command: its program, or a command line such as "
            "'/path/venv/bin/python -m geoanon.cli' (the GEOANON_EXECUTABLE environment variable overrides it; "
            "empty: geoanon on PATH)", "", valuetype=Setting.STRING))
        ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self):
        from processing.core.ProcessingConfig import ProcessingConfig

        ProcessingConfig.removeSetting(SETTING)

    def loadAlgorithms(self):
        for algorithm in ALGORITHMS:
            self.addAlgorithm(algorithm())

    def supportedOutputVectorLayerExtensions(self):
        return list(TABLE_FORMATS)

    def defaultVectorFileExtension(self, hasGeometry=True):
        return TABLE_FORMATS[0]
