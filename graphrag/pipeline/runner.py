"""The stage runner: fills pending chunks, batch after batch, in priority order.

For each batch (chunks ordered by priority DESC, id) the runner advances every chunk
through its plan's stages in order. It works in waves: each wave groups the chunks by
their next runnable stage and hands each group to that stage at once, so the embed stage
encodes a whole batch in one call. A stage's failure on a chunk is recorded in
``stage_state`` (status, error, attempts, at) and blocks that chunk's later stages; the
other chunks go on. The batch's results and states are written in one transaction, on a
second connection while the next batch's stages run (the stages read the graph, never
another batch's results; at most one batch is being written), so killing the process
loses at most the two batches in flight, which the next run redoes.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.db.context import AppContext
from graphrag.db.vectors import switch_model
from graphrag.embedding import Embedder, model_identity
from graphrag.errors import ModelUnavailable
from graphrag.pipeline import registry
from graphrag.pipeline.model import StageContext, StageResult, WorkItem
from graphrag.pipeline.store import count_by_stage, count_selectable, fetch_batch, write_batch
from graphrag.pipeline.terms import compact_term_stats
from graphrag.progress import Progress

DEFAULT_BATCH_SIZE = 128
# Batches written between two folds of the BM25 statistics' deltas during a run
FOLD_EVERY = 8
# ``stage_progress(stage, chunks through it, its total)``; ``progress("pipeline", done, total)``
StageProgress = Progress
StageState = dict[str, dict[str, Any]]
# Runs the pending stages of the named application (inline: run_pipeline; the job queue
# spreads them over its workers)
StageRunner = Callable[[str], "PipelineStats"]


@dataclass
class PipelineStats:
    """What a run did: chunks visited, per-stage outcomes, stale writes dropped, time."""

    app: str
    total: int = 0
    chunks: int = 0
    batches: int = 0
    stale: int = 0
    stages: dict[str, dict[str, int]] = field(default_factory=dict)
    duration_s: float = 0.0
    # Wall seconds by part of the run: each stage, and reading/writing the batches
    # (``write``: the time the run waited for its writes).
    timings: dict[str, float] = field(default_factory=dict)
    # Wall seconds the batch writes took in all (most of it beside the next batch's stages)
    write_busy_s: float = 0.0

    def count(self, stage: str, outcome: str, n: int = 1) -> None:
        if n:
            bucket = self.stages.setdefault(stage, {"done": 0, "skipped": 0, "failed": 0})
            bucket[outcome] += n

    def timed(self, part: str, seconds: float) -> None:
        self.timings[part] = self.timings.get(part, 0.0) + seconds

    @property
    def failed(self) -> int:
        return sum(s["failed"] for s in self.stages.values())

    @property
    def rate(self) -> float:
        return self.chunks / self.duration_s if self.duration_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"app": self.app, "total": self.total, "chunks": self.chunks,
                "batches": self.batches, "stale": self.stale, "failed": self.failed,
                "stages": self.stages, "duration_s": round(self.duration_s, 3),
                "rate": round(self.rate, 2),
                "timings": {k: round(v, 3) for k, v in self.timings.items()},
                "write_busy_s": round(self.write_busy_s, 3)}


def next_stage(stages: Sequence[str], state: StageState, ran: set[str],
               only: frozenset[str] | None, retry_failed: bool) -> str | None:
    """The chunk's first stage not done yet, if it may run now (else None)."""
    for name in stages:
        status = (state.get(name) or {}).get("status")
        if status == "done":
            continue
        if name in ran or (status == "failed" and not retry_failed):
            return None  # a failed stage blocks the stages after it
        if only is not None and name not in only:
            return None
        return name
    return None


def is_pending(stages: Sequence[str], state: StageState) -> bool:
    """True while some stage is neither done nor blocked by a failed earlier stage."""
    for name in stages:
        status = (state.get(name) or {}).get("status")
        if status != "done":
            return status != "failed"
    return False


def _record(state: StageState, stage: str, error: str | None) -> None:
    previous = state.get(stage) or {}
    state[stage] = {
        "status": "failed" if error else "done", "error": error,
        "attempts": int(previous.get("attempts") or 0) + 1,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _run_stage(name: str, group: list[WorkItem], ctx: StageContext) -> StageResult:
    if not registry.has_stage(name):
        return StageResult(failed={i.id: f"unknown stage {name!r}" for i in group})
    before = {i.id: dict(i.changes) for i in group}
    result = registry.get_stage(name).run(group, ctx)
    for item in group:
        if item.id in result.failed:  # drop what the failing stage half-wrote
            item.changes = before[item.id]
    return result


def _stage_order(names: Iterable[str]) -> list[str]:
    canonical = {n: i for i, n in enumerate(registry.stage_names())}
    return sorted(names, key=lambda n: (canonical.get(n, len(canonical)), n))


def run_batch(items: list[WorkItem], ctx: StageContext, only: frozenset[str] | None,
              retry_failed: bool, stats: PipelineStats,
              on_stage: Callable[[str], None] | None = None) -> dict[int, StageState]:
    """Advance every chunk of the batch as far as it can go; returns the new states.
    ``on_stage(name)`` is called after each stage's group ran (progress)."""
    states = {i.id: dict(i.row.get("stage_state") or {}) for i in items}
    ran: dict[int, set[str]] = {i.id: set() for i in items}
    while True:
        groups: dict[str, list[WorkItem]] = defaultdict(list)
        for item in items:
            name = next_stage(item.stages, states[item.id], ran[item.id], only, retry_failed)
            if name is not None:
                groups[name].append(item)
        if not groups:
            return states
        for name in _stage_order(groups):
            t0 = time.perf_counter()
            result = _run_stage(name, groups[name], ctx)
            stats.timed(name, time.perf_counter() - t0)
            for item in groups[name]:
                ran[item.id].add(name)
                _record(states[item.id], name, result.failed.get(item.id))
            stats.count(name, "failed", len(result.failed))
            stats.count(name, "skipped", len(result.skipped))
            stats.count(name, "done", len(groups[name]) - len(result.failed)
                        - len(result.skipped))
            if on_stage is not None:
                on_stage(name)


def checked_stages(stages: Sequence[str] | None) -> frozenset[str] | None:
    """The stages a run is limited to (None: all); an unknown name is a user error
    listing the valid ones."""
    if not stages:
        return None
    for name in stages:
        registry.get_stage(name)  # UnknownName lists the valid stages
    return frozenset(stages)


def follow_model(engine: Engine, settings: Settings, app_id: int,
                 only: frozenset[str] | None, embedder: Embedder | None) -> int:
    """Before a run that embeds: when the configured model (or backend) is not the one
    that made the application's vectors, queue its chunks for the embed stages again
    (see :func:`graphrag.db.vectors.switch_model`). Returns the chunks queued."""
    stages = registry.vector_stages()
    if only is not None and not only.intersection(stages):
        return 0
    if embedder is not None:
        identity = embedder.name
    else:
        try:
            identity = model_identity(settings)
        except ModelUnavailable:
            return 0  # no model: the embed stage reports it if any chunk needs one
    return switch_model(engine, app_id, identity, stages)


def run_pipeline(ctx: AppContext, stages: Sequence[str] | None = None,
                 limit: int | None = None, retry_failed: bool = False,
                 progress: Progress | None = None, *,
                 batch_size: int = DEFAULT_BATCH_SIZE, embedder: Embedder | None = None,
                 summarizer: Any = None, stage_progress: StageProgress | None = None,
                 ) -> PipelineStats:
    """Run the pending stages of an application's chunks; resumable at any point.

    ``stages`` restricts the run to those stage names (a chunk still runs them in plan
    order, and only once its earlier stages are done); ``limit`` caps the chunks visited;
    ``retry_failed`` runs failed stages again. ``progress("pipeline", done, total)`` is
    called after each batch; ``stage_progress(stage, done, total)`` after each stage's
    part of a batch, ``total`` being the chunks of this run that need that stage (a bar
    per stage, with an ETA). A run that embeds first re-queues the chunks embedded by another model
    (:func:`follow_model`): a change of model or backend re-embeds, never mixes.
    ``embedder``/``summarizer`` replace the configured ones (tests, benchmarks).
    """
    started = time.perf_counter()
    engine, settings, app, app_name = ctx.engine, ctx.settings, ctx.app, ctx.app_name
    only = checked_stages(stages)
    follow_model(engine, settings, app.id, only, embedder)
    with engine.connect() as conn:
        total = count_selectable(conn, app.id, retry_failed)
        stage_totals = count_by_stage(conn, app.id, retry_failed) if stage_progress else {}
    stats = PipelineStats(app=app_name, total=min(total, limit) if limit is not None else total)
    stage_ctx = StageContext(engine=engine, settings=settings, app_id=app.id,
                             app_name=app.name, root_path=app.root_path,
                             vector_stages=registry.vector_stages())
    stage_ctx.provide("embedder", embedder)
    stage_ctx.provide("summarizer", summarizer)
    after: tuple[int, int] | None = None
    settled = 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphrag-write") as writer:
        in_flight: Future[tuple[int, float]] | None = None

        def settle() -> None:
            """Wait for the batch being written; count it."""
            nonlocal in_flight, settled
            if in_flight is None:
                return
            t0 = time.perf_counter()
            written, busy = in_flight.result()
            stats.timed("write", time.perf_counter() - t0)
            stats.write_busy_s += busy
            stats.stale += in_flight_size - written
            settled += in_flight_size
            in_flight = None
            if progress is not None:
                progress("pipeline", settled, stats.total)

        while stats.chunks < stats.total:
            t0 = time.perf_counter()
            with engine.connect() as conn:
                items = fetch_batch(conn, app.id, after,
                                    min(batch_size, stats.total - stats.chunks), retry_failed)
            stats.timed("read", time.perf_counter() - t0)
            if not items:
                break
            after = (items[-1].row["priority"], items[-1].id)
            if in_flight is not None and in_flight.done():
                settle()  # a failed write stops the run before this batch's stages run
            def on_stage(name: str) -> None:
                if stage_progress is not None:
                    through = sum(stats.stages.get(name, {}).values())
                    stage_progress(name, through, max(stage_totals.get(name, 0), through))

            states = run_batch(items, stage_ctx, only, retry_failed, stats, on_stage)
            pending = {i.id: is_pending(i.stages, states[i.id]) for i in items}
            settle()
            # Folding the BM25 deltas every few batches (and at the end) keeps them short
            # for searches during the run at a fraction of a fold per batch.
            in_flight = writer.submit(_write, engine, app.id, items, states, pending,
                                      stats.batches % FOLD_EVERY == FOLD_EVERY - 1)
            in_flight_size = len(items)
            stats.chunks += len(items)
            stats.batches += 1
        settle()
    with engine.begin() as conn:
        # also what re-chunking deleted (their postings' statistics)
        compact_term_stats(conn, app.id)
    stats.duration_s = time.perf_counter() - started
    return stats


def _write(engine: Engine, app_id: int, items: list[WorkItem], states: dict[int, StageState],
           pending: dict[int, bool], fold: bool) -> tuple[int, float]:
    """One batch's results in one transaction: (rows written, seconds taken). ``fold``:
    also fold the BM25 statistics' deltas (:func:`compact_term_stats`)."""
    t0 = time.perf_counter()
    with engine.begin() as conn:
        written = write_batch(conn, items, states, pending)
        if fold:
            compact_term_stats(conn, app_id)
    return written, time.perf_counter() - t0


def run_claimed_batch(ctx: AppContext, *, batch_size: int = DEFAULT_BATCH_SIZE,
                      embedder: Embedder | None = None, summarizer: Any = None,
                      root_path: str | None = None) -> PipelineStats:
    """Claim up to ``batch_size`` pending chunks that no other process is working on, run
    their stages and write the results, all in one transaction (see ``claim`` in
    :func:`graphrag.pipeline.store.fetch_batch`).

    This is how many workers share one application's stages: each chunk's stage runs
    once however many claim at the same time, and a worker killed mid-batch loses its
    claim with its connection, so the chunks are claimed again (by anyone) and nothing
    is written twice. Returns the batch's statistics (``chunks == 0``: nothing was free).
    ``root_path`` replaces the application's recorded root (this machine's checkout).
    The caller runs :func:`follow_model` once before the batches of a run."""
    started = time.perf_counter()
    engine, app = ctx.engine, ctx.app
    stats = PipelineStats(app=app.name)
    stage_ctx = StageContext(engine=engine, settings=ctx.settings, app_id=app.id,
                             app_name=app.name, root_path=root_path or app.root_path,
                             vector_stages=registry.vector_stages())
    stage_ctx.provide("embedder", embedder)
    stage_ctx.provide("summarizer", summarizer)
    try:
        # Loaded (and the vector columns fitted to it) before the claim: changing the
        # columns' dimension must not wait for the rows this transaction locks.
        from graphrag.pipeline.stages.embed import run_embedder

        run_embedder(stage_ctx)
    except ModelUnavailable:
        pass  # the embed stage records it on each chunk that needs the model
    with engine.begin() as conn:
        items = fetch_batch(conn, app.id, None, batch_size, False, claim=True)
        if items:
            states = run_batch(items, stage_ctx, None, False, stats)
            pending = {i.id: is_pending(i.stages, states[i.id]) for i in items}
            written = write_batch(conn, items, states, pending)
            compact_term_stats(conn, app.id)
            stats.stale += len(items) - written
            stats.chunks = stats.total = len(items)
            stats.batches = 1
    stats.duration_s = time.perf_counter() - started
    return stats
