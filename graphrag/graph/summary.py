"""How well an application's code is indexed: files by parse status with the failures'
reasons, and per language the share of call sites resolved (the applications page)."""

from __future__ import annotations

from typing import Any

from graphrag.db.context import AppContext
from graphrag.graph.index_state import file_status_counts
from graphrag.graph.unresolved_store import resolved_share


def index_summary(ctx: AppContext) -> dict[str, Any]:
    """``files`` (status -> count), ``file_failures`` (path, status, error; the first
    20) and ``calls``: per caller language, call sites ``resolved``, ``unresolved`` by
    reason and the resolved ``share`` (:func:`~graphrag.graph.unresolved_store.resolved_share`,
    as ``graphrag apps`` shows it)."""
    with ctx.engine.connect() as conn:
        files, failures = file_status_counts(conn, ctx.app_id)
        calls = resolved_share(conn, [ctx.app_id]).get(ctx.app_id, {})
    return {"files": files, "file_failures": failures, "calls": calls}
