"""What extraction produces: a document as an ordered list of units (pages or sections)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrag.errors import DocumentError

__all__ = ["Block", "DocumentError", "Extracted", "Unit", "sections_from_blocks"]


@dataclass(frozen=True)
class Unit:
    """One PAGE (PDF page, text page) or SECTION (heading of DOCX/Markdown) of a document.

    ``index`` is the 1-based position in the document; ``heading_path`` the titles of the
    enclosing headings and this one (sections only); ``parent`` the index of the enclosing
    section (None: directly under the document)."""

    kind: str
    index: int
    title: str
    text: str
    page_number: int | None = None
    level: int = 0
    heading_path: tuple[str, ...] = ()
    parent: int | None = None


@dataclass(frozen=True)
class Extracted:
    """A document's units in order, its format and what the format told about it."""

    format: str  # "pdf" | "docx" | "markdown" | "text"
    units: list[Unit]
    page_count: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Block:
    """A heading (``level`` >= 1) or a body paragraph (``level`` 0) of a structured text."""

    level: int
    text: str


def sections_from_blocks(blocks: list[Block], doc_title: str) -> list[Unit]:
    """SECTION units from headings and paragraphs, nested by heading level.

    Text before the first heading becomes a section titled after the document. A section's
    text starts with its heading line, so the heading is searchable with its body."""
    units: list[Unit] = []
    stack: list[tuple[int, int, str]] = []  # (level, unit index, title) of open headings
    title, level, body = doc_title, 0, []
    parent: int | None = None
    path: tuple[str, ...] = ()

    def close() -> None:
        text = "\n\n".join(b for b in body if b.strip())
        if level == 0 and not text.strip():
            return  # no preamble
        units.append(Unit("SECTION", len(units) + 1, title, text, None, level, path, parent))

    for block in blocks:
        if block.level <= 0:
            body.append(block.text)
            continue
        close()
        while stack and stack[-1][0] >= block.level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        path = tuple(t for _, _, t in stack) + (block.text,)
        title, level, body = block.text, block.level, [block.text]
        stack.append((block.level, len(units) + 1, block.text))
    close()
    return units
