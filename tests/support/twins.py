"""A hand-made twin: one page of HTML in the conventions the HTML loader reads (a title, nested
headings, a list after its lead-in, a table with its header row that runs over two pages, a note,
definitions, footnotes), and its PDF laid out from the same body by the sample renderer."""

from __future__ import annotations

from pathlib import Path

#: the table's rows: long enough to run from page 1 onto page 2
TABLE_ROWS = 45
_ROWS = "".join(f"<tr><td>--option-{n:02d}</td><td>{n * 3} units</td><td>sets value {n} of the "
                f"frobnicator stage</td></tr>" for n in range(TABLE_ROWS))
#: the body both the twin and the PDF are made of (the PDF's footnote marks are sample markers)
BODY = f"""
<h1 class="title">Frobnicator Handbook</h1>
<h2>1 Installing the frobnicator</h2>
<p>The frobnicator ships as one archive that unpacks into a folder of its own, with the programs,
their manual pages and a sample configuration beside them.</p>
<p>Before you install it, check that the machine has the following:</p>
<ul><li>a C compiler that understands the 2011 standard</li><li>the make build tool from the GNU project</li>
<li>two gigabytes of free disk space for the caches</li></ul>
<h3>1.1 Options of the installer</h3>
<p>Every option of the installer is listed with its default value and what it changes.</p>
<table><thead><tr><th>Option</th><th>Default</th><th>Effect</th></tr></thead><tbody>{_ROWS}</tbody></table>
<div class="admonition note"><p class="admonition-title">Note</p><p>Options given twice keep the last value
that was written on the command line.</p></div>
<h2>2 Running it</h2>
<dl><dt>frobnicate</dt><dd><p>turns every input record into its canonical form before the merge</p></dd>
<dt>defrobnicate</dt><dd><p>undoes what frobnicate did, record by record, from the journal</p></dd></dl>
<p>Run both programs from the top folder of the project{{mark}}, where the configuration lives
and where the journal of every run is kept for a week.</p>
<p>The second paragraph about running explains which output files appear, how they are named after the
input, and when the old ones are removed by the cleaner.</p>
"""
FOOTNOTE = "The top folder holds the configuration file and the journal folder."


def twin_html(path: Path) -> Path:
    """The twin: the body in a page with navigation, a table of contents and footnotes (Sphinx style)."""
    body = BODY.replace("{mark}", '<a class="footnote-reference" href="#f1">1</a>')
    path.write_text(f"""<!DOCTYPE html><html><head><meta name="generator" content="hand" /><title>Frobnicator</title>
<link rel="next" href="other.html"></head><body>
<div class="related" role="navigation"><h3>Navigation</h3><ul><li><a href="index.html">index</a></li></ul></div>
<div class="contents"><p class="topic-title">Contents</p><ul><li><a href="#x">1 Installing</a></li></ul></div>
{body}
<aside class="footnote-list"><aside class="footnote" id="f1"><span class="label">1</span><p>{FOOTNOTE}</p></aside></aside>
<div class="footer">&copy; the frobnicator team</div></body></html>""", "utf-8")
    return path


def twin_pdf(path: Path) -> Path:
    """The PDF: the same body laid out on A4 pages with running headers, page numbers and the
    footnote at the foot of its page (chunkbench.samples.build)."""
    from chunkbench.samples.build import build_pdf
    from chunkbench.samples.content import Sample

    sample = Sample(
        name="frobnicator", title="Frobnicator Handbook", subject="a hand-made twin", paper="a4",
        css=".admonition-title { font-weight: bold; }", html=BODY.replace("{mark}", '<sup id="fn-1">1</sup>'),
        header_left="Frobnicator Handbook", header_right="draft", footer_left="hand-made twin", questions=(),
        footnotes={"fn-1": f"1 {FOOTNOTE}"},
    )
    path.write_bytes(build_pdf(sample))
    return path
