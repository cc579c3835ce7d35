"""Navigation that a page does not mark with <nav> stays out of the extracted text: blocks that
name themselves navigation, and short link-dense lines at the top or bottom of the content
(documents/extraction/html.py), as running headers are for PDFs."""

from __future__ import annotations

from pathlib import Path

from documents.extraction.html import extract_html
from documents.extraction.versions import HTML, extractor_is_current

# The shape of a DocBook-generated manual page (the PostgreSQL manual's, among others): a navheader
# table with the chapter title, Prev/Up/Home/Next links, and a navfooter table.
MANUAL_PAGE = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "x"><html xmlns="http://www.w3.org/1999/xhtml">
<head><title>19.4. Resource Consumption</title></head><body id="docContent">
<div class="navheader"><table width="100%" summary="Navigation header">
<tr><th colspan="5" align="center">19.4. Resource Consumption</th></tr>
<tr><td><a accesskey="p" href="a.html">Prev</a> </td><td><a accesskey="u" href="b.html">Up</a></td>
<th>Chapter 19. Server Configuration</th><td><a accesskey="h" href="index.html">Home</a></td>
<td> <a accesskey="n" href="c.html">Next</a></td></tr></table><hr /></div>
<div class="sect1"><div class="titlepage"><h2 class="title">19.4. Resource Consumption</h2></div>
<div class="variablelist"><dl class="variablelist">
<dt><span class="term"><code>work_mem</code> (integer)</span></dt>
<dd><p>Sets the base maximum amount of memory to be used by a query operation. The default value is
four megabytes.</p></dd></dl></div></div>
<div class="navfooter"><hr /><table width="100%" summary="Navigation footer">
<tr><td><a accesskey="p" href="a.html">Prev</a> </td><td><a accesskey="u" href="b.html">Up</a></td>
<td> <a accesskey="n" href="c.html">Next</a></td></tr>
<tr><td>19.3. Connections and Authentication </td><td><a accesskey="h" href="index.html">Home</a></td>
<td> 19.5. Write Ahead Log</td></tr></table></div></body></html>"""


def _text(tmp_path: Path, html: str) -> str:
    page = tmp_path / "page.html"
    page.write_text(html, encoding="utf-8")
    return extract_html(page).text


def test_a_manual_pages_navigation_header_and_footer_are_not_text(tmp_path: Path) -> None:
    text = _text(tmp_path, MANUAL_PAGE)
    for word in ("Home", "Prev", "Next"):
        assert word not in text
    assert "Chapter 19. Server Configuration" not in text
    assert "19.5. Write Ahead Log" not in text
    assert text.startswith("19.4. Resource Consumption")  # the page's own heading stays
    assert "work_mem (integer)" in text
    assert text.rstrip().endswith("The default value is four megabytes.")


def test_blocks_named_navigation_are_dropped_wherever_they_are(tmp_path: Path) -> None:
    text = _text(
        tmp_path,
        """<html><body>
        <ol class="breadcrumb"><li><a href="/">Docs</a></li><li><a href="/guide">Guide</a></li><li>Backups</li></ol>
        <div id="topNav"><a href="/">Overview</a> <a href="/api">API</a></div>
        <h1>Backups</h1><p>Backups are taken nightly and kept for thirty days.</p>
        <div class="nav-links"><a href="/restore">Restoring a backup</a></div>
        <table summary="Navigation footer"><tr><td><a href="/x">Previous page</a></td></tr></table>
        </body></html>""",
    )
    assert " ".join(text.split()) == "Backups Backups are taken nightly and kept for thirty days."


def test_short_link_lines_at_the_edges_are_dropped_and_prose_with_links_is_kept(tmp_path: Path) -> None:
    text = _text(
        tmp_path,
        """<html><body><div>
        <p><a href="/">Home</a> | <a href="/prev">Previous</a> | <a href="/next">Next</a></p>
        <h1>Replication</h1>
        <p>Read <a href="/a">the setup guide</a> and <a href="/b">the tuning notes</a> before you start.</p>
        <p>Each replica applies the log in order.</p>
        <p><a href="/prev">« Installation</a> · <a href="/next">Monitoring »</a></p>
        </div></body></html>""",
    )
    for word in ("Home", "Installation", "Monitoring"):
        assert word not in text
    assert "Read the setup guide and the tuning notes before you start." in text
    assert "Each replica applies the log in order." in text


def test_a_wrapper_named_navigation_keeps_the_content_it_holds(tmp_path: Path) -> None:
    long_text = "The archive holds every report the team filed. " * 20
    text = _text(tmp_path, f'<html><body><div class="has-navbar"><p>{long_text}</p></div></body></html>')
    assert text.split() == long_text.split()


def test_a_page_of_links_alone_keeps_them(tmp_path: Path) -> None:
    text = _text(
        tmp_path, '<html><body><p><a href="/a">Alpha guide</a> | <a href="/b">Beta guide</a></p></body></html>'
    )
    assert "Alpha guide | Beta guide" in text


def test_html_documents_stamped_before_navigation_was_dropped_are_stale() -> None:
    assert not extractor_is_current("lxml-6.1.3+ragsite-html-2")
    assert extractor_is_current(f"lxml-6.1.3+{HTML}")
