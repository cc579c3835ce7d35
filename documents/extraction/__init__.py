"""Text extraction: a stored file in, canonical text + page map + sections out.

`documents.extraction.dispatch.extract_document(path, content_type)` is the one entry point;
the types every format shares are in `documents.extraction.types`. This file imports nothing:
a package `__init__` that imported the dispatcher, whose formats import the package back,
was an import cycle.
"""
