"""chunkbench benchmarks (issue 8): speed and memory side by side with the tools users would pick.

Run with `make bench` (`python -m benchmarks.run`); results go to `benchmarks/results.md`.
Never imported by the package or the tests: timing is measured here, never asserted in tests.
"""
