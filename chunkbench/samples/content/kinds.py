"""What a sample document is made of: its questions and its parts (one module per document fills them in)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Question:
    """A retrieval question about a sample and a verbatim phrase of the text that answers it.

    The evidence text must occur on exactly one page of the rendered PDF; the generator finds
    that page and refuses to write a question file when it cannot.
    """

    id: str
    question: str
    evidence_text: str


@dataclass(frozen=True)
class Sample:
    """One sample document: its file name, PDF metadata, page furniture and body.

    `footnotes` maps the id of a marker in `html` (e.g. `<sup id="fn-1">1</sup>`) to the note
    printed at the foot of the page where that marker lands.
    """

    name: str
    title: str
    subject: str
    paper: str
    css: str
    html: str
    header_left: str
    header_right: str
    footer_left: str
    questions: tuple[Question, ...]
    footnotes: Mapping[str, str] = field(default_factory=dict)
    header_on_first_page: bool = True
