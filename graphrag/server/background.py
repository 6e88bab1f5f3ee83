"""Asynchronous work of the server (document processing, index runs) behind one small
interface: :func:`Jobs.submit` and :func:`Jobs.get`. Today the work runs in-process on
one worker thread (runs of the pipeline for one application must not overlap, and the
machine's cores are better spent on one run at a time); routing ``submit`` to the job
queue instead changes nothing for the endpoints.

Job states: ``queued`` -> ``running`` -> ``succeeded`` | ``failed`` (with ``error``).
Jobs are kept in memory for the life of the process (the newest ``MAX_KEPT``)."""

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

from graphrag.errors import GraphragError

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
    """In-process background jobs: submit work, read its state by id."""

    def __init__(self, workers: int = 1) -> None:
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="graphrag-job")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def submit(self, kind: str, app: str, work: Callable[[], Any],
               meta: dict[str, Any] | None = None) -> Job:
        """Queue ``work`` (a callable without arguments); its return value becomes the
        job's ``result``, a :class:`GraphragError` its one-line ``error``."""
        job = Job(uuid.uuid4().hex, kind, app, meta=dict(meta or {}))
        with self._lock:
            self._jobs[job.id] = job
            while len(self._jobs) > MAX_KEPT:
                self._jobs.popitem(last=False)
        self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[], Any]) -> None:
        job.status, job.started_at = "running", _now()
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

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def running(self) -> bool:
        """Whether a job is running now."""
        with self._lock:
            return any(job.status == "running" for job in self._jobs.values())

    def shutdown(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=not wait)
