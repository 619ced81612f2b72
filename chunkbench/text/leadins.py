"""Lead-ins: the sentence that introduces what follows it ("The following commands are required
in /bin:", "…as follows.", "Thus"), so a reader of what follows needs it.

A text introduces the block after it when it ends in a colon (a citation mark after it aside:
"…are installed: 3"), or its last sentence ends announcing it ("… the following.", "… as follows.",
"… listed below."; not "… this list of conditions and the following disclaimer."), or it ends open, without a stop, as a sentence that a displayed line of code or an
equation goes on ("To work with complex numbers, supply an explicit complex part. Thus").
"""

from __future__ import annotations

import re

from .notes import trailing_mark

#: how a last sentence that announces the block after it ends ("… are as follows.", "… listed below.")
_ANNOUNCES = re.compile(r"\b(?:as\s+follows|the\s+following|(?:shown|listed|given|described|set\s+out)\s+(?:below|here)|"
                        r"below)\s*[.:]?\Z", re.IGNORECASE)
#: how much of a text's end is read for its last sentence
_TAIL = 240


def _end(text: str) -> str:
    """The last `_TAIL` characters of `text`, stripped, less a citation mark after a stop."""
    tail = text[-_TAIL:].rstrip()
    return tail[: trailing_mark(tail)].rstrip()


def introduces(text: str) -> bool:
    """Whether `text` ends introducing a table or list: a colon, or a last sentence announcing it."""
    end = _end(text)
    if not end:
        return False
    if end.endswith(":"):
        return True
    return bool(_ANNOUNCES.search(end))


def ends_open(text: str) -> bool:
    """Whether `text` stops on a word, without a sentence's end (no stop, closer or colon): what a
    display continues ("… supply an explicit complex part. Thus"); a last line of figures ("1\t2")
    is no sentence that goes on."""
    end = _end(text)
    return bool(end) and end[-1].isalpha()
