"""The headings open at a point of a document: a stack by level, where a new heading closes every
open heading of its level or deeper. Pure (levels and titles), so the data model and the strategies
share it."""

from __future__ import annotations


class HeadingStack:
    """The headings above the current point by level: a new heading closes every open heading of
    its level or deeper. The one section-path rule of elements, headers, sections and contract."""

    def __init__(self) -> None:
        self._open: list[tuple[int, str]] = []

    @classmethod
    def of(cls, opened: tuple[tuple[int, str], ...]) -> HeadingStack:
        """A stack holding `opened` (a stack's `opened`): to go on from where that one was."""
        stack = cls()
        stack._open = list(opened)
        return stack

    @property
    def opened(self) -> tuple[tuple[int, str], ...]:
        """The open headings as (level, title), outermost first."""
        return tuple(self._open)

    def push(self, level: int, title: str) -> tuple[str, ...]:
        """Open a heading of `level`; returns the path down to it."""
        while self._open and self._open[-1][0] >= level:
            self._open.pop()
        self._open.append((level, title))
        return self.path

    @property
    def path(self) -> tuple[str, ...]:
        """Titles of the open headings, outermost first."""
        return tuple(t for _, t in self._open)

    @property
    def levels(self) -> list[int]:
        """Levels of the open headings, outermost first."""
        return [lv for lv, _ in self._open]
