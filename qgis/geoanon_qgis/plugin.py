"""The plugin QGIS loads: it registers the geoanon provider, in QGIS and in
qgis_process (which calls initProcessing only)."""
from __future__ import annotations

from qgis.core import QgsApplication

from .provider import GeoanonProvider


class GeoanonPlugin:
    def __init__(self, iface=None):
        self.provider = None

    def initProcessing(self):
        if self.provider is not None:
            return
        self.provider = GeoanonProvider()
        QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self):
        self.initProcessing()

    def unload(self):
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None
