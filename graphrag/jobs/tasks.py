"""The queue's tasks, registered on a procrastinate ``App`` by :func:`register_tasks`.

- ``graphrag.index``: index a folder (graph, documents, chunk planning), then its stages
  through stage batches; ``graphrag.repo``: fetch a repository and index it when its
  commit changed; ``graphrag.ingest``: ingest documents. These hold the application's
  lock (``app:NAME``): one at a time per application, whatever the number of workers.
- ``graphrag.stages``: claim one batch of an application's pending chunks and run their
  stages (:func:`graphrag.pipeline.runner.run_claimed_batch`). An indexing job defers one
  per batch, then claims batches itself until none is left, so with one worker the
  queue costs what inline indexing costs and with N workers the batches spread.
- ``graphrag.finish``: the rest of an indexing job whose worker was asked to stop.
- ``graphrag.schedule``: a procrastinate periodic task, every minute; it defers the runs
  of the repositories whose cron schedule matches. procrastinate defers each tick once
  (a unique row per tick), so each scheduled run happens once however many workers run.

Each attempt of a job is recorded in ``job_attempts`` (worker, times, error, result).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from procrastinate import App, BaseRetryStrategy, JobContext, RetryDecision
from procrastinate.exceptions import AlreadyEnqueued, JobAborted
from procrastinate.jobs import Job
from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.db.context import AppContext, resolve_context
from graphrag.documents.service import finalize_documents
from graphrag.errors import UserError
from graphrag.graph.request import IndexRequest
from graphrag.jobs import repos, store
from graphrag.jobs.settings import INDEX_QUEUE, STAGES_QUEUE, QueueSettings
from graphrag.jobs.sources import SourceError, checkout_dir, fetch, head_commit
from graphrag.pipeline.runner import PipelineStats, follow_model, run_claimed_batch
from graphrag.pipeline.store import count_selectable

# Set when the worker is asked to stop (SIGTERM, SIGINT): a job draining stage batches
# finishes its current batch and hands the rest over instead of holding the shutdown.
STOPPING = threading.Event()
STAGE_PRIORITY = 10  # an application in flight finishes before the next one starts
WAIT_FOR_OTHERS_S = 0.2


@dataclass(frozen=True)
class Runtime:
    """What every task of one worker process shares."""

    settings: Settings
    engine: Engine
    queue: QueueSettings
    worker: str

    def context(self, app: str) -> AppContext:
        """The service context of one task for application ``app`` (resolved once)."""
        return resolve_context(self.engine, self.settings, app)


def _runtime(context: JobContext) -> Runtime:
    return context.additional_context["graphrag"]


class RetryUnlessUserError(BaseRetryStrategy):
    """Retry unexpected failures (lost database, a bug, a crash) with a growing wait, up to
    ``max_attempts`` runs; a user error (bad source, missing ref, unknown application,
    refused mass delete) is recorded at once: running it again would fail the same way."""

    def __init__(self, max_attempts: int, wait_s: float = 5.0) -> None:
        self.max_attempts = max_attempts
        self.wait_s = wait_s

    def get_retry_decision(self, *, exception: BaseException, job: Job
                           ) -> RetryDecision | None:
        if isinstance(exception, UserError) or job.attempts + 1 >= self.max_attempts:
            return None
        return RetryDecision(retry_in={"seconds": self.wait_s * 2 ** job.attempts})


def error_line(exc: BaseException) -> str:
    """One line for a job's error: our own errors as they read, others with their type."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    line = first if isinstance(exc, UserError) else f"{type(exc).__name__}: {first}"
    return line[:1000]


@contextmanager
def _recorded(context: JobContext) -> Iterator[dict[str, Any]]:
    """Record the attempt in ``job_attempts``; the caller puts its result in the dict."""
    rt = _runtime(context)
    job_id, attempt = int(context.job.id or 0), context.job.attempts + 1
    store.begin_attempt(rt.engine, job_id, attempt, rt.worker)
    box: dict[str, Any] = {}
    try:
        yield box
    except BaseException as exc:
        store.end_attempt(rt.engine, job_id, attempt, "failed", error_line(exc),
                          box.get("result"))
        raise
    store.end_attempt(rt.engine, job_id, attempt, "succeeded", None, box.get("result"))


def _merge(total: PipelineStats, batch: PipelineStats) -> None:
    total.chunks += batch.chunks
    total.batches += batch.batches
    total.stale += batch.stale
    for stage, counts in batch.stages.items():
        for outcome, n in counts.items():
            total.count(stage, outcome, n)


def _pending(ctx: AppContext) -> int:
    with ctx.engine.connect() as conn:
        return count_selectable(conn, ctx.app_id, False)


def drain(context: JobContext, app_name: str) -> PipelineStats:
    """Claim and run batches of the application's pending chunks until none is left
    (waiting for batches other workers hold), or until the worker is asked to stop;
    ``jobs cancel`` aborts between batches."""
    rt = _runtime(context)
    ctx = rt.context(app_name)
    started = time.perf_counter()
    total = PipelineStats(app=app_name)
    while not STOPPING.is_set():
        if context.should_abort():
            raise JobAborted(f"job {context.job.id} cancelled")
        batch = run_claimed_batch(ctx, batch_size=rt.queue.stage_batch)
        if batch.chunks:
            _merge(total, batch)
            continue
        if _pending(ctx) == 0:
            break
        time.sleep(WAIT_FOR_OTHERS_S)  # the rest is claimed by other workers
    total.total = total.chunks
    total.duration_s = time.perf_counter() - started
    return total


def _queued_stages(context: JobContext, app_name: str, commit: str | None) -> PipelineStats:
    """The stage runner of a queued index: one stage-batch job per batch but one (this
    job claims batches too), then drain."""
    rt = _runtime(context)
    ctx = rt.context(app_name)
    follow_model(rt.engine, rt.settings, ctx.app_id, None, None)
    helpers = math.ceil(_pending(ctx) / rt.queue.stage_batch) - 1
    if helpers > 0:
        deferrer = context.app.configure_task("graphrag.stages", queue=STAGES_QUEUE,
                                              priority=STAGE_PRIORITY)
        deferrer.batch_defer(*[{"app": app_name, "commit": commit}] * helpers)
    return drain(context, app_name)


def _handed_over(context: JobContext, app_name: str, started: float,
                 repo_id: int | None, commit: str | None) -> bool:
    """After a drain: when the worker is stopping with work left, defer ``finish`` to
    complete the run elsewhere (or after a restart) and say so."""
    rt = _runtime(context)
    if not STOPPING.is_set() or _pending(rt.context(app_name)) == 0:
        return False
    context.app.configure_task("graphrag.finish", queue=INDEX_QUEUE,
                               lock=f"app:{app_name}").defer(
        app=app_name, started=started, repo_id=repo_id, commit=commit)
    return True


# -- task bodies -------------------------------------------------------------------------


def index_task(context: JobContext, **payload: Any) -> None:
    """``graphrag index PATH --app NAME --queue``; ``payload``: the request's job form
    (:meth:`~graphrag.graph.request.IndexRequest.to_job`)."""
    from graphrag.indexing import run_index

    request = IndexRequest.from_job(payload)
    with _recorded(context) as box:
        rt = _runtime(context)
        started = time.time()
        result = run_index(rt.engine, rt.settings, request,
                           stage_runner=lambda name: _queued_stages(context, name, None))
        result["handed_over"] = _handed_over(context, request.application, started, None,
                                             None)
        box["result"] = _summary(result)


def ingest_task(context: JobContext, app: str, paths: list[str],
                metadata: dict[str, Any] | None = None, category: str | None = None,
                tags: list[str] | None = None, force: bool = False) -> None:
    """Ingest documents (paths readable by the worker) into ``app``."""
    from graphrag.ingesting import ingest_files

    with _recorded(context) as box:
        rt = _runtime(context)
        started = time.time()
        result = ingest_files(rt.engine, rt.settings, app, [Path(p) for p in paths],
                              metadata=metadata, category=category, tags=tags or (),
                              force=force,
                              stage_runner=lambda name: _queued_stages(context, name, None))
        result["handed_over"] = _handed_over(context, app, started, None, None)
        box["result"] = _summary(result)


def repo_task(context: JobContext, app: str, trigger: str = "manual") -> None:
    """Fetch the application's repository and index it when its commit changed."""
    from graphrag.indexing import run_index

    with _recorded(context) as box:
        rt = _runtime(context)
        with rt.engine.connect() as conn:
            repo = repos.get_repository(conn, app)
        started = time.time()
        repos.record_start(rt.engine, repo.id, int(context.job.id or 0))
        try:
            if repo.is_local:
                root, commit = Path(repo.source), None
                if not root.is_dir():
                    raise SourceError(f"{repo.source}: folder not found")
            else:
                root = checkout_dir(rt.settings.home, repo.id, app)
                commit = fetch(repo.source, repo.ref, root)
            if commit is not None and commit == repo.last_commit:
                repos.record_outcome(rt.engine, repo.id, "unchanged",
                                     duration_s=time.time() - started, commit=commit)
                box["result"] = {"trigger": trigger, "commit": commit, "unchanged": True}
                return
            request = IndexRequest.of(root, app, include=repo.include, exclude=repo.exclude)
            result = run_index(rt.engine, rt.settings, request,
                               stage_runner=lambda name: _queued_stages(context, name, commit))
            result.update(trigger=trigger, commit=commit)
            result["handed_over"] = _handed_over(context, app, started, repo.id, commit)
            if not result["handed_over"]:
                repos.record_outcome(rt.engine, repo.id, "succeeded", commit=commit,
                                     duration_s=time.time() - started)
            box["result"] = _summary(result)
        except BaseException as exc:
            repos.record_outcome(rt.engine, repo.id, "failed", error=error_line(exc),
                                 duration_s=time.time() - started)
            raise


def finish_task(context: JobContext, app: str, started: float, repo_id: int | None = None,
                commit: str | None = None) -> None:
    """The rest of a run whose worker stopped: drain the stages, settle documents and
    the repository's run."""
    with _recorded(context) as box:
        rt = _runtime(context)
        stats = drain(context, app)
        if _handed_over(context, app, started, repo_id, commit):
            box["result"] = {"pipeline": stats.to_dict(), "handed_over": True}
            return
        finalize_documents(rt.context(app))
        if repo_id is not None:
            repos.record_outcome(rt.engine, repo_id, "succeeded", commit=commit,
                                 duration_s=time.time() - started)
        box["result"] = {"pipeline": stats.to_dict(), "handed_over": False}


def stages_task(context: JobContext, app: str, commit: str | None = None) -> None:
    """Claim one batch of the application's pending chunks and run its stages."""
    with _recorded(context) as box:
        rt = _runtime(context)
        ctx = rt.context(app)
        root = _root_for_batch(rt, ctx, commit)
        stats = run_claimed_batch(ctx, batch_size=rt.queue.stage_batch, root_path=root)
        box["result"] = stats.to_dict()


def _root_for_batch(rt: Runtime, ctx: AppContext, commit: str | None) -> str | None:
    """Where this worker reads the application's files (extract-snippet): the recorded
    root when it is here; for a repository run on a machine without it, this machine's
    checkout brought to the commit being indexed."""
    app = ctx.app_name
    root = ctx.app.root_path
    if commit is None or (root and head_commit(Path(root)) == commit):
        return None
    if _pending(ctx) == 0:
        return None  # nothing left to claim: do not touch any checkout
    with rt.engine.connect() as conn:
        repo = repos.get_repository(conn, app)
    if repo.is_local:
        return None
    local = checkout_dir(rt.settings.home, repo.id, app)
    if head_commit(local) != commit:
        fetch(repo.source, commit, local)
    return str(local)


def schedule_task(context: JobContext, timestamp: int) -> None:
    """Every minute: defer the runs of the repositories whose schedule matches."""
    with _recorded(context) as box:
        rt = _runtime(context)
        at = datetime.fromtimestamp(timestamp, UTC)
        deferred = {}
        for app in repos.due_repositories(rt.engine, at):
            deferred[app] = enqueue_repo_run(context.app, app, "schedule")
        box["result"] = {"at": at.isoformat(), "deferred": deferred}


def enqueue_repo_run(app: App, app_name: str, trigger: str) -> int | None:
    """Defer a run of the repository; None when one is already waiting (its queueing
    lock: a schedule firing while a manual run waits adds nothing)."""
    try:
        return app.configure_task("graphrag.repo", queue=INDEX_QUEUE,
                                  lock=f"app:{app_name}",
                                  queueing_lock=f"repo:{app_name}").defer(
            app=app_name, trigger=trigger)
    except AlreadyEnqueued:
        return None


def _summary(result: dict[str, Any]) -> dict[str, Any]:
    """The job's recorded result: counts, not the per-file error lists."""
    out = dict(result)
    graph = out.get("graph")
    if isinstance(graph, dict):
        out["graph"] = {k: v for k, v in graph.items() if k not in ("errors",)}
        out["graph"]["errors"] = len(graph.get("errors") or [])
    return out


def register_tasks(app: App, queue: QueueSettings) -> None:
    """Put graphrag's tasks (and the schedule's periodic task) on ``app``."""
    retry = RetryUnlessUserError(queue.max_attempts)
    for name, fn, queue_name in (
        ("graphrag.index", index_task, INDEX_QUEUE),
        ("graphrag.ingest", ingest_task, INDEX_QUEUE),
        ("graphrag.repo", repo_task, INDEX_QUEUE),
        ("graphrag.finish", finish_task, INDEX_QUEUE),
        ("graphrag.stages", stages_task, STAGES_QUEUE),
    ):
        app.task(name=name, queue=queue_name, pass_context=True, retry=retry)(fn)
    tick = app.task(name="graphrag.schedule", queue=INDEX_QUEUE,
                    pass_context=True)(schedule_task)
    app.periodic(cron="* * * * *", periodic_id="repositories")(tick)

