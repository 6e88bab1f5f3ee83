"""Applications (tenants): lookup, creation, listing with counts, cascade delete; the
steps an index run finished and the repository documents it skipped (``meta``)."""

from __future__ import annotations

import contextlib
import json
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


def get_apps(conn: Connection, names: Sequence[str]) -> list[Application]:
    """The applications called ``names`` (once each, in the given order), read in one
    statement; :class:`UnknownApplication` names the first absent one."""
    return [Application(int(r.id), r.name, r.root_path) for r in _named_rows(
        conn, "SELECT id, name, root_path FROM applications WHERE name = ANY(:names)", names)]


def _named_rows(conn: Connection, sql: str, names: Sequence[str]) -> list[Any]:
    """The rows of ``sql`` (reading the applications ``:names``), one per name in the
    given order; :class:`UnknownApplication` names the first absent one."""
    wanted = list(dict.fromkeys(names))
    rows = {r.name: r for r in conn.execute(text(sql), {"names": wanted})}
    for name in wanted:
        if name not in rows:
            raise UnknownApplication(name)
    return [rows[n] for n in wanted]


def apps_with_ids(conn: Connection, ids: Sequence[int]) -> list[Application]:
    """The applications of ``ids`` that exist, by name."""
    return [Application(int(r.id), r.name, r.root_path) for r in conn.execute(text(
        "SELECT id, name, root_path FROM applications WHERE id = ANY(:ids) ORDER BY name"),
        {"ids": list(ids)})]


def all_apps(conn: Connection) -> list[Application]:
    """Every application, by name."""
    return [Application(int(r.id), r.name, r.root_path) for r in conn.execute(text(
        "SELECT id, name, root_path FROM applications ORDER BY name"))]


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
    return [SearchedApp(int(r.id), r.name, r.indexed_commit, r.embed_model)
            for r in _named_rows(conn, "SELECT id, name, indexed_commit,"
                                 " meta->>'embed_model' AS embed_model"
                                 " FROM applications WHERE name = ANY(:names)", names)]


def mark_indexed(conn: Connection, app_id: int) -> None:
    """Record that a graph run of the application finished now (``indexed_at``)."""
    conn.execute(text("UPDATE applications SET indexed_at = now() WHERE id = :a"),
                 {"a": app_id})


def set_indexed_commit(conn: Connection, app_id: int, commit: str | None) -> None:
    """Record the git commit an index run saw (None: the tree is no git work tree)."""
    conn.execute(text("UPDATE applications SET indexed_commit = :c WHERE id = :a"),
                 {"a": app_id, "c": commit})


def index_state(conn: Connection, name: str) -> dict[str, Any] | None:
    """Root, indexed time and commit of one application (None when it does not exist)."""
    row = conn.execute(text(
        "SELECT root_path, indexed_at, indexed_commit FROM applications WHERE name = :n"),
        {"n": name}).mappings().first()
    return dict(row) if row is not None else None


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


# --- steps of an index run --------------------------------------------------------------
# The graph step counts its changes (``meta.content_version``, bumped in the transaction
# that writes them); a later step that derives from the graph (MENTIONS, chunk plans)
# records the version it finished against (``meta.steps``). A run killed between the
# graph's commit and such a step leaves the step behind the version, and the next run
# does it although the graph is unchanged by then. Applications from before these
# records are at version 0 with every step done.

def bump_content_version(conn: Connection, app_id: int) -> None:
    """Record, in the caller's transaction, that the application's graph changed."""
    conn.execute(text(
        "UPDATE applications SET meta = jsonb_set(meta, '{content_version}',"
        " to_jsonb(COALESCE((meta->>'content_version')::bigint, 0) + 1)) WHERE id = :a"),
        {"a": app_id})


def content_version(conn: Connection, app_id: int) -> int:
    """The application's graph change count (0 before the first recorded change)."""
    value = conn.execute(text(
        "SELECT (meta->>'content_version')::bigint FROM applications WHERE id = :a"),
        {"a": app_id}).scalar()
    return int(value or 0)


def step_behind(conn: Connection, app_id: int, step: str) -> bool:
    """Whether ``step`` last finished against an older graph than the current one."""
    row = conn.execute(text(
        "SELECT COALESCE((meta->>'content_version')::bigint, 0) AS version,"
        " (meta->'steps'->>:s)::bigint AS done FROM applications WHERE id = :a"),
        {"a": app_id, "s": step}).first()
    if row is None or row.version == 0:
        return False
    return row.done is None or row.done < row.version


def record_step(conn: Connection, app_id: int, step: str, version: int) -> None:
    """Record that ``step`` finished against graph ``version`` (read before it started;
    a newer record of a concurrent run is kept)."""
    conn.execute(text(
        "UPDATE applications SET meta = meta || jsonb_build_object('steps',"
        " COALESCE(meta->'steps', '{}'::jsonb) || jsonb_build_object(CAST(:s AS text),"
        " GREATEST(:v, COALESCE((meta->'steps'->>:s)::bigint, 0)))) WHERE id = :a"),
        {"a": app_id, "s": step, "v": version})


MAX_SKIPPED_KEPT = 1000  # of one run's skipped documents (the count is in the run's output)


def record_skipped_documents(conn: Connection, app_id: int, rows: list[dict[str, str]]
                             ) -> None:
    """Keep the repository documents the last index run skipped (path, reason): they have
    no document row, and a user asks later why a file is not searchable."""
    conn.execute(text(
        "UPDATE applications SET meta = jsonb_set(meta, '{skipped_documents}',"
        " CAST(:rows AS jsonb)) WHERE id = :a"),
        {"a": app_id, "rows": json.dumps(rows[:MAX_SKIPPED_KEPT])})


def skipped_documents(conn: Connection, app_id: int) -> list[dict[str, str]]:
    """The repository documents the application's last index run skipped, with why."""
    rows = conn.execute(text(
        "SELECT meta->'skipped_documents' FROM applications WHERE id = :a"),
        {"a": app_id}).scalar()
    return list(rows or [])


def app_ids(conn: Connection, names: Sequence[str] | set[str] | frozenset[str]) -> list[int]:
    """Ids of the applications called ``names`` (unknown names are left out)."""
    return [int(r[0]) for r in conn.execute(text(
        "SELECT id FROM applications WHERE name = ANY(:n)"), {"n": sorted(names)})]
