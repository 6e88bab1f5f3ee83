"""Validation (allowed types, size limit, regular files only) and extraction by
file type, with the text made safe for PostgreSQL."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path
from typing import Any

from graphrag.documents.model import DocumentError, Extracted, Unit
from graphrag.errors import InvalidInput, TooLarge, size_text
from graphrag.parsing.source import SourceProblem, open_inside

DEFAULT_MAX_UNZIPPED_BYTES = 100 * 1024 * 1024

# Extension -> format. Legacy .doc (binary Word) is not readable by python-docx.
FORMATS = {".pdf": "pdf", ".docx": "docx", ".md": "markdown", ".markdown": "markdown",
           ".txt": "text"}
MIME_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "markdown": "text/markdown",
    "text": "text/plain",
}


def document_format(path: Path) -> str:
    """The format of ``path`` by extension; other extensions are a user error."""
    ext = path.suffix.lower()
    if ext not in FORMATS:
        allowed = ", ".join(sorted(FORMATS))
        raise InvalidInput(f"{path.name}: unsupported file type {ext or '(none)'!r}"
                           f" (allowed: {allowed})")
    return FORMATS[ext]


def validate_file(path: Path, max_bytes: int) -> tuple[str, int]:
    """(format, size) of a file that may be ingested; one-line user errors otherwise.

    Only regular files: a FIFO, socket or device would block or never end, so the type
    is checked with ``stat`` before anything opens it."""
    fmt = document_format(path)
    try:
        info = path.stat()
    except FileNotFoundError as exc:
        raise InvalidInput(f"{path}: no such file") from exc
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(f"{path}: not a regular file")
    size = info.st_size
    if size > max_bytes:
        raise TooLarge(f"{path.name}: file too large ({size_text(size)};"
                           f" limit {size_text(max_bytes)})")
    if size == 0:
        raise InvalidInput(f"{path.name}: empty file")
    return fmt, size


def open_regular(path: Path, root: Path | None = None) -> Any:
    """A binary file object for ``path``, refusing anything but a regular file (and, with
    ``root``, a file outside it: a repository document swapped for a link leaving the
    repository, see :func:`graphrag.parsing.source.open_inside`).

    Opened non-blocking and checked with ``fstat`` on the open descriptor, so a file
    swapped for a FIFO after :func:`validate_file` cannot hang the reader."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if root is None:
        fd = os.open(path, flags)
    else:
        try:
            fd = open_inside(path, root, flags)
        except SourceProblem as exc:
            raise InvalidInput(f"{path.name}: {exc.reason}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInput(f"{path}: not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def clean_text(value: str) -> str:
    """Text PostgreSQL can store: NUL characters removed (``text`` and ``jsonb`` reject
    them) and lone surrogates replaced (they are not encodable as UTF-8)."""
    if "\x00" in value:
        value = value.replace("\x00", "")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", errors="replace").decode("utf-8")
    return value


def _clean_meta(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: clean_text(v) if isinstance(v, str) else v for k, v in meta.items()}


def sanitize(extracted: Extracted) -> Extracted:
    """The extracted document with every text safe for the database; how many NUL
    characters were dropped is kept in ``meta.nul_removed``."""
    removed = 0
    units: list[Unit] = []
    for u in extracted.units:
        removed += u.text.count("\x00") + u.title.count("\x00")
        units.append(dataclasses.replace(
            u, text=clean_text(u.text), title=clean_text(u.title),
            heading_path=tuple(clean_text(h) for h in u.heading_path)))
    meta = _clean_meta(extracted.meta)
    if removed:
        meta["nul_removed"] = removed
    return dataclasses.replace(extracted, units=units, meta=meta)


def _extract(path: Path, fmt: str, title: str, max_unzipped_bytes: int) -> Extracted:
    if fmt == "pdf":
        from graphrag.documents.pdf import extract_pdf

        return extract_pdf(path)
    if fmt == "docx":
        from graphrag.documents.word import extract_docx

        return extract_docx(path, title, max_unzipped_bytes)
    from graphrag.documents.text import extract_markdown, extract_text

    with open_regular(path) as fh:
        data = fh.read()
    return extract_markdown(data, title) if fmt == "markdown" else extract_text(data)


def extract(path: Path, fmt: str, title: str,
            max_unzipped_bytes: int = DEFAULT_MAX_UNZIPPED_BYTES) -> Extracted:
    """The units of the stored file, text sanitised; :class:`DocumentError` for anything
    that goes wrong reading its content (the document fails alone, the run goes on)."""
    try:
        return sanitize(_extract(path, fmt, title, max_unzipped_bytes))
    except DocumentError:
        raise
    except MemoryError as exc:
        raise DocumentError("extraction ran out of memory") from exc
    except Exception as exc:  # noqa: BLE001 - a parser bug on hostile input fails one file
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise DocumentError(f"cannot extract text ({type(exc).__name__}): {reason}") from exc
