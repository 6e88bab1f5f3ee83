"""DOCX text (python-docx): paragraphs and tables in body order, SECTION units per heading.

A DOCX is a zip of XML parts, so it is checked before python-docx sees it (see
:mod:`graphrag.documents.ooxml`): the declared decompressed size is bounded and a part
with a DTD (entity declarations: "billion laughs") is refused. Heading levels come from
one style-id map built once per document, so extraction is linear in the paragraphs."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import docx
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from graphrag.documents.model import Block, DocumentError, Extracted, sections_from_blocks
from graphrag.documents.ooxml import check_package

_HEADING = re.compile(r"^Heading\s*(\d)$", re.IGNORECASE)


def _style_level(name: str | None) -> int:
    """Heading level of a paragraph style name (Title counts as level 1), else 0."""
    if name == "Title":
        return 1
    match = _HEADING.match(name or "")
    return int(match.group(1)) if match else 0


def _levels(document: Any) -> tuple[dict[str, int], int]:
    """Heading level per paragraph style id, and the level of the default style.

    python-docx resolves ``paragraph.style`` by scanning every style of the document on
    each call (quadratic on long documents); one map per document keeps it linear."""
    by_id: dict[str, int] = {}
    default = 0
    for style in document.styles:
        if style.type != WD_STYLE_TYPE.PARAGRAPH:
            continue
        level = _style_level(style.name)
        if style.style_id:
            by_id[style.style_id] = level
        if style.element.get(
                "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}default") in (
                "1", "true", "on"):
            default = level
    return by_id, default


def _table_text(table: Table) -> str:
    rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
    return "\n".join(r for r in rows if r.strip(" |"))


def _blocks(document: Any) -> list[Block]:
    by_id, default = _levels(document)
    out: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if text:
                style_id = item._p.style  # the w:pStyle value, None for the default style
                level = by_id.get(style_id, default) if style_id else default
                out.append(Block(level, text))
        else:
            text = _table_text(item)
            if text:
                out.append(Block(0, text))
    return out


def extract_docx(path: Path, title: str,
                 max_unzipped_bytes: int = 100 * 1024 * 1024) -> Extracted:
    """SECTION units nested by heading level; text before the first heading is a preamble.

    ``max_unzipped_bytes`` bounds the decompressed size of the package (a zip bomb is a
    :class:`DocumentError`, checked before any XML is parsed)."""
    check_package(path, max_unzipped_bytes)
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError,
            etree.LxmlError) as exc:
        raise DocumentError(f"corrupt DOCX: {' '.join(str(exc).split())[:200]}") from exc
    units = sections_from_blocks(_blocks(document), title)
    meta = {}
    if document.core_properties.title:
        meta["title"] = document.core_properties.title
    return Extracted("docx", units, meta=meta)
