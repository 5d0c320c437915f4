"""What a release publishes beside its table, and how it is written: the
:class:`~geoanon.report.release.Release` an engine returns, its figures,
its HTML report and its map. Rendering only: nothing here generalizes."""

__all__ = []
