"""`graphrag index` (graph part): scan, parse what changed, resolve, sync, rank.

Incremental: every file's parse result is stored in ``files.parse_data`` (its calls in
``files.calls_data``). The steps of a run, each in its own module: what changed
(:mod:`graphrag.graph.changes`), parsing it (:mod:`graphrag.graph.parse_pool`),
resolving again what the change reaches (:mod:`graphrag.graph.incremental`) and
writing the rows that differ (:mod:`graphrag.graph.sync`); PageRank is recomputed, from
the stored rows, only when its input changed. An unchanged repository is detected from
file stats and hashes alone. This module orders them inside one transaction.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine

from graphrag.config import Settings
from graphrag.db.apps import bump_content_version
from graphrag.db.context import AppContext
from graphrag.graph.changes import (
    STAT_MARGIN_NS,
    ChangeSet,
    context_version,
    detect_changes,
    is_small,
    structural,
)
from graphrag.graph.deps import provides, ref_names
from graphrag.graph.incremental import (
    Loaded,
    Resolution,
    decode_results,
    resolve_every,
    resolve_part,
    stored_resolutions,
)
from graphrag.graph.index_state import (
    FileRow,
    delete_files,
    file_selection,
    lock_application,
    mark_indexed,
    package_heads,
    parent_files,
    read_definitions,
    read_graph_state,
    read_interfaces,
    stored_paths,
    write_files,
    write_graph_state,
    write_resolutions,
    write_selection,
    write_stats,
)
from graphrag.graph.link_step import endpoints_before, link_run
from graphrag.graph.parse_pool import parse_files
from graphrag.graph.parse_worker import FileOutcome, ParseLimits
from graphrag.graph.request import IndexRequest
from graphrag.graph.resolve import FileResolution
from graphrag.graph.scan import scan_repository
from graphrag.graph.sync import SyncCounts, count_by_kind, sync_graph
from graphrag.graph.unresolved_store import write_unresolved
from graphrag.parsing.extract import repo_context
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext

Progress = Callable[[str, int, int], None]


_OVERLAPPED_PARSE = 64  # at most this many files are parsed while the stored state loads


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
    files_synced: int = 0    # files whose graph rows were rebuilt and compared
    files_loaded: int = 0    # files whose definitions the resolution's table held
    lines_parsed: int = 0
    nodes_by_kind: dict[str, int] = field(default_factory=dict)
    edges_by_kind: dict[str, int] = field(default_factory=dict)
    changes: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def _file_rows(outcomes: list[FileOutcome], version: str,
               resolved: dict[str, FileResolution], iface: dict[str, list[str]],
               mtimes: dict[str, int | None]) -> list[FileRow]:
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
            orjson.dumps(res.to_dict()).decode() if res is not None else None,
            mtimes.get(o.path),
            None if data is None else
            (o.provides if o.provides is not None else
             provides(ParseResult.from_dict(o.parse_data or {})))))
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


OnSynced = Callable[[Connection, int, set[int]], object]


def index_graph(engine: Engine, settings: Settings, root: Path, app_name: str, *,
                progress: Progress | None = None, on_synced: OnSynced | None = None,
                **options: Any) -> IndexStats:
    """The graph step alone for ``IndexRequest.of(root, app_name, **options)`` (its
    application resolved here): see :func:`build_graph`."""
    request = IndexRequest.of(root, app_name, **options)
    return build_graph(request.context(engine, settings), request, progress, on_synced)


def build_graph(ctx: AppContext, request: IndexRequest, progress: Progress | None = None,
                on_synced: OnSynced | None = None) -> IndexStats:
    """Build or incrementally update the code graph of ``request.root`` as the context's
    application (resolved by the caller: :meth:`IndexRequest.context`).

    Nothing is written when a pattern is invalid (:class:`InvalidPattern`) or when the
    run would delete more than ``settings.max_delete_share`` of the application's files
    and ``request.allow_mass_delete`` is not set (:class:`MassDeleteRefused`).

    ``on_synced(conn, app_id, touched_node_ids)`` runs inside the graph's own transaction
    after the sync, so work that later steps must redo because relations changed (e.g.
    making chunk stages pending again) is recorded atomically with the graph change and
    cannot be lost by a crash before those steps run. Later steps pass it in; this step
    imports none of them."""
    started = time.perf_counter()
    settings = ctx.settings
    # A modification time this close to the scan (or later) is not trusted to tell two
    # versions of a file apart (timestamp granularity: git's racy-clean rule); such a
    # file is stored without one, so the next run reads it again.
    trusted_before = time.time_ns() - STAT_MARGIN_NS
    scanned = list(scan_repository(request.root.expanduser(), include=request.include,
                                   exclude=request.exclude, languages=request.languages))
    root = request.root_path
    stats = IndexStats(app=ctx.app_name, root=str(root), files_scanned=len(scanned))
    repo_ctx = repo_context(root, [f.rel_path for f in scanned if f.problem is None])
    limits = ParseLimits(settings.max_file_bytes, settings.max_nesting)
    version = context_version(repo_ctx, limits)
    selection = file_selection(settings, request.include, request.exclude, request.languages)
    found = detect_changes(ctx, request, scanned, limits, version, selection, trusted_before)
    stats.files_unchanged = len(scanned) - len(found.changed) - len(found.problems)
    stats.files_deleted = len(found.deleted)
    if found.empty:
        with ctx.engine.begin() as conn:
            write_selection(conn, ctx.app_id, selection)
            write_stats(conn, ctx.app_id, found.touched)
            mark_indexed(conn, ctx.app_id)
            stats.nodes_by_kind, stats.edges_by_kind = count_by_kind(conn, ctx.app_id)
    else:
        with _gc_paused():
            counts = _parse_and_store(ctx, request, stats, found, repo_ctx, limits,
                                      (version, selection), progress, on_synced)
        stats.changes = counts.to_dict()
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats


def _parse_and_store(ctx: AppContext, request: IndexRequest, stats: IndexStats,
                     found: ChangeSet, repo_ctx: RepoContext, limits: ParseLimits,
                     recorded: tuple[str, dict[str, Any]], progress: Progress | None,
                     on_synced: OnSynced | None) -> SyncCounts:
    """Parse the changed files, then resolve and write the graph in one transaction
    under the application's lock. ``recorded``: the parser version and the file
    selection the rows are written with."""
    version, selection = recorded
    changed, settings = found.changed, ctx.settings
    fresh_paths = [p.path for p in found.problems] + [c[0] for c in changed]

    def parse() -> list[FileOutcome]:
        return parse_files(request.root_path, changed, repo_ctx, limits,
                           workers=settings.workers, timeout=settings.file_timeout,
                           progress=progress)

    t0 = time.perf_counter()
    # Many files are parsed before the application is locked (a concurrent run
    # parses meanwhile); a few are parsed by the workers while this process reads
    # and decodes the stored state under the lock (their parse costs about as much
    # as that read, and an interrupt waits for little).
    parsed = parse() if len(changed) > _OVERLAPPED_PARSE else None
    with ctx.engine.begin() as conn, ThreadPoolExecutor(1) as pool:
        parsing = pool.submit(parse) if parsed is None else None
        loaded = _load(conn, stats, ctx.app_id, selection, fresh_paths, found.deleted,
                       every=not is_small(request.full, changed, found.deleted, found.known))
        loaded.files = len(found.known)
        outcomes = found.problems + (parsing.result() if parsing is not None else parsed)
        stats.timings["parse"] = round(time.perf_counter() - t0, 3)
        _count_outcomes(stats, outcomes)
        counts = _store(conn, stats, ctx.app_id, loaded, outcomes, found.deleted, version,
                        request.full, progress, on_synced, found.mtimes, found.touched)
        # With the graph's commit: later steps are behind it until they record it.
        bump_content_version(conn, ctx.app_id)
    return counts


def _count_outcomes(stats: IndexStats, outcomes: list[FileOutcome]) -> None:
    """Add the parse outcomes to the run's counts (and its first 50 problems)."""
    for o in outcomes:
        if o.status in ("ok", "partial") and o.lang is not None:
            stats.files_parsed += 1
            stats.lines_parsed += o.line_count
        stats.files_partial += o.status == "partial"
        stats.files_skipped += o.status == "skipped"
        stats.files_failed += o.status == "failed"
        if o.status in ("skipped", "failed", "partial") and len(stats.errors) < 50:
            stats.errors.append({"path": o.path, "status": o.status, "error": o.error or ""})


def _load(conn: Connection, stats: IndexStats, app_id: int, selection: dict[str, Any],
          fresh: list[str], deleted: list[str], every: bool) -> Loaded:
    """Lock the application and read what resolution needs of the files that did not
    change (every file's definitions only when ``every``: a small change reads those of
    the files it reaches, :func:`resolve_part`); the rows of deleted files go."""
    t0 = time.perf_counter()
    lock_application(conn, app_id)
    write_selection(conn, app_id, selection)
    changed = set(fresh) | set(deleted)
    # What the files that changed exposed and where their nodes' parents were, read
    # before their rows go (the other files' interfaces are read as they are needed).
    loaded = Loaded(read_interfaces(conn, app_id, changed),
                     parent_files(conn, app_id, changed), None,
                     set() if every else package_heads(conn, app_id, changed))
    delete_files(conn, app_id, deleted)
    if every:
        # Definitions only (calls are read for the files resolved again).
        loaded.results = decode_results(read_definitions(conn, app_id, fresh))
    stats.timings["load"] = round(time.perf_counter() - t0, 3)
    return loaded


def _store(conn: Connection, stats: IndexStats, app_id: int, loaded: Loaded,
           outcomes: list[FileOutcome], deleted: list[str], version: str, full: bool,
           progress: Progress | None,
           on_synced: Callable[[Connection, int, set[int]], object] | None,
           mtimes: dict[str, int | None], touched: dict[str, int | None]) -> SyncCounts:
    """Resolve and write one run's graph in the caller's transaction: file rows, then
    nodes and edges. ``mtimes``: every scanned file's modification time (path -> ns);
    ``touched``: those of the files read again whose stored time differs."""
    if progress:
        progress("resolve", 0, 1)
    fresh = {o.path: o.parse_data for o in outcomes}
    fresh_results = {p: ParseResult.from_dict(d) for p, d in fresh.items() if d is not None}
    old_iface = loaded.old_iface
    every_iface = full or structural(outcomes, deleted)
    state = read_graph_state(conn, app_id)
    linked_before = endpoints_before(conn, app_id)
    t0 = time.perf_counter()
    res = None
    if loaded.results is None:
        res = resolve_part(conn, app_id, fresh_results, set(fresh), set(deleted), loaded,
                           outcomes, state)
    if res is None:
        res = resolve_every(conn, app_id, fresh_results, set(fresh), set(deleted), loaded,
                            full, every_iface, state)
    stats.files_resolved, stats.files_loaded = len(res.resolved), res.files_loaded
    stats.timings["resolve"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    # The files parsed now get their row with what resolution left for them; the
    # others resolved again (or whose interface changed) get those two columns.
    write_files(conn, app_id, _file_rows(outcomes, version, res.resolved, res.iface, mtimes),
                stored_paths(conn, app_id, fresh))
    write_stats(conn, app_id, {p: m for p, m in touched.items() if p not in fresh})
    _write_resolutions(conn, app_id, res, fresh, deleted, old_iface)
    stats.timings["store_files"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    counts = _sync(conn, app_id, stats, res, deleted)
    if counts is None and res.heads is not None:
        # A new node's key is stored outside the part: resolve against every file.
        res = resolve_every(conn, app_id, fresh_results, set(fresh), set(deleted), loaded,
                            full, every_iface, state)
        stats.files_loaded = res.files_loaded
        _write_resolutions(conn, app_id, res, fresh, deleted, old_iface)
        counts = _sync(conn, app_id, stats, res, deleted)
    assert counts is not None
    t1 = time.perf_counter()
    link_run(conn, app_id, {p: fresh_results.get(p) for p in fresh}, deleted, linked_before)
    stats.timings["link"] = round(time.perf_counter() - t1, 3)
    if any(res.state.get(k) != state.get(k) for k in res.state):
        write_graph_state(conn, app_id, res.state)
    if on_synced is not None and counts.touched:
        on_synced(conn, app_id, counts.touched)
    stats.timings["sync"] = round(time.perf_counter() - t0, 3)
    if progress:
        progress("resolve", 1, 1)
    mark_indexed(conn, app_id)
    stats.nodes_by_kind, stats.edges_by_kind = count_by_kind(conn, app_id)
    return counts


def _write_resolutions(conn: Connection, app_id: int, res: Resolution,
                       fresh: dict[str, Any], deleted: list[str],
                       old_iface: dict[str, list[str]]) -> None:
    write_resolutions(
        conn, app_id,
        {p: orjson.dumps(res.resolved[p].to_dict()).decode()
         for p in res.again if p not in fresh},
        {p: res.iface.get(p) for p in res.iface.computed
         if p not in fresh and p not in deleted and res.iface.get(p) != old_iface.get(p)})


def _sync(conn: Connection, app_id: int, stats: IndexStats, res: Resolution,
          deleted: list[str]) -> SyncCounts | None:
    """Write the graph rows that may have changed; None when a partial table's part
    holds a new node whose key is stored outside it."""
    resolver, resolved, scope = res.resolver, res.resolved, res.scope
    if scope is not None:
        # Only the rows of the files that may have changed are rebuilt and diffed.
        part = resolved | stored_resolutions(conn, app_id, resolver, scope - set(resolved))
        graph = resolver.finish(part, only=scope, heads=res.heads)
        counts = sync_graph(conn, app_id, graph, scope, rerank=bool(deleted),
                            heads=res.heads)
        stats.files_synced = len(scope)
        if counts is not None:
            write_unresolved(conn, app_id, graph.unresolved, scope | set(deleted))
        if counts is not None or res.heads is not None:
            return counts
    # the whole graph (a wide change)
    everything = resolved | stored_resolutions(
        conn, app_id, resolver, set(resolver.table.files) - set(resolved))
    stats.files_synced = len(resolver.table.files) + len(deleted)
    graph = resolver.finish(everything)
    counts = sync_graph(conn, app_id, graph)
    if counts is not None:
        write_unresolved(conn, app_id, graph.unresolved, None)
    return counts
