"""Asynchronous work of the server (document processing, index runs) behind one small
interface: :func:`Jobs.submit` and :func:`Jobs.get`. The work runs in-process on one
worker thread (runs of the pipeline for one application must not overlap, and the
machine's cores are better spent on one run at a time); routing ``submit`` to the job
queue instead changes nothing for the endpoints.

Job states: ``queued`` -> ``running`` -> ``succeeded`` | ``failed`` (with ``error``).
Started with a database (:meth:`Jobs.start`), every state is also written to
``server_jobs`` (:mod:`graphrag.server.job_store`): any worker process of the server
answers for any job, a restart still knows them, and the jobs of a process that stopped
are failed, not left ``running``. Without one (or while it is down) jobs live in this
process's memory (the newest ``MAX_KEPT``)."""

from __future__ import annotations

import logging
import threading
import traceback
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from graphrag.errors import GraphragError
from graphrag.server import job_store

log = logging.getLogger(__name__)
MAX_KEPT = 10_000


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Job:
    id: str
    kind: str
    app: str
    status: str = "queued"
    created_at: str = field(default_factory=_now)
    started_at: str | None = None
    finished_at: str | None = None
    result: Any = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Jobs:
    """Background jobs: submit work, read its state by id."""

    def __init__(self, workers: int = 1) -> None:
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="graphrag-job")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._engine: Engine | None = None
        self._owner: job_store.Owner | None = None
        # jobs whose latest state could not be written: written with the next write
        self._unsaved: dict[str, Job] = {}
        self._writing = threading.Lock()

    def start(self, engine: Engine) -> int:
        """Keep the jobs' states in the database from now on; fails the jobs of server
        processes that stopped and returns how many. Raises the database's error when
        it cannot be reached (the jobs then stay in memory)."""
        if self._owner is not None:
            self._owner.release()
            self._owner = None
        owner = job_store.Owner(engine)
        try:
            failed = job_store.fail_orphans(engine)
            job_store.forget_old(engine)
        except Exception:
            owner.release()
            raise
        with self._lock:
            known = list(self._jobs.values())
        self._engine, self._owner = engine, owner
        for job in known:  # jobs submitted before the database was there
            self._record(job)
        return failed

    def submit(self, kind: str, app: str, work: Callable[[], Any],
               meta: dict[str, Any] | None = None) -> Job:
        """Queue ``work`` (a callable without arguments); its return value becomes the
        job's ``result``, a :class:`GraphragError` its one-line ``error``."""
        job = Job(uuid.uuid4().hex, kind, app, meta=dict(meta or {}))
        with self._lock:
            self._jobs[job.id] = job
            while len(self._jobs) > MAX_KEPT:
                self._jobs.popitem(last=False)
        self._record(job)
        self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[], Any]) -> None:
        job.status, job.started_at = "running", _now()
        self._record(job)
        try:
            job.result = work()
            job.status = "succeeded"
        except GraphragError as exc:
            job.status, job.error = "failed", str(exc)
        except Exception as exc:  # noqa: BLE001 - a bug: recorded on the job and logged
            job.status, job.error = "failed", f"internal error: {type(exc).__name__}: {exc}"
            log.error("job %s (%s) failed:\n%s", job.id, job.kind, traceback.format_exc())
        finally:
            job.finished_at = _now()
            self._record(job)

    def _record(self, job: Job | None = None) -> None:
        """Write a job's state (and every state an earlier write failed to store) to the
        database. A failure there is logged, not the job's: this process still answers
        for it from memory, and the next write stores it."""
        if self._owner is None or self._engine is None:
            return
        with self._writing:
            if job is not None:
                self._unsaved[job.id] = job
            if not self._unsaved:
                return
            try:
                self._owner.ensure()
            except Exception as exc:  # noqa: BLE001 - the database is down: kept for later
                log.warning("job states not stored (%d waiting): %s", len(self._unsaved),
                            str(exc).splitlines()[0])
                return
            for pending in list(self._unsaved.values()):
                try:
                    self._save(pending)
                except SQLAlchemyError as exc:  # kept for the next write
                    log.warning("job %s: state %s not stored: %s", pending.id,
                                pending.status, str(exc).splitlines()[0])
                    return
                del self._unsaved[pending.id]

    def _save(self, job: Job) -> None:
        assert self._engine is not None and self._owner is not None
        try:
            job_store.save(self._engine, job.to_dict(), self._owner.number)
        except SQLAlchemyError:
            raise
        except Exception as exc:  # noqa: BLE001 - a result JSON cannot hold: stored as text
            log.error("job %s: result stored as text: %s", job.id, exc)
            job.result = repr(job.result)
            job_store.save(self._engine, job.to_dict(), self._owner.number)

    def get(self, job_id: str) -> Job | None:
        """A job of this process (the freshest state), else one the database knows."""
        with self._lock:
            found = self._jobs.get(job_id)
        if found is not None or self._engine is None:
            if found is not None and self._unsaved:
                self._record()  # another process may be asked for it next
            return found
        row = job_store.get(self._engine, job_id)
        return Job(**row) if row is not None else None

    def running(self) -> bool:
        """Whether a job of this process is running now."""
        with self._lock:
            return any(job.status == "running" for job in self._jobs.values())

    def shutdown(self, wait: bool = True) -> None:
        """Stop taking jobs; without ``wait`` the queued ones are failed at once (a
        running one finishes and records its outcome)."""
        self._pool.shutdown(wait=wait, cancel_futures=not wait)
        with self._lock:
            dropped = [job for job in self._jobs.values() if job.status == "queued"]
        for job in dropped:
            job.status, job.finished_at = "failed", _now()
            job.error = job_store.stopped_error(job.kind)
            self._record(job)
        # a job still running keeps the owner lock until it has recorded its outcome
        # (the process's end releases it)
        if wait and self._owner is not None:
            self._owner.release()
