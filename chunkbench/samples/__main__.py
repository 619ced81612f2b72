"""`python -m chunkbench.samples OUT_DIR`: render the sample PDFs."""

from .build import main

if __name__ == "__main__":
    raise SystemExit(main())
