"""Structural blocks (types.blocks, types.blocks.blocks_at): the smallest units an answer needs whole,
on a real parse of the sample manual and on Markdown the project's loader reads."""

from __future__ import annotations

import chunkbench as cb
from chunkbench.types.blocks import block_ids, blocks_at
from tests.support.paths import SAMPLE_PDFS

GUIDE = """# Setup

Install the package before anything else happens on the machine.

You need the following:

- a compiler for the C language
- the make build tool

## Flags

The flags are:

| Flag | Meaning |
|---|---|
| --fast | skips every check |

Flags can be combined freely.

cache:

The folder where parsed documents are kept between runs.

A closing paragraph.
"""


def blocks_by_text(doc):
    ids = block_ids(doc.elements)
    return {e.text.split("\n")[0]: ids[e.id] for e in doc.elements if e.text}


def test_a_lead_in_joins_its_list_and_table_a_term_its_description_and_nothing_else_joins(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text(GUIDE, "utf-8")
    b = blocks_by_text(cb.load(path))
    assert b["- a compiler for the C language"] == b["You need the following:"]
    assert b["| Flag | Meaning |"] == b["The flags are:"]
    assert b["The folder where parsed documents are kept between runs."] == b["cache:"]
    alone = ["Setup", "Install the package before anything else happens on the machine.", "Flags",
             "Flags can be combined freely.", "A closing paragraph."]
    assert len({b[t] for t in alone}) == len(alone)
    assert b["Flags can be combined freely."] != b["| Flag | Meaning |"]  # a paragraph after a table is its own
    assert b["Flags"] != b["- a compiler for the C language"]  # a heading never joins a block


def test_a_list_running_over_a_page_break_is_one_block_and_offsets_find_it():
    doc = cb.load(SAMPLE_PDFS / "technical_manual.pdf")
    ids = block_ids(doc.elements)
    steps = [e for e in doc.elements if e.type == "list" and e.text.startswith(("1. Choose", "4. Fit the antenna"))]
    assert len(steps) == 2 and steps[0].page_idx != steps[1].page_idx
    assert ids[steps[0].id] == ids[steps[1].id] == steps[0].id
    furniture = [e for e in doc.elements if e.type in ("header", "footer", "page_number") and e.text]
    assert furniture and all(ids[e.id] == e.id for e in furniture)  # page furniture joins no block
    between = [e for e in doc.elements if steps[0].char_start <= e.char_start <= steps[1].char_start and e.text]
    assert {ids[e.id] for e in between if e.type == "list"} == {steps[0].id}
    assert blocks_at(doc, [steps[1].char_start + 3, None, len(doc.text)]) == [steps[0].id, None, None]
    assert blocks_at(doc, [e.char_start for e in doc.elements if e.text]) == [ids[e.id] for e in doc.elements if e.text]
