"""`graphrag index` (graph part): scan, parse what changed, resolve, sync, rank.

Incremental: every file's parse result is stored in ``files.parse_data`` (its calls in
``files.calls_data``); a run reads and hashes only the files whose size or modification
time changed (``files.mtime_ns``) and re-parses those whose content hash (or parser
version) changed. The symbol table and the type hierarchy are rebuilt from every file's
stored definitions; the rest is scoped to what the change can reach:

* interfaces (what each file exposes, :mod:`graphrag.graph.deps`) are computed for the
  changed files and, outwards, for the files that name an entry that changed;
* imports and calls are resolved again only for the changed files, the files whose
  interface changed and the files that refer to such a name; every other file's stored
  result (``files.resolved``) stands;
* only the graph rows of those files (plus ENDPOINT promotions that moved, and the
  repository and package rows) are rebuilt and compared with the stored ones; PageRank
  is recomputed, from the stored rows, only when its input changed.

A file's result depends only on its own parse result and on the definitions it can
see, so the graph equals that of a clean full index of the same tree (a tested
invariant). An unchanged repository is detected from file stats and hashes alone.
"""

from __future__ import annotations

import gc
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator
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
from graphrag.graph.calls import endpoint_promotions
from graphrag.graph.deps import EVERYTHING, changed_names, interfaces, provides, ref_names
from graphrag.graph.index_state import (
    FileRow,
    Providers,
    check_mass_delete,
    delete_files,
    edge_target_files,
    file_selection,
    interfaces_missing,
    lock_application,
    mark_indexed,
    package_heads,
    parent_files,
    provides_missing,
    read_again_inputs,
    read_definitions,
    read_definitions_of,
    read_graph_state,
    read_index_state,
    read_interfaces,
    read_resolution_inputs,
    read_resolutions,
    referring_files,
    stored_paths,
    write_files,
    write_graph_state,
    write_provides,
    write_resolutions,
    write_selection,
    write_stats,
)
from graphrag.graph.model import REPO_KEY
from graphrag.graph.parse_pool import parse_files
from graphrag.graph.parse_worker import (
    FileOutcome,
    ParseLimits,
    file_digest,
    parser_version,
    problem_outcome,
)
from graphrag.graph.request import IndexRequest
from graphrag.graph.resolve import FileResolution, Resolver
from graphrag.graph.routes import mount_rows
from graphrag.graph.scan import ScannedFile, scan_repository
from graphrag.graph.symbols import lookup_key
from graphrag.graph.sync import SyncCounts, count_by_kind, sync_graph
from graphrag.graph.unresolved_store import write_unresolved
from graphrag.parsing.extract import repo_context
from graphrag.parsing.model import Call, ParseResult
from graphrag.parsing.registry import RepoContext, languages, namespace, spec_for_path
from graphrag.parsing.source import SourceProblem, read_source

Progress = Callable[[str, int, int], None]
_STAT_MARGIN_NS = 2_000_000_000
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


def _ctx_version(ctx: RepoContext, limits: ParseLimits) -> str:
    blob = json.dumps([ctx.go_modules, sorted(ctx.python_packages), limits.max_nesting,
                       ctx.ts_configs],
                      sort_keys=True).encode()
    return parser_version() + ":" + hashlib.sha256(blob).hexdigest()[:8]


def _digest(f: ScannedFile, max_bytes: int, root: Path) -> str | None:
    """Content hash for change detection; None when the file is not read (too large,
    not a regular file, unreadable), which is also what its row then stores."""
    try:
        return file_digest(read_source(f.full_path, max_bytes, root))
    except SourceProblem:
        return None


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
    engine, settings, app_name, app_id = ctx.engine, ctx.settings, ctx.app_name, ctx.app_id
    include, exclude, languages = request.include, request.exclude, request.languages
    full = request.full
    # A modification time this close to the scan (or later) is not trusted to tell two
    # versions of a file apart (timestamp granularity: git's racy-clean rule); such a
    # file is stored without one, so the next run reads it again.
    trusted_before = time.time_ns() - _STAT_MARGIN_NS
    scanned = list(scan_repository(request.root.expanduser(), include=include,
                                   exclude=exclude, languages=languages))
    root = request.root_path
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
    # An indexed file that this run will skip (a lower size limit, a file turned into a
    # FIFO) loses its nodes and chunks like a deleted one: the guard counts both.
    dropped = sum(1 for f in scanned if (old := known.get(f.rel_path)) is not None
                  and old.indexed and (f.problem is not None or f.size > limits.max_bytes))
    check_mass_delete(app_name, len(deleted) + dropped, len(known), settings.max_delete_share,
                      request.allow_mass_delete)
    # A change of the settings that decide which files are indexed and how (limits,
    # budget, filters) re-evaluates every file that is not indexed now; a file whose
    # size crosses the limit is caught by its digest (None when it is not read).
    retry = previous.selection is not None and previous.selection != selection

    changed: list[tuple[str, str | None, int, str | None]] = []
    problems: list[FileOutcome] = []
    mtimes: dict[str, int | None] = {}   # path -> modification time to store
    touched: dict[str, int | None] = {}  # those of files whose stored one differs
    for f in scanned:
        old = known.get(f.rel_path)
        if f.problem is not None:
            if full or retry or old is None or old.key != (None, version) \
                    or old.error != f.problem:
                problems.append(problem_outcome(f.rel_path, f.lang, "skipped", f.problem,
                                                f.size))
            continue
        # A file whose size and modification time are those its row was written with
        # is not read again (unless --full); any other is, and its hash decides.
        mtime = f.mtime_ns if 0 < f.mtime_ns < trusted_before else None
        mtimes[f.rel_path] = mtime
        if not full and old is not None and old.key[1] == version and mtime is not None \
                and old.stat == (f.size, mtime) and old.key[0] is not None \
                and f.size <= limits.max_bytes:
            digest = old.key[0]
        else:
            digest = _digest(f, limits.max_bytes, root)
            if old is not None and old.stat != (f.size, mtime):
                touched[f.rel_path] = mtime
        # A file not read (too large) has no hash: its size tells (its row records it).
        if full or old is None or old.key != (digest, version) or (retry and not old.indexed) \
                or (digest is None and old.stat[0] != f.size):
            changed.append((f.rel_path, f.lang, f.size, digest))
    stats.files_unchanged = len(scanned) - len(changed) - len(problems)
    stats.files_deleted = len(deleted)
    if not changed and not deleted and not problems:
        with engine.begin() as conn:
            write_selection(conn, app_id, selection)
            write_stats(conn, app_id, touched)
            mark_indexed(conn, app_id)
            stats.nodes_by_kind, stats.edges_by_kind = count_by_kind(conn, app_id)
        stats.seconds = round(time.perf_counter() - started, 3)
        return stats

    fresh_paths = [p.path for p in problems] + [c[0] for c in changed]

    def parse() -> list[FileOutcome]:
        return parse_files(root, changed, ctx, limits, workers=settings.workers,
                           timeout=settings.file_timeout, progress=progress)

    with _gc_paused():
        t0 = time.perf_counter()
        # Many files are parsed before the application is locked (a concurrent run
        # parses meanwhile); a few are parsed by the workers while this process reads
        # and decodes the stored state under the lock (their parse costs about as much
        # as that read, and an interrupt waits for little).
        parsed = parse() if len(changed) > _OVERLAPPED_PARSE else None
        with engine.begin() as conn, ThreadPoolExecutor(1) as pool:
            parsing = pool.submit(parse) if parsed is None else None
            loaded = _load(conn, stats, app_id, selection, fresh_paths, deleted,
                           every=not _small(full, changed, deleted, known))
            loaded.files = len(known)
            outcomes = problems + (parsing.result() if parsing is not None else parsed)
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
            counts = _store(conn, stats, app_id, loaded, outcomes, deleted, version, full,
                            progress, on_synced, mtimes, touched)
            # With the graph's commit: later steps are behind it until they record it.
            bump_content_version(conn, app_id)
    stats.changes = counts.to_dict()
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats


def _small(full: bool, changed: list[tuple[str, str | None, int, str | None]],
           deleted: list[str], known: dict[str, Any]) -> bool:
    """Whether a change is small enough to resolve against the files it reaches only
    (:func:`_resolve_part`); Go's structural typing reaches every file."""
    return not full and len(changed) + len(deleted) <= max(16, len(known) // 20) \
        and not _structural_langs((c[1] for c in changed), deleted)


@dataclass
class _Loaded:
    """The stored state a run resolves against, read before its parse results arrive."""

    old_iface: dict[str, list[str]]  # interfaces the changed files stored
    parents: set[str]                # other files holding their stored nodes' parents
    results: list[ParseResult] | None  # every other file's stored definitions (None: not read)
    heads: set[tuple[str, str, str]] = field(default_factory=set)  # changed files' packages
    files: int = 0                   # stored files
    memo: dict[str, Any] = field(default_factory=dict)  # what each try computes alike


def _load(conn: Connection, stats: IndexStats, app_id: int, selection: dict[str, Any],
          fresh: list[str], deleted: list[str], every: bool) -> _Loaded:
    """Lock the application and read what resolution needs of the files that did not
    change (every file's definitions only when ``every``: a small change reads those of
    the files it reaches, :func:`_resolve_part`); the rows of deleted files go."""
    t0 = time.perf_counter()
    lock_application(conn, app_id)
    write_selection(conn, app_id, selection)
    changed = set(fresh) | set(deleted)
    # What the files that changed exposed and where their nodes' parents were, read
    # before their rows go (the other files' interfaces are read as they are needed).
    loaded = _Loaded(read_interfaces(conn, app_id, changed),
                     parent_files(conn, app_id, changed), None,
                     set() if every else package_heads(conn, app_id, changed))
    delete_files(conn, app_id, deleted)
    if every:
        # Definitions only (calls are read for the files resolved again).
        loaded.results = _decode(read_definitions(conn, app_id, fresh))
    stats.timings["load"] = round(time.perf_counter() - t0, 3)
    return loaded


def _decode(rows: Iterable[str | bytes]) -> list[ParseResult]:
    return [ParseResult.from_dict(orjson.loads(data)) for data in rows]


@dataclass
class _Resolution:
    """What resolution left for the writes: see :func:`_resolve`."""

    resolver: Resolver
    resolved: dict[str, FileResolution]
    iface: Interfaces
    again: set[str]
    scope: set[str] | None           # files whose rows may have changed (None: any)
    state: dict[str, Any]            # graph_state for the next run
    heads: set[str] | None = None    # with a partial table: the rows outside files to sync


def _store(conn: Connection, stats: IndexStats, app_id: int, loaded: _Loaded,
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
    every_iface = full or _structural(outcomes, deleted)
    state = read_graph_state(conn, app_id)
    t0 = time.perf_counter()
    res = None
    if loaded.results is None:
        res = _resolve_part(conn, app_id, stats, fresh_results, set(fresh), set(deleted),
                            loaded, outcomes, state)
    if res is None:
        res = _resolve_every(conn, app_id, stats, fresh_results, set(fresh), set(deleted),
                             loaded, full, every_iface, state)
    stats.files_resolved = len(res.resolved)
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
        res = _resolve_every(conn, app_id, stats, fresh_results, set(fresh), set(deleted),
                             loaded, full, every_iface, state)
        _write_resolutions(conn, app_id, res, fresh, deleted, old_iface)
        counts = _sync(conn, app_id, stats, res, deleted)
    assert counts is not None
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


def _write_resolutions(conn: Connection, app_id: int, res: _Resolution,
                       fresh: dict[str, Any], deleted: list[str],
                       old_iface: dict[str, list[str]]) -> None:
    write_resolutions(
        conn, app_id,
        {p: orjson.dumps(res.resolved[p].to_dict()).decode()
         for p in res.again if p not in fresh},
        {p: res.iface.get(p) for p in res.iface.computed
         if p not in fresh and p not in deleted and res.iface.get(p) != old_iface.get(p)})


def _sync(conn: Connection, app_id: int, stats: IndexStats, res: _Resolution,
          deleted: list[str]) -> SyncCounts | None:
    """Write the graph rows that may have changed; None when a partial table's part
    holds a new node whose key is stored outside it."""
    resolver, resolved, scope = res.resolver, res.resolved, res.scope
    if scope is not None:
        # Only the rows of the files that may have changed are rebuilt and diffed.
        part = resolved | _stored_resolutions(conn, app_id, resolver, scope - set(resolved))
        graph = resolver.finish(part, only=scope, heads=res.heads)
        counts = sync_graph(conn, app_id, graph, scope, rerank=bool(deleted),
                            heads=res.heads)
        stats.files_synced = len(scope)
        if counts is not None:
            write_unresolved(conn, app_id, graph.unresolved, scope | set(deleted))
        if counts is not None or res.heads is not None:
            return counts
    # the whole graph (a wide change)
    everything = resolved | _stored_resolutions(
        conn, app_id, resolver, set(resolver.table.files) - set(resolved))
    stats.files_synced = len(resolver.table.files) + len(deleted)
    graph = resolver.finish(everything)
    counts = sync_graph(conn, app_id, graph)
    if counts is not None:
        write_unresolved(conn, app_id, graph.unresolved, None)
    return counts


def _resolve_every(conn: Connection, app_id: int, stats: IndexStats,
                   fresh_results: dict[str, ParseResult], fresh: set[str],
                   deleted: set[str], loaded: _Loaded, full: bool, every_iface: bool,
                   state: dict[str, Any]) -> _Resolution:
    """Resolution against a table of every file's definitions."""
    if loaded.results is None:
        loaded.results = _decode(read_definitions(conn, app_id, fresh))
    results = [*fresh_results.values(), *loaded.results]
    stats.files_loaded = len(results)
    resolver = Resolver(results)
    if provides_missing(conn, app_id):  # rows written before provides were kept
        write_provides(conn, app_id, {r.path: provides(r) for r in loaded.results})
    return _resolve(conn, app_id, resolver, fresh, deleted, loaded, full, every_iface,
                    state)


class _Reach(Exception):
    """A partial table lacks files the change reaches (``paths``)."""

    def __init__(self, paths: set[str]) -> None:
        super().__init__(len(paths))
        self.paths = paths


class _Wide(Exception):
    """The change reaches too far for a partial table."""


# A partial table holding more files than this share (and this count) is not worth it.
_PART_SHARE, _PART_MIN = 0.4, 64


def _resolve_part(conn: Connection, app_id: int, stats: IndexStats,
                  fresh_results: dict[str, ParseResult], fresh: set[str],
                  deleted: set[str], loaded: _Loaded, outcomes: list[FileOutcome],
                  state: dict[str, Any]) -> _Resolution | None:
    """Resolution against a table of only the files the change reaches, or None when
    the whole table is needed.

    Which files those are is found by trying: a table built from some files records
    every lookup it answers (:class:`SymbolTable` ``watch``), and the files that provide
    any recorded key (``files.provides``), the files whose interfaces, resolutions or
    rows the run needs, the files sharing a symbol's fqn with one held (duplicate keys
    are numbered across files) and every file of a package whose rows are rewritten are
    added until nothing is missing. Each lookup then has the answer the whole
    repository's table gives, so the resolutions, interfaces and rows computed equal
    those of a run with every file."""
    if not all(isinstance(state.get(k), dict) for k in ("routes", "mounts", "foreign")) \
            or not isinstance(state.get("shared"), list) \
            or interfaces_missing(conn, app_id) or provides_missing(conn, app_id) \
            or any(o.parse_data and any(r.get("http_method", "").upper() == "USE"
                                         for r in o.parse_data.get("registrations", ()))
                   for o in outcomes):
        return None
    total = loaded.files
    providers = Providers(conn, app_id)
    checked: set[str] = set()  # keys whose providers are all held
    part = set(fresh) | loaded.parents
    held: dict[str, ParseResult] = {}
    shared = set(state["shared"])
    fresh_keys = {key for r in fresh_results.values() for key in _fqn_keys(r)}
    for _attempt in range(32):
        todo = part - set(held) - fresh
        for path, data in read_definitions_of(conn, app_id, todo):
            held[path] = ParseResult.from_dict(orjson.loads(data))
        results = [*fresh_results.values(), *(held[p] for p in sorted(part & set(held))
                                              if p not in fresh)]
        watch: set[str] = set()

        def ensure(watch: set[str] = watch, held_: set[str] = part,
                   checked_: set[str] = checked) -> None:
            missing = providers(watch - checked_) - held_ - deleted
            if missing:
                raise _Reach(missing)

        try:
            resolver = Resolver(results, watch=watch, mounts=state["mounts"])
            res = _resolve(conn, app_id, resolver, fresh, deleted, loaded, False, False,
                           state, part, ensure)
            # the lookups made, the files sharing a symbol's fqn (duplicate keys are
            # numbered across them: the fqns of more than one file, kept, and those of
            # the files parsed now) and every file of a package whose rows are rewritten
            keys = watch | fresh_keys | {key for r in results for key in _fqn_keys(r)
                                         if key in shared}
            keys |= _head_keys(resolver, res.scope or set(), loaded.heads)
            missing = providers(keys - checked) - part - deleted
            checked |= keys
            if not missing:
                stats.files_loaded = len(results)
                res.state["shared"] = sorted(shared | _now_shared(providers,
                                                                  fresh_results))
                return res
        except _Reach as reach:
            missing = reach.paths | (providers(watch - checked) - part - deleted)
            checked |= watch
            # What the files reached looked up last time is likely to be looked up again:
            # holding it now saves a try (holding more is never wrong).
            missing |= edge_target_files(conn, app_id, reach.paths) - part - deleted
        except _Wide:
            return None
        part |= missing
        if len(part) > max(_PART_SHARE * total, _PART_MIN):
            return None
    return None


def _fqn_keys(result: ParseResult) -> set[str]:
    """The fqn lookup keys of a file's symbols."""
    ns = namespace(result.lang)
    return {lookup_key("f", ns, sym.fqn) for sym in result.symbols}


def _shared_keys(results: Iterable[ParseResult]) -> set[str]:
    """The fqn lookup keys of symbols of more than one file (whose duplicate keys are
    numbered across files)."""
    seen: set[str] = set()
    shared: set[str] = set()
    for result in results:
        keys = _fqn_keys(result)
        shared |= keys & seen
        seen |= keys
    return shared


def _now_shared(providers: Callable[[Iterable[str]], set[str]],
                fresh: dict[str, ParseResult]) -> set[str]:
    """The fqn keys of the files parsed now that another file provides too (all of
    such a file's keys: one more kept key costs a lookup, one missing a wrong key)."""
    out = _shared_keys(fresh.values())  # among themselves (their rows are not stored yet)
    for path, result in fresh.items():
        keys = _fqn_keys(result)
        if keys and providers(keys) - {path}:
            out |= keys
    return out


def _head_keys(resolver: Resolver, scope: set[str], old: set[tuple[str, str, str]]
               ) -> set[str]:
    """The lookup keys of the packages whose rows a partial sync rewrites (every file of
    each must be held)."""
    keys = set()
    for path in scope:
        held = resolver.table.files.get(path)
        if held is not None and held.result.package and held.traits.packages:
            keys.add(lookup_key("p", held.ns, held.result.package))
    for _key, lang, name in old:
        keys.add(lookup_key("p", namespace(lang), name))
    return keys


def _heads(resolver: Resolver, scope: set[str], old: set[tuple[str, str, str]]
           ) -> set[str]:
    """The repository and the packages of ``scope`` (now, and as stored: ``old``)."""
    heads = {REPO_KEY} | {key for key, _lang, _name in old}
    for path in scope:
        held = resolver.table.files.get(path)
        if held is not None and held.node.parent_key is not None:
            heads.add(held.node.parent_key)
    return heads


class Interfaces(dict[str, list[str]]):
    """Interfaces (path -> entries) of the files in ``computed``; those of the other
    files did not change (see :func:`_interfaces`)."""

    computed: set[str]


def _structural(outcomes: list[FileOutcome], deleted: list[str]) -> bool:
    """Whether a changed file is in a language whose types are matched structurally
    (Go): which types implement an interface then depends on no name either mentions."""
    return _structural_langs([o.lang for o in outcomes], deleted)


def _structural_langs(langs: Iterable[str | None], deleted: Iterable[str]) -> bool:
    structural = {s.name for s in languages().values() if s.structural_typing}
    return any(lang in structural for lang in langs) or any(
        (spec := spec_for_path(p)) is not None and spec.name in structural for p in deleted)


def _interfaces(conn: Connection, app_id: int, resolver: Resolver, changed: set[str],
                old_iface: dict[str, list[str]], parents: set[str], every: bool,
                part: set[str] | None = None, ensure: Callable[[], None] | None = None
                ) -> Interfaces:
    """The interfaces that may differ from the stored ones, and those stored ones (added
    to ``old_iface``). With ``every``, or when a stored file lacks one, every file's.

    Otherwise from the changed files outwards: a file's interface (its nodes' keys,
    parents, members, ancestors and their members) changes only through a definition
    whose name it mentions (its own definitions, its bases, its parents' names are in its
    ``ref_names``) or through a node of a changed file whose parent it holds. So the files
    that mention a name whose entries changed are computed next, until no entry changes
    (a base's base changes its subclasses' entries, which names them in turn).

    ``part``: the files a partial table holds (:class:`_Reach` when others are needed;
    ``ensure`` first, so that no entry computed from missing answers widens the search)."""
    scopes = resolver.scopes
    table = resolver.table
    out = Interfaces()
    if every or (part is None and interfaces_missing(conn, app_id)):
        if part is not None:
            raise _Wide
        old_iface.update(read_interfaces(conn, app_id))
        out.update(interfaces(scopes))
        out.computed = set(out) | set(old_iface)
        return out
    # parents in other files, of the changed files' nodes now (and stored: ``parents``)
    frontier = set(changed) | parents | {
        parent.file_path for node in table.symbol_nodes if node.file_path in changed
        and node.parent_key is not None
        and (parent := table.by_key.get(node.parent_key)) is not None
        and parent.file_path is not None}
    out.computed = set()
    seen_names: set[str] = set()
    while frontier:
        todo = frontier - out.computed
        if part is not None and (todo - part - changed):
            raise _Reach(todo - part - changed)
        old_iface.update(read_interfaces(conn, app_id, todo - changed))
        out.update(interfaces(scopes, only=todo))
        out.computed |= todo
        names: set[str] = set()
        for path in todo:
            names |= changed_names(old_iface.get(path), out.get(path))
        names -= seen_names
        if names and ensure is not None:
            ensure()
        seen_names |= names
        frontier = referring_files(conn, app_id, names) - out.computed if names else set()
    return out


def _resolve(conn: Connection, app_id: int, resolver: Resolver, fresh: set[str],
             deleted: set[str], loaded: _Loaded, full: bool, every_iface: bool,
             state: dict[str, Any], part: set[str] | None = None,
             ensure: Callable[[], None] | None = None) -> _Resolution:
    """Resolve again only the imports and calls of the files that need it; returns the
    resolver, the fresh resolutions (path -> result), the interfaces that may have
    changed (:func:`_interfaces`), the paths resolved again that were not parsed in this
    run, the files whose graph rows may have changed (None: any may have) and the state
    the next run scopes its work with. ``part``: the files the resolver's table holds,
    when not every file (:class:`_Reach` when others are needed, :class:`_Wide` when the
    change needs every file); ``ensure`` then raises :class:`_Reach` while the lookups
    made so far lack answers, before anything is concluded from them.

    A file is resolved again when it changed (parsed or deleted in this run), when what
    it exposes to other files changed (its interface, e.g. a key renumbered or a base
    class resolved elsewhere because of another file), when it refers to a name whose
    definition changed anywhere, or when it has no stored result. The rows of every other
    file stay as they are (what they are made of did not change), but for ENDPOINT
    promotion, which a registration in one file makes on a handler in another (hence
    the files of the promoted nodes, when promotion changed), and for a resolution that
    adds edges from another file's nodes (its ``foreign`` files go with it)."""
    changed = fresh | deleted
    old_iface = loaded.old_iface
    iface = _interfaces(conn, app_id, resolver, changed, old_iface, loaded.parents,
                        every_iface, part, ensure)
    names: set[str] = set()
    redo = set(changed)
    for path in iface.computed:
        diff = changed_names(old_iface.get(path), iface.get(path))
        if diff:
            names |= diff
            redo.add(path)
    wide = full or EVERYTHING in names or not isinstance(state.get("routes"), dict)
    if part is not None and wide:
        raise _Wide
    again: set[str] = set()
    inputs = read_resolution_inputs(conn, app_id, wide=wide, redo=redo, names=names,
                                    skip=fresh, stored=False) if part is None else [
        (path, True, data) for path, data in read_again_inputs(conn, app_id, redo, names,
                                                                fresh)]
    for path, again_, data in inputs:
        if not again_:
            continue
        scope = resolver.table.files.get(path)
        if scope is None:
            if part is not None and path not in part:
                redo.add(path)  # reported as missing below
            continue
        redo.add(path)
        again.add(path)
        if data is not None:
            scope.result.calls = [Call(**c) for c in orjson.loads(data)]
    if part is not None and (redo - part - deleted):
        raise _Reach(redo - part - deleted)
    redo &= set(resolver.table.files)
    resolved = resolver.resolve_files(redo)

    # ENDPOINT promotion: the routes each file registers, kept per file; those of files
    # not resolved again stand (what they resolve through did not change).
    old_routes: dict[str, list[list[Any]]] = state.get("routes") or {}
    mounts = resolver.mount_rows
    if part is None:
        routes = resolver.routes(resolver.table.files)
    else:
        again_mounts = {p for p in changed | redo if p in mounts}
        if mount_rows(resolver.scopes, again_mounts) != {p: mounts[p] for p in again_mounts}:
            # a mount moved (every route below it may move), unless the table still
            # lacks files the lookups need
            assert ensure is not None
            ensure()
            raise _Wide
        routes = {p: v for p, v in old_routes.items() if p not in changed and p not in redo}
        routes.update(resolver.routes(redo))
    promoted = resolver.endpoints(routes)
    if "promoted" not in loaded.memo:  # the same for every try of a partial table
        loaded.memo["promoted"] = endpoint_promotions(old_routes)
    before = loaded.memo["promoted"]
    moved = {value[0] for key in set(promoted) | set(before)
             if promoted.get(key) != before.get(key)
             for value in (promoted.get(key), before.get(key))
             if value is not None and value[0] is not None}

    foreign: dict[str, list[str]] = dict(state.get("foreign") or {})
    for path in changed | redo:
        foreign.pop(path, None)
    for path, res in resolved.items():
        if (others := resolver.foreign_paths(path, res)):
            foreign[path] = others
    scope_paths: set[str] | None = None
    if not wide:
        scope_paths = changed | redo | moved
        grown = True
        while grown:  # a foreign resolution and the files it adds edges from go together
            grown = False
            for path, others in foreign.items():
                if (path in scope_paths or scope_paths.intersection(others)) \
                        and not scope_paths.issuperset([path, *others]):
                    scope_paths |= {path, *others}
                    grown = True
    heads = None
    if part is not None:
        assert scope_paths is not None
        if scope_paths - part - deleted:
            assert ensure is not None
            ensure()  # files reached through lookups answered in part are no evidence
            raise _Reach(scope_paths - part - deleted)
        # Go's method sets (which struct implements which interface) are matched over
        # every file: a Go file resolved, rebuilt or exposing anything needs them all.
        files = resolver.table.files
        if _structural_langs((files[p].lang for p in scope_paths | iface.computed
                              if p in files), ()):
            raise _Wide
        heads = _heads(resolver, scope_paths, loaded.heads)
    new_state = {"routes": routes, "mounts": mounts, "foreign": foreign,
                 "shared": sorted(_shared_keys(s.result for s in resolver.table.files.values()))
                 if part is None else state["shared"]}
    return _Resolution(resolver, resolved, iface, again, scope_paths, new_state, heads)


def _stored_resolutions(conn: Connection, app_id: int, resolver: Resolver,
                        paths: Iterable[str]) -> dict[str, FileResolution]:
    return {path: FileResolution.from_dict(orjson.loads(data))
            for path, data in read_resolutions(conn, app_id, paths)
            if path in resolver.table.files}
