"""`graphrag index` (graph part): scan, parse what changed, resolve, sync, rank.

Incremental: every file's parse result is stored in ``files.parse_data`` (its calls in
``files.calls_data``); a run re-parses only files whose content hash (or parser version)
changed. The symbol table and the type hierarchy are rebuilt from every file's stored
definitions, but imports and calls (most of the resolution) are resolved again only for
the files that changed and the files that refer to a name whose definition changed
(:mod:`graphrag.graph.deps`); every other file's stored result (``files.resolved``) is
replayed. A file's result depends only on its own parse result and on the definitions
it can see, so the graph equals that of a clean full index of the same tree (a tested
invariant). An unchanged repository is detected from hashes alone.
"""

from __future__ import annotations

import gc
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine

from graphrag.config import Settings
from graphrag.db.apps import ensure_app
from graphrag.graph.deps import EVERYTHING, changed_names, interfaces, ref_names
from graphrag.graph.index_state import (
    FileRow,
    check_mass_delete,
    delete_files,
    file_selection,
    lock_application,
    mark_indexed,
    read_definitions,
    read_index_state,
    read_interfaces,
    read_resolution_inputs,
    stored_paths,
    write_files,
    write_resolutions,
    write_selection,
)
from graphrag.graph.model import Graph
from graphrag.graph.parse_pool import parse_files
from graphrag.graph.parse_worker import (
    FileOutcome,
    ParseLimits,
    file_digest,
    parser_version,
    problem_outcome,
)
from graphrag.graph.resolve import FileResolution, Resolver
from graphrag.graph.scan import ScannedFile, scan_repository
from graphrag.graph.sync import SyncCounts, count_by_kind, sync_graph
from graphrag.parsing.extract import repo_context
from graphrag.parsing.model import Call, ParseResult
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
    files_resolved: int = 0  # files whose imports and calls were resolved again
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


def _file_rows(outcomes: list[FileOutcome], version: str,
               resolved: dict[str, FileResolution], iface: dict[str, list[str]]
               ) -> list[FileRow]:
    """The rows of the files this run parsed, with the resolution and interface this
    run computed for them. The calls go to their own column (``calls_data``)."""
    rows = []
    for o in outcomes:
        data = calls = None
        if o.parse_data is not None:
            defs = {k: v for k, v in o.parse_data.items() if k != "calls"}
            data = orjson.dumps(defs).decode()
            calls = orjson.dumps(o.parse_data.get("calls", [])).decode()
        res = resolved.get(o.path)
        rows.append(FileRow(
            o.path, o.lang, o.content_hash, o.size, o.line_count, o.status, o.error,
            o.error_count, data, calls,
            None if data is None else
            (o.ref_names if o.ref_names is not None else ref_names(o.parse_data or {})),
            version, iface.get(o.path),
            orjson.dumps(res.to_dict()).decode() if res is not None else None))
    return rows


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Resolution builds several hundred thousand small objects that all live until the
    run ends; the cyclic collector's passes over them cost as much as the work itself
    and free nothing, so it is paused meanwhile."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
            mark_indexed(conn, app.id)
            stats.nodes_by_kind, stats.edges_by_kind = count_by_kind(conn, app.id)
        stats.seconds = round(time.perf_counter() - started, 3)
        return stats

    with _gc_paused():
        t0 = time.perf_counter()
        outcomes = problems + parse_files(root, changed, ctx, limits,
                                          workers=settings.workers,
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
                stats.errors.append({"path": o.path, "status": o.status,
                                     "error": o.error or ""})
        with engine.begin() as conn:
            counts = _store(conn, stats, app_name, root, selection, outcomes, deleted,
                            version, full, progress, on_synced)
    stats.changes = counts.to_dict()
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats


def _store(conn: Connection, stats: IndexStats, app_name: str, root: Path,
           selection: dict[str, Any], outcomes: list[FileOutcome], deleted: list[str],
           version: str, full: bool, progress: Progress | None,
           on_synced: Callable[[Connection, int, set[int]], object] | None) -> SyncCounts:
    """Resolve and write one run's graph in the caller's transaction: file rows, then
    nodes and edges."""
    app = ensure_app(conn, app_name, str(root))
    lock_application(conn, app.id)
    write_selection(conn, app.id, selection)
    t0 = time.perf_counter()
    old_iface = read_interfaces(conn, app.id)
    delete_files(conn, app.id, deleted)
    if progress:
        progress("resolve", 0, 1)
    fresh = {o.path: o.parse_data for o in outcomes}
    results = [ParseResult.from_dict(d) for d in fresh.values() if d is not None]
    # Definitions only (calls are read for the files resolved again below).
    results += [ParseResult.from_dict(orjson.loads(data))
                for data in read_definitions(conn, app.id, fresh)]
    stats.timings["load"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    graph, resolved, iface, again = _resolve(conn, app.id, results, set(fresh),
                                             set(deleted), old_iface, full)
    stats.files_resolved = len(resolved)
    stats.timings["resolve"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    # The files parsed now get their row with what resolution left for them; the
    # others resolved again (or whose interface changed) get those two columns.
    write_files(conn, app.id, _file_rows(outcomes, version, resolved, iface),
                stored_paths(conn, app.id))
    write_resolutions(
        conn, app.id,
        {p: orjson.dumps(resolved[p].to_dict()).decode() for p in again if p not in fresh},
        {p: iface.get(p) for p in set(iface) | set(old_iface)
         if p not in fresh and p not in deleted and iface.get(p) != old_iface.get(p)})
    stats.timings["store_files"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    counts = sync_graph(conn, app.id, graph)
    if on_synced is not None and counts.touched:
        on_synced(conn, app.id, counts.touched)
    stats.timings["sync"] = round(time.perf_counter() - t0, 3)
    if progress:
        progress("resolve", 1, 1)
    mark_indexed(conn, app.id)
    stats.nodes_by_kind, stats.edges_by_kind = count_by_kind(conn, app.id)
    return counts


def _resolve(conn: Connection, app_id: int, results: list[ParseResult], fresh: set[str],
             deleted: set[str], old_iface: dict[str, list[str]], full: bool
             ) -> tuple[Graph, dict[str, FileResolution], dict[str, list[str]], set[str]]:
    """The graph of ``results``, resolving again only the imports and calls of the files
    that need it; returns it with the fresh resolutions (path -> result), every file's
    interface, and the paths resolved again that were not parsed in this run.

    A file is resolved again when it changed (parsed or deleted in this run), when what
    it exposes to other files changed (its interface, e.g. a key renumbered or a base
    class resolved elsewhere because of another file), when it refers to a name whose
    definition changed anywhere, or when it has no stored result."""
    resolver = Resolver(results)
    iface = interfaces(resolver.scopes)
    names: set[str] = set()
    changed = fresh | deleted
    redo = set(changed)
    for path in set(old_iface) | set(iface):
        diff = changed_names(old_iface.get(path), iface.get(path))
        if diff:
            names |= diff
            redo.add(path)
    wide = full or EVERYTHING in names
    stored: dict[str, FileResolution] = {}
    again: set[str] = set()
    for path, again_, data in read_resolution_inputs(conn, app_id, wide=wide, redo=redo,
                                                     names=names, skip=fresh):
        scope = resolver.table.files.get(path)
        if scope is None:
            continue
        if not again_:
            stored[path] = FileResolution.from_dict(orjson.loads(data))
            continue
        redo.add(path)
        again.add(path)
        if data is not None:
            scope.result.calls = [Call(**c) for c in orjson.loads(data)]
    redo &= set(resolver.table.files)
    resolved = resolver.resolve_files(redo)
    return resolver.finish(stored | resolved), resolved, iface, again
