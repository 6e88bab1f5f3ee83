"""What a previous index run left for the next one to compare against, and the guard
against runs that would wipe an application.

Per application: every file's content hash, parser version, status and reason (the
``files`` table), and the settings that decided which files were indexed and how
(``applications.meta.file_selection``). When those settings change, the files that are
not indexed now are evaluated again instead of being reported unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection, text

from graphrag.config import Settings
from graphrag.errors import MassDeleteRefused

_INDEXED = ("ok", "partial")


@dataclass(frozen=True)
class KnownFile:
    """One stored file row, as far as change detection needs it."""

    key: tuple[str | None, str | None]  # (content hash, parser version)
    error: str | None
    indexed: bool                        # parsed (ok or partial), not skipped/failed


@dataclass
class IndexState:
    files: dict[str, KnownFile] = field(default_factory=dict)
    selection: dict[str, Any] | None = None


def file_selection(settings: Settings, include: Iterable[str], exclude: Iterable[str],
                   languages: frozenset[str] | None) -> dict[str, Any]:
    """The settings that decide which files are indexed and how, as recorded."""
    return {
        "include": list(include), "exclude": list(exclude),
        "languages": sorted(languages) if languages is not None else None,
        "max_file_bytes": settings.max_file_bytes, "max_nesting": settings.max_nesting,
        "file_timeout": settings.file_timeout,
    }


def read_index_state(conn: Connection, app_name: str) -> IndexState:
    """The stored files and recorded selection of ``app_name`` (empty when new)."""
    row = conn.execute(text("SELECT id, meta FROM applications WHERE name = :n"),
                       {"n": app_name}).first()
    if row is None:
        return IndexState()
    files = {
        r.path: KnownFile((r.content_hash, r.parser_version), r.parse_error,
                          r.parse_status in _INDEXED)
        for r in conn.execute(text(
            "SELECT path, content_hash, parser_version, parse_status, parse_error"
            " FROM files WHERE application_id = :a"), {"a": row.id})
    }
    return IndexState(files, (row.meta or {}).get("file_selection"))


def write_selection(conn: Connection, app_id: int, selection: dict[str, Any]) -> None:
    """Record ``selection`` on the application (in the caller's transaction)."""
    conn.execute(text(
        "UPDATE applications SET meta = jsonb_set(meta, '{file_selection}', CAST(:s AS jsonb))"
        " WHERE id = :a"), {"a": app_id, "s": orjson.dumps(selection).decode()})


def check_mass_delete(app_name: str, deleted: int, known: int, max_share: float,
                      allowed: bool, what: str = "indexed files") -> None:
    """Refuse (before anything is written) a run that would delete more than
    ``max_share`` of the ``known`` files: a wrong path or filter far more often than a
    real deletion. ``allowed`` (``--allow-mass-delete``/``--yes``) lets it through."""
    if allowed or deleted == 0 or deleted <= max_share * known:
        return
    raise MassDeleteRefused(
        f"refusing to delete {deleted} of the {known} {what} of {app_name!r}"
        f" (more than {max_share:.0%}, GRAPHRAG_MAX_DELETE_SHARE); check the path and"
        " --include/--exclude/--languages, or pass --allow-mass-delete")
