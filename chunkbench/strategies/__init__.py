"""Built-in chunking strategies; importing this package registers them (see registry.py)."""

from . import contract, elements, headers, sections, tokens  # noqa: F401
