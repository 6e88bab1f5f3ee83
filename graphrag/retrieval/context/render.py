"""Context formats: markdown, XML (``<data><record>``), JSON.

Every block starts with its stable id ``[SEG=<id>]`` in every format, so an LLM can cite
it and the citation maps back to file, lines or page. The XML has one ``<record>`` per
block (its ``document_name`` the block's file or document), so all three formats carry
the same blocks. What the budget left out closes the context, with ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: ranking imports networkx, which search never needs
    from graphrag.retrieval.context.ranking import Block

FORMATS = ("markdown", "xml", "json")

# Characters XML 1.0 forbids even when escaped (control characters but tab/newline/CR).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape_xml(value: str) -> str:
    """Escape the five XML specials and drop the characters XML does not allow."""
    value = _XML_INVALID.sub("", value)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


@dataclass(frozen=True)
class LeftOut:
    """A block (``what="block"``) or a block's code (``"code"``) the budget left out;
    ``what="more"`` counts ``count`` further left-out blocks."""

    seg: str | None
    fqn: str | None
    what: str
    count: int = 0

    def to_dict(self) -> dict[str, Any]:
        if self.what == "more":
            return {"more_blocks": self.count}
        return {"seg": self.seg, "fqn": self.fqn, "left_out": self.what}

    def sentence(self) -> str:
        if self.what == "more":
            return f"{self.count} more blocks of lower rank"
        label = f"`{self.fqn}` " if self.fqn else ""
        return f"{'the code of ' if self.what == 'code' else ''}{label}[SEG={self.seg}]"


def left_out_sentence(left_out: Sequence[LeftOut]) -> str:
    return "Left out for the budget: " + "; ".join(lo.sentence() for lo in left_out) + "."


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


def render_markdown(blocks: Sequence[Block], title: str,
                    left_out: Sequence[LeftOut] = ()) -> str:
    parts = [f"# Context: {title}\n"] + [render_markdown_block(b) for b in blocks]
    if left_out:
        parts.append(f"_{left_out_sentence(left_out)}_\n")
    return "\n".join(parts)


def render_xml_contents(block: Block) -> str:
    return escape_xml(f"{block_header(block)}\n{block.text.strip()}")


def render_xml_record(index: int, block: Block) -> str:
    return (f"<record><source>{index}</source>"
            f"<document_name>{escape_xml(block.file_path or '')}</document_name>"
            f"<contents>{render_xml_contents(block)}</contents></record>")


def render_xml(blocks: Sequence[Block], title: str, left_out: Sequence[LeftOut] = ()) -> str:
    """``<data><record><source>n</source><document_name>..</document_name>
    <contents>..</contents></record>...</data>``: one record per block, in rank order
    (the document name is the block's file or document)."""
    out = ["<data>"]
    out += [render_xml_record(i, b) for i, b in enumerate(blocks, start=1)]
    if left_out:
        out.append(f"<left_out>{escape_xml(left_out_sentence(left_out))}</left_out>")
    out.append("</data>")
    return "\n".join(out)


def block_json(block: Block) -> dict[str, Any]:
    return {"seg": block.seg, "tag": f"[SEG={block.seg}]", "node_id": block.node_id,
            "fqn": block.fqn, "kind": block.kind,
            "source": block.source, "file_path": block.file_path,
            "line_start": block.line_start, "line_end": block.line_end,
            "page_number": block.page_number, "score": round(block.score, 6),
            "seed": block.seed, "lang": block.lang, "code_left_out": block.shortened,
            "chunks": list(block.chunks), "text": block.text,
            **({"relations": dict(block.relations)} if block.relations else {})}


def render_json(blocks: Sequence[Block], title: str, left_out: Sequence[LeftOut] = ()) -> str:
    return json.dumps({"title": title, "blocks": [block_json(b) for b in blocks],
                       "left_out": [lo.to_dict() for lo in left_out]},
                      ensure_ascii=False, indent=1)


def render(fmt: str, blocks: Sequence[Block], title: str,
           left_out: Sequence[LeftOut] = ()) -> str:
    """The whole context in ``fmt``."""
    return {"markdown": render_markdown, "xml": render_xml, "json": render_json}[fmt](
        blocks, title, left_out)


def render_block(fmt: str, block: Block) -> str:
    """One block alone in ``fmt`` (what packing counts per block)."""
    if fmt == "markdown":
        return render_markdown_block(block)
    if fmt == "xml":
        return render_xml_record(0, block)
    return json.dumps(block_json(block), ensure_ascii=False, indent=1)
