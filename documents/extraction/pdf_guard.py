"""Decompression bombs: refuse a PDF whose images or streams would inflate past a limit, before
MuPDF decodes them (it holds a decoded image or content stream whole in memory).

Checked once per file, on every stream object, without decoding anything big:
- an image's decoded size is known from its dictionary (width x height x components);
- a Flate stream (content streams, forms, fonts...) is inflated in 1 MB steps and only counted,
  stopping as soon as the count passes the limit. Other filters (LZW, RunLength, ASCII) are
  rare outside old files and are not counted; images with them are still bounded by their size.
"""

from __future__ import annotations

import logging
import zlib

import pymupdf

from documents import time_limit
from documents.extraction.types import ExtractionError

logger = logging.getLogger(__name__)

_STEP = 1 << 20
_COMPONENTS = {"/DeviceGray": 1, "/CalGray": 1, "/DeviceCMYK": 4}  # anything else counted as RGB (3)


def refuse_bombs(doc: pymupdf.Document, limit: int) -> None:
    """Raise ExtractionError when any image or stream would need more than `limit` bytes decoded."""
    for xref in range(1, doc.xref_length()):
        if xref % 200 == 0:
            time_limit.check()
        try:
            if not doc.xref_is_stream(xref):
                continue
            if _key(doc, xref, "Subtype") == "/Image":
                size = _image_bytes(doc, xref)
                what = f"an image that would need {_human(size)} of memory once decoded"
            else:  # counting stops just past the limit, so the true size is not known
                size = _inflated_bytes(doc, xref, limit)
                what = f"a compressed stream that inflates to more than {_human(limit)}"
        except (RuntimeError, ValueError) as exc:  # a broken object is MuPDF's to repair or skip
            logger.info("stream %d not checked: %s", xref, exc)
            continue
        if size > limit:
            raise ExtractionError(
                f"The PDF holds {what} (the limit is {_human(limit)}, PDF_MAX_DECODED_BYTES); "
                "the file was refused as a likely decompression bomb."
            )


def _key(doc: pymupdf.Document, xref: int, key: str) -> str:
    kind, value = doc.xref_get_key(xref, key)
    return value if kind != "null" else ""


def _int_key(doc: pymupdf.Document, xref: int, key: str, default: int) -> int:
    try:
        return max(int(float(_key(doc, xref, key) or default)), 0)
    except ValueError:
        return default


def _image_bytes(doc: pymupdf.Document, xref: int) -> int:
    width, height = _int_key(doc, xref, "Width", 0), _int_key(doc, xref, "Height", 0)
    bits = max(_int_key(doc, xref, "BitsPerComponent", 8), 8)  # MuPDF unpacks to a byte per sample
    space = _key(doc, xref, "ColorSpace")
    components = 1 if _key(doc, xref, "ImageMask") == "true" else _COMPONENTS.get(space, 3)
    return width * height * components * bits // 8


def _inflated_bytes(doc: pymupdf.Document, xref: int, limit: int) -> int:
    if "/FlateDecode" not in _key(doc, xref, "Filter"):
        return 0
    pending = doc.xref_stream_raw(xref)
    inflater = zlib.decompressobj()
    total = 0
    try:
        while pending and total <= limit:
            total += len(inflater.decompress(pending, _STEP))
            pending = inflater.unconsumed_tail
    except zlib.error:
        pass  # a corrupt stream: MuPDF reads what it can of it, no more than was counted
    return total


def _human(size: int) -> str:
    for unit, factor in (("GB", 1 << 30), ("MB", 1 << 20)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} bytes"
