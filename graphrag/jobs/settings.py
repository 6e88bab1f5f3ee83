"""The queue's names and settings (environment ``GRAPHRAG_*``, read when a command starts)."""

from __future__ import annotations

from dataclasses import dataclass

from graphrag.config import _env_float, _env_int

# Queues: whole-repository work (graph, documents, chunk planning, git) and stage batches
# (the expensive part: embedding); `graphrag worker --queues stages` takes only the latter.
INDEX_QUEUE = "index"
STAGES_QUEUE = "stages"
QUEUES = (INDEX_QUEUE, STAGES_QUEUE)


@dataclass(frozen=True)
class QueueSettings:
    """How workers share work and notice each other's death.

    ``stage_batch``: chunks one stage-batch job claims (the embed stage encodes them in one
    call). ``heartbeat``: seconds between a worker's heartbeats. ``stalled_after``:
    seconds without a heartbeat after which a worker counts as dead and its running jobs
    are retried by the other workers. ``max_attempts``: runs of a job before it is
    recorded as failed (a worker lost mid-job counts as a run)."""

    stage_batch: int = 256
    heartbeat: float = 10.0
    stalled_after: float = 60.0
    max_attempts: int = 3


def load_queue_settings() -> QueueSettings:
    """Read ``GRAPHRAG_STAGE_BATCH``, ``GRAPHRAG_WORKER_HEARTBEAT``,
    ``GRAPHRAG_WORKER_STALLED_AFTER`` and ``GRAPHRAG_JOB_ATTEMPTS`` (a malformed value is
    a one-line error naming it, exit 3)."""
    heartbeat = _env_float("GRAPHRAG_WORKER_HEARTBEAT", 10.0, minimum=0.1)
    return QueueSettings(
        stage_batch=_env_int("GRAPHRAG_STAGE_BATCH", 256, minimum=1),
        heartbeat=heartbeat,
        stalled_after=max(_env_float("GRAPHRAG_WORKER_STALLED_AFTER", 60.0, minimum=1.0),
                          2 * heartbeat),
        max_attempts=_env_int("GRAPHRAG_JOB_ATTEMPTS", 3, minimum=1),
    )
