"""Write tests/data/workspace_v1.db: a workspace database at schema version 1, for migration tests.

Version 1 has documents, runs, chunks and verdicts but no amendment columns and no full-text
index; `chunkbench.db.workspace.connect` must migrate it to the current version without losing rows.
Run from the repository root: `.venv/bin/python tests/data/make_workspace_v1.py`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from chunkbench.db.workspace import MIGRATIONS  # noqa: E402
from chunkbench.types.chunk import Boundary, Reason, boundary_key, build_chunk  # noqa: E402
from chunkbench.types.document import Document, Element, Page, ParserInfo, with_offsets  # noqa: E402

OUT = HERE / "workspace_v1.db"
RUN_ID = "elements-20260101T000000-v1fixture"
CREATED = "2026-01-01T00:00:00.000000Z"


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fixture_document() -> Document:
    elements = with_offsets([
        Element("e0", "heading", "Delivery Schedule", page_idx=0, bbox=(72.0, 72.0, 300.0, 90.0), text_level=1),
        Element("e1", "paragraph", "The supplier delivers the turbines by March.", page_idx=0,
                bbox=(72.0, 100.0, 500.0, 130.0)),
        Element("e2", "heading", "Penalties", page_idx=1, bbox=(72.0, 72.0, 200.0, 90.0), text_level=1),
        Element("e3", "paragraph", "Late delivery costs one percent per week.", page_idx=1,
                bbox=(72.0, 100.0, 500.0, 130.0)),
    ])
    return Document(
        doc_id=hashlib.sha256(b"workspace v1 fixture").hexdigest(), source="fixture_v1.pdf",
        pages=(Page(0, 595.0, 842.0), Page(1, 595.0, 842.0)), elements=elements,
        parser=ParserInfo("pymupdf", "1.24.0"),
    )


def main() -> None:
    doc = fixture_document()
    els = doc.elements
    chunks = [
        build_chunk(doc, index=0, chunk_id="v1fixture_chunk_0", type="heading",
                    text=els[0].text + "\n\n" + els[1].text, elements=els[:2],
                    boundary=Boundary(Reason.DOCUMENT_START, "first chunk of the document"),
                    section_path=["Delivery Schedule"], heading="Delivery Schedule"),
        build_chunk(doc, index=1, chunk_id="v1fixture_chunk_1", type="heading",
                    text=els[2].text + "\n\n" + els[3].text, elements=els[2:],
                    boundary=Boundary(Reason.PAGE_BREAK, "page 1 → 2"),
                    section_path=["Penalties"], heading="Penalties"),
    ]
    doc_json = doc.to_dict()
    doc_json.pop("pdf_path")
    doc_key = hashlib.sha256(canonical(doc_json).encode()).hexdigest()
    params = {"heading_level": 2, "max_chunk_size": 2000, "skip_noise": True, "table_boundary": True}
    params_hash = hashlib.sha256(canonical(params).encode()).hexdigest()
    manifest = {"doc_id": doc.doc_id, "document": doc_key, "strategy": "elements", "params": params,
                "ruleset": "elements/2026-11",
                "parser": {"name": "pymupdf", "version": "1.24.0", "options": {}},
                "chunkbench_version": "0.0.9"}

    OUT.unlink(missing_ok=True)
    conn = sqlite3.connect(OUT)
    with conn:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        conn.execute("INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (doc_key, doc.doc_id, doc.source, 2, "pymupdf", "1.24.0", canonical(doc.to_dict()), CREATED))
        conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (RUN_ID, doc_key, doc.doc_id, "elements", canonical(params), params_hash, "0.0.9", "pymupdf",
                      "1.24.0", "elements/2026-11", canonical(manifest), "{}", len(chunks), CREATED))
        for c in chunks:
            conn.execute(
                "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (RUN_ID, c.chunk_id, c.index, c.type, c.text, c.tokens_est, c.page_start, c.page_end,
                 canonical(list(c.section_path)), c.heading, c.boundary.reason.value, c.boundary.detail,
                 c.start_char, c.end_char, boundary_key(c), canonical(c.to_dict())),
            )
        conn.execute(
            "INSERT INTO verdicts (doc_id, strategy, params_hash, boundary_key, reviewer, verdict, comment, "
            "chunk_index, reason, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (doc.doc_id, "elements", params_hash, boundary_key(chunks[1]), "ana", "should_merge",
             "penalties belong with delivery", 1, "page_break", CREATED),
        )
    conn.execute("VACUUM")
    conn.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
