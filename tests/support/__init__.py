"""What several test modules share (where the inputs live, documents built by hand, corpora,
browsers and servers, per-strategy checks, the suites' lists), so that no test module imports
another or conftest.py; pytest's hooks and fixtures stay in conftest.py."""
