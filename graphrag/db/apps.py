"""Applications (tenants): lookup, creation, listing with counts, cascade delete."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, text

from graphrag.errors import UnknownApplication

COUNTED_TABLES = ("files", "nodes", "edges", "chunks", "documents", "sentences", "chunk_runs")


@dataclass(frozen=True)
class Application:
    id: int
    name: str
    root_path: str | None


def get_app(conn: Connection, name: str) -> Application:
    """The application called ``name``; :class:`UnknownApplication` when absent."""
    row = conn.execute(
        text("SELECT id, name, root_path FROM applications WHERE name = :n"), {"n": name}
    ).first()
    if row is None:
        raise UnknownApplication(name)
    return Application(row.id, row.name, row.root_path)


def ensure_app(conn: Connection, name: str, root_path: str | None = None) -> Application:
    """Create the application on first use; record a new root path when given."""
    row = conn.execute(
        text(
            """
            INSERT INTO applications (name, root_path) VALUES (:n, :r)
            ON CONFLICT (name) DO UPDATE
               SET root_path = COALESCE(EXCLUDED.root_path, applications.root_path),
                   updated_at = now()
            RETURNING id, name, root_path
            """
        ),
        {"n": name, "r": root_path},
    ).one()
    return Application(row.id, row.name, row.root_path)


def _counts_sql() -> str:
    # Table names come from the constant tuple above, never from input.
    cols = ",\n".join(
        f"(SELECT count(*) FROM {t} WHERE application_id = a.id) AS {t}" for t in COUNTED_TABLES
    )
    return f"SELECT a.id, a.name, a.root_path, a.indexed_at, {cols} FROM applications a"


def list_apps(engine: Engine) -> list[dict[str, Any]]:
    """Every application with its row counts per table."""
    with engine.connect() as conn:
        rows = conn.execute(text(_counts_sql() + " ORDER BY a.name")).mappings().all()
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "root_path": r["root_path"],
            "indexed_at": r["indexed_at"].isoformat() if r["indexed_at"] else None,
            "counts": {t: r[t] for t in COUNTED_TABLES},
        }
        for r in rows
    ]


def delete_app(engine: Engine, name: str) -> dict[str, int]:
    """Delete an application and (by ON DELETE CASCADE) everything it owns.

    Returns the row counts that were removed."""
    with engine.begin() as conn:
        app = get_app(conn, name)
        counts = conn.execute(
            text(_counts_sql() + " WHERE a.id = :id"), {"id": app.id}
        ).mappings().one()
        conn.execute(text("DELETE FROM applications WHERE id = :id"), {"id": app.id})
    return {t: counts[t] for t in COUNTED_TABLES}
