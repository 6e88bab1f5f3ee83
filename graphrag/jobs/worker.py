"""`graphrag worker`: a long-running process executing the queue's jobs.

Any number of workers, on any machines, share one database. procrastinate fetches jobs
with row locks (a job runs on one worker), keeps a heartbeat per worker, and defers each
periodic tick once. Beside procrastinate's loop, each worker looks for jobs whose worker
stopped sending heartbeats (SIGKILL, a crash, a lost machine) and hands them to the
queue again (``JobManager.get_stalled_jobs`` + ``retry_job``, procrastinate's recipe for
stalled jobs); after ``max_attempts`` runs such a job is recorded as failed. The stage
work a killed worker held is claimed again by anyone (its row locks went with its
connection), so the retry redoes only what was not committed.

SIGTERM or SIGINT: no new job is taken, the running one finishes (a job draining stage
batches finishes its batch and hands the rest over), then the worker exits.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
from collections.abc import Sequence

from procrastinate import App
from procrastinate.jobs import Status

from graphrag.config import Settings
from graphrag.db.engine import get_engine
from graphrag.jobs import repos, store
from graphrag.jobs.queue import STAGES_QUEUE, queue_app
from graphrag.jobs.settings import QueueSettings, load_queue_settings
from graphrag.jobs.tasks import STOPPING, Runtime

log = logging.getLogger("graphrag.worker")


async def _recover_stalled(app: App, rt: Runtime) -> None:
    """Every third of the stalled timeout: retry the jobs of workers without heartbeat."""
    period = max(rt.queue.stalled_after / 3, 0.5)
    while True:
        await asyncio.sleep(period)
        try:
            stalled = await app.job_manager.get_stalled_jobs(
                seconds_since_heartbeat=rt.queue.stalled_after)
            for job in stalled:
                await asyncio.to_thread(store.mark_lost, rt.engine, int(job.id or 0))
                if job.attempts + 1 >= rt.queue.max_attempts:
                    await app.job_manager.finish_job(job, status=Status.FAILED,
                                                     delete_job=False)
                    await asyncio.to_thread(repos.fail_job_run, rt.engine, int(job.id or 0),
                                            f"worker lost {job.attempts + 1} times")
                    log.warning("job %s failed: its worker was lost %s times", job.id,
                                job.attempts + 1)
                else:
                    await app.job_manager.retry_job(job)
                    log.warning("job %s retried: its worker stopped responding", job.id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - another worker retried it first, a blip
            log.info("stalled-job check: %s", exc)


async def _serve(app: App, rt: Runtime, concurrency: int, queues: Sequence[str] | None,
                 wait: bool) -> None:
    async with app.open_async():
        worker = asyncio.create_task(app.run_worker_async(
            queues=list(queues) if queues else None, concurrency=concurrency,
            name=rt.worker, wait=wait, install_signal_handlers=False,
            update_heartbeat_interval=rt.queue.heartbeat,
            stalled_worker_timeout=rt.queue.stalled_after,
            fetch_job_polling_interval=2.0, abort_job_polling_interval=2.0,
            additional_context={"graphrag": rt}))
        recover = asyncio.create_task(_recover_stalled(app, rt))
        loop = asyncio.get_running_loop()
        me = os.getpid()

        def stop() -> None:
            if STOPPING.is_set():
                return
            log.warning("stopping: finishing the running jobs")
            STOPPING.set()
            worker.cancel()  # procrastinate's graceful stop: running jobs complete

        def on_signal(signum: int, frame: object) -> None:
            # Plain handlers, not loop.add_signal_handler: its wakeup socket is inherited
            # by forked parser processes, whose own SIGTERM (the pool stopping them)
            # would reach this loop as ours.
            if os.getpid() == me:
                loop.call_soon_threadsafe(stop)

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM,
                                                                     signal.SIGINT)}
        try:
            await worker
        except asyncio.CancelledError:
            pass
        finally:
            recover.cancel()
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _warm_up(settings: Settings) -> None:
    """Load the embedding model before taking jobs: the first stage batch then costs what
    every other does (the model is loaded once per process either way)."""
    from graphrag.embedding import get_embedder
    from graphrag.errors import ModelUnavailable

    try:
        get_embedder(settings)
    except ModelUnavailable as exc:  # reported per chunk by the embed stage
        log.warning("embedding model unavailable: %s", exc)


def run_worker(settings: Settings, *, concurrency: int = 1,
               queues: Sequence[str] | None = None, wait: bool = True,
               queue: QueueSettings | None = None) -> None:
    """Run a worker until SIGTERM/SIGINT (or, ``wait=False``, until the queue is empty).
    The database is migrated first, like every command."""
    queue = queue or load_queue_settings()
    engine = get_engine(settings)
    name = f"{socket.gethostname()}:{os.getpid()}"
    rt = Runtime(settings=settings, engine=engine, queue=queue, worker=name)
    # procrastinate: a connection to listen, one to fetch/finish per running job
    app = queue_app(settings, pool_size=concurrency + 2, queue=queue)
    if not queues or STAGES_QUEUE in queues:
        _warm_up(settings)
    STOPPING.clear()
    asyncio.run(_serve(app, rt, concurrency, queues, wait))
