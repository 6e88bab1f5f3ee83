"""Validation (seed 002: allowed types, size limit) and extraction by file type."""

from __future__ import annotations

from pathlib import Path

from graphrag.documents.model import Extracted
from graphrag.errors import InvalidInput

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
    """(format, size) of a file that may be ingested; one-line user errors otherwise."""
    fmt = document_format(path)
    try:
        if not path.is_file():
            raise InvalidInput(f"{path}: no such file")
        size = path.stat().st_size
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror}") from exc
    if size > max_bytes:
        raise InvalidInput(f"{path.name}: file too large ({size / 1048576:.1f} MB;"
                           f" limit {max_bytes / 1048576:.1f} MB)")
    if size == 0:
        raise InvalidInput(f"{path.name}: empty file")
    return fmt, size


def extract(path: Path, fmt: str, title: str) -> Extracted:
    """The units of the stored file; :class:`DocumentError` for unreadable content."""
    if fmt == "pdf":
        from graphrag.documents.pdf import extract_pdf

        return extract_pdf(path)
    if fmt == "docx":
        from graphrag.documents.word import extract_docx

        return extract_docx(path, title)
    from graphrag.documents.text import extract_markdown, extract_text

    data = path.read_bytes()
    return extract_markdown(data, title) if fmt == "markdown" else extract_text(data)
