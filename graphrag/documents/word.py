"""DOCX text (python-docx): paragraphs and tables in body order, SECTION units per heading."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph

from graphrag.documents.model import Block, DocumentError, Extracted, sections_from_blocks

_HEADING = re.compile(r"^Heading\s*(\d)$", re.IGNORECASE)


def _level(paragraph: Paragraph) -> int:
    """Heading level from the paragraph style (Title counts as level 1), else 0."""
    name = paragraph.style.name if paragraph.style is not None else ""
    if name == "Title":
        return 1
    match = _HEADING.match(name or "")
    return int(match.group(1)) if match else 0


def _table_text(table: Table) -> str:
    rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
    return "\n".join(r for r in rows if r.strip(" |"))


def _blocks(document: Any) -> list[Block]:
    out: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if text:
                out.append(Block(_level(item), text))
        else:
            text = _table_text(item)
            if text:
                out.append(Block(0, text))
    return out


def extract_docx(path: Path, title: str) -> Extracted:
    """SECTION units nested by heading level; text before the first heading is a preamble."""
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"corrupt DOCX: {' '.join(str(exc).split())[:200]}") from exc
    units = sections_from_blocks(_blocks(document), title)
    meta = {}
    if document.core_properties.title:
        meta["title"] = document.core_properties.title
    return Extracted("docx", units, meta=meta)
