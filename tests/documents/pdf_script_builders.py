"""PDFs that carry JavaScript in each place a viewer runs it from, and harmless ones, as bytes.

Built with PyMuPDF (objects written as PDF source), except `escaped_name_js`, whose point is
bytes PyMuPDF would normalise: it is written by hand, with a correct cross-reference table.
"""

from __future__ import annotations

import pymupdf

ALERT = "app.alert('script in the PDF ran');"
# The alert as a PDF string: parentheses escaped.
JS_STRING = "(" + ALERT.replace("(", "\\(").replace(")", "\\)") + ")"


def _page_doc(text: str = "A page of a PDF.") -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), text, fontsize=11, fontname="helv")
    return doc


def _new_object(doc: pymupdf.Document, source: str) -> int:
    xref = doc.get_new_xref()
    doc.update_object(xref, source)
    return xref


def _bytes(doc: pymupdf.Document, **options: int) -> bytes:
    data = doc.tobytes(**options)
    doc.close()
    return data


def plain_pdf() -> bytes:
    return _bytes(_page_doc("A plain page with nothing but text."))


def open_action_js(text: str = "A page that alerts when opened.") -> bytes:
    """The catalog's /OpenAction is a JavaScript action: it runs as the file opens."""
    doc = _page_doc(text)
    action = _new_object(doc, f"<< /S /JavaScript /JS {JS_STRING} >>")
    doc.xref_set_key(doc.pdf_catalog(), "OpenAction", f"{action} 0 R")
    return _bytes(doc)


def open_action_js_in_object_stream() -> bytes:
    """As above, with every object compressed inside object streams (nothing readable in the bytes)."""
    doc = _page_doc()
    action = _new_object(doc, f"<< /S /JavaScript /JS {JS_STRING} >>")
    doc.xref_set_key(doc.pdf_catalog(), "OpenAction", f"{action} 0 R")
    return _bytes(doc, use_objstms=1, deflate=1)


def name_tree_js() -> bytes:
    """Document-level JavaScript: the catalog's /Names /JavaScript name tree."""
    doc = _page_doc()
    action = _new_object(doc, f"<< /S /JavaScript /JS {JS_STRING} >>")
    tree = _new_object(doc, f"<< /Names [(init) {action} 0 R] >>")
    doc.xref_set_key(doc.pdf_catalog(), "Names", f"<< /JavaScript {tree} 0 R >>")
    return _bytes(doc)


def page_open_js() -> bytes:
    """A page's additional action on opening it (/AA /O), written inline in the page object."""
    doc = _page_doc()
    doc.xref_set_key(doc[0].xref, "AA", f"<< /O << /S /JavaScript /JS {JS_STRING} >> >>")
    return _bytes(doc)


def next_chain_js() -> bytes:
    """A harmless GoTo on opening whose /Next action is JavaScript."""
    doc = _page_doc()
    action = _new_object(doc, f"<< /S /JavaScript /JS {JS_STRING} >>")
    goto = _new_object(doc, f"<< /S /GoTo /D [{doc[0].xref} 0 R /Fit] /Next {action} 0 R >>")
    doc.xref_set_key(doc.pdf_catalog(), "OpenAction", f"{goto} 0 R")
    return _bytes(doc)


def link_js() -> bytes:
    """A link annotation whose action is JavaScript (runs when the link is clicked)."""
    doc = _page_doc()
    annot = _new_object(
        doc, f"<< /Type /Annot /Subtype /Link /Rect [72 80 272 100] /A << /S /JavaScript /JS {JS_STRING} >> >>"
    )
    doc.xref_set_key(doc[0].xref, "Annots", f"[{annot} 0 R]")
    return _bytes(doc)


def form_field_js() -> bytes:
    """A text field whose format script runs as the form is shown (PyMuPDF's widget API)."""
    doc = _page_doc()
    widget = pymupdf.Widget()
    widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
    widget.field_name = "amount"
    widget.rect = pymupdf.Rect(72, 120, 272, 140)
    widget.script_format = ALERT
    doc[0].add_widget(widget)
    return _bytes(doc)


def json_named_key_pdf() -> bytes:
    """A harmless private key whose name starts with JS (`/JSON`) and the word in a string."""
    doc = _page_doc()
    doc.xref_set_key(doc.pdf_catalog(), "JSON", "(mentions /JS and JavaScript only as text)")
    return _bytes(doc)


def encrypted_pdf() -> bytes:
    """Opening needs a password: its objects cannot be read without it."""
    doc = _page_doc()
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="reader-pw", owner_pw="owner-pw")
    doc.close()
    return data


def escaped_name_js() -> bytes:
    """/OpenAction << /S /J#61vaScript /J#53 (…) >>: names spelled with #xx escapes."""
    objects = [
        "<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        f"<< /S /J#61vaScript /J#53 {JS_STRING} >>",
    ]
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, source in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{source}\nendobj\n".encode("latin-1")
    xref_at = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref_at}\n%%EOF\n".encode()
    return bytes(out)
