"""`python -m chunkbench` runs the CLI."""

from .ui.cli import main

raise SystemExit(main())
