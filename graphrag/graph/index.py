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
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
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
    interfaces_missing,
    lock_application,
    mark_indexed,
    parent_files,
    read_definitions,
    read_graph_state,
    read_index_state,
    read_interfaces,
    read_resolution_inputs,
    read_resolutions,
    referring_files,
    stored_paths,
    write_files,
    write_graph_state,
    write_resolutions,
    write_selection,
    write_stats,
)
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
from graphrag.parsing.registry import RepoContext, languages, spec_for_path
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
        return file_digest(read_source(f.full_path, max_bytes))
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
            mtimes.get(o.path)))
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
    # A modification time this close to the scan (or later) is not trusted to tell two
    # versions of a file apart (timestamp granularity: git's racy-clean rule); such a
    # file is stored without one, so the next run reads it again.
    trusted_before = time.time_ns() - _STAT_MARGIN_NS
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
            digest = _digest(f, limits.max_bytes)
            if old is not None and old.stat != (f.size, mtime):
                touched[f.rel_path] = mtime
        if full or old is None or old.key != (digest, version) or (retry and not old.indexed):
            changed.append((f.rel_path, f.lang, f.size, digest))
    stats.files_unchanged = len(scanned) - len(changed) - len(problems)
    stats.files_deleted = len(deleted)
    if not changed and not deleted and not problems:
        with engine.begin() as conn:
            app = ensure_app(conn, app_name, str(root))
            write_selection(conn, app.id, selection)
            write_stats(conn, app.id, touched)
            mark_indexed(conn, app.id)
            stats.nodes_by_kind, stats.edges_by_kind = count_by_kind(conn, app.id)
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
            app_id, loaded = _load(conn, stats, app_name, root, selection, fresh_paths,
                                   deleted)
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
    stats.changes = counts.to_dict()
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats


@dataclass
class _Loaded:
    """The stored state a run resolves against, read before its parse results arrive."""

    old_iface: dict[str, list[str]]  # interfaces the changed files stored
    parents: set[str]                # other files holding their stored nodes' parents
    results: list[ParseResult]       # every other file's stored definitions


def _load(conn: Connection, stats: IndexStats, app_name: str, root: Path,
          selection: dict[str, Any], fresh: list[str], deleted: list[str]
          ) -> tuple[int, _Loaded]:
    """Lock the application and read what resolution needs of the files that did not
    change; the rows of deleted files go."""
    t0 = time.perf_counter()
    app = ensure_app(conn, app_name, str(root))
    lock_application(conn, app.id)
    write_selection(conn, app.id, selection)
    changed = set(fresh) | set(deleted)
    # What the files that changed exposed and where their nodes' parents were, read
    # before their rows go (the other files' interfaces are read as they are needed).
    loaded = _Loaded(read_interfaces(conn, app.id, changed),
                     parent_files(conn, app.id, changed), [])
    delete_files(conn, app.id, deleted)
    # Definitions only (calls are read for the files resolved again).
    loaded.results = [ParseResult.from_dict(orjson.loads(data))
                      for data in read_definitions(conn, app.id, fresh)]
    stats.timings["load"] = round(time.perf_counter() - t0, 3)
    return app.id, loaded


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
    results = [ParseResult.from_dict(d) for d in fresh.values() if d is not None]
    results += loaded.results
    old_iface = loaded.old_iface
    t0 = time.perf_counter()
    resolver, resolved, iface, again, scope = _resolve(
        conn, app_id, results, set(fresh), set(deleted), old_iface, loaded.parents, full,
        full or _structural(outcomes, deleted))
    stats.files_resolved = len(resolved)
    stats.timings["resolve"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    # The files parsed now get their row with what resolution left for them; the
    # others resolved again (or whose interface changed) get those two columns.
    write_files(conn, app_id, _file_rows(outcomes, version, resolved, iface, mtimes),
                stored_paths(conn, app_id, fresh))
    write_stats(conn, app_id, {p: m for p, m in touched.items() if p not in fresh})
    write_resolutions(
        conn, app_id,
        {p: orjson.dumps(resolved[p].to_dict()).decode() for p in again if p not in fresh},
        {p: iface.get(p) for p in iface.computed
         if p not in fresh and p not in deleted and iface.get(p) != old_iface.get(p)})
    stats.timings["store_files"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    counts = None
    if scope is not None:
        # Only the rows of the files that may have changed are rebuilt and diffed.
        part = resolved | _stored_resolutions(conn, app_id, resolver, scope - set(resolved))
        counts = sync_graph(conn, app_id, resolver.finish(part, only=scope), scope,
                            rerank=bool(deleted))
        stats.files_synced = len(scope)
    if counts is None:  # the whole graph (a wide change)
        everything = resolved | _stored_resolutions(
            conn, app_id, resolver, set(resolver.table.files) - set(resolved))
        counts = sync_graph(conn, app_id, resolver.finish(everything))
        stats.files_synced = len(resolver.table.files) + len(deleted)
    if on_synced is not None and counts.touched:
        on_synced(conn, app_id, counts.touched)
    stats.timings["sync"] = round(time.perf_counter() - t0, 3)
    if progress:
        progress("resolve", 1, 1)
    mark_indexed(conn, app_id)
    stats.nodes_by_kind, stats.edges_by_kind = count_by_kind(conn, app_id)
    return counts


class Interfaces(dict[str, list[str]]):
    """Interfaces (path -> entries) of the files in ``computed``; those of the other
    files did not change (see :func:`_interfaces`)."""

    computed: set[str]


def _structural(outcomes: list[FileOutcome], deleted: list[str]) -> bool:
    """Whether a changed file is in a language whose types are matched structurally
    (Go): which types implement an interface then depends on no name either mentions."""
    structural = {s.name for s in languages().values() if s.structural_typing}
    return any(o.lang in structural for o in outcomes) or any(
        (spec := spec_for_path(p)) is not None and spec.name in structural for p in deleted)


def _interfaces(conn: Connection, app_id: int, resolver: Resolver, changed: set[str],
                old_iface: dict[str, list[str]], parents: set[str], every: bool
                ) -> Interfaces:
    """The interfaces that may differ from the stored ones, and those stored ones (added
    to ``old_iface``). With ``every``, or when a stored file lacks one, every file's.

    Otherwise from the changed files outwards: a file's interface (its nodes' keys,
    parents, members, ancestors and their members) changes only through a definition
    whose name it mentions (its own definitions, its bases, its parents' names are in its
    ``ref_names``) or through a node of a changed file whose parent it holds. So the files
    that mention a name whose entries changed are computed next, until no entry changes
    (a base's base changes its subclasses' entries, which names them in turn)."""
    scopes = resolver.scopes
    table = resolver.table
    out = Interfaces()
    if every or interfaces_missing(conn, app_id):
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
        old_iface.update(read_interfaces(conn, app_id, todo - changed))
        out.update(interfaces(scopes, only=todo))
        out.computed |= todo
        names: set[str] = set()
        for path in todo:
            names |= changed_names(old_iface.get(path), out.get(path))
        names -= seen_names
        seen_names |= names
        frontier = referring_files(conn, app_id, names) - out.computed if names else set()
    return out


def _resolve(conn: Connection, app_id: int, results: list[ParseResult], fresh: set[str],
             deleted: set[str], old_iface: dict[str, list[str]], parents: set[str],
             full: bool, every_iface: bool
             ) -> tuple[Resolver, dict[str, FileResolution], Interfaces, set[str],
                        set[str] | None]:
    """Resolve again only the imports and calls of the files that need it; returns the
    resolver, the fresh resolutions (path -> result), the interfaces that may have
    changed (:func:`_interfaces`), the paths resolved again that were not parsed in this
    run, and the files whose graph rows may have changed (None: any may have).

    A file is resolved again when it changed (parsed or deleted in this run), when what
    it exposes to other files changed (its interface, e.g. a key renumbered or a base
    class resolved elsewhere because of another file), when it refers to a name whose
    definition changed anywhere, or when it has no stored result. The rows of every other
    file stay as they are (what they are made of did not change), but for ENDPOINT
    promotion, which a registration in one file makes on a handler in another (hence
    the files of the promoted nodes, when promotion changed), and for a resolution that
    adds edges from another file's nodes (its ``foreign`` files go with it)."""
    resolver = Resolver(results)
    changed = fresh | deleted
    iface = _interfaces(conn, app_id, resolver, changed, old_iface, parents, every_iface)
    names: set[str] = set()
    redo = set(changed)
    for path in iface.computed:
        diff = changed_names(old_iface.get(path), iface.get(path))
        if diff:
            names |= diff
            redo.add(path)
    state = read_graph_state(conn, app_id)
    wide = full or EVERYTHING in names or not isinstance(state.get("endpoints"), dict)
    again: set[str] = set()
    for path, again_, data in read_resolution_inputs(conn, app_id, wide=wide, redo=redo,
                                                     names=names, skip=fresh, stored=False):
        scope = resolver.table.files.get(path)
        if scope is None or not again_:
            continue
        redo.add(path)
        again.add(path)
        if data is not None:
            scope.result.calls = [Call(**c) for c in orjson.loads(data)]
    redo &= set(resolver.table.files)
    resolved = resolver.resolve_files(redo)

    # per file, a digest of what ENDPOINT promotion made of its nodes
    by_file: dict[str, list[Any]] = defaultdict(list)
    for key, value in sorted(resolver.endpoints().items()):
        by_file[value[0]].append([key, *value[1:]])
    endpoints = {path: hashlib.blake2b(orjson.dumps(items), digest_size=8).hexdigest()
                 for path, items in by_file.items()}
    foreign: dict[str, list[str]] = dict(state.get("foreign") or {})
    for path in changed | redo:
        foreign.pop(path, None)
    for path, res in resolved.items():
        if (others := resolver.foreign_paths(path, res)):
            foreign[path] = others
    scope_paths: set[str] | None = None
    if not wide:
        scope_paths = changed | redo
        old_endpoints = state.get("endpoints") or {}
        scope_paths |= {p for p in set(endpoints) | set(old_endpoints)
                        if endpoints.get(p) != old_endpoints.get(p)}
        grown = True
        while grown:  # a foreign resolution and the files it adds edges from go together
            grown = False
            for path, others in foreign.items():
                if (path in scope_paths or scope_paths.intersection(others)) \
                        and not scope_paths.issuperset([path, *others]):
                    scope_paths |= {path, *others}
                    grown = True
    write_graph_state(conn, app_id, {"endpoints": endpoints, "foreign": foreign})
    return resolver, resolved, iface, again, scope_paths


def _stored_resolutions(conn: Connection, app_id: int, resolver: Resolver,
                        paths: Iterable[str]) -> dict[str, FileResolution]:
    return {path: FileResolution.from_dict(orjson.loads(data))
            for path, data in read_resolutions(conn, app_id, paths)
            if path in resolver.table.files}
