"""The job queue: procrastinate on graphrag's own PostgreSQL, workers, repository sources
and schedules. Services for the CLI and the HTTP server:

- :func:`enqueue_index`, :func:`enqueue_ingest`, :func:`enqueue_repository_run` queue work
  and return a job id at once;
- :func:`get_job`, :func:`list_jobs`, :func:`retry_job`, :func:`cancel_job` see and steer it;
- :func:`run_worker` executes jobs (``graphrag worker``);
- ``graphrag.jobs.repos``: repositories with schedules (``graphrag repos``).
"""

from graphrag.jobs.service import (
    cancel_job,
    enqueue_index,
    enqueue_ingest,
    enqueue_repository_run,
    get_job,
    list_jobs,
    retry_job,
)
from graphrag.jobs.worker import run_worker

__all__ = ["cancel_job", "enqueue_index", "enqueue_ingest", "enqueue_repository_run",
           "get_job", "list_jobs", "retry_job", "run_worker"]
