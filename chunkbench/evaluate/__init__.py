"""Measuring chunkings: chunk statistics and quality targets (`stats`), document-aware metrics
(`metrics`), the defects a reviewer sees (`defects`), the boundary diff of two chunkings (`diff`),
retrieval checks (`retrieval/`) and the benchmark of settings against a baseline splitter
(`benchmark`, `chunkbench evaluate`). Measures only: sweeps, which run these over grids, are in
chunkbench.app.sweep; figures in chunkbench.ui."""
