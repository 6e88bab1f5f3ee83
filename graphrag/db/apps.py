"""Applications (tenants): lookup, creation, listing with counts, cascade delete."""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, text

from graphrag.errors import InvalidInput, UnknownApplication

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


@dataclass(frozen=True)
class SearchedApp:
    """What a search needs of an application: its id, indexed commit (repository runs)
    and recorded embedding model (``meta.embed_model``; None when never switched)."""

    id: int
    name: str
    indexed_commit: str | None
    embed_model: str | None


def searched_apps(conn: Connection, names: Sequence[str]) -> list[SearchedApp]:
    """The applications called ``names`` (once each, in the given order), read in one
    statement; :class:`UnknownApplication` names the first absent one."""
    wanted = list(dict.fromkeys(names))
    rows = {r.name: r for r in conn.execute(text(
        "SELECT id, name, indexed_commit, meta->>'embed_model' AS embed_model"
        " FROM applications WHERE name = ANY(:names)"), {"names": wanted})}
    for name in wanted:
        if name not in rows:
            raise UnknownApplication(name)
    return [SearchedApp(int(rows[n].id), n, rows[n].indexed_commit, rows[n].embed_model)
            for n in wanted]


def mark_indexed(conn: Connection, app_id: int) -> None:
    """Record that a graph run of the application finished now (``indexed_at``)."""
    conn.execute(text("UPDATE applications SET indexed_at = now() WHERE id = :a"),
                 {"a": app_id})


MAX_NAME = 200


def validate_app_name(name: str) -> str:
    """The name, if it may name a new application: not empty, no surrounding or
    only whitespace, no control characters, at most ``MAX_NAME`` characters."""
    if not name or not name.strip():
        raise InvalidInput("application name must not be empty or only whitespace")
    if name != name.strip():
        raise InvalidInput(f"application name {name!r} must not start or end with whitespace")
    bad = next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")),
               None)
    if bad is not None:
        raise InvalidInput(f"application name {name!r} contains the control character"
                           f" U+{ord(bad):04X}")
    if len(name) > MAX_NAME:
        raise InvalidInput(f"application name is {len(name)} characters long"
                           f" (at most {MAX_NAME})")
    return name


def ensure_app(conn: Connection, name: str, root_path: str | None = None) -> Application:
    """Create the application on first use (the name validated, see
    :func:`validate_app_name`); record a new root path when given."""
    validate_app_name(name)
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
    return (f"SELECT a.id, a.name, a.root_path, a.indexed_at, a.indexed_commit, {cols}"
            " FROM applications a")


def app_names(engine: Engine) -> list[str]:
    """Every application's name, sorted (no counts: cheap on large applications)."""
    with engine.connect() as conn:
        return list(conn.execute(text("SELECT name FROM applications ORDER BY name")).scalars())


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
            # the commit of the last successful repository run (graphrag repos)
            "indexed_commit": r["indexed_commit"],
            "counts": {t: r[t] for t in COUNTED_TABLES},
        }
        for r in rows
    ]


def delete_app(engine: Engine, name: str) -> dict[str, int]:
    """Delete an application and (by ON DELETE CASCADE) everything it owns, then the
    stored originals of its documents (``uploads/<app>/``; the folder too once empty).

    Returns the row counts that were removed, and ``uploads`` the files removed."""
    with engine.begin() as conn:
        app = get_app(conn, name)
        counts = conn.execute(
            text(_counts_sql() + " WHERE a.id = :id"), {"id": app.id}
        ).mappings().one()
        stored = [r[0] for r in conn.execute(text(
            "SELECT stored_path FROM documents WHERE application_id = :id"
            " AND stored_path IS NOT NULL"), {"id": app.id})]
        conn.execute(text("DELETE FROM applications WHERE id = :id"), {"id": app.id})
    # Only the files the database recorded: two application names can map to one
    # folder name, so the folder is never removed wholesale.
    removed = 0
    for path in map(Path, stored):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed += 1
    for folder in {p.parent for p in map(Path, stored)}:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
    return {**{t: counts[t] for t in COUNTED_TABLES}, "uploads": removed}
