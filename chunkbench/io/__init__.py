"""Files in and out: atomic writes (`atomic`), chunks.json / JSONL / chunk_debug.md (`export`) and the
hand-off to LangChain and LlamaIndex types (`handoff`). Typed against the shapes they read
(`shapes`), not the classes, so the data model in `chunkbench.types` can call them one way."""
