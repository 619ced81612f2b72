"""MinerU's `table_body` HTML as rows of cell texts (colspan/rowspan expanded, capped)."""

from __future__ import annotations

from html.parser import HTMLParser

_MAX_SPAN = 1000  # colspan/rowspan cap: a hostile table must not allocate millions of cells
#: the most cells a table's spans may expand to (rows × columns): a few kB of HTML declaring
#: thousands of spans would otherwise build billions (a real table has hundreds)
MAX_TABLE_CELLS = 200_000


class TableTooLarge(ValueError):
    """A table whose spans expand beyond MAX_TABLE_CELLS; the message says so."""


def html_table_rows(html: str) -> tuple[tuple[str, ...], ...]:
    """Cell texts of the outermost table in `html`, row by row, spans expanded to empty cells.

    A cell spanning n columns is followed by n-1 empty cells and one spanning n rows leaves an
    empty cell below it, so every cell stays in its column. Text of nested tables joins its cell.
    TableTooLarge when the spans expand to more than MAX_TABLE_CELLS cells.
    """
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    parser.end_row()
    return tuple(tuple(r) for r in parser.rows)


_SPACED_TAGS = frozenset({"br", "p", "div", "li", "table", "tr", "td", "th"})


class _TableParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._depth = 0
        self._row: list[str] | None = None
        self._col = 0
        self._carry: dict[int, int] = {}  # column -> rows still covered by a rowspan from above
        self._cell: list[str] | None = None
        self._span = (1, 1)
        self._cells = 0

    def _append(self, text: str) -> None:
        assert self._row is not None, "cells are only added inside an open row"
        self._cells += 1
        if self._cells > MAX_TABLE_CELLS:
            raise TableTooLarge(f"the table's colspan/rowspan expand to more than {MAX_TABLE_CELLS:,} cells")
        self._row.append(text)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._depth += 1
        if self._depth == 1 and tag == "tr":
            self.end_row()
            self._row, self._col = [], 0
        elif self._depth == 1 and tag in ("td", "th"):
            self._end_cell()
            if self._row is None:
                self._row, self._col = [], 0
            a = dict(attrs)
            self._cell, self._span = [], (_span_attr(a.get("colspan")), _span_attr(a.get("rowspan")))
        elif self._cell is not None and tag in _SPACED_TAGS:  # <br>, nested table cells, ...
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag == "table":
            if self._depth == 1:
                self.end_row()
            self._depth = max(0, self._depth - 1)
        elif self._depth == 1 and tag in ("td", "th"):
            self._end_cell()
        elif self._depth == 1 and tag == "tr":
            self.end_row()

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def _end_cell(self):
        if self._cell is None or self._row is None:
            return
        text = " ".join("".join(self._cell).split())
        colspan, rowspan = self._span
        self._skip_carried()
        for k in range(colspan):
            self._append(text if k == 0 else "")
            if rowspan > 1:
                self._carry[self._col] = rowspan - 1
            self._col += 1
        self._cell = None

    def _skip_carried(self):
        assert self._row is not None, "cells are only skipped inside an open row"
        while self._carry.get(self._col, 0) > 0:
            self._carry[self._col] -= 1
            self._append("")
            self._col += 1

    def end_row(self):
        """Close the open row; columns still covered by rowspans at its end become empty cells."""
        self._end_cell()
        if self._row is None:
            return
        last = max((c for c, n in self._carry.items() if n > 0), default=-1)
        while self._col <= last:
            if self._carry.get(self._col, 0) > 0:
                self._carry[self._col] -= 1
            self._append("")
            self._col += 1
        self.rows.append(self._row)
        self._row = None


def _span_attr(value: str | None) -> int:
    try:
        return min(max(int(value or 1), 1), _MAX_SPAN)
    except ValueError:
        return 1
