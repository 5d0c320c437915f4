"""A package's public names loaded on first use (PEP 562), so that importing
the package imports none of its heavy modules."""
from importlib import import_module


def attribute_loader(package: str, homes: dict, namespace: dict):
    """A module ``__getattr__`` for ``package``: a name of ``homes`` is read
    from its module (relative to ``package``) and kept in ``namespace`` (the
    package's globals), so it loads once; any other name is an AttributeError."""

    def __getattr__(name):
        if name in homes:
            value = getattr(import_module(f".{homes[name]}", package), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
