"""The server's background jobs in the database: every worker process of `graphrag serve`
answers for every job, and the jobs of a process that stopped end as failed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from graphrag.config import load_settings
from graphrag.db.engine import get_engine
from graphrag.server import job_store
from graphrag.server.background import Jobs
from tests.live_server import free_port


@pytest.fixture
def two_processes(engine: Engine) -> Iterator[tuple[Jobs, Jobs]]:
    """Two job runners on one database, as two worker processes of one server."""
    first, second = Jobs(), Jobs()
    first.start(engine)
    second.start(engine)
    yield first, second
    for jobs in (first, second):
        jobs.shutdown(wait=False)
        if jobs._owner is not None:
            jobs._owner.release()


def _settled(jobs: Jobs, job_id: str) -> dict:
    deadline = time.monotonic() + 20
    while (job := jobs.get(job_id)) is None or job.status in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.02)
    return job.to_dict()


def test_a_job_run_by_one_process_is_answered_by_another(two_processes) -> None:
    first, second = two_processes
    gate = threading.Event()
    job = first.submit("index", "shop", lambda: gate.wait(10) and {"files": 3, "at": Path("/r")},
                       {"path": "/r"})
    seen = second.get(job.id)
    assert seen is not None and (seen.kind, seen.app, seen.meta) == ("index", "shop",
                                                                    {"path": "/r"})
    assert seen.status in ("queued", "running")
    gate.set()
    done = _settled(second, job.id)
    mine = first.get(job.id).to_dict()
    assert done["status"] == "succeeded" and done["result"] == {"files": 3, "at": "/r"}
    assert (done["created_at"], done["started_at"], done["finished_at"]) == (
        mine["created_at"], mine["started_at"], mine["finished_at"])

    def refuse() -> None:
        from graphrag.errors import InvalidInput

        raise InvalidInput("not a folder: /nope")

    failed = first.submit("index", "shop", refuse)
    assert _settled(second, failed.id)["error"] == "not a folder: /nope"
    assert second.get("0123abcd") is None


def test_the_jobs_of_a_stopped_process_end_failed(engine: Engine, two_processes) -> None:
    """A process that stopped (its owner lock gone) with a job running and one queued:
    the next process to start marks both failed, and says how many; a live process's
    jobs are left alone."""
    first, second = two_processes
    gate = threading.Event()
    running = first.submit("upload", "shop", lambda: gate.wait(10))
    queued = first.submit("index", "shop", lambda: 1)
    live = second.submit("upload", "shop", lambda: gate.wait(10))
    deadline = time.monotonic() + 10
    while first.get(running.id).status != "running" and time.monotonic() < deadline:
        time.sleep(0.02)
    first._owner.release()  # the process is gone: its session, and its lock, end
    third = Jobs()
    try:
        assert third.start(engine) >= 2  # the database is shared with other tests
        for job in (running, queued):
            found = third.get(job.id)
            assert (found.status, found.error) == ("failed", job_store.STOPPED)
            assert found.finished_at is not None
        assert third.get(live.id).status in ("queued", "running")
    finally:
        gate.set()
        third.shutdown()


def test_a_process_whose_lock_session_died_keeps_its_jobs(engine: Engine,
                                                          two_processes) -> None:
    """The database ended the session holding a live process's lock (a restart, an
    idle timeout): at its next write the process locks a new number and takes its open
    jobs along, so a process starting then does not fail them as orphans."""
    first, _second = two_processes
    gate = threading.Event()
    running = first.submit("index", "shop", lambda: gate.wait(10) and "done")
    with engine.begin() as conn:
        pid = conn.execute(text(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = :s"
            " AND objid = :o"), {"s": job_store.LOCK_SPACE,
                                 "o": first._owner.number}).scalar_one()
        conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
    old = first._owner.number
    first.submit("index", "shop", lambda: 1)  # its next write
    assert first._owner.number != old
    third = Jobs()
    try:
        third.start(engine)
        assert third.get(running.id).status in ("queued", "running")
        gate.set()
        assert _settled(third, running.id)["result"] == "done"
    finally:
        gate.set()
        third.shutdown()


def test_a_state_the_database_missed_is_stored_with_the_next_write(
        two_processes, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = two_processes
    save = job_store.save
    calls = {"n": 0}

    def flaky(engine, job, owner):
        calls["n"] += 1
        if job["status"] == "succeeded" and calls["n"] < 10 and not calls.get("failed"):
            calls["failed"] = True
            raise OperationalError("UPDATE", {}, Exception("connection reset"))
        return save(engine, job, owner)

    monkeypatch.setattr(job_store, "save", flaky)
    job = first.submit("index", "shop", lambda: {"files": 1})
    deadline = time.monotonic() + 20
    while not calls.get("failed"):  # its final write failed (a get() here would store it)
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert job.status == "succeeded" and second.get(job.id).status == "running"
    first.get(job.id)  # any later call of this process stores what was missed
    assert second.get(job.id).status == "succeeded"
    # a result JSON cannot hold is stored as text, not lost
    odd = first.submit("index", "shop", lambda: {"big": 2**70, (1, 2): "pair"})
    _settled(first, odd.id)
    assert "1180591620717411303424" in str(_settled(second, odd.id)["result"])


def test_a_stop_fails_the_jobs_still_queued(engine: Engine, two_processes) -> None:
    """A stop fails the queued jobs at once; an upload's says its document is processed
    when the server starts again (its document stays queued), not "start it again"."""
    first, second = two_processes
    gate = threading.Event()
    first.submit("document", "shop", lambda: gate.wait(10))
    queued = first.submit("index", "shop", lambda: 1)
    upload = first.submit("document", "shop", lambda: 1, {"document_id": 7})
    first.shutdown(wait=False)
    gate.set()
    found = second.get(queued.id)
    assert (found.status, found.error) == ("failed", job_store.STOPPED)
    assert second.get(upload.id).error == job_store.STOPPED_UPLOAD


def test_jobs_without_a_database_stay_in_memory() -> None:
    jobs = Jobs()
    job = jobs.submit("index", "shop", lambda: 7)
    assert _settled(jobs, job.id)["result"] == 7
    jobs.shutdown()


def test_a_server_with_two_worker_processes_answers_for_every_job(
        db_url: str, tmp_path: Path, app_name: str) -> None:
    """`graphrag serve --workers 2`: an index run started through one process is polled
    to its end through whichever process takes each request, and is never "not found"."""
    repo = tmp_path / "code"
    repo.mkdir()
    (repo / "shop.py").write_text("def total(items):\n    return sum(items)\n")
    port = free_port()
    env = {**os.environ, "GRAPHRAG_DATABASE_URL": db_url}
    proc = subprocess.Popen([sys.executable, "-m", "graphrag", "serve", "--no-auth", "--no-mcp",
                             "--workers", "2", "--port", str(port),
                             "--index-root", str(tmp_path)],
                            stderr=subprocess.PIPE, text=True, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        started = httpx.post(f"{base}/v1/apps/{app_name}/index", json={"path": str(repo)},
                             timeout=30)
        assert started.status_code == 202, started.text
        job_id = started.json()["job_id"]
        answers = []
        deadline = time.monotonic() + 240
        while not answers or answers[-1].get("status") in ("queued", "running"):
            assert time.monotonic() < deadline, answers[-1:]
            # a new connection each time: the kernel hands it to either process
            answer = httpx.get(f"{base}/v1/jobs/{job_id}", timeout=30)
            assert answer.status_code == 200, answer.text
            answers.append(answer.json())
            time.sleep(0.1)
        for _ in range(10):
            again = httpx.get(f"{base}/v1/jobs/{job_id}", timeout=30)
            assert again.status_code == 200 and again.json()["status"] == "succeeded"
        assert answers[-1]["status"] == "succeeded", answers[-1]
        assert answers[-1]["app"] == app_name
        # the state every process answers from: the stored row
        stored = get_engine(load_settings().with_overrides(database_url=db_url))
        assert job_store.get(stored, job_id)["status"] == "succeeded"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
