"""render-doc: a DOC chunk's Markdown, rendered from its node.

Layout::

    ### `<title>`

    ```<language>
    <signature>
    ```

    <doc comment without comment syntax>

    **Members**          (classes, interfaces, enums, objects: child nodes in source order)
    - `<member signature or name>` (<kind>)

``content_raw`` keeps the doc comment as written; ``content_hash`` and ``token_count``
are computed from ``content`` as for code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphrag.kinds import DOC_CHUNKS, RENDER_DOC, TYPE_KINDS
from graphrag.pipeline.graph_info import load_members
from graphrag.pipeline.model import Stage, StageContext, StageFailure, WorkItem, fill_token_counts
from graphrag.pipeline.text import clean_doc_comment, sha256_hex


def _one_line(text: str) -> str:
    return " ".join(text.split())


def member_lines(members: list[dict[str, Any]]) -> list[str]:
    """One bullet per member: its one-line signature (or name) and kind."""
    lines = []
    for m in members:
        label = _one_line(m.get("signature") or "") or m.get("name") or m.get("fqn") or "?"
        lines.append(f"- `{label}` ({str(m.get('kind') or '').lower()})")
    return lines


def render_markdown(title: str, lang: str | None, signature: str, doc: str,
                    members: list[dict[str, Any]] | None = None) -> str:
    """The Markdown of a DOC chunk (see the module docstring)."""
    parts = [f"### `{title}`"]
    if signature.strip():
        parts.append(f"```{(lang or '').lower()}\n{signature.strip()}\n```")
    if doc:
        parts.append(doc)
    if members:
        parts.append("**Members**\n\n" + "\n".join(member_lines(members)))
    return "\n\n".join(parts)


class RenderDocStage(Stage):
    name = RENDER_DOC
    applies_to = frozenset({DOC_CHUNKS})

    def prepare(self, items: Sequence[WorkItem], ctx: StageContext) -> dict[int, list]:
        """Members of the batch's container nodes, in one query."""
        parents = [i.node.id for i in items if i.node.kind in TYPE_KINDS]
        if not parents:
            return {}
        with ctx.engine.connect() as conn:
            return load_members(conn, parents)

    def process(self, item: WorkItem, prepared: dict[int, list], ctx: StageContext) -> None:
        node = item.node
        title = item.row.get("title") or node.fqn or node.name
        if not title:
            raise StageFailure("node has neither title nor fqn")
        signature = item.params.get("signature") or node.signature or ""
        doc = clean_doc_comment(node.doc_comment)
        members = prepared.get(node.id) if node.kind in TYPE_KINDS else None
        content = render_markdown(title, node.lang, signature, doc, members)
        item.set("content_raw", node.doc_comment or "")
        item.set("content", content)
        item.set("content_hash", sha256_hex(content))

    def finish(self, items: Sequence[WorkItem], ctx: StageContext) -> None:
        fill_token_counts(items, ctx)
