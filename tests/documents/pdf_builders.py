"""Small PDFs with a known layout, built with PyMuPDF, for the extraction tests.

Every builder returns the PDF as bytes; tests write them to tmp_path. Text is placed line by
line at explicit positions so that the expected canonical text is known exactly.
"""

from __future__ import annotations

import pymupdf

LETTER = (612, 792)
BODY = 10.0
LEADING = 12.0


def write_lines(
    page: pymupdf.Page,
    x: float,
    y: float,
    lines: list[str],
    *,
    size: float = BODY,
    font: str = "helv",
    leading: float | None = None,
) -> float:
    """Write `lines` with baselines from `y` down; returns the baseline after the last line.

    On a page with /Rotate set, (x, y) are display coordinates and the text is rotated so
    that it reads upright on screen, like a scanned-then-rotated landscape handout.
    """
    step = leading or size * 1.2
    for line in lines:
        point = pymupdf.Point(x, y)
        if page.rotation:
            page.insert_text(point * page.derotation_matrix, line, fontsize=size, fontname=font, rotate=page.rotation)
        else:
            page.insert_text(point, line, fontsize=size, fontname=font)
        y += step
    return y


def to_bytes(doc: pymupdf.Document, **save_options: object) -> bytes:
    data = doc.tobytes(**save_options)
    doc.close()
    return data


# --- two-column research paper -------------------------------------------------------

PAPER_TITLE = "A Study of Column Layouts"
PAPER_ABSTRACT = [
    "This abstract spans the full width of the page, above both columns of the body text,",
    "and a reader finishes it before starting on the left column of the paper below it.",
]
LEFT_COLUMN = [
    "Left column, first paragraph: it talks",
    "about the imple-",
    "mentation of a layout engine that",
    "reads the left column first.",
]
LEFT_COLUMN_2 = [
    "Left column, second paragraph has",
    "a 128-",
    "bit key and a Key-",
    "Value store in it.",
]
RIGHT_COLUMN = [
    "Right column, first paragraph: it is",
    "printed at the same heights as the",
    "left column, so a naive reader would",
    "interleave the two columns line by line.",
]
RIGHT_COLUMN_2 = [
    "Right column, second paragraph ends",
    "the page.",
]


def two_column_paper() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    write_lines(page, 200, 80, [PAPER_TITLE], size=18, font="hebo")
    write_lines(page, 72, 120, PAPER_ABSTRACT, leading=LEADING)
    for x, first, second in ((72, LEFT_COLUMN, LEFT_COLUMN_2), (320, RIGHT_COLUMN, RIGHT_COLUMN_2)):
        y = write_lines(page, x, 180, first, leading=LEADING)
        write_lines(page, x, y + LEADING, second, leading=LEADING)
    return to_bytes(doc)


# --- 2-up landscape handout ------------------------------------------------------------

LEFT_HALF = [f"Left handout page, line {n}, which reads on." for n in range(1, 9)]
RIGHT_HALF = [f"Right handout page, line {n}, read after." for n in range(1, 9)]


def two_up_handout(*, rotated: bool) -> bytes:
    """Two portrait pages side by side on one landscape sheet. With `rotated`, the sheet is a
    portrait page with /Rotate 90 and sideways text (how the MIT 6.826 handouts are made)."""
    doc = pymupdf.open()
    if rotated:
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        page.set_rotation(90)
    else:
        page = doc.new_page(width=LETTER[1], height=LETTER[0])
    write_lines(page, 40, 80, LEFT_HALF)
    write_lines(page, 420, 80, RIGHT_HALF)
    return to_bytes(doc)


# --- running headers, footers and page numbers ---------------------------------------

HEADER = "Journal of Reproducible Tests, Vol. 7"


def running_headers_doc(pages: int = 4) -> bytes:
    """Single-column pages with a running header (author names alternate with the page
    number), a centred footer "Page N of M" and a bare page number in the corner."""
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        write_lines(page, 72, 40, [HEADER], size=9)
        write_lines(page, 480, 40, [f"Smith and Jones {number}"], size=9)
        write_lines(page, 72, 100, body_lines(number))
        write_lines(page, 270, 750, [f"Page {number} of {pages}"], size=9)
        write_lines(page, 530, 770, [str(number)], size=9)
    return to_bytes(doc)


def body_lines(number: int) -> list[str]:
    return [
        f"Body text of page {number} opens the page and is long enough to span most of the",
        f"text width, so that page {number} reads as a normal single-column page; the word",
        "at the end of this line is hyphen-",
        "ated across two lines.",
    ]


# --- headings: outline and font sizes --------------------------------------------------

OUTLINE_PAGES = [
    ("1 Introduction", "The introduction explains why outlines matter for navigation."),
    ("2 Background", "Background material is summarised on the second page."),
    ("3 Results", "The results come last and close the document."),
]


def outline_doc(*, with_toc: bool = True) -> bytes:
    """Three pages, each with a 14pt numbered heading; a "2.1 Prior Work" 12pt subheading on
    page 2. With `with_toc`, an outline (including a junk Word bookmark entry) is set."""
    doc = pymupdf.open()
    for heading, body in OUTLINE_PAGES:
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        write_lines(page, 72, 90, [heading], size=14, font="hebo")
        y = write_lines(page, 72, 120, [body, "It has a second sentence on its own line."])
        if heading.startswith("2 "):
            write_lines(page, 72, y + 20, ["2.1 Prior Work"], size=12, font="hebo")
            write_lines(page, 72, y + 44, ["Prior work is discussed briefly here."])
    if with_toc:
        doc.set_toc(
            [
                [1, "Introduction", 1],
                [1, "Background", 2],
                [2, "Prior Work", 2],
                [1, "Results", 3],
                [1, "OLE_LINK1", 3],
            ]
        )
    return to_bytes(doc)


def bold_heading_doc() -> bytes:
    """Body-size bold numbered heading and a bold sentence that is not a heading."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    write_lines(page, 72, 90, ["4 Evaluation"], font="hebo")
    write_lines(page, 72, 110, ["We evaluate the extractor on built documents.", "Nothing else is on this page."])
    write_lines(page, 72, 150, ["This bold sentence is just emphasis."], font="hebo")
    return to_bytes(doc)


# --- special characters ----------------------------------------------------------------


def ligature_doc() -> bytes:
    """Text with ﬁ and ﬂ ligature characters, set in Droid Sans Fallback (bundled with
    PyMuPDF, and unlike the Base-14 fonts it has those glyphs)."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font(ordering=0).buffer)
    write_lines(page, 72, 100, ["The ﬁrst ﬂow of text, café and naïve."], font="F0")
    return to_bytes(doc)


# --- failure cases ---------------------------------------------------------------------


def image_only_doc() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 64), False)
    pixmap.set_rect(pixmap.irect, (120, 120, 120))
    page.insert_image(pymupdf.Rect(72, 72, 472, 472), pixmap=pixmap)
    return to_bytes(doc)


def encrypted_doc(user_password: str = "secret") -> bytes:
    doc = pymupdf.open(stream=running_headers_doc(3), filetype="pdf")
    return to_bytes(
        doc, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=user_password, owner_pw=user_password + "-owner"
    )


def broken_xref_doc() -> bytes:
    """A valid document whose xref offsets are all wrong (as after a careless edit);
    MuPDF rebuilds the xref by scanning the file."""
    data = to_bytes(pymupdf.open(stream=running_headers_doc(3), filetype="pdf"), garbage=0, deflate=False)
    start = data.rindex(b"startxref")
    return data[:start] + b"startxref\n99999\n%%EOF\n"


PAGE_BREAK_PAGES = (
    "A sentence that starts on the first page and runs over the",
    "page break into the second one, where it ends. The key is imple-",
    "mentation defined, says the third page. It ends properly.",
    "New paragraph on the fourth page, after a full stop.",
)


def page_break_doc() -> bytes:
    """One line per page: a sentence running over a page break, then a word hyphenated across one."""
    doc = pymupdf.open()
    for line in PAGE_BREAK_PAGES:
        write_lines(doc.new_page(), 72, 100, [line])
    return to_bytes(doc)
