"""Repositories as sources for (nightly) indexing: one per application, with its git
source, ref, cron schedule and filters, and the outcome of its last run."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from croniter import croniter
from sqlalchemy import Connection, Engine, text

from graphrag.db.apps import ensure_app
from graphrag.errors import InvalidInput, UnknownApplication
from graphrag.graph.scan import compile_patterns
from graphrag.jobs.sources import checkout_dir, redacted, resolve_source


@dataclass(frozen=True)
class Repository:
    id: int
    app: str
    app_id: int
    source: str
    is_local: bool
    ref: str | None
    schedule: str | None
    include: list[str]
    exclude: list[str]
    last_commit: str | None
    last_status: str | None


def validate_schedule(schedule: str | None) -> str | None:
    """A five-field cron expression (minute hour day month weekday, UTC), or None."""
    if schedule is None:
        return None
    cleaned = " ".join(schedule.split())
    if len(cleaned.split(" ")) != 5 or not croniter.is_valid(cleaned):
        raise InvalidInput(f"invalid schedule {schedule!r}: expected five cron fields"
                           " (minute hour day month weekday), e.g. '0 2 * * *'")
    return cleaned


def next_run(schedule: str | None, now: datetime | None = None) -> datetime | None:
    """When the schedule fires next (UTC)."""
    if not schedule:
        return None
    return croniter(schedule, now or datetime.now(UTC)).get_next(datetime)


_SELECT = """
SELECT r.id, a.name AS app, a.id AS app_id, r.source, r.is_local, r.ref, r.schedule,
       r.include, r.exclude, r.last_commit, r.last_status, r.last_run_at,
       r.last_duration_s, r.last_error, r.last_job_id, a.indexed_commit
  FROM repositories r JOIN applications a ON a.id = r.application_id
"""


def _repo(r: Any) -> Repository:
    return Repository(r.id, r.app, r.app_id, r.source, r.is_local, r.ref, r.schedule,
                      list(r.include), list(r.exclude), r.last_commit, r.last_status)


def get_repository(conn: Connection, app_name: str) -> Repository:
    """The application's repository; :class:`UnknownApplication` when it has none."""
    row = conn.execute(text(_SELECT + " WHERE a.name = :n"), {"n": app_name}).first()
    if row is None:
        raise UnknownApplication(f"no repository for application {app_name!r}"
                                 " (add one with `graphrag repos add`)")
    return _repo(row)


def add_repository(engine: Engine, app_name: str, source: str, *, ref: str | None = None,
                   schedule: str | None = None, include: list[str] | tuple[str, ...] = (),
                   exclude: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """Register (or update) the application's repository; nothing is fetched yet."""
    compile_patterns(include, "--include")
    compile_patterns(exclude, "--exclude")
    schedule = validate_schedule(schedule)
    if ref is not None and (not ref.strip() or ref.startswith("-")):
        raise InvalidInput(f"invalid ref {ref!r}")
    resolved = resolve_source(source)
    stored = resolved.url or str(resolved.folder)
    with engine.begin() as conn:
        app = ensure_app(conn, app_name)
        row = conn.execute(text(
            """
            INSERT INTO repositories (application_id, source, is_local, ref, schedule,
                                      include, exclude)
            VALUES (:a, :s, :local, :ref, :sch, :inc, :exc)
            ON CONFLICT (application_id) DO UPDATE
               SET source = EXCLUDED.source, is_local = EXCLUDED.is_local,
                   ref = EXCLUDED.ref, schedule = EXCLUDED.schedule,
                   include = EXCLUDED.include, exclude = EXCLUDED.exclude,
                   updated_at = now()
            RETURNING (xmax = 0) AS created
            """), {"a": app.id, "s": stored, "local": resolved.folder is not None,
                   "ref": ref, "sch": schedule, "inc": list(include),
                   "exc": list(exclude)}).one()
    return {"app": app_name, "source": redacted(stored), "ref": ref, "schedule": schedule,
            "created": bool(row.created), "next_run": next_run(schedule)}


def list_repositories(engine: Engine) -> list[dict[str, Any]]:
    """Every repository with its last run and next scheduled run."""
    with engine.connect() as conn:
        rows = conn.execute(text(_SELECT + " ORDER BY a.name")).all()
    return [{
        "app": r.app, "source": redacted(r.source), "ref": r.ref, "schedule": r.schedule,
        "include": list(r.include), "exclude": list(r.exclude),
        "last_commit": r.last_commit, "last_run_at": r.last_run_at,
        "last_status": r.last_status, "last_duration_s": r.last_duration_s,
        "last_error": redacted(r.last_error) if r.last_error else None,
        "last_job_id": r.last_job_id,
        "next_run": next_run(r.schedule),
    } for r in rows]


def remove_repository(engine: Engine, home: Path, app_name: str) -> dict[str, Any]:
    """Forget the application's repository (its index stays: ``apps delete`` removes it)
    and this machine's checkout of it."""
    with engine.begin() as conn:
        repo = get_repository(conn, app_name)
        conn.execute(text("DELETE FROM repositories WHERE id = :id"), {"id": repo.id})
    folder = checkout_dir(home, repo.id, app_name)
    shutil.rmtree(folder, ignore_errors=True)
    Path(str(folder) + ".lock").unlink(missing_ok=True)
    return {"app": app_name, "source": redacted(repo.source), "removed": True}


def due_repositories(engine: Engine, at: datetime) -> list[str]:
    """Applications whose repository's schedule fires at minute ``at`` (UTC)."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT a.name, r.schedule FROM repositories r"
            " JOIN applications a ON a.id = r.application_id WHERE r.schedule IS NOT NULL"
        )).all()
    minute = at.astimezone(UTC).replace(second=0, microsecond=0)
    return [r.name for r in rows if croniter.match(r.schedule, minute)]


def record_start(engine: Engine, repo_id: int, job_id: int) -> None:
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE repositories SET last_status = 'running', last_job_id = :j,"
            " last_run_at = now(), last_error = NULL, updated_at = now() WHERE id = :id"),
            {"id": repo_id, "j": job_id})


def record_outcome(engine: Engine, repo_id: int, status: str, *, duration_s: float,
                   commit: str | None = None, error: str | None = None) -> None:
    """The run's outcome: ``succeeded`` records the commit as indexed (on the repository
    and the application), ``unchanged`` means the commit was indexed already,
    ``failed`` keeps the last indexed commit and records the error."""
    with engine.begin() as conn:
        conn.execute(text(
            """
            UPDATE repositories
               SET last_status = :s, last_duration_s = :d, last_error = :e,
                   last_commit = CASE WHEN :s = 'succeeded' THEN :c ELSE last_commit END,
                   updated_at = now()
             WHERE id = :id
            """), {"id": repo_id, "s": status, "d": round(duration_s, 3), "e": error,
                   "c": commit})
        if status == "succeeded":
            conn.execute(text(
                "UPDATE applications SET indexed_commit = :c WHERE id ="
                " (SELECT application_id FROM repositories WHERE id = :id)"),
                {"id": repo_id, "c": commit})


def fail_job_run(engine: Engine, job_id: int, error: str) -> None:
    """The repository run of job ``job_id`` ended without its worker (given up)."""
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE repositories SET last_status = 'failed', last_error = :e,"
            " updated_at = now() WHERE last_job_id = :j AND last_status = 'running'"),
            {"j": job_id, "e": error})
