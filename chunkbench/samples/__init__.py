"""The sample PDFs of `sample_pdfs/`: what they say (`content/`) and how they are rendered (`build`).
Run as `python -m chunkbench.samples OUT_DIR`."""
