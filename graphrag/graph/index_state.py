"""What a previous index run left for the next one to compare against, and the guard
against runs that would wipe an application.

Per application: every file's content hash, parser version, status and reason (the
``files`` table), and the settings that decided which files were indexed and how
(``applications.meta.file_selection``). When those settings change, the files that are
not indexed now are evaluated again instead of being reported unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection, text

from graphrag.config import Settings
from graphrag.db.bulk_copy import copy_checked
from graphrag.db.copy_text import copy_rows
from graphrag.errors import MassDeleteRefused

_INDEXED = ("ok", "partial")


@dataclass(frozen=True)
class KnownFile:
    """One stored file row, as far as change detection needs it."""

    key: tuple[str | None, str | None]  # (content hash, parser version)
    error: str | None
    indexed: bool                        # parsed (ok or partial), not skipped/failed
    stat: tuple[int | None, int | None] = (None, None)  # (size, mtime in ns) as read


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
    # through the driver's cursor: one row per file, SQLAlchemy rows cost more
    cur = conn.connection.driver_connection.cursor()
    files = {
        path: KnownFile((content_hash, version), error, status in _INDEXED, (size, mtime))
        for path, content_hash, version, status, error, size, mtime in cur.execute(
            "SELECT path, content_hash, parser_version, parse_status, parse_error,"
            " size_bytes, mtime_ns FROM files WHERE application_id = %s", (row.id,))
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


# ------------------------------------------------------------------ file rows of a run
# The graph step's reads and writes of ``files`` (per-file parse results, the reverse
# dependency index, interfaces and stored resolutions), in the caller's transaction.

_FILE_COLS = ("path", "language", "content_hash", "size_bytes", "line_count",
              "parse_status", "parse_error", "error_count", "parse_data", "calls_data",
              "ref_names", "parser_version", "iface", "resolved", "mtime_ns", "provides")
_FILE_DDL = ("path text, language text, content_hash text, size_bytes bigint,"
             " line_count int, parse_status text, parse_error text, error_count int,"
             " parse_data text, calls_data text, ref_names text[], parser_version text,"
             " iface text[], resolved text, mtime_ns bigint, provides text[]")


@dataclass
class FileRow:
    """One file's row as a run writes it: parse outcome, the reverse dependency index
    (``ref_names``), and what resolution left (``iface``, ``resolved`` as JSON text)."""

    path: str
    language: str | None
    content_hash: str | None
    size_bytes: int
    line_count: int
    parse_status: str
    parse_error: str | None
    error_count: int
    parse_data: str | None       # JSON text of the parse result without its calls
    calls_data: str | None       # JSON text of its calls
    ref_names: list[str] | None
    parser_version: str
    iface: list[str] | None = None
    resolved: str | None = None
    mtime_ns: int | None = None  # of the file as read (None: not read, or unknown)
    provides: list[str] | None = None  # lookup keys its definitions answer

    def values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, c) for c in _FILE_COLS)


def lock_application(conn: Connection, app_id: int) -> None:
    """One writer per application at a time (until the transaction ends); readers keep
    seeing the old graph."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": app_id})


def mark_indexed(conn: Connection, app_id: int) -> None:
    conn.execute(text("UPDATE applications SET indexed_at = now() WHERE id = :a"),
                 {"a": app_id})


def stored_paths(conn: Connection, app_id: int, paths: Iterable[str]) -> set[str]:
    """Those of ``paths`` that have a row (read under the application's lock)."""
    return set(conn.execute(text(
        "SELECT path FROM files WHERE application_id = :a AND path = ANY(:p)"),
        {"a": app_id, "p": sorted(paths)}).scalars())


def read_interfaces(conn: Connection, app_id: int, paths: Iterable[str] | None = None
                    ) -> dict[str, list[str]]:
    """The interface every file (or each of ``paths``) stored last time (files without
    one are left out)."""
    if paths is None:
        return dict(conn.execute(text(
            "SELECT path, iface FROM files WHERE application_id = :a AND iface IS NOT NULL"),
            {"a": app_id}).all())
    return dict(conn.execute(text(
        "SELECT path, iface FROM files WHERE application_id = :a AND iface IS NOT NULL"
        " AND path = ANY(:p)"), {"a": app_id, "p": sorted(paths)}).all())


def interfaces_missing(conn: Connection, app_id: int) -> bool:
    """Whether a file with a parse result has no stored interface (written before
    interfaces were kept, or by a run that failed to write one)."""
    return bool(conn.execute(text(
        "SELECT EXISTS (SELECT 1 FROM files WHERE application_id = :a"
        " AND parse_data IS NOT NULL AND iface IS NULL"
        " AND (resolved IS NULL OR iface IS NULL OR provides IS NULL))"),  # partial index
        {"a": app_id}).scalar())


def referring_files(conn: Connection, app_id: int, names: Iterable[str]) -> set[str]:
    """Files whose reverse dependency index (``ref_names``) holds one of ``names``
    (through the GIN index: see :class:`Providers`)."""
    with _through_gin(conn) as cur:
        return {path for (path,) in cur.execute(
            "SELECT path FROM files WHERE application_id + 0 = %s"
            " AND ref_names && %s::text[]", (app_id, sorted(names))).fetchall()}


def parent_files(conn: Connection, app_id: int, paths: Iterable[str]) -> set[str]:
    """Other files holding the stored parents of the stored nodes of ``paths`` (a
    method's receiver type may live in another file of its package)."""
    return set(conn.execute(text(
        "SELECT DISTINCT p.file_path FROM nodes n JOIN nodes p ON p.id = n.parent_id"
        " WHERE n.application_id = :a AND n.file_path = ANY(:p)"
        " AND p.file_path IS NOT NULL AND p.file_path <> n.file_path"),
        {"a": app_id, "p": sorted(paths)}).scalars())


def read_definitions(conn: Connection, app_id: int, skip: Iterable[str]) -> list[bytes]:
    """Stored parse results (definitions only, as JSON text) of every file but ``skip``.
    Read as text through the driver's cursor and left to the caller to decode: several
    times faster than the driver's json."""
    cur = conn.connection.driver_connection.cursor()
    return [data for (data,) in cur.execute(
        "SELECT parse_data::text FROM files WHERE application_id = %s"
        " AND parse_data IS NOT NULL AND NOT (path = ANY(%s))",
        (app_id, list(skip))).fetchall()]


def read_definitions_of(conn: Connection, app_id: int, paths: Iterable[str]
                        ) -> list[tuple[str, str]]:
    """``(path, stored definitions as JSON text)`` of those of ``paths`` that have
    definitions."""
    cur = conn.connection.driver_connection.cursor()
    return cur.execute(
        "SELECT path, parse_data::text FROM files WHERE application_id = %s"
        " AND parse_data IS NOT NULL AND path = ANY(%s)", (app_id, sorted(paths))).fetchall()


@contextmanager
def _through_gin(conn: Connection) -> Iterator[Any]:
    """A cursor whose statements read an array overlap (``&&``) through its GIN index:
    the planner's estimate for an overlap often prefers comparing arrays row by row
    (~0.5 ms a key, against a few microseconds through the index), so sequential scans
    are off until the block ends. Write such a statement with ``application_id + 0``,
    so that it does not turn to the application's btree index instead."""
    cur = conn.connection.driver_connection.cursor()
    cur.execute("SET LOCAL enable_seqscan = off")
    try:
        yield cur
    finally:
        cur.execute("RESET enable_seqscan")


class Providers:
    """Which stored files provide lookup keys (``files.provides``), asked again and
    again by one run (in its transaction), through the GIN index (:func:`_through_gin`).
    With more than a few hundred keys the planner may still prefer a whole btree index:
    past those, every file's keys are read once and looked up in memory."""

    _IN_MEMORY = 256

    def __init__(self, conn: Connection, app_id: int) -> None:
        self._conn = conn
        self._cur = conn.connection.driver_connection.cursor()
        self._app_id = app_id
        self._by_key: dict[str, list[str]] | None = None

    def __call__(self, keys: Iterable[str]) -> set[str]:
        keys = sorted(set(keys))
        if not keys:
            return set()
        if self._by_key is None and len(keys) > self._IN_MEMORY:
            self._by_key = {}
            for path, provided in self._cur.execute(
                    "SELECT path, provides FROM files WHERE application_id = %s"
                    " AND provides IS NOT NULL", (self._app_id,)).fetchall():
                for key in provided:
                    self._by_key.setdefault(key, []).append(path)
        if self._by_key is not None:
            return {path for key in keys for path in self._by_key.get(key, ())}
        with _through_gin(self._conn) as cur:
            return {path for (path,) in cur.execute(
                "SELECT path FROM files WHERE application_id + 0 = %s"
                " AND provides && %s::text[]", (self._app_id, keys)).fetchall()}


def provides_missing(conn: Connection, app_id: int) -> bool:
    """Whether a file with a parse result has no stored ``provides`` (written before
    they were kept)."""
    return bool(conn.execute(text(
        "SELECT EXISTS (SELECT 1 FROM files WHERE application_id = :a"
        " AND parse_data IS NOT NULL AND provides IS NULL"
        " AND (resolved IS NULL OR iface IS NULL OR provides IS NULL))"),  # partial index
        {"a": app_id}).scalar())


def write_provides(conn: Connection, app_id: int, rows: dict[str, list[str]]) -> None:
    """Store ``provides`` (path -> keys) of files whose row this run did not write."""
    if rows:
        cur = conn.connection.driver_connection.cursor()
        cur.execute("CREATE TEMP TABLE tmp_provides (path text, provides text[])"
                    " ON COMMIT DROP")
        copy_rows(cur, "COPY tmp_provides FROM STDIN", sorted(rows.items()))
        cur.execute("UPDATE files f SET provides = t.provides FROM tmp_provides t"
                    " WHERE f.application_id = %s AND f.path = t.path", (app_id,))


def edge_target_files(conn: Connection, app_id: int, paths: Iterable[str]) -> set[str]:
    """Files holding the targets of the stored edges of the nodes of ``paths``."""
    cur = conn.connection.driver_connection.cursor()
    return {path for (path,) in cur.execute(
        "SELECT DISTINCT d.file_path FROM nodes s JOIN edges e ON e.src_id = s.id"
        " JOIN nodes d ON d.id = e.dst_id WHERE s.application_id = %s"
        " AND s.file_path = ANY(%s) AND d.file_path IS NOT NULL",
        (app_id, sorted(paths))).fetchall()}


def package_heads(conn: Connection, app_id: int, paths: Iterable[str]
                  ) -> set[tuple[str, str, str]]:
    """``(key, language, name)`` of the stored packages holding the files of ``paths``."""
    cur = conn.connection.driver_connection.cursor()
    return set(cur.execute(
        "SELECT DISTINCT p.stable_key, p.lang, p.name FROM nodes f"
        " JOIN nodes p ON p.id = f.parent_id"
        " WHERE f.application_id = %s AND f.kind = 'FILE' AND f.file_path = ANY(%s)"
        " AND p.kind = 'PACKAGE'", (app_id, sorted(paths))).fetchall())


def read_again_inputs(conn: Connection, app_id: int, redo: Iterable[str],
                      names: Iterable[str], skip: Iterable[str]) -> list[tuple[str, str]]:
    """``(path, calls as JSON text)`` of the stored files (but ``skip``) to resolve again:
    those in ``redo``, those referring to one of ``names`` and those without a stored
    resolution -- each found through an index, not by reading every row."""
    with _through_gin(conn) as cur:  # the GIN index for ``names``
        return cur.execute(
            """
            SELECT path, COALESCE(calls_data::text, (parse_data->'calls')::text)
              FROM files
             WHERE id IN (SELECT id FROM files WHERE application_id = %(a)s
                             AND path = ANY(%(redo)s)
                          UNION
                          SELECT id FROM files WHERE application_id + 0 = %(a)s
                             AND ref_names && CAST(%(names)s AS text[])
                          UNION
                          SELECT id FROM files WHERE application_id = %(a)s
                             AND parse_data IS NOT NULL
                             AND (resolved IS NULL OR iface IS NULL OR provides IS NULL)
                             AND resolved IS NULL)
               AND parse_data IS NOT NULL AND NOT (path = ANY(%(skip)s))
            """, {"a": app_id, "redo": sorted(redo), "names": sorted(names),
                  "skip": list(skip)}).fetchall()


def read_resolution_inputs(conn: Connection, app_id: int, *, wide: bool, redo: Iterable[str],
                           names: Iterable[str], skip: Iterable[str], stored: bool = True
                           ) -> list[tuple[str, bool, str | None]]:
    """Per stored file with a parse result (but ``skip``): ``(path, again, data)``. A file
    is resolved ``again`` when ``wide``, when it is in ``redo``, when it has no stored
    resolution, or when it refers to one of ``names`` (the GIN-indexed reverse dependency
    index); ``data`` is then its calls, otherwise its stored resolution (JSON text), or
    None when ``stored`` is false (:func:`read_resolutions` reads them by path)."""
    cur = conn.connection.driver_connection.cursor()
    return cur.execute(
        """
        SELECT path, again,
               CASE WHEN again THEN COALESCE(calls_data::text, (parse_data->'calls')::text)
                    WHEN %(stored)s THEN resolved::text END
          FROM (SELECT path, calls_data, parse_data, resolved,
                       (%(wide)s OR resolved IS NULL OR path = ANY(%(redo)s)
                        OR ref_names && CAST(%(names)s AS text[])) AS again
                  FROM files WHERE application_id = %(a)s AND parse_data IS NOT NULL
                   AND NOT (path = ANY(%(skip)s))) f
        """, {"a": app_id, "wide": wide, "redo": sorted(redo),
              "names": sorted(names), "skip": list(skip), "stored": stored}).fetchall()


def read_resolutions(conn: Connection, app_id: int, paths: Iterable[str]
                     ) -> list[tuple[str, str]]:
    """``(path, stored resolution as JSON text)`` of those of ``paths`` that have one."""
    cur = conn.connection.driver_connection.cursor()
    return cur.execute(
        "SELECT path, resolved::text FROM files WHERE application_id = %s"
        " AND path = ANY(%s) AND resolved IS NOT NULL", (app_id, sorted(paths))).fetchall()


def read_graph_state(conn: Connection, app_id: int) -> dict[str, Any]:
    """What the last graph run recorded for the next one to scope its work
    (``applications.graph_state``; empty when none)."""
    cur = conn.connection.driver_connection.cursor()
    row = cur.execute("SELECT graph_state::text FROM applications WHERE id = %s",
                      (app_id,)).fetchone()
    return orjson.loads(row[0]) if row and row[0] else {}


def write_graph_state(conn: Connection, app_id: int, state: dict[str, Any]) -> None:
    conn.execute(text(
        "UPDATE applications SET graph_state = CAST(:s AS jsonb) WHERE id = :a"),
        {"a": app_id, "s": orjson.dumps(state).decode()})


def write_files(conn: Connection, app_id: int, rows: list[FileRow],
                existing: set[str]) -> None:
    """Write the rows of the files this run parsed: new paths by COPY straight into
    ``files``, paths that have a row by one COPY into a staging table and one UPDATE."""
    cur = conn.connection.driver_connection.cursor()
    cols = ", ".join(_FILE_COLS)
    new = [r for r in rows if r.path not in existing]
    old = [r for r in rows if r.path in existing]
    if new:
        # the transaction's now(), as text: what the upsert below writes
        now = cur.execute("SELECT now()::text").fetchone()[0]
        copy_checked(cur, "files", ("application_id", *_FILE_COLS, "indexed_at"),
                     ((app_id, *r.values(), now) for r in new))
    if old:
        cur.execute(f"CREATE TEMP TABLE tmp_files ({_FILE_DDL}) ON COMMIT DROP")
        copy_rows(cur, f"COPY tmp_files ({cols}) FROM STDIN", (r.values() for r in old))
        json_cols = ("parse_data", "calls_data", "resolved")
        sets = ", ".join(f"{c} = CAST(t.{c} AS json)" if c in json_cols else f"{c} = t.{c}"
                         for c in _FILE_COLS[1:])
        cur.execute(f"UPDATE files f SET {sets}, indexed_at = now() FROM tmp_files t"
                    " WHERE f.application_id = %s AND f.path = t.path", (app_id,))


def write_resolutions(conn: Connection, app_id: int, resolved: dict[str, str | None],
                      iface: dict[str, list[str] | None]) -> None:
    """Store fresh resolutions (JSON text; path -> value) and interfaces of files whose row
    this run did not write otherwise."""
    paths = sorted(set(resolved) | set(iface))
    if not paths:
        return
    cur = conn.connection.driver_connection.cursor()
    cur.execute("CREATE TEMP TABLE tmp_resolution (path text, resolved text, iface text[],"
                " set_resolved bool, set_iface bool) ON COMMIT DROP")
    copy_rows(cur, "COPY tmp_resolution FROM STDIN",
              ((p, resolved.get(p), iface.get(p), p in resolved, p in iface) for p in paths))
    cur.execute(
        """
        UPDATE files f SET
            resolved = CASE WHEN t.set_resolved THEN CAST(t.resolved AS json)
                            ELSE f.resolved END,
            iface = CASE WHEN t.set_iface THEN t.iface ELSE f.iface END
          FROM tmp_resolution t
         WHERE f.application_id = %s AND f.path = t.path
        """, (app_id,))


def write_stats(conn: Connection, app_id: int, stats: dict[str, int | None]) -> None:
    """Record the modification times (path -> ns, or None) of files read again in this
    run whose content had not changed (their rows are not written otherwise)."""
    if stats:
        conn.execute(text(
            "UPDATE files f SET mtime_ns = s.m, indexed_at = now()"
            " FROM unnest(CAST(:p AS text[]), CAST(:m AS bigint[])) AS s(p, m)"
            " WHERE f.application_id = :a AND f.path = s.p"),
            {"a": app_id, "p": list(stats), "m": list(stats.values())})


def delete_files(conn: Connection, app_id: int, paths: list[str]) -> None:
    """Remove the rows of ``paths`` (their nodes go with them)."""
    if paths:
        conn.execute(text("DELETE FROM files WHERE application_id = :a AND path = ANY(:p)"),
                     {"a": app_id, "p": paths})


FILE_STATUSES = ("ok", "partial", "skipped", "failed")


def list_files(conn: Connection, app_id: int, statuses: Iterable[str]) -> list[dict[str, Any]]:
    """The application's file rows of the given statuses (path, language, status, reason,
    size, when indexed), by path: what a run skipped or could not parse, kept for later."""
    rows = conn.execute(text(
        "SELECT path, language, parse_status, parse_error, size_bytes, indexed_at"
        "  FROM files WHERE application_id = :a AND parse_status = ANY(:s) ORDER BY path"),
        {"a": app_id, "s": sorted(set(statuses))}).all()
    return [{"path": r.path, "language": r.language, "status": r.parse_status,
             "reason": r.parse_error, "size_bytes": r.size_bytes,
             "indexed_at": r.indexed_at.isoformat() if r.indexed_at else None} for r in rows]


def file_status_counts(conn: Connection, app_id: int, failures: int = 20
                       ) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Files per parse status, and the first ``failures`` files not indexed as they are
    (failed, partial, skipped) with their reason."""
    counts = {r.parse_status or "unknown": int(r.n) for r in conn.execute(text(
        "SELECT parse_status, count(*) AS n FROM files WHERE application_id = :a"
        " GROUP BY parse_status ORDER BY parse_status"), {"a": app_id})}
    rows = conn.execute(text(
        "SELECT path, parse_status, parse_error FROM files WHERE application_id = :a"
        " AND parse_status <> 'ok' ORDER BY parse_status, path LIMIT :n"),
        {"a": app_id, "n": failures})
    return counts, [{"path": r.path, "status": r.parse_status, "error": r.parse_error}
                    for r in rows]
