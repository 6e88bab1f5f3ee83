"""The job queue with real parts: the embedded PostgreSQL, real `graphrag worker`
subprocesses, real git repositories made here, the real embedding model."""

from __future__ import annotations

import base64
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from graphrag.config import load_settings
from graphrag.jobs import enqueue_ingest
from graphrag.jobs.queue import INDEX_QUEUE, queue_app
from tests.conftest import run_cli

# Fast failure detection and small batches: many batches from a small repository.
WORKER_ENV = {"GRAPHRAG_WORKER_HEARTBEAT": "0.5", "GRAPHRAG_WORKER_STALLED_AFTER": "4",
              "GRAPHRAG_STAGE_BATCH": "6", "GRAPHRAG_EMBED_THREADS": "1"}
FUNCTIONS = 40


def _module(n: int, extra: str = "") -> str:
    body = "\n\n".join(
        f"def compute_{i}(value: int) -> int:\n"
        f"    \"\"\"Step {i} of the order pipeline: scale by {i}.\"\"\"\n"
        f"    return helper_{i % 3}(value) * {i}\n"
        for i in range(n))
    helpers = "\n\n".join(f"def helper_{k}(v: int) -> int:\n    return v + {k}\n"
                          for k in range(3))
    return f"{helpers}\n\n{body}\n{extra}"


def _write_repo(root: Path, functions: int = FUNCTIONS) -> Path:
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "steps.py").write_text(_module(functions))
    (root / "shop" / "orders.py").write_text(
        "from shop.steps import compute_1\n\n\nclass Orders:\n"
        "    def place(self, v: int) -> int:\n        return compute_1(v)\n")
    return root


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                           *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def _git_repo(root: Path) -> Path:
    _write_repo(root, functions=6)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    return root


@pytest.fixture
def workers() -> Iterator[Callable[..., subprocess.Popen]]:
    """Start `graphrag worker` subprocesses; all are killed at the end."""
    started: list[subprocess.Popen] = []

    def start(*args: str) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-m", "graphrag", "worker", *args],
                                env={**os.environ, **WORKER_ENV},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()


def _wait(condition: Callable[[], Any], what: str, timeout: float = 240,
          procs: list[subprocess.Popen] | None = None) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        for proc in procs or []:
            if proc.poll() is not None and proc.returncode not in (0, -signal.SIGKILL):
                raise AssertionError(f"worker exited {proc.returncode}: {proc.stderr.read()}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _scalar(engine: Engine, sql: str, **params: Any) -> Any:
    with engine.connect() as conn:
        return conn.execute(text(sql), params).scalar()


def _jobs(app: str) -> list[dict[str, Any]]:
    res = run_cli("jobs", "--app", app, "--limit", "500", "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _chunk_dump(engine: Engine, app: str) -> list[tuple]:
    """The application's chunks without ids: plan, content, stage outcomes and vector."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            """
            SELECT c.plan_id, n.stable_key, c.content_hash, c.title, c.embed_model,
                   c.pending, c.emb::text AS emb,
                   (SELECT jsonb_object_agg(k, v->>'status') FROM jsonb_each(c.stage_state)
                     AS s(k, v)) AS stages
              FROM chunks c JOIN nodes n ON n.id = c.node_id
              JOIN applications a ON a.id = c.application_id
             WHERE a.name = :a
            """), {"a": app}).all()
    out = []
    for r in rows:
        vector = tuple(round(float(x), 4) for x in r.emb.strip("[]").split(",")) if r.emb \
            else None
        plan = r.plan_id.split(":", 1)[1]  # the node id part differs between apps
        out.append((r.stable_key, plan, r.content_hash, r.title, r.embed_model, r.pending,
                    json.dumps(r.stages, sort_keys=True), vector))
    return sorted(out, key=lambda t: (t[0], t[1]))


def _inline(engine: Engine, repo: Path, app: str) -> list[tuple]:
    res = run_cli("index", str(repo), "--app", app, "--json")
    assert res.returncode == 0, res.stderr
    return _chunk_dump(engine, app)


@pytest.fixture
def other_app(engine: Engine, app_name: str) -> Iterator[str]:
    name = app_name + "_inline"
    yield name
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})


def _done_job(app: str, task: str = "index") -> dict[str, Any] | None:
    for job in _jobs(app):
        if job["task"] in (task, "finish") and job["status"] == "succeeded" \
                and not (job["result"] or {}).get("handed_over"):
            return job
    return None


def _processed(app: str) -> tuple[int, int, set[str]]:
    """Chunks processed over every job of the app, embeds done, and workers that did it."""
    chunks = embedded = 0
    who = set()
    for job in _jobs(app):
        result = job["result"] or {}
        stats = result.get("pipeline") if job["task"] != "stages" else result
        if not stats or job["status"] != "succeeded":
            continue
        chunks += stats["chunks"]
        embedded += stats["stages"].get("embed", {}).get("done", 0)
        if stats["chunks"]:
            who.add(job["worker"])
    return chunks, embedded, who


def _worker_count(engine: Engine) -> int:
    return _scalar(engine, "SELECT count(*) FROM procrastinate_workers"
                           " WHERE last_heartbeat > now() - interval '2 seconds'")


def test_two_workers_share_the_stage_batches_each_chunk_once_equal_to_inline(
        engine, app_name, other_app, tmp_path, workers) -> None:
    repo = _write_repo(tmp_path / "repo")
    expected = _inline(engine, repo, other_app)
    before = _worker_count(engine)
    procs = [workers(), workers()]
    _wait(lambda: _worker_count(engine) >= before + 2, "two workers", procs=procs)

    res = run_cli("index", str(repo), "--app", app_name, "--queue", "--json")
    assert res.returncode == 0, res.stderr
    job_id = json.loads(res.stdout)["job_id"]
    _wait(lambda: _done_job(app_name), "the queued index", procs=procs)

    total = _scalar(engine, "SELECT count(*) FROM chunks c JOIN applications a"
                            " ON a.id = c.application_id WHERE a.name = :a", a=app_name)
    chunks, embedded, who = _processed(app_name)
    assert chunks == total and embedded == total  # every chunk once: no double work
    assert len(who) == 2, f"both workers took batches: {who}"
    assert _chunk_dump(engine, app_name) == expected
    index_job = next(j for j in _jobs(app_name) if j["id"] == job_id)
    assert index_job["attempts"] == 1 and index_job["error"] is None


def _count(engine: Engine, app: str, pending: bool) -> int:
    return _scalar(engine, "SELECT count(*) FROM chunks c JOIN applications a"
                           " ON a.id = c.application_id WHERE a.name = :a"
                           " AND c.pending = :p", a=app, p=pending) or 0


def test_sigterm_hands_over_sigkill_is_retried_and_the_end_state_is_equal(
        engine, app_name, other_app, tmp_path, workers) -> None:
    repo = _write_repo(tmp_path / "repo", functions=80)
    expected = _inline(engine, repo, other_app)
    # Workers on the index queue only: the index job (or its finish) drains every batch.
    first = workers("--queues", INDEX_QUEUE)
    res = run_cli("index", str(repo), "--app", app_name, "--queue", "--json")
    assert res.returncode == 0, res.stderr
    job_id = json.loads(res.stdout)["job_id"]

    # SIGTERM: the running batch completes, the rest is handed to a `finish` job.
    _wait(lambda: _count(engine, app_name, False) >= 12, "a few batches", procs=[first])
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=120) == 0
    index_job = next(j for j in _jobs(app_name) if j["id"] == job_id)
    assert (index_job["status"], index_job["result"]["handed_over"]) == ("succeeded", True)
    finish = next(j for j in _jobs(app_name) if j["task"] == "finish")
    assert finish["status"] == "todo" and _count(engine, app_name, True) > 0

    # SIGKILL mid-batch: the finish job is retried by another worker, from where it was.
    second = workers("--queues", INDEX_QUEUE)
    done_before = _count(engine, app_name, False)
    _wait(lambda: _count(engine, app_name, False) >= done_before + 12, "more batches",
          procs=[second])
    os.kill(second.pid, signal.SIGKILL)
    second.wait(timeout=30)
    assert _count(engine, app_name, True) > 0, "the worker must die mid-run"

    third = workers()
    _wait(lambda: _done_job(app_name), "the retried finish", procs=[third])
    assert _chunk_dump(engine, app_name) == expected
    finish = next(j for j in _jobs(app_name) if j["id"] == finish["id"])
    assert finish["attempts"] == 2 and finish["status"] == "succeeded"
    with engine.connect() as conn:
        statuses = [r[0] for r in conn.execute(text(
            "SELECT status FROM job_attempts WHERE job_id = :j ORDER BY attempt"),
            {"j": finish["id"]})]
    assert statuses == ["lost", "succeeded"]
    # each chunk's stages ran once: before the stop, before the kill or after it
    attempts = _scalar(engine, "SELECT max((c.stage_state->'embed'->>'attempts')::int)"
                               " FROM chunks c JOIN applications a ON a.id = c.application_id"
                               " WHERE a.name = :a", a=app_name)
    assert attempts == 1


# A schedule the workers' own periodic ticks never match while the test runs; the test
# fires the periodic task with a tick that does match.
SCHEDULE = "0 3 1 1 *"
TICK = int(datetime(2028, 1, 1, 3, 0, tzinfo=UTC).timestamp())


def _fire_schedule() -> int:
    with queue_app(load_settings()).open() as app:
        return app.configure_task("graphrag.schedule", queue=INDEX_QUEUE).defer(
            timestamp=TICK)


def _drain_queue() -> None:
    res = subprocess.run([sys.executable, "-m", "graphrag", "worker", "--until-empty"],
                         env={**os.environ, **WORKER_ENV}, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr


def _repo_row(app: str) -> dict[str, Any]:
    res = run_cli("repos", "list", "--json")
    assert res.returncode == 0, res.stderr
    return next(r for r in json.loads(res.stdout) if r["app"] == app)


def test_scheduled_repository_runs_once_per_commit_and_incrementally(
        engine, app_name, tmp_path) -> None:
    repo = _git_repo(tmp_path / "origin")
    first_commit = _git(repo, "rev-parse", "HEAD")
    res = run_cli("repos", "add", str(repo), "--app", app_name, "--ref", "main",
                  "--schedule", SCHEDULE)
    assert res.returncode == 0, res.stderr

    _fire_schedule()
    _drain_queue()
    row = _repo_row(app_name)
    assert (row["last_status"], row["last_commit"]) == ("succeeded", first_commit), row
    status = json.loads(run_cli("db", "status", "--json").stdout)
    app = next(a for a in status["applications"] if a["name"] == app_name)
    assert app["indexed_commit"] == first_commit
    runs = _scalar(engine, "SELECT count(*) FROM chunk_runs r JOIN applications a"
                           " ON a.id = r.application_id WHERE a.name = :a", a=app_name)
    embedded_at = _scalar(engine, "SELECT max(c.embed_ts) FROM chunks c JOIN applications a"
                                  " ON a.id = c.application_id WHERE a.name = :a", a=app_name)

    _fire_schedule()  # no new commit: fetched, compared, nothing indexed
    _drain_queue()
    row = _repo_row(app_name)
    assert (row["last_status"], row["last_commit"]) == ("unchanged", first_commit), row
    assert _scalar(engine, "SELECT count(*) FROM chunk_runs r JOIN applications a"
                           " ON a.id = r.application_id WHERE a.name = :a", a=app_name) == runs
    last = next(j for j in _jobs(app_name) if j["task"] == "repo")
    assert last["result"] == {"trigger": "schedule", "commit": first_commit, "unchanged": True}

    steps = repo / "shop" / "steps.py"
    steps.write_text(steps.read_text() + "\n\ndef refund(v: int) -> int:\n    return -v\n")
    _git(repo, "commit", "-qam", "refund")
    second_commit = _git(repo, "rev-parse", "HEAD")
    _fire_schedule()
    _drain_queue()
    row = _repo_row(app_name)
    assert (row["last_status"], row["last_commit"]) == ("succeeded", second_commit), row
    last = next(j for j in _jobs(app_name) if j["task"] in ("repo", "finish")
                and j["status"] == "succeeded" and not j["result"].get("handed_over"))
    if last["task"] == "repo":
        assert last["result"]["graph"]["files_parsed"] == 1  # only the changed file
    new_embeds = _scalar(engine, "SELECT count(*) FROM chunks c JOIN applications a"
                                 " ON a.id = c.application_id WHERE a.name = :a"
                                 " AND c.embed_ts > :t", a=app_name, t=embedded_at)
    assert 1 <= new_embeds <= 3  # the new function (and what its file's change touched)
    assert _scalar(engine, "SELECT count(*) FROM nodes n JOIN applications a"
                           " ON a.id = n.application_id WHERE a.name = :a"
                           " AND n.name = 'refund'", a=app_name) == 1
    _stage_batch_on_another_machine(engine, app_name, second_commit, tmp_path / "machine2")
    found = run_cli("search", "refund", "--app", app_name, "--json-envelope")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["indexed_commits"] == {app_name: second_commit}
    assert "-01-01 03:00:00" in row["next_run"]  # the schedule's next firing, UTC


def _stage_batch_on_another_machine(engine: Engine, app: str, commit: str,
                                    home: Path) -> None:
    """A stage batch on a machine without the coordinator's checkout (its own
    GRAPHRAG_HOME, the recorded root path absent) fetches the commit being indexed into
    its own checkout folder and works from there."""
    from graphrag.jobs.settings import QueueSettings
    from graphrag.jobs.tasks import Runtime, _root_for_batch
    from graphrag.pipeline.runner import run_claimed_batch

    with engine.begin() as conn:
        app_id = conn.execute(text("SELECT id FROM applications WHERE name = :a"),
                              {"a": app}).scalar_one()
        recorded = conn.execute(text("SELECT root_path FROM applications WHERE id = :a"),
                                {"a": app_id}).scalar_one()
        conn.execute(text("UPDATE applications SET root_path = '/nonexistent/checkout'"
                          " WHERE id = :a"), {"a": app_id})
        conn.execute(text(  # the snippets of two chunks to extract again
            "UPDATE chunks SET pending = true, stage_state = '{}'::jsonb WHERE id IN"
            " (SELECT id FROM chunks WHERE application_id = :a AND source = 'code'"
            "  ORDER BY id LIMIT 2)"), {"a": app_id})
    try:
        settings = load_settings().with_overrides(home=home)
        rt = Runtime(settings=settings, engine=engine, queue=QueueSettings(), worker="m2")
        root = _root_for_batch(rt, rt.context(app), commit)
        assert root is not None and Path(root).is_relative_to(home / "checkouts")
        assert _git(Path(root), "rev-parse", "HEAD") == commit
        stats = run_claimed_batch(rt.context(app), root_path=root)
        assert stats.chunks == 2 and stats.failed == 0, stats.to_dict()
        assert _root_for_batch(rt, rt.context(app), commit) is None  # nothing pending: no fetch
    finally:
        with engine.begin() as conn:
            conn.execute(text("UPDATE applications SET root_path = :r WHERE id = :a"),
                         {"r": recorded, "a": app_id})


def test_bad_url_and_missing_ref_are_recorded_failures_the_others_run(
        engine, app_name, other_app, tmp_path) -> None:
    good = _git_repo(tmp_path / "good")
    broken = app_name + "_broken"
    try:
        assert run_cli("repos", "add", f"file://{tmp_path}/missing.git",
                       "--app", app_name).returncode == 0
        assert run_cli("repos", "add", str(good), "--app", broken,
                       "--ref", "no-such-branch").returncode == 0
        assert run_cli("repos", "add", str(good), "--app", other_app).returncode == 0
        for app in (app_name, broken, other_app):
            res = run_cli("repos", "run", app, "--json")
            assert res.returncode == 0, res.stderr
            assert json.loads(res.stdout)["job_id"]
        again = json.loads(run_cli("repos", "run", other_app, "--json").stdout)
        assert again["already_queued"] is True  # one waiting run per repository
        notes = tmp_path / "runbook.md"
        notes.write_text("# Refunds\n\nA refund is booked within 30 days of the order.\n")
        ingest_id = enqueue_ingest(load_settings(), other_app, [notes])
        _drain_queue()
        ingested = next(j for j in _jobs(other_app) if j["id"] == ingest_id)
        assert ingested["status"] == "succeeded", ingested
        assert [d["status"] for d in ingested["result"]["documents"]] == ["indexed"]

        bad_url, bad_ref, fine = (_repo_row(a) for a in (app_name, broken, other_app))
        assert bad_url["last_status"] == "failed"
        assert bad_url["last_error"].startswith("cannot fetch file://")
        assert bad_ref["last_status"] == "failed"
        assert bad_ref["last_error"] == (
            f"ref 'no-such-branch' not found in {good.resolve().as_uri()}")
        assert fine["last_status"] == "succeeded" and fine["last_commit"]
        for app, row in ((app_name, bad_url), (broken, bad_ref)):
            job = next(j for j in _jobs(app) if j["task"] == "repo")
            # a user error is not retried: one attempt, its error on the job
            assert (job["status"], job["attempts"], job["error"]) == (
                "failed", 1, row["last_error"])
        listing = run_cli("repos", "list")
        assert "no-such-branch" in listing.stdout and "failed" in listing.stdout

        failed = next(j for j in _jobs(app_name) if j["task"] == "repo")["id"]
        retried = run_cli("jobs", "retry", str(failed), "--json")
        assert retried.returncode == 0 and json.loads(retried.stdout)["status"] == "todo"
        _drain_queue()
        job = next(j for j in _jobs(app_name) if j["id"] == failed)
        assert (job["status"], job["attempts"]) == ("failed", 2)
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": broken})


def test_queue_commands_without_a_worker(engine, app_name, tmp_path) -> None:
    repo = _write_repo(tmp_path / "repo", functions=2)
    res = run_cli("index", str(repo), "--app", app_name, "--queue", "--json")
    assert res.returncode == 0, res.stderr
    job_id = json.loads(res.stdout)["job_id"]
    listed = _jobs(app_name)
    assert [(j["id"], j["task"], j["status"], j["attempts"]) for j in listed] == [
        (job_id, "index", "todo", 0)]
    # the payload keeps the shape that jobs queued by earlier versions hold: they still run
    assert listed[0]["args"] == {
        "app": app_name, "path": str(repo.resolve()), "include": [], "exclude": [],
        "languages": None, "full": False, "graph_only": False, "allow_mass_delete": False,
        "max_file_bytes": None}
    shown = run_cli("jobs", "show", str(job_id), "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["task"] == "index"

    cancelled = run_cli("jobs", "cancel", str(job_id), "--json")
    assert cancelled.returncode == 0 and json.loads(cancelled.stdout)["status"] == "cancelled"
    again = run_cli("jobs", "cancel", str(job_id))
    assert again.returncode == 1 and "only a waiting or running job" in again.stderr
    retried = run_cli("jobs", "retry", str(job_id))
    assert retried.returncode == 1 and "only a failed job" in retried.stderr
    listed = run_cli("jobs", "--status", "cancelled", "--app", app_name)
    assert listed.returncode == 0 and f"{job_id}\tindex\t{app_name}\tcancelled" in listed.stdout

    assert run_cli("jobs", "retry", "987654321").returncode == 1
    assert run_cli("jobs", "--status", "bogus").returncode == 2
    assert run_cli("index", str(tmp_path / "nope"), "--app", app_name,
                   "--queue").returncode == 1
    bad = run_cli("repos", "add", str(repo), "--app", app_name, "--schedule", "every night")
    assert bad.returncode == 1 and "invalid schedule" in bad.stderr
    bad = run_cli("repos", "add", str(tmp_path / "nowhere"), "--app", app_name)
    assert bad.returncode == 1 and "not a folder and not a git URL" in bad.stderr
    assert run_cli("repos", "run", app_name).returncode == 1  # no repository yet
    assert run_cli("worker", "--queues", "nightly").returncode == 2


class _AuthRecorder(http.server.BaseHTTPRequestHandler):
    """A git HTTP remote that asks for credentials and records the ones it is sent."""

    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server hook's name
        auth = self.headers.get("Authorization")
        if auth is None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
        else:
            self.seen.append(auth)
            self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args) -> None:
        pass


def test_git_credentials_are_never_shown_nor_written_to_the_checkout(
        engine, app_name, tmp_path) -> None:
    """A token in a repository URL is neither printed by `repos list` nor stored in
    `.git/config`."""
    from graphrag.jobs.sources import SourceError, fetch, redacted

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AuthRecorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        url = f"http://alice:s3cr%40t-token@127.0.0.1:{port}/shop.git"
        added = run_cli("repos", "add", url, "--app", app_name)
        assert added.returncode == 0, added.stderr
        listed = run_cli("repos", "list")
        as_json = run_cli("repos", "list", "--json")
        for out in (added.stdout, listed.stdout, as_json.stdout):
            assert "s3cr" not in out
        assert f"http://alice:***@127.0.0.1:{port}/shop.git" in listed.stdout
        dest = tmp_path / "checkout"
        with pytest.raises(SourceError) as err:
            fetch(url, None, dest)
        assert "s3cr" not in str(err.value)
        # git was given the credentials (decoded), through the helper, not the config
        assert _AuthRecorder.seen and base64.b64decode(
            _AuthRecorder.seen[-1].split()[1]).decode() == "alice:s3cr@t-token"
        config = (dest / ".git" / "config").read_text()
        assert "s3cr" not in config and f"http://127.0.0.1:{port}/shop.git" in config
    finally:
        server.shutdown()
    assert redacted("https://ghp_token123@github.com/a/b.git") == "https://***@github.com/a/b.git"
    assert redacted("git@github.com:a/b.git") == "git@github.com:a/b.git"
