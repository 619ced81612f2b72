"""Sentence spans, by rules that hold in lower-case text too: `sentence_spans(text)`.

A sentence may end at `.`, `!`, `?` (or a CJK full stop), with closing quotes or brackets, before
whitespace. Whether it does is decided from the word before the stop and the word after it:
- `?` and `!` end one;
- an ellipsis (`...`, `. . .`, `…`) does not;
- after a title that stands before a name (Mr., Dr., Mt., St.) none ends;
- after an abbreviation (e.g., Inc., U.S., a.m.) or a single letter (Jonas E. Smith) one ends only
  when a common sentence opener follows ("... and Co. They", "the U.S. How");
- before a number, after a short word (p. 55, No. 5, N°. 12), none ends;
- after any other word one ends, whatever the case of the next word: lower-case text (filings,
  transcripts) has sentences too;
- a full stop set off by a space ("the game . Released in 2011"; tokenized text, as wikitext and
  treebank corpora write it) is judged by the word before the space; a spaced ellipsis (". . .")
  is still one;
- inside a short aside in parentheses, opened and closed within 60 characters of the stop in one
  paragraph, none ends ("( Japanese : …, lit . Valkyria of the Battlefield 3 )").
Numbered or lettered list items run in one line ("1. The first item 2. The second item") start a
sentence at each marker of a run of two or more consecutive ones, and none ends at a marker.

Measured on the English golden rules of the Pragmatic Segmenter (as pySBD ships them, MIT):
tests/text/test_sentences.py and docs/sentences.md."""

from __future__ import annotations

import re

from .segment import _PARAGRAPH_BREAK, _strip_span

#: a possible end: stops, closing quotes or brackets, whitespace, then something
_CANDIDATE = re.compile(r"[.!?。！？…]+[\"'”’)\]]*\s+(?=\S)")
_CJK_STOP = re.compile(r"[。！？]")
#: a list marker in running text: "1.", "2)", "1.)", "a.", "• 9.", "⁃10."
_LIST_MARKER = re.compile(r"(?:^|(?<=\s))(?:[•⁃◦▪‣·\-–]\s?)?(\d{1,3}|[a-zA-Z])(?:\.\)|[.)])(?=\s)")
_LEADING = "\"'“‘([«"
#: characters looked back for the word before a stop
WORD_MAX = 40
#: how far a parenthesis may open before a stop, and close after it, for the stop to end no sentence
PAREN_REACH = 60
#: what may follow a sentence's stop and still end it: closing quotes and brackets (“… so.”, (… so.))
CLOSERS = "\"'”’)]»"
#: the stops that end a sentence in Latin script
STOPS = ".?!"

#: abbreviations after which a sentence ends only before a common opener
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "etc", "vs", "cf", "no", "nos", "art", "arts", "sec", "secs", "para", "paras", "fig", "figs",
    "inc", "ltd", "co", "corp", "llc", "plc", "jr", "sr", "approx", "dept", "est", "vol", "vols", "p", "pp",
    "ch", "chap", "ex", "al", "ed", "eds", "ref", "refs", "eq", "eqs", "tab", "app", "min", "max", "avg",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "bros", "assn",
    "govt", "intl", "natl", "univ", "yr", "yrs", "mo", "mos", "hr", "hrs", "ft", "in", "lb", "lbs", "oz",
})
#: titles before a name: never the end of a sentence
PREPOSITIVE = frozenset({
    "mr", "mrs", "ms", "mx", "dr", "prof", "mt", "st", "rev", "hon", "gen", "sen", "rep", "gov", "capt", "col",
    "lt", "sgt", "cmdr", "adm", "messrs", "mme", "mlle", "fr", "pres", "supt", "det", "insp",
})
#: words that usually open a sentence: after an abbreviation, one of these (capitalised) starts a new one
OPENERS = frozenset({
    "the", "a", "an", "this", "that", "these", "those", "it", "its", "he", "she", "they", "we", "i", "you",
    "there", "here", "how", "what", "when", "where", "why", "who", "which", "but", "and", "so", "if", "in",
    "on", "at", "for", "as", "after", "before", "then", "however", "also", "did", "do", "does", "is", "are",
    "was", "were", "can", "will", "would", "should", "could", "my", "our", "his", "her", "their", "your",
    "no", "yes", "one", "all", "each", "some", "many", "most", "both", "such", "to", "from", "with",
    "while", "although", "because", "since", "thus", "therefore", "moreover", "furthermore", "finally",
    "first", "second", "next", "now", "today", "let", "please", "not", "only", "every", "any",
})


#: a sentence opening with one of these leans on the one before it ("And just this morning, ...")
DEPENDENT_OPENERS = frozenset(
    ["and", "but", "or", "nor", "so", "yet", "also", "then", "thus", "hence", "therefore", "however", "moreover", "furthermore", "instead", "otherwise", "this", "that", "these", "those", "it", "its", "they", "them", "their", "he", "she", "his", "her", "such", "which"]
)


#: openers that point at something: before a capitalised word they name the document's own defined
#: terms ("This Agreement", "These Terms"), not the text before
DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})


def depends_on_previous(text: str) -> bool:
    """Whether a sentence opens with a connective or a pronoun that refers back. Not when the opener
    is in capitals ("THIS SOFTWARE IS PROVIDED", a notice's or heading's lettering) or a
    demonstrative before a capitalised word ("This Agreement": a defined term of the document)."""
    words = text[:40].split(maxsplit=2)
    if not words:
        return False
    first = words[0].strip("“”\"'‘’(,—–-")
    if first.lower() not in DEPENDENT_OPENERS or (len(first) > 1 and first.isupper()):
        return False
    return not (first.lower() in DEMONSTRATIVES and len(words) > 1 and words[1].lstrip("“\"'‘(")[:1].isupper())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of `text`, stripped of outer whitespace, in order (rules above)."""
    markers = _list_markers(text)
    marker_ends = {end for _, end in markers}
    starts = {start for start, _ in markers if text[:start].strip()}
    for m in _CANDIDATE.finditer(text):
        stop_end = m.start() + len(m.group().rstrip())
        if _ends_sentence(text, m.start(), m.end(), stop_end, marker_ends):
            starts.add(m.end())
    cjk = _CJK_STOP.search(text) is not None
    out: list[tuple[int, int]] = []
    previous = 0
    for start in sorted(starts) + [len(text)]:
        a, b = _strip_span(text, previous, start)
        if b > a:
            out.extend(_split_cjk(text, a, b) if cjk else [(a, b)])
        previous = start
    return out


def _ends_sentence(text: str, stop: int, after: int, stop_end: int, marker_ends: set[int]) -> bool:
    """Whether the stop at `stop` (its closers end at `stop_end`, the next word starts at `after`)
    ends a sentence."""
    stops = text[stop:stop_end].rstrip(CLOSERS)
    if "?" in stops or "!" in stops or "？" in stops or "！" in stops:
        return True
    before = text[max(0, stop - WORD_MAX):stop]  # a bounded look back: linear in the text
    # a stop set off by a space ("the PlayStation Portable . Released"): tokenized text, as
    # wikitext and treebank corpora write it, is judged by the word before the space
    detached = stops == "." and before[-1:].isspace() and before[-1:] != "\n"
    word = before.split()[-1] if before.strip() and (detached or not before[-1].isspace()) else ""
    nxt = text[after:after + 40].split(None, 1)[0] if after < len(text) else ""
    bare = nxt.lstrip(_LEADING)
    if not any(ch.isalnum() for ch in bare):
        return False  # ". . ." or a lone closing mark follows
    if len(stops) > 1 or "…" in stops or word.endswith(".") or word in ("", "."):
        # an ellipsis ("...", ". . .", "…") goes on, unless a full stop precedes it ("that.... She")
        return len(stops) >= 4 and bare[0].isupper()
    if stop + 1 in marker_ends or stop + 2 in marker_ends:
        return False  # the stop of a list marker "1." or "1.)"
    if stop_end - stop > 1 and bare[0].islower():
        return False  # a quotation or an aside goes on: "'This is great.' she said", "(... engineer.) at"
    if stops == "." and _inside_short_parentheses(text, stop, after):
        return False  # "( Japanese : ..., lit . Valkyria of the Battlefield 3 )": an aside goes on
    core = word.lstrip(_LEADING).rstrip(CLOSERS)
    lower = core.lower()
    # "U.S.", "e.g.", "Ph.D.", "non-u.s.": dotted short runs of letters; "5.3." is a number and
    # "faa.gov." a domain name: they end a sentence like any word
    dotted = "." in core and all(part.isalpha() and len(part) <= 3 for part in core.rsplit("-", 1)[-1].split("."))
    if bare[0].isdigit():  # "p. 55", "No. 5", "N°. 1026", "5 U.S.C. 552": a label before its number
        return any(ch.isdigit() for ch in core) or len(core) > 3 and lower not in ABBREVIATIONS and not dotted
    if lower in PREPOSITIVE:
        return False
    abbreviated = lower in ABBREVIATIONS or len(core) == 1 and core.isalpha() or dotted
    if abbreviated:
        opener = bare.rstrip(",;:").lower().rstrip(CLOSERS)
        return bare[0].isupper() and opener in OPENERS
    return True


def _inside_short_parentheses(text: str, stop: int, after: int) -> bool:
    """Whether the stop at `stop` lies in parentheses opened and closed within `PAREN_REACH`
    characters on either side, in one paragraph (bounded: linear in the text)."""
    opened = text.rfind("(", max(0, stop - PAREN_REACH), stop)
    if opened < 0 or ")" in text[opened:stop]:
        return False
    closed = text.find(")", after, after + PAREN_REACH)
    return closed >= 0 and "(" not in text[after:closed] and not _PARAGRAPH_BREAK.search(text, opened, closed)


def _list_markers(text: str) -> list[tuple[int, int]]:
    """(start, end) of each list marker in a run of two or more consecutive ones (1., 2. or a), b))."""
    found = [(m.start(), m.end(), m.group(1)) for m in _LIST_MARKER.finditer(text)]
    out: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    last: str | None = None
    for start, end, value in found:
        if last is not None and _follows(last, value):
            run.append((start, end))
        else:
            if len(run) > 1:
                out.extend(run)
            run = [(start, end)]
        last = value
    if len(run) > 1:
        out.extend(run)
    return out


def _follows(previous: str, value: str) -> bool:
    if previous.isdigit() and value.isdigit():
        return int(value) == int(previous) + 1
    return previous.isalpha() and value.isalpha() and ord(value.lower()) == ord(previous.lower()) + 1


def _split_cjk(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """CJK full stops end sentences without a following space."""
    out = []
    pos = a
    for m in _CJK_STOP.finditer(text, a, b):
        if m.end() < b and not text[m.end()].isspace():
            out.append((pos, m.end()))
            pos = m.end()
    out.append((pos, b))
    return out

