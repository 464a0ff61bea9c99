"""The version of cvcclock: its one source (read by the build and by the package)."""

__version__ = "0.1.0"
