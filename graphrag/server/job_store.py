"""The ``server_jobs`` table: the state of the server's background jobs, so that any of
its worker processes answers for a job, and a restart still knows it.

Each server process draws an ``owner`` number and holds a session advisory lock on it
for its life (:class:`Owner`). A queued or running job whose owner's lock is free
belongs to a process that stopped: :func:`fail_orphans` marks it failed."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, text

# The first key of the advisory locks held by server processes (the second is the owner).
LOCK_SPACE = 0x6A6F6273  # "jobs"
# Finished jobs are kept this long.
KEEP_DAYS = 30
STOPPED = "the server stopped before the job finished; start it again"

_COLUMNS = ("id, kind, application AS app, status, created_at, started_at, finished_at,"
            " result, error, meta")


class Owner:
    """This process's owner number, with the session lock that says it is alive (one
    connection held until :meth:`release`)."""

    def __init__(self, engine: Engine) -> None:
        self.number = secrets.randbelow(2**31 - 1) + 1
        self._conn: Connection | None = engine.connect()
        self._conn.execute(text("SELECT pg_advisory_lock(:s, :o)"),
                           {"s": LOCK_SPACE, "o": self.number})
        self._conn.commit()

    def release(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            try:
                conn.execute(text("SELECT pg_advisory_unlock(:s, :o)"),
                             {"s": LOCK_SPACE, "o": self.number})
                conn.commit()
            finally:
                conn.close()


def insert(engine: Engine, job: dict[str, Any], owner: int) -> None:
    """Record a new queued job; finished jobs older than ``KEEP_DAYS`` go."""
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO server_jobs (id, kind, application, status, owner, created_at, meta)"
            " VALUES (:id, :kind, :app, :status, :owner, :created, CAST(:meta AS jsonb))"),
            {"id": job["id"], "kind": job["kind"], "app": job["app"], "status": job["status"],
             "owner": owner, "created": job["created_at"], "meta": _json(job["meta"])})
        conn.execute(text(
            "DELETE FROM server_jobs WHERE created_at < now() - make_interval(days => :d)"
            " AND status NOT IN ('queued', 'running')"), {"d": KEEP_DAYS})


def update(engine: Engine, job: dict[str, Any]) -> None:
    """Record a job's new state (status, times, result or error)."""
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE server_jobs SET status = :status, started_at = :started,"
            " finished_at = :finished, result = CAST(:result AS jsonb), error = :error"
            " WHERE id = :id"),
            {"id": job["id"], "status": job["status"], "started": job["started_at"],
             "finished": job["finished_at"], "error": job["error"],
             "result": None if job["result"] is None else _json(job["result"])})


def get(engine: Engine, job_id: str) -> dict[str, Any] | None:
    """A job's state as :meth:`Job.to_dict` gives it, or None."""
    with engine.connect() as conn:
        row = conn.execute(text(f"SELECT {_COLUMNS} FROM server_jobs WHERE id = :id"),
                           {"id": job_id}).mappings().first()
    if row is None:
        return None
    out = dict(row)
    for key in ("created_at", "started_at", "finished_at"):
        if out[key] is not None:
            out[key] = out[key].astimezone(UTC).isoformat()
    return out


def fail_orphans(engine: Engine) -> int:
    """Mark failed the queued and running jobs whose server process is gone (its owner
    lock is free); returns how many."""
    with engine.begin() as conn:
        owners = conn.execute(text(
            "SELECT DISTINCT owner FROM server_jobs WHERE status IN ('queued', 'running')"
        )).scalars().all()
        # a free lock is taken for the length of this transaction only
        gone = [o for o in owners if conn.execute(text(
            "SELECT pg_try_advisory_xact_lock(:s, :o)"), {"s": LOCK_SPACE, "o": o}).scalar()]
        if not gone:
            return 0
        return conn.execute(text(
            "UPDATE server_jobs SET status = 'failed', error = :e, finished_at = :t"
            " WHERE status IN ('queued', 'running') AND owner = ANY(:o)"),
            {"e": STOPPED, "t": datetime.now(UTC), "o": gone}).rowcount


def _json(value: Any) -> str:
    # a job's result is the JSON the endpoints answer with; anything else becomes text
    return orjson.dumps(value, default=str,
                        option=orjson.OPT_NON_STR_KEYS).decode()
