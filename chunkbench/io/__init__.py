"""Files in and out: atomic writes (`atomic`), chunks.json / JSONL / chunk_debug.md (`export`) and the
hand-off to LangChain and LlamaIndex types (`handoff`). On the data model's floor: export and handoff
read Chunk and Document (typed by `types.chunk.ChunkedDocument`, never importing ChunkSet), and
`ChunkSet.to_json()` & co. call them, one way."""
