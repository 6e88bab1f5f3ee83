"""Markdown (SECTION per ATX heading, fenced code respected) and plain text (a PAGE per
form-feed separated page)."""

from __future__ import annotations

import re

from graphrag.documents.model import Block, DocumentError, Extracted, Unit, sections_from_blocks

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def decode_text(data: bytes) -> str:
    """UTF-8 text (a BOM is dropped); NUL bytes mean the file is not text."""
    if b"\x00" in data[:8192]:
        raise DocumentError("not a text file (binary content)")
    return data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")


def markdown_blocks(source: str) -> list[Block]:
    """Headings and paragraphs (blank-line separated); ``#`` inside code fences is code."""
    blocks: list[Block] = []
    para: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if para and any(p.strip() for p in para):
            blocks.append(Block(0, "\n".join(para).strip("\n")))
        para.clear()

    for line in source.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            para.append(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            para.append(line)
            continue
        heading = _ATX.match(line)
        if heading:
            flush()
            blocks.append(Block(len(heading.group(1)), (heading.group(2) or "").strip()))
        elif not line.strip():
            flush()
        else:
            para.append(line)
    flush()
    return blocks


def extract_markdown(data: bytes, title: str) -> Extracted:
    return Extracted("markdown", sections_from_blocks(markdown_blocks(decode_text(data)), title))


def extract_text(data: bytes) -> Extracted:
    pages = decode_text(data).split("\f")
    units = [Unit("PAGE", i, f"page {i}", page.strip(), i) for i, page in enumerate(pages, 1)]
    return Extracted("text", units, page_count=len(units))
