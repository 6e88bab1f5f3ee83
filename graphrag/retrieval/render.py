"""Context formats: markdown, XML grouped by file or document (seed 003), JSON.

Every block starts with its stable id ``[SEG=<chunk plan id>]`` in every format, so an
LLM can cite it and the citation maps back to file, lines or page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: ranking imports networkx, which search never needs
    from graphrag.retrieval.ranking import Block

FORMATS = ("markdown", "xml", "json")

# Characters XML 1.0 forbids even when escaped (control characters but tab/newline/CR).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape_xml(value: str) -> str:
    """Escape the five XML specials (as seed 003's escapeXml) and drop invalid chars."""
    value = _XML_INVALID.sub("", value)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def location(block: Block) -> str:
    """``path:12-30`` or ``file.pdf p.3`` (what a reader needs to find the block)."""
    where = block.file_path or ""
    if block.page_number is not None:
        where += f" p.{block.page_number}"
    elif block.line_start is not None:
        where += f":{block.line_start}-{block.line_end}"
    return where


def block_header(block: Block) -> str:
    return f"[SEG={block.seg}] {block.fqn or ''} ({block.kind}, {block.source}) {location(block)}"


def render_markdown_block(block: Block) -> str:
    return f"### {block_header(block)}\n\n{block.text.strip()}\n"


def render_markdown(blocks: Sequence[Block], title: str) -> str:
    parts = [f"# Context: {title}\n"] + [render_markdown_block(b) for b in blocks]
    return "\n".join(parts)


def _group_by_file(blocks: Sequence[Block]) -> list[tuple[str, list[Block]]]:
    groups: dict[str, list[Block]] = {}
    for b in blocks:
        groups.setdefault(b.file_path or "", []).append(b)
    return list(groups.items())


def render_xml_contents(block: Block) -> str:
    return escape_xml(f"{block_header(block)}\n{block.text.strip()}")


def render_xml(blocks: Sequence[Block], title: str) -> str:
    """``<data><record><source>n</source><document_name>..</document_name>
    <contents>..</contents></record>...</data>``, one record per file or document in
    order of its best block; contents of one record joined by CRLF as in seed 003."""
    out = ["<data>"]
    for i, (name, group) in enumerate(_group_by_file(blocks), start=1):
        contents = "\r\n".join(render_xml_contents(b) for b in group)
        out.append(f"<record><source>{i}</source>"
                   f"<document_name>{escape_xml(name)}</document_name>"
                   f"<contents>{contents}</contents></record>")
    out.append("</data>")
    return "\n".join(out)


def block_json(block: Block) -> dict[str, Any]:
    return {"seg": block.seg, "tag": f"[SEG={block.seg}]", "node_id": block.node_id,
            "fqn": block.fqn, "kind": block.kind,
            "source": block.source, "file_path": block.file_path,
            "line_start": block.line_start, "line_end": block.line_end,
            "page_number": block.page_number, "score": round(block.score, 6),
            "seed": block.seed, "text": block.text}


def render_json(blocks: Sequence[Block], title: str) -> str:
    return json.dumps({"title": title, "blocks": [block_json(b) for b in blocks]},
                      ensure_ascii=False, indent=1)


def render(fmt: str, blocks: Sequence[Block], title: str) -> str:
    """The whole context in ``fmt``."""
    return {"markdown": render_markdown, "xml": render_xml, "json": render_json}[fmt](
        blocks, title)


def render_block(fmt: str, block: Block) -> str:
    """One block alone in ``fmt`` (what packing counts per block)."""
    if fmt == "markdown":
        return render_markdown_block(block)
    if fmt == "xml":
        return f"<record><source>0</source><contents>{render_xml_contents(block)}</contents>"
    return json.dumps(block_json(block), ensure_ascii=False, indent=1)
