"""What several test modules share (corpora, hand-built inputs, per-strategy checks), so that no
test module imports another; fixtures and paths stay in conftest.py."""
