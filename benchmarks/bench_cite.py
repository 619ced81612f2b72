"""Benchmark 13: citing a quote (`cb.cite`).

On the project's labelled retrieval corpus (every question set: 762 questions over 7 documents,
one of them a PDF), each question's reference texts are cited without the hints the corpus gives
(page numbers, offsets into the source file): the share located exactly or normalised, and by word
the highlight's precision (words highlighted that are the reference's) and recall (the reference's
words highlighted) against the reference span the evaluation resolves with those hints. Then the
time of one quote on a generated 300-page PDF after the first (its parse is set-up, not timed)."""

from __future__ import annotations

import random
import re
import time

from chunkbench.foreign.cite import FOUND_KINDS, cite

from .common import Row
from .pdfgen import long_pdf
from .retrieval_public import load_cases

SECTION = "13. citations"
#: the issue's goals
LOCATED_GOAL, WORD_GOAL, MS_GOAL = 0.99, 0.98, 5.0
_WORD = re.compile(r"\S+")


def words_in(text: str, spans) -> set[int]:
    """Start offsets of the words of `text` that overlap any of `spans`."""
    out: set[int] = set()
    for a, b in spans:
        lo = max(0, text.rfind(" ", 0, a) + 1)
        out.update(lo + m.start() for m in _WORD.finditer(text[lo:b]) if lo + m.end() > a)
    return out


def corpus_figures() -> dict:
    """Located share and word precision / recall of citing every reference text of the corpus."""
    cases = load_cases(("all",))["all"]
    quotes = located = 0
    hit = highlighted = reference = 0
    per_doc = {}
    for case in cases:
        doc, text = case.doc, case.doc.text
        d_quotes = d_located = 0
        for resolved in case.resolved:
            if not resolved.spans:
                continue
            cited = []
            for ev in resolved.question.evidence:
                if not ev.text:
                    continue
                c = cite(doc, ev.text)
                quotes += 1
                d_quotes += 1
                if c.kind in FOUND_KINDS:
                    located += 1
                    d_located += 1
                if c.found:
                    cited.extend(c.spans or ((c.start, c.end),))
            ref, got = words_in(text, resolved.spans), words_in(text, cited)
            hit += len(ref & got)
            highlighted += len(got)
            reference += len(ref)
        per_doc[case.name] = (d_located, d_quotes)
    return {"quotes": quotes, "located": located / quotes, "precision": hit / max(highlighted, 1),
            "recall": hit / max(reference, 1), "documents": per_doc, "questions": sum(len(c.resolved) for c in cases)}


#: real PDFs of ../shared whose text another extraction gives differently (hyphenation, ligatures, columns)
OTHER_EXTRACTION_PDFS = ("financial_bestbuy-2023-10k.pdf", "paper_hotos17-baumann.pdf", "legal_ukgov-example-mutual-nda.pdf",
                         "multicol_debian-refcard-en-a4.pdf", "req_federal-register-2020-17221.pdf")
_SENTENCE = re.compile(r"[^.!?]{40,300}[.!?]")


def other_extraction_figures(per_document: int = 100) -> dict:
    """Sentences as pypdf extracts them from real PDFs (its own spacing, hyphens, ligatures and
    order), cited in chunkbench's parse: the share located exactly or normalised, and fuzzily."""
    import os

    import chunkbench as cb
    from chunkbench.foreign.extract import pdf_plain_text

    shared = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "pdfs")
    counts: dict[str, tuple[int, int, int]] = {}
    for name in OTHER_EXTRACTION_PDFS:
        path = os.path.join(shared, name)
        if not os.path.exists(path):
            continue
        doc = cb.load(path)
        sentences = [" ".join(m.group(0).split()) for m in _SENTENCE.finditer(pdf_plain_text(path, "pypdf"))]
        sentences = [x for x in sentences if sum(ch.isalpha() for ch in x) >= 30]
        picks = random.Random(13).sample(sentences, min(per_document, len(sentences)))
        kinds = [cite(doc, q).kind for q in picks]
        counts[name] = (sum(k in FOUND_KINDS for k in kinds), sum(k == "fuzzy" for k in kinds), len(kinds))
    return counts


def quote_time(pages: int = 300, count: int = 200) -> tuple[float, float, int]:
    """(first quote ms, median ms of the next `count`, characters of the document) on a generated PDF."""
    import chunkbench as cb

    doc = cb.load(long_pdf(pages))
    rnd = random.Random(13)
    body = [e for e in doc.elements if e.type == "paragraph" and len(e.text) > 160]
    picks = []
    for _ in range(count + 1):
        e = rnd.choice(body)
        a = rnd.randrange(0, len(e.text) - 120)
        picks.append(e.text[a:a + rnd.randrange(40, 120)])
    t0 = time.perf_counter()
    cite(doc, picks[0])
    first = (time.perf_counter() - t0) * 1000
    times = []
    for q in picks[1:]:
        t0 = time.perf_counter()
        cite(doc, q)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return first, times[len(times) // 2], len(doc.text)


def run(runs: int = 3) -> tuple[list[Row], list[str]]:
    f = corpus_figures()
    docs = "; ".join(f"{name} {a}/{n}" for name, (a, n) in f["documents"].items())
    rows = [
        Row(SECTION, f"reference texts located exactly or normalised ({f['quotes']} of {f['questions']} questions)",
            f["located"] * 100, "%", target="≥ 99 %", met=f["located"] >= LOCATED_GOAL, note=docs),
        Row(SECTION, "highlight precision by word (highlighted words that are the reference's)", f["precision"],
            "", target="≥ 0.98", met=f["precision"] >= WORD_GOAL),
        Row(SECTION, "highlight recall by word (reference words highlighted)", f["recall"], "", target="≥ 0.98",
            met=f["recall"] >= WORD_GOAL),
    ]
    other = other_extraction_figures()
    if other:
        found, fuzzy, total = (sum(v[i] for v in other.values()) for i in range(3))
        rows.append(Row(SECTION, f"sentences of pypdf's extraction of {len(other)} real PDFs located exactly or "
                        f"normalised ({total})", found / total * 100, "%", target="≥ 99 %", met=found / total >= LOCATED_GOAL,
                        note=f"{fuzzy} fuzzily; " + "; ".join(f"{n} {a}/{t}" for n, (a, _, t) in other.items())))
    first, median, chars = quote_time()
    rows.append(Row(SECTION, "one quote on a 300-page PDF after the first (median of 200)", median, "ms",
                    target="≤ 5 ms", met=median <= MS_GOAL,
                    note=f"first quote {first:.0f} ms (folds the {chars:,}-character text once); word boxes included"))
    notes = ["the reference span is what the evaluation resolves with the corpus's hints (page numbers, offsets "
             "into the source file); the citation has only the quoted text. Words are whitespace-separated "
             "tokens of the canonical text; the PDF's line boxes are drawn from the same words"]
    return rows, notes
