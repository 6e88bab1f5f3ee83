"""PDF text, one PAGE unit per page (pypdf). Corrupt and password-protected files raise
:class:`DocumentError` with a one-line reason.

pypdf reports recoverable damage through the ``pypdf`` logger; without a handler Python
would print those lines on stderr (breaking the one-line-error contract), so they are
captured during extraction and kept in the document's ``meta.warnings``."""

from __future__ import annotations

import logging
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
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


MAX_WARNINGS = 5


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if len(self.messages) < MAX_WARNINGS:
            self.messages.append(" ".join(record.getMessage().split())[:200])


@contextmanager
def _pypdf_warnings() -> Iterator[_Collector]:
    """pypdf's log records of this extraction, kept off stderr."""
    logger = logging.getLogger("pypdf")
    collector = _Collector()
    logger.addHandler(collector)
    propagate = logger.propagate
    logger.propagate = False
    try:
        yield collector
    finally:
        logger.removeHandler(collector)
        logger.propagate = propagate


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def extract_pdf(path: Path) -> Extracted:
    """One PAGE unit per page with its text (empty for pages without a text layer)."""
    with _pypdf_warnings() as warned:
        extracted = _extract(path)
    if warned.count:
        extracted.meta["warnings"] = warned.messages
        extracted.meta["warning_count"] = warned.count
    return extracted


def _extract(path: Path) -> Extracted:
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
