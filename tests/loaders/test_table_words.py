"""Table cells from the PDF's words (loaders/table_words): no letter crosses a cell boundary, a
column line no printed line needs goes, a column white space alone sets apart is found, a header
over several columns spans them. Hand-made word boxes whose right answer is known, then the real
tables of the twin manuals where the layout model got it wrong (tests/evaluate/test_parse_against_gold.py
scores whole documents)."""

from __future__ import annotations

from chunkbench.loaders.table_words import Word, corrected_cells

SPACE = 3.0  # the space between two words of a line, in these hand-made tables


def words_of(*lines: tuple[float, float, str]) -> list[Word]:
    """Words laid out like a PDF's: (x, y, "text") of each line's first word, then one space each
    (4.5 points per letter)."""
    out = []
    for x, y, text in lines:
        for word in text.split():
            out.append(Word(x, y, x + 4.5 * len(word), y + 9, word))
            x += 4.5 * len(word) + SPACE
    return out


def grid(lines: list[float], ys: list[float], x0: float = 100, x1: float = 400) -> list[list[list[float]]]:
    """A layout model's cell boxes: column lines at `lines`, rows from `ys`."""
    edges = [x0, *lines, x1]
    return [[[a, y0, b, y1] for a, b in zip(edges, edges[1:])] for y0, y1 in zip(ys, ys[1:])]


def test_a_word_cut_by_a_column_line_goes_to_the_cell_holding_most_of_it():
    """AMC's scoring table: "setglobal.XXX" runs past the line into the next cell, which has its own mark."""
    words = words_of((100, 10, "set.XXX"), (150, 10, "yes"), (100, 30, "setglobal.XXX"), (150, 30, "yes"),
                     (100, 50, "requires"), (150, 50, "no"))
    cells = grid([140], [8, 28, 48, 68])
    model = [["set.XXX", "yes"], ["setglobal.", "XXX yes"], ["requires", "no"]]
    assert corrected_cells(cells, model, words) == [["set.XXX", "yes"], ["setglobal.XXX", "yes"], ["requires", "no"]]


def test_a_grid_that_fits_the_words_is_left_as_the_model_read_it():
    words = words_of((100, 10, "name"), (200, 10, "value"), (100, 30, "alpha"), (200, 30, "1"))
    assert corrected_cells(grid([180], [8, 28, 48]), [["name", "value"], ["alpha", "1"]], words) is None


def test_a_header_over_several_columns_spans_them():
    """Ulta's "13 W | eeks End | ed": the cells beyond the first hold only pieces of the cut words."""
    words = words_of((170, 10, "13 Weeks Ended"),
                     (100, 30, "Sales"), (170, 30, "10"), (200, 30, "20"), (225, 30, "30"), (300, 30, "40"),
                     (100, 50, "Costs"), (170, 50, "1"), (200, 50, "2"), (225, 50, "3"), (300, 50, "4"))
    cells = grid([165, 195, 220, 290], [8, 28, 48, 68])
    model = [["", "13 W", "eeks End", "ed", ""], ["Sales", "10", "20", "30", "40"], ["Costs", "1", "2", "3", "4"]]
    assert corrected_cells(cells, model, words) == [["", "13 Weeks Ended", "", "", ""], model[1], model[2]]


def test_a_column_line_at_a_word_space_goes():
    """R-lang's operator table: the model drew a line between "+" and "- * /", one space apart on
    every line that has words on both sides (and "->" runs across it)."""
    words = words_of((100, 10, "+ - * /"), (250, 10, "arithmetic"), (100, 30, "> >= <"), (250, 30, "relational"),
                     (100, 50, "~"), (250, 50, "model formulae"), (100, 70, "-> <-"), (250, 70, "assignment"))
    cells = grid([106, 240], [8, 28, 48, 68, 88])
    model = [["+", "- * /", "arithmetic"], [">", ">= <", "relational"], ["~", "", "model formulae"],
             ["-", "> <-", "assignment"]]
    assert corrected_cells(cells, model, words) == [
        ["+ - * /", "arithmetic"], ["> >= <", "relational"], ["~", "model formulae"], ["-> <-", "assignment"]]


def test_a_column_only_white_space_sets_apart_is_found_and_running_text_spans_it():
    """R-lang's @multitable without rules: names and descriptions read as one cell each; the
    sentence between two such tables stays whole in the first cell."""
    rows = [("Sys.getenv", "OS environment variables"), ("Sys.putenv", ""), ("Sys.time", "Current time"),
            ("Sys.timezone", "Time zone")]
    lines = []
    for n, (name, text) in enumerate(rows):
        lines.append((100, 10 + 20 * n, name))
        if text:
            lines.append((250, 10 + 20 * n, text))
    lines.append((100, 90, "A uniform set of file access functions is provided on all platforms:"))
    cells = grid([], [8 + 20 * n for n in range(6)], x1=500)
    model = [[f"{a}\n{b}" if b else a] for a, b in rows] + [["A uniform set ..."]]
    assert corrected_cells(cells, model, words_of(*lines)) == [
        [a, b] for a, b in rows] + [["A uniform set of file access functions is provided on all platforms:", ""]]


def test_numbers_after_a_wide_gap_are_no_new_column():
    """A split needs a word starting with a letter: "$   1,234" in a money column stays one cell."""
    words = words_of(*[(100, 10 + 20 * n, "Net sales") for n in range(4)],
                     *[(200, 10 + 20 * n, "$") for n in range(4)], *[(240, 10 + 20 * n, "1,234") for n in range(4)])
    cells = grid([190], [8 + 20 * n for n in range(5)])
    model = [["Net sales", "$ 1,234"]] * 4
    assert corrected_cells(cells, model, words) is None


def table_rows_on(pdf, page: int) -> list[tuple[str, ...]]:
    """The rows of the tables on one page (1-based) of a real PDF, as the loader reads them."""
    from chunkbench.loaders.pdf_layout import parse_range

    (parsed,) = parse_range(str(pdf), None, page - 1, page, False)
    return [row for e in parsed.elements if e.type == "table" and e.rows for row in e.rows]


def test_real_tables_the_layout_model_misread():
    """The tables of the twin manuals behind the cases above, as their HTML twins have them."""
    from tests.support.paths import twin_pair

    r_lang, _ = twin_pair("R-lang")
    rows = table_rows_on(r_lang, 50)  # a two-column @multitable the model read as one column
    assert ("Sys.getenv", "OS environment variables") in rows and ("file.show", "Display a text file") in rows
    assert ("A uniform set of file access functions is provided on all platforms:", "") in rows
    assert table_rows_on(r_lang, 61)[:2] == [("+ - * / %% ^", "arithmetic"), ("> >= < <= == !=", "relational")]
    amc, _ = twin_pair("auto-multiple-choice")
    rows = table_rows_on(amc, 65)  # names run into the next column, over its marks
    assert [row[:2] for row in rows] == [("set.XXX", "●"), ("setglobal.XXX", "●"), ("default.XXX", "●"),
                                         ("requires.XXX", "●")]
