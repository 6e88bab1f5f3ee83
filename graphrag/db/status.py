"""`graphrag db status`: what database we talk to and what it holds."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, text

from graphrag.db.apps import list_apps
from graphrag.db.engine import current_revision, head_revision, hide_password


def db_status(engine: Engine, url: str, *, embedded: bool) -> dict[str, Any]:
    """Server and pgvector versions, migration state and per-application counts."""
    with engine.connect() as conn:
        server_version = conn.execute(text("SHOW server_version")).scalar()
        pgvector = conn.execute(
            text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        ).scalar()
    current = current_revision(engine)
    return {
        "url": hide_password(url),
        "embedded": embedded,
        "server_version": server_version,
        "pgvector_version": pgvector,
        "migration": {"current": current, "head": head_revision(),
                      "up_to_date": current == head_revision()},
        "applications": list_apps(engine),
    }
