"""chunks.json against the shipped schema, determinism, jsonl, load back, and chunk_debug.md content."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import chunkbench as cb
from chunkbench import all_strategies
from chunkbench.errors import ChunkbenchError, InputError, UsageError
from chunkbench.io import export
from chunkbench.types.chunk import Boundary, Reason, build_chunk
from chunkbench.types.chunkset import ChunkSet
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS

FIXED = "2026-01-29T10:00:00Z"


@pytest.fixture(scope="module")
def contract_doc():
    return cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")


def one_chunk_set(texts, **kw) -> ChunkSet:
    """A ChunkSet with one chunk per element of a made-up document (no strategy involved)."""
    doc = make_doc([{"type": "paragraph", "text": t, "bbox": [10, 20, 300, 40]} for t in texts], **kw)
    chunks = tuple(
        build_chunk(doc, index=i, chunk_id=f"t_{i}", type="paragraph", text=e.text, elements=[e],
                    boundary=Boundary(Reason.DOCUMENT_START if i == 0 else Reason.SIZE_LIMIT, f"detail {i}"),
                    section_path=("Top", f"S{i}"), heading=f"S{i}")
        for i, e in enumerate(doc.elements)
    )
    return ChunkSet(doc, "test", {"size": 10}, chunks, ruleset="test/1")


def test_schema_is_valid_and_its_reasons_are_the_reason_enum():
    schema = export.chunks_schema()
    export._import_jsonschema().Draft202012Validator.check_schema(schema)
    reasons = schema["$defs"]["chunk"]["properties"]["boundary"]["properties"]["reason"]["enum"]
    assert reasons == [r.value for r in Reason]


@pytest.mark.parametrize("name", [s.name for s in cb.all_strategies()])
def test_every_strategy_writes_valid_deterministic_chunks_json(contract_doc, tmp_path, name):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    cb.chunk(contract_doc, name).to_json(a, chunked_at=FIXED)
    cb.chunk(contract_doc, name).to_json(b, chunked_at=FIXED)
    assert a.read_bytes() == b.read_bytes()
    data = export.load_chunks_json(a)
    assert data["chunking"]["strategy"] == name and data["chunked_at"] == FIXED
    assert data["doc_id"] == contract_doc.doc_id and data["chunks"]
    assert sorted(tmp_path.iterdir()) == [a, b]  # no temp files left behind
    assert a.read_text("utf-8") == export.chunks_json_text(cb.chunk(contract_doc, name), FIXED)


def test_reloaded_document_gives_byte_identical_chunks(contract_doc, tmp_path):
    again = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf", cache=False)
    one = export.chunks_json_text(cb.chunk(contract_doc, "elements", max_chunk_size=1200), FIXED)
    two = export.chunks_json_text(cb.chunk(again, "elements", max_chunk_size=1200), FIXED)
    assert one == two
    assert json.loads(one)["chunking"]["params"]["max_chunk_size"] == 1200


def test_envelope_matches_design(tmp_path):
    cs = one_chunk_set(["alpha", "beta"], metadata={"company": "ACME", "fiscal_year": 2023})
    cs.to_json(tmp_path / "c.json", chunked_at=FIXED)
    data = json.loads((tmp_path / "c.json").read_text("utf-8"))
    assert list(data) == ["doc_id", "source", "chunked_at", "chunking", "warnings", "chunks"]
    assert data["warnings"] == []
    assert list(data["chunking"]) == ["version", "ruleset", "strategy", "params", "params_hash", "parser"]
    assert data["chunking"]["params_hash"] == cs.params_hash
    c = data["chunks"][1]
    assert c["bbox"] == [{"page": 1, "x0": 10.0, "y0": 20.0, "x1": 300.0, "y1": 40.0}]
    assert c["metadata"] == {"company": "ACME", "fiscal_year": 2023}
    assert c["boundary"] == {"reason": "size_limit", "detail": "detail 1"}
    assert c["char_len"] == 4 and c["page_start"] == c["page_end"] == 1


def valid_dict() -> dict:
    return json.loads(export.chunks_json_text(one_chunk_set(["alpha", "beta", "gamma"]), FIXED))


@pytest.mark.parametrize(
    "mutate,where",
    [
        (lambda d: d["chunks"][1]["boundary"].update(reason="because"), "chunks[1].boundary.reason"),
        (lambda d: d["chunks"][2].pop("source_blocks"), "chunks[2]: 'source_blocks' is a required property"),
        (lambda d: d["chunks"][0].update(page_start=0), "chunks[0].page_start"),
        (lambda d: d["chunks"][0].update(char_len=99), "chunks[0].char_len: is 99"),
        (lambda d: d["chunks"][2].update(index=7), "chunks[2].index: is 7"),
        (lambda d: d["chunks"][2].update(chunk_id="t_0"), "chunks[2].chunk_id: 't_0' is used"),
        (lambda d: d["chunks"][1].update(page_end=None), "chunks[1].page_end"),
        (lambda d: d["chunks"][1]["bbox"][0].pop("y1"), "chunks[1].bbox[0]"),
        (lambda d: d.update(doc_id="abc"), "doc_id"),
        (lambda d: d["chunking"].pop("params_hash"), "chunking: 'params_hash' is a required property"),
    ],
)
def test_broken_chunks_fail_validation_with_a_clear_message(mutate, where):
    data = valid_dict()
    export.validate_chunks(data)  # valid before the change
    mutate(data)
    with pytest.raises(InputError) as err:
        export.validate_chunks(data, "x/chunks.json")
    assert str(err.value).startswith("x/chunks.json: not a valid chunks.json: " + where)


def test_the_first_problem_is_the_first_in_the_file():
    data = json.loads(export.chunks_json_text(one_chunk_set([f"t{i}" for i in range(12)]), FIXED))
    data["chunks"][10]["type"] = 5
    data["chunks"][2]["type"] = 7
    assert export.schema_errors(data)[0].startswith("chunks[2].type")
    with pytest.raises(InputError, match=r"chunks\[2\]\.type: 7 is not of type 'string' \(and 1 more problem\(s\)\)"):
        export.validate_chunks(data)


def test_strategy_extras_are_allowed():
    data = valid_dict()
    data["chunks"][0]["clause_ref"] = "1.1"
    data["chunks"][0]["header_path"] = "A > B"
    export.validate_chunks(data)


def test_invalid_chunk_is_not_written_and_the_old_file_stays(tmp_path):
    cs = one_chunk_set(["alpha", "beta"])
    bad = ChunkSet(cs.doc, "broken", {}, (cs.chunks[0], cs.chunks[0]))  # duplicate id and index
    target = tmp_path / "chunks.json"
    target.write_text("old")
    with pytest.raises(ChunkbenchError, match="strategy 'broken' produced chunks that do not match"):
        bad.to_json(target)
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_values_json_cannot_hold_are_refused_and_tuples_are_arrays(tmp_path):
    import dataclasses

    cs = one_chunk_set(["alpha"])
    ok = dataclasses.replace(cs.chunks[0], extra={"page_indices": (0, 1)})
    text = export.chunks_json_text(ChunkSet(cs.doc, "t", {}, (ok,)), FIXED)
    assert json.loads(text)["chunks"][0]["page_indices"] == [0, 1]
    nan = dataclasses.replace(cs.chunks[0], extra={"score": float("nan")})
    with pytest.raises(ChunkbenchError, match="strategy 'bad' produced a value JSON cannot hold"):
        ChunkSet(cs.doc, "bad", {}, (nan,)).to_json(tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()


def test_load_chunks_json_errors_name_the_file(tmp_path):
    p = tmp_path / "c.json"
    p.write_text("{not json")
    with pytest.raises(InputError, match=r"c\.json: not valid JSON: .* line 1 column 2"):
        export.load_chunks_json(p)
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InputError, match="not UTF-8"):
        export.load_chunks_json(p)
    p.write_text("[]")
    with pytest.raises(InputError, match=r"c\.json: not a valid chunks.json: \(top level\): \[\] is not of type 'object'"):
        export.load_chunks_json(p)
    with pytest.raises(InputError, match="no such file"):
        export.load_chunks_json(tmp_path / "missing.json")


def test_load_back_equals_to_dict(contract_doc, tmp_path):
    cs = cb.chunk(contract_doc, "elements")
    cs.to_json(tmp_path / "c.json", chunked_at=FIXED)
    assert export.load_chunks_json(tmp_path / "c.json") == json.loads(json.dumps(cs.to_dict(FIXED)))


def test_jsonl_one_valid_chunk_per_line(contract_doc, tmp_path):
    cs = cb.chunk(contract_doc, "elements")
    cs.to_jsonl(tmp_path / "c.jsonl")
    lines = (tmp_path / "c.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line)["chunk_id"] for line in lines] == [c.chunk_id for c in cs]


def fences(md: str) -> list[str]:
    return [t.content for t in MarkdownIt().parse(md) if t.type == "fence"]


def test_debug_markdown_lists_metadata_sources_and_reasons(contract_doc, tmp_path):
    cs = cb.chunk(contract_doc, "elements")
    md = cs.to_debug_markdown(tmp_path / "d.md")
    assert (tmp_path / "d.md").read_text("utf-8") == md
    assert f"- **doc_id**: `{contract_doc.doc_id}`" in md
    assert "- **strategy**: `elements`" in md and '"max_chunk_size": 2000' in md
    assert "pymupdf" in md
    for c in cs:
        assert f"## Chunk {c.index}: `{c.chunk_id}`" in md
        first = c.source_blocks[0]
        assert f"`{first}` {contract_doc.element(first).type}" in md
    first_heading = next(c for c in cs if c.boundary.reason is Reason.HEADING)
    assert f"- **boundary**: `heading`: `{first_heading.boundary.detail}`" in md
    assert fences(md) == [c.text + "\n" for c in cs]
    assert f"{len(cs.skipped)} (listed at the end)" in md and "## Skipped elements" in md


def test_debug_markdown_names_the_pages_a_chunk_is_on_and_never_repeats_a_label():
    """naacl-long-122: a paragraph runs from page 5 to page 7, past page 6's table; its chunk
    lies on pages 5 and 7, not 5–7. recursive's own `size` field is not a second **size**."""
    from tests.support.paths import mineru_fixture

    doc = cb.load(mineru_fixture("naacl-long-122", "naacl-long-122.pdf"))
    cs = cb.chunk(doc, "recursive")
    md = export.debug_markdown(cs)
    split = next(c for c in cs if "slight improvements. Random with Context imposes" in c.text)
    assert (split.page_start, split.page_end) == (5, 7) and sorted({b.page for b in split.bbox}) == [5, 7]
    section = md.split(f"## Chunk {split.index}: ")[1].split("\n## Chunk ")[0]
    assert "- **pages**: 5, 7\n" in section
    assert section.count("- **size**:") == 1 and f"- **size (strategy field)**: `{split.extra['size']}`" in section
    assert "- **pages**: 1\n" in md and "- **pages**: 1–2\n" in md  # single pages and true ranges as before


def test_debug_markdown_text_is_fenced_safely_and_never_html():
    hostile = [
        "before\n```\nnot the end\n````\nstill inside",
        "<script>alert(1)</script> <img src=x onerror=alert(2)>",
        "`leading backtick and trailing`",
    ]
    cs = one_chunk_set(hostile)
    cs = ChunkSet(cs.doc, cs.strategy, cs.params, tuple(
        build_chunk(cs.doc, index=c.index, chunk_id=c.chunk_id, type=c.type, text=c.text,
                    elements=[cs.doc.elements[c.index]], boundary=c.boundary,
                    heading="<b onmouseover=alert(3)>x</b> ``tick``") for c in cs))
    md = export.debug_markdown(cs)
    assert fences(md) == [t + "\n" for t in hostile]
    html = MarkdownIt().render(md)
    assert "<script>" not in html and "<img" not in html and "<b " not in html
    assert "&lt;script&gt;" in html
    # the heading, backticks and all, is one literal code span
    assert html.count("<code>&lt;b onmouseover=alert(3)&gt;x&lt;/b&gt; ``tick``</code>") == 3
    assert export.code_span("`a`") == "`` `a` ``"


@pytest.mark.parametrize("strategy", [s.name for s in all_strategies()])
def test_chunkset_from_dict_inverts_to_dict_on_real_chunks(strategy):
    """One (de)serialisation home: ChunkSet.from_dict(to_dict()) gives back equal
    chunks and the same chunks.json, on the sample PDFs with every strategy."""
    import chunkbench as cb
    from chunkbench.types.chunkset import ChunkSet
    from tests.support.paths import SAMPLE_PDFS

    for pdf in sorted(SAMPLE_PDFS.glob("*.pdf"))[:2]:
        doc = cb.load(pdf)
        cs = cb.chunk(doc, strategy)
        data = json.loads(json.dumps(cs.to_dict(chunked_at=FIXED)))  # through JSON, as from a file
        again = ChunkSet.from_dict(data, doc)
        assert again.chunks == cs.chunks and dict(again.params) == dict(cs.params)
        assert again.to_dict(chunked_at=FIXED) == cs.to_dict(chunked_at=FIXED)
    other = cb.load(sorted(SAMPLE_PDFS.glob("*.pdf"))[-1])
    with pytest.raises(UsageError, match="these chunks belong to"):
        ChunkSet.from_dict(data, other)


_JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=3),
                            lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
                            max_leaves=4)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_the_fast_schema_check_and_jsonschema_agree(data):
    """chunks.json is checked by the schema compiled with fastjsonschema and listed by jsonschema
    only when that fails: the two must agree on every document, valid or broken, down to any field."""
    d = valid_dict()
    target = data.draw(st.sampled_from(["top", "chunking", "chunk", "boundary"]))
    node = {"top": d, "chunking": d["chunking"], "chunk": d["chunks"][0], "boundary": d["chunks"][0]["boundary"]}[target]
    key = data.draw(st.sampled_from([*node, "extra"]))
    if data.draw(st.booleans()) and key in node:
        del node[key]
    else:
        node[key] = data.draw(_JSON_VALUES)
    listed = sorted(export._validator().iter_errors(d), key=str)
    assert export._schema_valid(d) == (listed == []), listed[:1]
