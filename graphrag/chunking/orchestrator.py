"""build_chunks: the paged chunk orchestrator.

Nodes are read in ascending id order with keyset pagination, a page's outgoing edges in
one query, each node planned by the strategy, plans saved in batches of 1000. A node whose
plan fails and a batch whose save fails are recorded and counted; the run goes on and its
status (succeeded / partial / failed) tells."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import psycopg
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from graphrag.chunking.context import ChildRow, PageContext
from graphrag.chunking.plan import ChunkPlan, EdgeRow, NodeRow, StageLists
from graphrag.chunking.request import ChunkBuildRequest
from graphrag.chunking.run_store import MAX_ERRORS, ChunkRunStore
from graphrag.chunking.strategies import ChunkStrategy, get_strategy
from graphrag.chunking.tokens import TokenCounter, model_token_counter
from graphrag.chunking.writer import ChunkWriter, SaveResult, refresh_graph_statistics
from graphrag.config import Settings
from graphrag.db.apps import Application, get_app
from graphrag.db.context import AppContext
from graphrag.graph import store as graph_store
from graphrag.kinds import DOCUMENT_KINDS
from graphrag.progress import Progress

log = logging.getLogger(__name__)

_NODE_COLUMNS = ("id, kind, name, fqn, package_name, file_path, lang, line_start, line_end,"
                 " char_start, char_end, signature, doc_comment, parent_id, content_hash,"
                 " rank, meta")


@dataclass
class ChunkStats:
    """What a build did (processed nodes, written and skipped
    chunks, pages, duration, rate; plus deletions and failures); ``to_dict`` spells the
    names in snake_case like every other output and the ``chunk_runs`` columns."""

    run_id: int | None = None
    status: str = "running"
    total_nodes: int = 0
    processed_nodes: int = 0
    written_chunks: int = 0
    skipped_chunks: int = 0
    deleted_chunks: int = 0
    failed_nodes: int = 0
    failed_batches: int = 0
    pages: int = 0
    duration: float = 0.0
    rate: float = 0.0
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "status": self.status, "total_nodes": self.total_nodes,
            "processed_nodes": self.processed_nodes, "written_chunks": self.written_chunks,
            "skipped_chunks": self.skipped_chunks, "deleted_chunks": self.deleted_chunks,
            "failed_nodes": self.failed_nodes, "failed_batches": self.failed_batches,
            "pages": self.pages, "duration": round(self.duration, 3),
            "rate": round(self.rate, 1), "errors": self.errors,
        }

    def record_error(self, error: dict[str, Any]) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(error)




def build_chunks(engine: Engine, request: ChunkBuildRequest,
                 progress: Progress | None = None,
                 settings: Settings | None = None, *, stages: StageLists) -> ChunkStats:
    """Plan and save the chunks of ``request.application``'s nodes; return the statistics.
    Token counts and budgets use the embedding model of ``settings`` (default: the
    environment's), the one the embed stage loads. ``stages``: each chunk target's stage
    list (``graphrag.pipeline.registry.stage_lists()``), recorded in the plans.

    User errors (unknown application, strategy or kind; bad numbers) are raised before a
    run record is created or anything is written."""
    _checked(request, settings)  # a bad request is reported before an unknown application
    with engine.connect() as conn:
        app = get_app(conn, request.application)
    return _build(engine, app, request, progress, settings, stages)


def plan_chunks(ctx: AppContext, request: ChunkBuildRequest,
                progress: Progress | None = None, *, stages: StageLists) -> ChunkStats:
    """:func:`build_chunks` for the context's application (``request.application`` is
    its name)."""
    return _build(ctx.engine, ctx.app, request, progress, ctx.settings, stages)


def _build(engine: Engine, app: Application, request: ChunkBuildRequest,
           progress: Progress | None, settings: Settings | None,
           stages: StageLists) -> ChunkStats:
    kinds, strategy = _checked(request, settings)
    with engine.connect() as conn:
        total = graph_store.count_nodes(conn, app.id, kinds)
    limit = request.limit_nodes
    stats = ChunkStats(total_nodes=total if limit is None else min(total, limit))
    refresh_graph_statistics(engine, total)
    store = ChunkRunStore(engine)
    if not request.dry_run:  # a dry run writes nothing, not even its run record
        stats.run_id = store.create(app.id, request.strategy,
                                    {**request.to_json(), "stages": _lists(stages)})
    started = time.perf_counter()
    try:
        _run(engine, ChunkWriter(engine, app.id, stages), request, app.root_path, kinds,
             strategy, stats, progress, settings)
    except BaseException as exc:
        stats.status = "failed"
        stats.record_error({"error": f"{type(exc).__name__}: {exc}"})
        raise
    else:
        stats.status = _status(stats)
    finally:
        stats.duration = time.perf_counter() - started
        stats.rate = stats.processed_nodes / stats.duration if stats.duration > 0 else 0.0
        if stats.run_id is not None:
            store.finish(stats.run_id, stats.to_dict(), stats.errors)
    return stats


def _lists(stages: StageLists) -> dict[str, list[str]]:
    """The stage lists as the run record keeps them (``last_full_run_ok`` compares)."""
    return {target: list(names) for target, names in stages.items()}


def _checked(request: ChunkBuildRequest, settings: Settings | None
             ) -> tuple[tuple[str, ...] | None, ChunkStrategy]:
    """The request's node kinds and strategy; raises on a bad request."""
    request.validate()
    return request.kinds(), get_strategy(request.strategy, request.token_budget, settings)


def _status(stats: ChunkStats) -> str:
    if not (stats.failed_nodes or stats.failed_batches):
        return "succeeded"
    if stats.failed_nodes >= stats.processed_nodes or (
            stats.written_chunks + stats.skipped_chunks == 0):
        return "failed"
    return "partial"


def _run(engine: Engine, writer: ChunkWriter, request: ChunkBuildRequest,
         root_path: str | None, kinds: tuple[str, ...] | None, strategy: ChunkStrategy,
         stats: ChunkStats, progress: Progress | None, settings: Settings | None) -> None:
    app_id = writer.application_id
    # Document units are always planned by the page strategy, whatever the run's strategy.
    documents = (get_strategy("page", settings=settings) if request.strategy != "page"
                 else strategy)
    counter = _RunCounter(settings)
    with _Flusher(writer, stats) as flusher, engine.connect() as reader:
        for nodes in _pages(reader, app_id, kinds, request.page_size, request.limit_nodes):
            stats.pages += 1
            ids = [n.id for n in nodes]
            edges = _load_edges(reader, ids) if request.with_edges_relations else {}
            page = PageContext(root_path, ids, lambda ids: _load_children(reader, app_id, ids),
                               counter=counter)
            for node in nodes:
                stats.processed_nodes += 1
                planner = documents if node.kind in DOCUMENT_KINDS else strategy
                plans = _plan_node(planner, node, edges.get(node.id, []), page, stats)
                if plans is None:
                    continue
                if request.dry_run:
                    stats.skipped_chunks += len(plans)
                    continue
                writer.add(node.id, plans)
                if writer.full:
                    flusher.submit()
            reader.commit()  # end the page's read transaction; nothing stays open
            if progress is not None:
                progress("chunk", stats.processed_nodes, stats.total_nodes)
        flusher.submit()


class _RunCounter:
    """The token counter, looked up on first use and then kept for the run: the lookup
    reads the settings and checks the model's files, which cost more than the counting
    when done per node (a strategy that counts nothing never looks it up)."""

    def __init__(self, settings: Settings | None) -> None:
        self._settings = settings
        self._counter: TokenCounter | None = None

    def __call__(self) -> TokenCounter:
        if self._counter is None:
            self._counter = model_token_counter(self._settings)
        return self._counter


def _plan_node(strategy: ChunkStrategy, node: NodeRow, edges: list[EdgeRow],
               page: PageContext, stats: ChunkStats) -> list[ChunkPlan] | None:
    """The node's plans; None when the strategy failed on it (logged, counted, skipped)."""
    try:
        return strategy.build_chunks(node, edges, page)
    # Any strategy error is bad input for one node: the contract is that it never stops the
    # run; the node is counted and its first errors are kept in the run record.
    except Exception as exc:  # noqa: BLE001
        stats.failed_nodes += 1
        stats.record_error({"node_id": node.id, "fqn": node.fqn,
                            "error": f"{type(exc).__name__}: {exc}"})
        log.warning("chunk plan failed for node %s (%s): %s", node.id, node.fqn, exc)
        return None


class _Flusher:
    """Saves batches on one background thread so that planning (Python) and saving (the
    database) overlap; at most one batch is in flight, so memory stays bounded. Results
    are applied to the statistics on the calling thread only."""

    def __init__(self, writer: ChunkWriter, stats: ChunkStats) -> None:
        self.writer = writer
        self.stats = stats
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chunk-writer")
        self._pending: Future | None = None

    def __enter__(self) -> _Flusher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.wait()
        finally:
            self._pool.shutdown(wait=True)

    def submit(self) -> None:
        nodes, plans = self.writer.take()
        self.wait()
        if nodes:
            self._pending = self._pool.submit(self._save, nodes, plans)

    def wait(self) -> None:
        if self._pending is None:
            return
        pending, self._pending = self._pending, None
        outcome = pending.result()
        if isinstance(outcome, SaveResult):
            self.stats.written_chunks += outcome.written
            self.stats.skipped_chunks += outcome.skipped
            self.stats.deleted_chunks += outcome.deleted
            return
        self.stats.failed_batches += 1
        self.stats.record_error(outcome)

    def _save(self, nodes: list[int], plans: list[ChunkPlan]) -> SaveResult | dict[str, Any]:
        try:
            return self.writer.save(nodes, plans)
        except (SQLAlchemyError, psycopg.Error) as exc:  # the writer COPYs on the raw driver
            log.warning("chunk batch save failed (%d plans): %s", len(plans), exc)
            return {"batch": {"first_node": nodes[0], "last_node": nodes[-1],
                              "plans": len(plans)},
                    "error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}


def _pages(conn: Connection, app_id: int, kinds: tuple[str, ...] | None, page_size: int,
           limit: int | None) -> Iterator[list[NodeRow]]:
    """Pages of nodes in ascending id order (keyset pagination in the nodes store)."""
    for rows in graph_store.node_pages(conn, app_id, kinds, _NODE_COLUMNS, page_size, limit):
        yield [NodeRow(**r._mapping) for r in rows]


def _load_edges(conn: Connection, ids: list[int]) -> dict[int, list[EdgeRow]]:
    """Outgoing edges of every node of the page, in one query (no N+1), in edge order."""
    out: dict[int, list[EdgeRow]] = {}
    for n in sorted(graph_store.neighbours(conn, ids, direction="out", far=False),
                    key=lambda n: (n.this_id, n.edge_id)):
        out.setdefault(n.this_id, []).append(
            EdgeRow(n.this_id, n.node_id, n.edge_kind, n.confidence, n.lines))
    return out


def _load_children(conn: Connection, app_id: int, ids: list[int]) -> list[ChildRow]:
    return [ChildRow(*r) for r in graph_store.children(conn, app_id, ids)]
