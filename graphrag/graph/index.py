"""`graphrag index` (graph part): scan, parse what changed, resolve, sync, rank.

Incremental by construction: every file's parse result is stored in ``files.parse_data``;
a run re-parses only files whose content hash (or parser version) changed, then resolves
the graph from *all* stored parse results. So an incremental index is the same graph as
a clean full index of the same tree, and edges from unchanged files into changed ones
are re-resolved for free. An unchanged repository is detected from hashes alone.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, text

from graphrag.config import Settings
from graphrag.db.apps import ensure_app
from graphrag.graph.index_state import (
    check_mass_delete,
    file_selection,
    read_index_state,
    write_selection,
)
from graphrag.graph.parse_pool import parse_files
from graphrag.graph.parse_worker import (
    FileOutcome,
    ParseLimits,
    file_digest,
    parser_version,
    problem_outcome,
)
from graphrag.graph.resolve import build_graph
from graphrag.graph.scan import ScannedFile, scan_repository
from graphrag.graph.sync import sync_graph
from graphrag.parsing.extract import repo_context
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.source import SourceProblem, read_source

Progress = Callable[[str, int, int], None]


@dataclass
class IndexStats:
    app: str
    root: str
    files_scanned: int = 0
    files_parsed: int = 0
    files_unchanged: int = 0
    files_skipped: int = 0
    files_failed: int = 0
    files_partial: int = 0
    files_deleted: int = 0
    lines_parsed: int = 0
    nodes_by_kind: dict[str, int] = field(default_factory=dict)
    edges_by_kind: dict[str, int] = field(default_factory=dict)
    changes: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def _ctx_version(ctx: RepoContext, limits: ParseLimits) -> str:
    blob = json.dumps([ctx.go_modules, sorted(ctx.python_packages), limits.max_nesting,
                       ctx.ts_configs],
                      sort_keys=True).encode()
    return parser_version() + ":" + hashlib.sha256(blob).hexdigest()[:8]


def _digest(f: ScannedFile, max_bytes: int) -> str | None:
    """Content hash for change detection; None when the file is not read (too large,
    not a regular file, unreadable), which is also what its row then stores."""
    try:
        return file_digest(read_source(f.abs_path, max_bytes))
    except SourceProblem:
        return None


def _write_files(conn, app_id: int, outcomes: Iterable[FileOutcome], version: str) -> None:
    rows = [
        {"app": app_id, "path": o.path, "lang": o.lang, "hash": o.content_hash,
         "size": o.size, "lines": o.line_count, "status": o.status, "error": o.error,
         "ecount": o.error_count,
         "data": orjson.dumps(o.parse_data).decode() if o.parse_data is not None else None,
         "ver": version}
        for o in outcomes
    ]
    if not rows:
        return
    conn.execute(text(
        """
        INSERT INTO files (application_id, path, language, content_hash, size_bytes,
                           line_count, parse_status, parse_error, error_count, parse_data,
                           parser_version, indexed_at)
        VALUES (:app, :path, :lang, :hash, :size, :lines, :status, :error, :ecount,
                CAST(:data AS json), :ver, now())
        ON CONFLICT (application_id, path) DO UPDATE SET
            language = EXCLUDED.language, content_hash = EXCLUDED.content_hash,
            size_bytes = EXCLUDED.size_bytes, line_count = EXCLUDED.line_count,
            parse_status = EXCLUDED.parse_status, parse_error = EXCLUDED.parse_error,
            error_count = EXCLUDED.error_count, parse_data = EXCLUDED.parse_data,
            parser_version = EXCLUDED.parser_version, indexed_at = now()
        """), rows)


def _count_by_kind(conn, app_id: int, table: str) -> dict[str, int]:
    # `table` is one of two constants below, never user input.
    rows = conn.execute(text(
        f"SELECT kind, count(*) FROM {table} WHERE application_id = :a GROUP BY kind"
        " ORDER BY kind"), {"a": app_id})
    return {k: n for k, n in rows}


def index_graph(
    engine: Engine,
    settings: Settings,
    root: Path,
    app_name: str,
    *,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    languages: frozenset[str] | None = None,
    full: bool = False,
    allow_mass_delete: bool = False,
    progress: Progress | None = None,
    on_synced: Callable[[Connection, int, set[int]], object] | None = None,
) -> IndexStats:
    """Build or incrementally update the code graph of ``root`` as application ``app_name``.

    Nothing is written when a pattern is invalid (:class:`InvalidPattern`) or when the
    run would delete more than ``settings.max_delete_share`` of the application's files
    and ``allow_mass_delete`` is not set (:class:`MassDeleteRefused`).

    ``on_synced(conn, app_id, touched_node_ids)`` runs inside the graph's own transaction
    after the sync, so work that later steps must redo because relations changed (e.g.
    making chunk stages pending again) is recorded atomically with the graph change and
    cannot be lost by a crash before those steps run. Later steps pass it in; this step
    imports none of them."""
    started = time.perf_counter()
    root = root.expanduser()
    scanned = list(scan_repository(root, include=include, exclude=exclude,
                                   languages=languages))
    root = root.resolve()
    stats = IndexStats(app=app_name, root=str(root), files_scanned=len(scanned))
    ctx = repo_context(root, [f.rel_path for f in scanned if f.problem is None])
    limits = ParseLimits(settings.max_file_bytes, settings.max_nesting)
    version = _ctx_version(ctx, limits)
    selection = file_selection(settings, include, exclude, languages)

    with engine.connect() as conn:
        previous = read_index_state(conn, app_name)
    known = previous.files
    current = {f.rel_path for f in scanned}
    deleted = sorted(set(known) - current)
    check_mass_delete(app_name, len(deleted), len(known), settings.max_delete_share,
                      allow_mass_delete)
    # A change of the settings that decide which files are indexed and how (limits,
    # budget, filters) re-evaluates every file that is not indexed now; a file whose
    # size crosses the limit is caught by its digest (None when it is not read).
    retry = previous.selection is not None and previous.selection != selection

    changed: list[tuple[str, str | None, int, str | None]] = []
    problems: list[FileOutcome] = []
    for f in scanned:
        old = known.get(f.rel_path)
        if f.problem is not None:
            if full or retry or old is None or old.key != (None, version) \
                    or old.error != f.problem:
                problems.append(problem_outcome(f.rel_path, f.lang, "skipped", f.problem,
                                                f.size))
            continue
        digest = _digest(f, limits.max_bytes)
        if full or old is None or old.key != (digest, version) or (retry and not old.indexed):
            changed.append((f.rel_path, f.lang, f.size, digest))
    stats.files_unchanged = len(scanned) - len(changed) - len(problems)
    stats.files_deleted = len(deleted)
    if not changed and not deleted and not problems:
        with engine.begin() as conn:
            app = ensure_app(conn, app_name, str(root))
            write_selection(conn, app.id, selection)
            conn.execute(text("UPDATE applications SET indexed_at = now() WHERE id = :a"),
                         {"a": app.id})
            stats.nodes_by_kind = _count_by_kind(conn, app.id, "nodes")
            stats.edges_by_kind = _count_by_kind(conn, app.id, "edges")
        stats.seconds = round(time.perf_counter() - started, 3)
        return stats

    t0 = time.perf_counter()
    outcomes = problems + parse_files(root, changed, ctx, limits, workers=settings.workers,
                                      timeout=settings.file_timeout, progress=progress)
    stats.timings["parse"] = round(time.perf_counter() - t0, 3)
    for o in outcomes:
        if o.status in ("ok", "partial") and o.lang is not None:
            stats.files_parsed += 1
            stats.lines_parsed += o.line_count
        stats.files_partial += o.status == "partial"
        stats.files_skipped += o.status == "skipped"
        stats.files_failed += o.status == "failed"
        if o.status in ("skipped", "failed", "partial") and len(stats.errors) < 50:
            stats.errors.append({"path": o.path, "status": o.status, "error": o.error or ""})

    with engine.begin() as conn:
        app = ensure_app(conn, app_name, str(root))
        # One writer per application at a time; readers keep seeing the old graph.
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": app.id})
        write_selection(conn, app.id, selection)
        t0 = time.perf_counter()
        _write_files(conn, app.id, outcomes, version)
        if deleted:
            conn.execute(text("DELETE FROM files WHERE application_id = :a AND path = ANY(:p)"),
                         {"a": app.id, "p": deleted})
        if progress:
            progress("resolve", 0, 1)
        fresh = {o.path: o.parse_data for o in outcomes}
        results = [ParseResult.from_dict(d) for d in fresh.values() if d is not None]
        # parse_data read as text and decoded with orjson: several times faster than the
        # driver's stdlib json on repositories with thousands of files.
        results += [ParseResult.from_dict(orjson.loads(data)) for (data,) in conn.execute(text(
            "SELECT parse_data::text FROM files WHERE application_id = :a"
            " AND parse_data IS NOT NULL AND NOT (path = ANY(:fresh))"),
            {"a": app.id, "fresh": list(fresh)})]
        stats.timings["store_files"] = round(time.perf_counter() - t0, 3)
        t0 = time.perf_counter()
        graph = build_graph(results)
        stats.timings["resolve"] = round(time.perf_counter() - t0, 3)
        t0 = time.perf_counter()
        counts = sync_graph(conn, app.id, graph)
        if on_synced is not None and counts.touched:
            on_synced(conn, app.id, counts.touched)
        stats.timings["sync"] = round(time.perf_counter() - t0, 3)
        if progress:
            progress("resolve", 1, 1)
        conn.execute(text("UPDATE applications SET indexed_at = now() WHERE id = :a"),
                     {"a": app.id})
        stats.nodes_by_kind = _count_by_kind(conn, app.id, "nodes")
        stats.edges_by_kind = _count_by_kind(conn, app.id, "edges")
    stats.changes = counts.to_dict()
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats
