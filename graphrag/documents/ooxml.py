"""Checks on an Office Open XML package (DOCX) before any of its XML is parsed.

- Decompressed size: the sizes the zip declares are summed and bounded. Python's
  ``zipfile`` never inflates a member past its declared size (it stops there and fails
  the CRC check), so the declared total bounds the memory and time of parsing.
- Entity expansion: OOXML parts never carry a DTD; a part that declares one
  (``<!DOCTYPE``/``<!ENTITY``, the "billion laughs" family) is refused outright rather
  than left to the parser's amplification limits.
- Member count: a package with an absurd number of parts is refused."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from graphrag.documents.model import DocumentError
from graphrag.errors import size_text

MAX_MEMBERS = 10_000
_SCAN_BLOCK = 1 << 20
_DTD_MARKERS = (b"<!DOCTYPE", b"<!ENTITY")
_TAIL = max(len(m) for m in _DTD_MARKERS) - 1


def _has_dtd(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    """Whether the member declares a DTD; read in blocks, never whole."""
    tail = b""
    with archive.open(info) as fh:
        while block := fh.read(_SCAN_BLOCK):
            window = tail + block
            if any(m in window for m in _DTD_MARKERS):
                return True
            tail = window[-_TAIL:]
    return False


def check_package(path: Path, max_unzipped_bytes: int) -> None:
    """:class:`DocumentError` unless ``path`` is a zip whose parts decompress to at most
    ``max_unzipped_bytes`` in total and declare no DTD."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                raise DocumentError(f"DOCX has {len(members)} parts (limit {MAX_MEMBERS})")
            total = sum(m.file_size for m in members)
            if total > max_unzipped_bytes:
                raise DocumentError(
                    f"DOCX decompresses to {size_text(total)}"
                    f" (limit {size_text(max_unzipped_bytes)}, GRAPHRAG_MAX_UNZIPPED_BYTES)")
            for info in members:
                if info.filename.lower().endswith((".xml", ".rels")) and _has_dtd(archive, info):
                    raise DocumentError(f"DOCX part {info.filename} declares a DTD"
                                        " (entity declarations are refused)")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error,
            ValueError) as exc:
        raise DocumentError(f"corrupt DOCX: {' '.join(str(exc).split())[:200]}") from exc
