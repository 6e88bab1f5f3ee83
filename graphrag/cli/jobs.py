"""`graphrag worker`, `graphrag jobs`, `graphrag repos`: the job queue from the shell."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from graphrag.cli.options import (
    db_option,
    engine_for,
    json_option,
    listing_command,
    print_json,
    print_result,
    print_rows,
    settings_for,
)
from graphrag.jobs.queue import QUEUES
from graphrag.jobs.store import JOB_STATUSES

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from graphrag.graph.request import IndexRequest


class _JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return json.dumps({"time": self.formatTime(record), "level": record.levelname,
                           "logger": record.name, "message": record.getMessage()})


@click.command("worker")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Jobs run at once by this worker (each stage batch uses every core"
                   " already: more helps only when jobs wait on git or the network).")
@click.option("--queues", metavar="LIST",
              help=f"Comma list of queues to take jobs from ({', '.join(QUEUES)}; default:"
                   " all).")
@click.option("--until-empty", is_flag=True,
              help="Exit once no job is waiting (instead of running until SIGTERM).")
@db_option
@json_option
def worker_cmd(concurrency: int, queues: str | None, until_empty: bool,
               db_url: str | None, as_json: bool) -> None:
    """Execute queued jobs until stopped (SIGTERM/Ctrl-C finish the running job first).

    Start any number of workers, on any machines, with the same --db."""
    from graphrag.jobs.worker import run_worker

    chosen = [q.strip() for q in (queues or "").split(",") if q.strip()]
    for q in chosen:
        if q not in QUEUES:
            raise click.BadParameter(f"unknown queue {q!r}; one of: {', '.join(QUEUES)}",
                                     param_hint="--queues")
    settings, _ = engine_for(db_url)
    # one line per job started and finished (procrastinate's log) on stderr; --json: one
    # JSON object per line, for log collectors
    handler = logging.StreamHandler()
    handler.setFormatter(_JsonLines() if as_json else logging.Formatter(
        "%(asctime)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("psycopg").setLevel(logging.WARNING)
    click.echo(f"graphrag worker: concurrency {concurrency}, queues "
               f"{', '.join(chosen or QUEUES)}", err=True)
    run_worker(settings, concurrency=concurrency, queues=chosen or None,
               wait=not until_empty)


def _when(value: Any) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return "-" if value is None else str(value)


def _job_line(job: dict[str, Any]) -> str:
    duration = f"{job['duration_s']}s" if job["duration_s"] is not None else "-"
    line = (f"{job['id']}\t{job['task']}\t{job['app'] or '-'}\t{job['status']}"
            f"\tattempts {job['attempts']}\t{duration}\t{_when(job['created_at'])}")
    if job["error"]:
        line += f"\t{job['error']}"
    return line


@click.group("jobs", invoke_without_command=True)
@click.option("--app", "app_name", metavar="NAME", help="Only this application's jobs.")
@click.option("--status", "statuses", multiple=True, type=click.Choice(JOB_STATUSES),
              help="Only jobs in this state (repeat).")
@click.option("--task", "tasks", multiple=True,
              type=click.Choice(["index", "ingest", "repo", "finish", "stages", "schedule"]),
              help="Only jobs of this task (repeat).")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@db_option
@json_option
@click.pass_context
def jobs_group(ctx: click.Context, app_name: str | None, statuses: tuple[str, ...],
               tasks: tuple[str, ...], limit: int, db_url: str | None, as_json: bool) -> None:
    """Queued jobs, newest first: state, attempts, duration and error."""
    if ctx.invoked_subcommand is not None:
        return
    from graphrag.jobs.service import list_jobs

    _, engine = engine_for(db_url)
    found = list_jobs(engine, app=app_name, statuses=statuses, tasks=tasks, limit=limit)
    print_rows(found, as_json, "no jobs", _job_line)


@jobs_group.command("show")
@click.argument("job_id", type=int)
@db_option
@json_option
def jobs_show(job_id: int, db_url: str | None, as_json: bool) -> None:
    """One job with its arguments and the result of its last attempt."""
    from graphrag.jobs.service import get_job

    _, engine = engine_for(db_url)
    job = get_job(engine, job_id)
    if as_json:
        print_json(job)
        return
    for key, value in job.items():
        click.echo(f"{key}: {_when(value) if not isinstance(value, dict) else value}")


def _job_action(name: str, service: str, doc: str) -> None:
    """``graphrag jobs NAME JOB_ID``: ``graphrag.jobs.service.<service>`` on one job, then
    its new state (imported when run: ``graphrag --help`` stays fast)."""

    @jobs_group.command(name, help=doc)
    @click.argument("job_id", type=int)
    @db_option
    @json_option
    def command(job_id: int, db_url: str | None, as_json: bool) -> None:
        from graphrag.jobs import service as jobs_service

        settings, engine = engine_for(db_url)
        job = getattr(jobs_service, service)(settings, engine, job_id)
        print_result(job, as_json, lambda job: f"job {job_id}: {job['status']}")


_job_action("retry", "retry_job", "Run a failed job again.")
_job_action("cancel", "cancel_job",
            "Cancel a waiting job, or ask a running one to stop between batches.")


@click.group("repos")
def repos_group() -> None:
    """Repositories indexed by the workers, now or on a schedule."""


@repos_group.command("add")
@click.argument("source")
@click.option("--app", "app_name", required=True, metavar="NAME")
@click.option("--ref", help="Branch, tag or commit (default: the remote's default branch).")
@click.option("--schedule", metavar="CRON",
              help="Five cron fields in UTC, e.g. '0 2 * * *' (every night at 02:00).")
@click.option("--include", multiple=True, metavar="GLOB", help="Only files matching (repeat).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching (repeat).")
@db_option
@json_option
def repos_add(source: str, app_name: str, ref: str | None, schedule: str | None,
              include: tuple[str, ...], exclude: tuple[str, ...], db_url: str | None,
              as_json: bool) -> None:
    """Add (or update) the repository SOURCE (a git URL or a local path) of application
    NAME. Workers fetch it into $GRAPHRAG_HOME/checkouts/ and index each new commit."""
    from graphrag.jobs.repos import add_repository

    _, engine = engine_for(db_url)
    added = add_repository(engine, app_name, source, ref=ref, schedule=schedule,
                           include=include, exclude=exclude)
    if as_json:
        print_json(added)
        return
    verb = "added" if added["created"] else "updated"
    when = (f", schedule {added['schedule']} (next {_when(added['next_run'])} UTC)"
            if added["schedule"] else ", no schedule (run it with `graphrag repos run`)")
    click.echo(f"{verb} {app_name}: {added['source']}@{added['ref'] or 'default branch'}"
               f"{when}")


def _repositories(engine: Engine) -> list[dict[str, Any]]:
    from graphrag.jobs.repos import list_repositories

    return list_repositories(engine)


def _repo_line(r: dict[str, Any]) -> str:
    commit = (r["last_commit"] or "-")[:12]
    duration = f"{r['last_duration_s']}s" if r["last_duration_s"] is not None else "-"
    line = (f"{r['app']}\t{r['source']}@{r['ref'] or 'HEAD'}\t{r['schedule'] or '-'}"
            f"\tcommit {commit}\tlast {r['last_status'] or 'never run'}"
            f" {_when(r['last_run_at'])} ({duration})\tnext {_when(r['next_run'])}")
    if r["last_error"]:
        line += f"\t{r['last_error']}"
    return line


repos_list = listing_command(
    repos_group, _repositories, "no repositories", _repo_line,
    "Repositories with their last run (status, commit, duration, error) and next run.")


@repos_group.command("remove")
@click.argument("app_name", metavar="NAME")
@db_option
@json_option
def repos_remove(app_name: str, db_url: str | None, as_json: bool) -> None:
    """Forget application NAME's repository and this machine's checkout of it (the index
    stays; `graphrag apps delete` removes it)."""
    from graphrag.jobs.repos import remove_repository

    settings, engine = engine_for(db_url)
    print_result(remove_repository(engine, settings.home, app_name), as_json,
                 lambda _: f"removed the repository of {app_name}")


@repos_group.command("run")
@click.argument("app_name", metavar="NAME")
@db_option
@json_option
def repos_run(app_name: str, db_url: str | None, as_json: bool) -> None:
    """Queue a run of application NAME's repository now; prints the job id."""
    from graphrag.jobs.service import enqueue_repository_run

    settings, engine = engine_for(db_url)
    queued = enqueue_repository_run(settings, engine, app_name)
    if as_json:
        print_json(queued)
    elif queued["already_queued"]:
        click.echo(f"a run of {app_name} is already waiting: job {queued['job_id']}")
    else:
        click.echo(f"queued job {queued['job_id']}")


def enqueue_index_cmd(db_url: str | None, request: IndexRequest) -> int:
    """`graphrag index --queue`: the job id of the queued index."""
    from graphrag.jobs.service import enqueue_index

    settings = settings_for(db_url)
    engine_for(db_url)  # reachable and migrated before anything is queued
    return enqueue_index(settings, request)


def register(cli: click.Group) -> None:
    cli.add_command(worker_cmd)
    cli.add_command(jobs_group)
    cli.add_command(repos_group)
