"""The package version, in a module of its own so that every layer can read it without importing
the public facade (`chunkbench/__init__.py`), which imports every layer."""

__version__ = "0.1.0"
