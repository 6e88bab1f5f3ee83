"""`pipeline status`: per-stage pending/done/failed counts and the most common errors."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, text

from graphrag.db.apps import get_app

MAX_ERRORS = 10

# A stage counts as pending until it is done or failed (stages blocked by an earlier
# failure stay pending: `--retry-failed` may still run them).
_COUNTS = """
SELECT s.stage, coalesce(c.stage_state -> s.stage ->> 'status', 'pending') AS status,
       count(*) AS n
  FROM chunks c
 CROSS JOIN LATERAL jsonb_array_elements_text(
           coalesce(c.pipeline -> 'stages', '[]'::jsonb)) AS s(stage)
 WHERE c.application_id = :app
 GROUP BY 1, 2
"""

_ERRORS = """
SELECT s.key AS stage, s.value ->> 'error' AS error, count(*) AS n
  FROM chunks c CROSS JOIN LATERAL jsonb_each(c.stage_state) AS s
 WHERE c.application_id = :app AND s.value ->> 'status' = 'failed'
 GROUP BY 1, 2
 ORDER BY n DESC, stage, error
 LIMIT :limit
"""


def pipeline_status(engine: Engine, app_name: str) -> dict[str, Any]:
    """``{"stages": {stage: {"pending", "done", "failed"}}, "errors": [{stage, error, count}]}``."""
    from graphrag.pipeline.registry import stage_names

    with engine.connect() as conn:
        app = get_app(conn, app_name)
        counts = conn.execute(text(_COUNTS), {"app": app.id}).all()
        errors = conn.execute(text(_ERRORS), {"app": app.id, "limit": MAX_ERRORS}).all()
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
