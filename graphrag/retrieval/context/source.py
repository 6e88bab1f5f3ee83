"""A node's implementation as numbered source lines, re-joined from its stored code
chunks (the same chunks and line maps a context block is built from,
:mod:`graphrag.retrieval.context.assemble`): what the web symbol page shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphrag.db.context import AppContext
from graphrag.retrieval.context import store
from graphrag.retrieval.context.members import GAP, CodeChunk, merge_line_maps

# A body longer than this is shown up to here, then said to go on (a page stays light).
MAX_LINES = 2000


def _chunk(r: Any) -> CodeChunk | None:
    if r.span_start is None or r.content_raw is None:
        return None
    elide = tuple((int(a), int(b)) for a, b in (r.elide or []))
    return CodeChunk(int(r.span_start), int(r.span_end), r.content_raw, elide)


def node_source(ctx: AppContext, node: dict[str, Any],
                max_lines: int = MAX_LINES) -> list[tuple[int | None, str]]:
    """``(line number, text)`` of each line of ``node`` (a node row of the context's
    application: ``id``, ``line_start``, ``line_end``), a run of lines no chunk holds as one
    ``(None, "...")``; empty when the node has no code chunks (a document, a graph-only
    application)."""
    start, end = node.get("line_start"), node.get("line_end")
    if start is None:
        return []
    with ctx.engine.connect() as conn:
        app_id = ctx.app_id
        ids: Sequence[int] = [node["id"]]
        rows = [r for r in store.block_chunk_rows(conn, app_id, ids) if r.source == "code"]
        chunks = [c for c in map(_chunk, rows) if c is not None]
        if any(c.elide for c in chunks):
            chunks += [c for c in map(_chunk, store.inner_chunk_rows(conn, ids))
                       if c is not None]
    lines = merge_line_maps(chunks)
    if not lines:
        return []
    end = min(end or max(lines), max(lines), start + max_lines - 1)
    out: list[tuple[int | None, str]] = []
    gap = False
    for n in range(max(start, min(lines)), end + 1):
        if n in lines:
            out.append((n, lines[n].rstrip()))
            gap = False
        elif not gap:
            out.append((None, GAP))
            gap = True
    return out
