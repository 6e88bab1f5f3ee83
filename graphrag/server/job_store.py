"""The ``server_jobs`` table: the state of the server's background jobs, so that any of
its worker processes answers for a job, and a restart still knows it.

Each server process draws an ``owner`` number and holds a session advisory lock on it
for its life (:class:`Owner`, on a connection of its own outside the pool: a session
lock needs a direct or session-pooled connection to PostgreSQL). A queued or running
job whose owner's lock is free belongs to a process that stopped: :func:`fail_orphans`
marks it failed. A process whose lock connection died takes a new number and moves its
open jobs to it (:meth:`Owner.ensure`) before another process could take them for
orphans' at its next write."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import SQLAlchemyError

# The first key of the advisory locks held by server processes (the second is the owner).
LOCK_SPACE = 0x6A6F6273  # "jobs"
# Finished jobs are kept this long.
KEEP_DAYS = 30
STOPPED = "the server stopped before the job finished; start it again"
# An upload's document stays queued and the next server start processes it again.
STOPPED_UPLOAD = ("the server stopped before processing the upload; it is processed when"
                  " the server starts again: see the document's status")
_OPEN = "('queued', 'running')"

_COLUMNS = ("id, kind, application AS app, status, created_at, started_at, finished_at,"
            " result, error, meta")


class Owner:
    """This process's owner number, with the session lock that says it is alive (one
    connection, detached from the pool, held until :meth:`release`)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._conn: Connection | None = None
        self.number = 0
        self._lock()

    def _lock(self) -> None:
        conn = self._engine.connect()
        # out of the pool: closing it ends the session, and with it the lock; a pooled
        # connection would keep the lock alive for whoever borrows it next
        conn.detach()
        number = secrets.randbelow(2**31 - 1) + 1
        try:
            conn.execute(text("SELECT pg_advisory_lock(:s, :o)"),
                         {"s": LOCK_SPACE, "o": number})
            conn.commit()
        except Exception:
            conn.close()
            raise
        self._conn, self.number = conn, number

    def ensure(self) -> None:
        """Check that the lock's session is alive; when it died (the database restarted,
        the session was ended), lock a new number and move this process's open jobs to
        it. Raises the database's error when it cannot be reached."""
        if self._conn is not None:
            try:
                self._conn.execute(text("SELECT 1"))
                self._conn.commit()
                return
            except SQLAlchemyError:
                self._conn.invalidate()
                self._conn.close()
                self._conn = None
        old = self.number
        self._lock()
        with self._engine.begin() as conn:
            conn.execute(text(f"UPDATE server_jobs SET owner = :new WHERE owner = :old"
                              f" AND status IN {_OPEN}"), {"new": self.number, "old": old})

    def release(self) -> None:
        """End the lock's session (the lock with it)."""
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()


def save(engine: Engine, job: dict[str, Any], owner: int) -> None:
    """Write a job's state (a new job or a later state of it: saving again the latest
    state after a failed write loses nothing)."""
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO server_jobs AS j (id, kind, application, status, owner, created_at,"
            " started_at, finished_at, result, error, meta)"
            " VALUES (:id, :kind, :app, :status, :owner, :created, :started, :finished,"
            " CAST(:result AS jsonb), :error, CAST(:meta AS jsonb))"
            " ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status,"
            " owner = EXCLUDED.owner, started_at = EXCLUDED.started_at,"
            " finished_at = EXCLUDED.finished_at, result = EXCLUDED.result,"
            " error = EXCLUDED.error"),
            {"id": job["id"], "kind": job["kind"], "app": job["app"], "status": job["status"],
             "owner": owner, "created": job["created_at"], "started": job["started_at"],
             "finished": job["finished_at"], "error": job["error"], "meta": _json(job["meta"]),
             "result": None if job["result"] is None else _json(job["result"])})


def forget_old(engine: Engine) -> None:
    """Delete the finished jobs older than ``KEEP_DAYS``."""
    with engine.begin() as conn:
        conn.execute(text(
            f"DELETE FROM server_jobs WHERE created_at < now() - make_interval(days => :d)"
            f" AND status NOT IN {_OPEN}"), {"d": KEEP_DAYS})


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
    lock is free: taken here for the length of this transaction only); returns how
    many."""
    with engine.begin() as conn:
        return conn.execute(text(
            f"UPDATE server_jobs SET status = 'failed', finished_at = :t,"
            f" error = CASE WHEN kind = 'document' THEN :upload ELSE :stopped END"
            f" WHERE status IN {_OPEN} AND owner IN ("
            f"   SELECT o FROM (SELECT DISTINCT owner AS o FROM server_jobs"
            f"                   WHERE status IN {_OPEN}) open"
            f"    WHERE pg_try_advisory_xact_lock(:s, o))"),
            {"t": datetime.now(UTC), "upload": STOPPED_UPLOAD, "stopped": STOPPED,
             "s": LOCK_SPACE}).rowcount


def stopped_error(kind: str) -> str:
    """What a job of ``kind`` that a stopping server dropped says."""
    return STOPPED_UPLOAD if kind == "document" else STOPPED


def _json(value: Any) -> str:
    # a job's result is the JSON the endpoints answer with; anything else becomes text
    return orjson.dumps(value, default=str,
                        option=orjson.OPT_NON_STR_KEYS).decode()
