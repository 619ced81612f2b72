"""Measuring chunkings: chunk statistics and quality targets (`stats`), document-aware metrics
(`metrics`), the boundary diff of two chunkings (`diff`), retrieval checks (`retrieval/`), the
benchmark of settings against a baseline splitter (`benchmark`, `chunkbench evaluate`) and parameter
sweeps (`sweep/`). No drawing: figures live in `chunkbench.ui`."""
