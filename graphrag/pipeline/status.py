"""`pipeline status`: per-stage pending/done/failed counts and the most common errors."""

from __future__ import annotations

from typing import Any

from graphrag.db.context import AppContext
from graphrag.pipeline import store

MAX_ERRORS = 10

def pipeline_status(ctx: AppContext) -> dict[str, Any]:
    """``{"stages": {stage: {"pending", "done", "failed"}}, "errors": [{stage, error, count}]}``."""
    from graphrag.pipeline.registry import stage_names

    with ctx.engine.connect() as conn:
        counts = store.stage_status_counts(conn, ctx.app_id)
        errors = store.stage_errors(conn, ctx.app_id, MAX_ERRORS)
    stages: dict[str, dict[str, int]] = {}
    for stage, status, n in counts:
        bucket = stages.setdefault(stage, {"pending": 0, "done": 0, "failed": 0})
        bucket[status if status in bucket else "pending"] += n
    order = {name: i for i, name in enumerate(stage_names())}
    ordered = dict(sorted(stages.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    return {
        "stages": ordered,
        "errors": [{"stage": s, "error": e, "count": n} for s, e, n in errors],
    }
