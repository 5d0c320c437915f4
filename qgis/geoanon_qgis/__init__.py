"""geoanon's QGIS Processing provider: the geoanon command line of a Python
environment run on a layer's fields (docs/qgis.md). QGIS imports this
package and calls :func:`classFactory`; its other modules import QGIS, except
:mod:`geoanon_qgis.command`."""


def classFactory(iface):
    from .plugin import GeoanonPlugin

    return GeoanonPlugin(iface)
