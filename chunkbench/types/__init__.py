"""The data model, in one home: Document, Page, Element, ParserInfo (`document`); Chunk, BBox,
Boundary, Reason (`chunk`); ChunkSet, the chunks of one Document under one setting (`chunkset`)."""
