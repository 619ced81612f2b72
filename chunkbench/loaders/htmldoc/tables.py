"""An HTML table as a grid of cell texts, spans expanded: for HTML inputs (`loaders.htmldoc`) and
MinerU's `table_body` alike (`html_table_rows`). One reader, on lxml's tree."""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from .text import flat_text

_MAX_SPAN = 1000  # colspan/rowspan cap: a hostile table must not allocate millions of cells
#: the most cells a table's spans may expand to (rows × columns): a few kB of HTML declaring
#: thousands of spans would otherwise build billions (a real table has hundreds)
MAX_TABLE_CELLS = 200_000


class TableTooLarge(ValueError):
    """A table whose spans expand beyond MAX_TABLE_CELLS; the message says so."""


@dataclass(frozen=True)
class TableGrid:
    """Cell texts row by row (a cell spanning n columns is followed by n-1 empty cells, one spanning
    n rows leaves an empty cell below it, so every cell stays in its column) and how many leading
    rows are header rows (in `<thead>`, or made of `<th>` cells only)."""

    rows: tuple[tuple[str, ...], ...]
    header_rows: int = 0


def html_table_rows(html: str) -> tuple[tuple[str, ...], ...]:
    """Cell texts of the first table in the HTML fragment `html` (MinerU's `table_body`), row by
    row, spans expanded to empty cells; text of nested tables joins its cell. () without a table.
    TableTooLarge when the spans expand to more than MAX_TABLE_CELLS cells."""
    if not html.strip():
        return ()
    root = etree.HTML(html, parser=etree.HTMLParser(no_network=True))
    table = root.find(".//table") if root is not None else None
    return table_grid(table).rows if table is not None else ()


def table_grid(table: etree._Element) -> TableGrid:
    """The grid of an lxml `<table>`: its own rows (those of nested tables join their cell's text)."""
    grid = _Grid()
    header, in_body = 0, False
    for row in own_rows(table):
        cells = [c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]
        section = row.getparent().tag if row.getparent() is not None else ""
        heads = section == "thead" or (bool(cells) and all(c.tag == "th" for c in cells))
        grid.start_row()
        for cell in cells:
            grid.add(flat_text(cell, lines=False), _span(cell.get("colspan")), _span(cell.get("rowspan")))
        grid.end_row()
        if heads and not in_body:
            header += 1
        else:
            in_body = True
    grid.finish()
    return TableGrid(tuple(tuple(r) for r in grid.rows), header)


def own_rows(table: etree._Element) -> list[etree._Element]:
    """The `<tr>` of `table` itself (directly, or in its thead/tbody/tfoot), not of tables nested in its cells."""
    rows = []
    for child in table:
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(r for r in child if r.tag == "tr")
    return rows


class _Grid:
    """Rows of cells with rowspans carried down and a bound on the cells made."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self._row: list[str] | None = None
        self._col = 0
        self._carry: dict[int, int] = {}  # column -> rows still covered by a rowspan from above
        self._cells = 0

    def _append(self, text: str) -> None:
        assert self._row is not None, "cells are only added inside an open row"
        self._cells += 1
        if self._cells > MAX_TABLE_CELLS:
            raise TableTooLarge(f"the table's colspan/rowspan expand to more than {MAX_TABLE_CELLS:,} cells")
        self._row.append(text)

    def start_row(self) -> None:
        self.end_row()
        self._row, self._col = [], 0

    def add(self, text: str, colspan: int, rowspan: int) -> None:
        if self._row is None:
            self.start_row()
        self._skip_carried()
        for k in range(colspan):
            self._append(text if k == 0 else "")
            if rowspan > 1:
                self._carry[self._col] = rowspan - 1
            self._col += 1

    def _skip_carried(self) -> None:
        while self._carry.get(self._col, 0) > 0:
            self._carry[self._col] -= 1
            self._append("")
            self._col += 1

    def end_row(self) -> None:
        """Close the open row; columns still covered by rowspans at its end become empty cells."""
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

    def finish(self) -> None:
        self.end_row()


def _span(value: str | None) -> int:
    try:
        return min(max(int(value or 1), 1), _MAX_SPAN)
    except ValueError:
        return 1
