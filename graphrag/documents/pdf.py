"""PDF text, one PAGE unit per page (pypdf). Corrupt and password-protected files raise
:class:`DocumentError` with a one-line reason."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pypdf
from pypdf.errors import PyPdfError

from graphrag.documents.model import DocumentError, Extracted, Unit

# What pypdf lets escape on damaged input besides its own errors.
_BROKEN_INPUT = (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError,
                 struct.error, zlib.error, RecursionError)


def _reader(path: Path) -> pypdf.PdfReader:
    try:
        reader = pypdf.PdfReader(path)
    except _BROKEN_INPUT as exc:
        raise DocumentError(f"corrupt PDF: {_reason(exc)}") from exc
    if reader.is_encrypted:
        # An empty user password (owner-only protection) still opens; anything else cannot.
        try:
            opened = reader.decrypt("")
        except (*_BROKEN_INPUT, NotImplementedError) as exc:
            raise DocumentError(f"encrypted PDF cannot be opened: {_reason(exc)}") from exc
        if not opened:
            raise DocumentError("encrypted PDF: a password is required")
    return reader


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def extract_pdf(path: Path) -> Extracted:
    """One PAGE unit per page with its text (empty for pages without a text layer)."""
    reader = _reader(path)
    units: list[Unit] = []
    try:
        for number, page in enumerate(reader.pages, start=1):
            text = page.extract_text() or ""
            units.append(Unit("PAGE", number, f"page {number}", text.strip(), number))
    except _BROKEN_INPUT as exc:
        raise DocumentError(f"corrupt PDF: {_reason(exc)}") from exc
    if not units:
        raise DocumentError("corrupt PDF: no pages")
    meta = {}
    info = None
    try:
        info = reader.metadata
    except _BROKEN_INPUT:
        info = None  # a broken info dictionary loses the title, not the document
    if info and info.title:
        meta["title"] = str(info.title)
    return Extracted("pdf", units, page_count=len(units), meta=meta)
