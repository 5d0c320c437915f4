"""Optional parts of the suite: the dask engine's tests skip where the dask
extra is missing, except in CI (``GEOANON_REQUIRE_DASK=1``), where a missing
module fails them instead of skipping them silently."""
import importlib
import os

import pytest


def require(module: str):
    """The module, or a skip (a failure when ``GEOANON_REQUIRE_DASK=1``)."""
    if os.environ.get("GEOANON_REQUIRE_DASK") == "1":
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            pytest.fail(f"{module} is required (GEOANON_REQUIRE_DASK=1) but cannot be imported: {exc}",
                        pytrace=False)
    return pytest.importorskip(module)
