"""The package's version, for the report and the command line."""
__version__ = "0.1.0"
