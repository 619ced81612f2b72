"""`python -m chunkbench` runs the CLI."""

from .cli import main

raise SystemExit(main())
