"""How well an application's code is indexed: files by parse status with the failures'
reasons, and the share of calls resolved to a CALLS edge (the applications page)."""

from __future__ import annotations

from typing import Any

from graphrag.db.context import AppContext
from graphrag.graph import store
from graphrag.graph.index_state import file_status_counts


def index_summary(ctx: AppContext) -> dict[str, Any]:
    """``files`` (status -> count), ``file_failures`` (path, status, error; the first
    20) and ``calls`` (``resolved`` edges, ``unresolved`` names, their ``share``)."""
    with ctx.engine.connect() as conn:
        files, failures = file_status_counts(conn, ctx.app_id)
        resolved, unresolved = store.call_resolution(conn, ctx.app_id)
    total = resolved + unresolved
    return {"files": files, "file_failures": failures,
            "calls": {"resolved": resolved, "unresolved": unresolved,
                      "share": round(resolved / total, 4) if total else None}}
