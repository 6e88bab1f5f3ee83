"""Pure parts of the server: background jobs, the error-to-status map, scopes, renderers."""

from __future__ import annotations

import threading
import time

import pytest

from graphrag.errors import (
    DatabaseUnavailable,
    InvalidInput,
    ModelMismatch,
    NotAllowed,
    NotFound,
    TooLarge,
    UnknownApplication,
    UnknownSymbol,
    UsageError,
)
from graphrag.server.background import Jobs
from graphrag.server.errors import status_of
from graphrag.server.mcp import render_endpoints, render_paths, render_tree
from graphrag.server.operations import Scope


def _settle(jobs: Jobs, job_id: str) -> dict:
    deadline = time.monotonic() + 10
    while jobs.get(job_id).status in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return jobs.get(job_id).to_dict()


def test_jobs_run_one_at_a_time_and_record_outcomes() -> None:
    jobs = Jobs()
    gate = threading.Event()
    first = jobs.submit("index", "a", lambda: gate.wait(5) and {"ok": 1})
    second = jobs.submit("document", "a", lambda: 42)
    assert jobs.get(second.id).status == "queued"  # one worker: waits for the first
    gate.set()
    assert _settle(jobs, first.id)["result"] == {"ok": 1}
    done = _settle(jobs, second.id)
    assert (done["status"], done["result"], done["app"]) == ("succeeded", 42, "a")
    assert done["started_at"] <= done["finished_at"]

    def refuse() -> None:
        raise InvalidInput("bad file")

    def crash() -> None:
        raise RuntimeError("boom")

    assert _settle(jobs, jobs.submit("x", "a", refuse).id)["error"] == "bad file"
    crashed = _settle(jobs, jobs.submit("x", "a", crash).id)
    assert crashed["status"] == "failed" and crashed["error"].startswith("internal error")
    assert jobs.get("nope") is None
    jobs.shutdown()


@pytest.mark.parametrize("exc,status", [
    (UnknownApplication("x"), 404), (NotFound("x"), 404), (TooLarge("x"), 413),
    (NotAllowed("x"), 403), (InvalidInput("x"), 400), (UsageError("x"), 400),
    (DatabaseUnavailable("x"), 503), (ModelMismatch("x"), 500),
    (UnknownSymbol("x", ["a.x"]), 404), (UnknownSymbol("x", ["a.x", "b.x"], ambiguous=True), 409)])
def test_every_error_branch_has_its_status(exc, status) -> None:
    assert status_of(exc)[0] == status


def test_scope_checks_and_defaults() -> None:
    one, two, anyone = Scope(frozenset({"a"})), Scope(frozenset({"a", "b"})), Scope(None)
    assert one.default_app(None) == "a" and one.resolve(None) == ["a"]
    with pytest.raises(NotAllowed):
        one.check("b")
    with pytest.raises(NotAllowed):
        one.resolve(["a", "b"])
    with pytest.raises(InvalidInput):
        two.default_app(None)
    assert two.resolve(None) == ["a", "b"] and anyone.check("z") == "z"
    with pytest.raises(InvalidInput):
        anyone.resolve(None)


def _n(fqn: str, **extra) -> dict:
    return {"id": hash(fqn), "kind": "METHOD", "fqn": fqn, "file_path": "a.py",
            "line_start": 1, "line_end": 3, **extra}


def test_renderers_are_compact_and_mark_repeats() -> None:
    leaf = {**_n("m.c"), "confidence": 0.9, "resolution": "type", "children": []}
    tree = {"direction": "callees", "max_depth": 2, "nodes": 3, "truncated": False,
            "roots": [{**_n("m.a"), "children": [
                {**_n("m.b"), "confidence": 1.0, "resolution": "self", "children": [leaf]},
                {**leaf, "seen": True}]}]}
    text = render_tree(tree)
    assert text.splitlines()[1:] == [
        "METHOD m.a  a.py:1-3", "  -> m.b 1.00 [self]  a.py:1-3",
        "    -> m.c 0.90 [type]  a.py:1-3", "  -> m.c 0.90 [type]  a.py:1-3  (see above)"]
    paths = {"from": "m.a", "to": "m.c", "max_depth": 3, "length": 2, "truncated": False,
             "paths": [[_n("m.a"), {**_n("m.b"), "confidence": 1.0},
                        {**_n("m.c"), "confidence": 0.5}]]}
    assert render_paths(paths).splitlines()[1] == "m.a -> m.b (1.00) -> m.c (0.50)"
    assert "no call path" in render_paths({**paths, "paths": [], "length": None})
    assert render_endpoints([{"http_method": "GET", "route": "/x", "handler": "m.h",
                              "file_path": "a.py", "line_start": 4, "line_end": 4}]) \
        == "GET /x  m.h  a.py:4"


def test_serve_queue_routes_index_runs_to_the_job_queue(engine, app_name, tmp_path) -> None:
    # `graphrag serve --queue`: an index run is a job of the queue (a worker anywhere runs
    # it), visible by its numeric id to a caller scoped to its application only.
    from graphrag.config import load_settings
    from graphrag.jobs.repos import add_repository
    from graphrag.server import operations as ops
    from graphrag.server.runtime import Runtime

    repo = tmp_path / "code"
    repo.mkdir()
    (repo / "m.py").write_text("def f():\n    return 1\n")
    runtime = Runtime(settings=load_settings(), engine=engine)
    mine, other = Scope(frozenset({app_name})), Scope(frozenset({"someone-else"}))
    jobs = Jobs()
    try:
        started = ops.start_index(runtime, mine, app_name, str(repo), roots=[tmp_path],
                                  jobs=jobs, queue=True)
        assert started["status"] == "queued" and started["job_id"].isdigit()
        job = ops.job(jobs, mine, started["job_id"], runtime=runtime)
        assert job["app"] == app_name and job["task"] == "index" and job["status"] == "todo"
        with pytest.raises(NotFound):
            ops.job(jobs, other, started["job_id"], runtime=runtime)
        with pytest.raises(NotFound):
            ops.job(jobs, mine, "999999999", runtime=runtime)
        assert jobs.get(started["job_id"]) is None  # nothing ran in-process

        # Without a path, an application with a registered repository runs that.
        add_repository(engine, app_name, str(repo))
        run = ops.start_index(runtime, mine, app_name, None, roots=[tmp_path], jobs=jobs,
                              queue=True)
        assert run["repository"] is True
        assert ops.job(jobs, mine, run["job_id"], runtime=runtime)["task"] == "repo"
    finally:
        jobs.shutdown(wait=False)


def test_loopback_guard_refuses_other_sites_and_hosts() -> None:
    from graphrag.server.guards import host_name, refusal

    assert [host_name(h) for h in ("127.0.0.1:8000", "LOCALHOST", "[::1]:80", "::1")] == \
        ["127.0.0.1", "localhost", "::1", "::1"]
    ok = [{"host": "127.0.0.1:8000"}, {"host": "localhost:8000",
                                        "origin": "http://localhost:8000"},
          {"host": "[::1]:8000", "sec-fetch-site": "same-origin"}, {}]
    assert [refusal(h) for h in ok] == [None] * len(ok)
    refused = [{"host": "evil.example:8000"}, {"host": "127.0.0.1.nip.io"},
               {"host": "127.0.0.1:8000", "origin": "http://evil.example"},
               {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:9000"},
               {"host": "127.0.0.1:8000", "origin": "null"},
               {"host": "127.0.0.1:8000", "sec-fetch-site": "cross-site"}]
    assert all(refusal(h) for h in refused)


def test_text_checks_refuse_what_postgresql_cannot_take() -> None:
    from graphrag.server.limits import check_filename, check_glob, clean_json, clean_text

    assert clean_text("ünïcode 🙂") == "ünïcode 🙂"
    for bad in ("a\x00b", "x\ud800"):
        with pytest.raises(ValueError):
            clean_text(bad)
    assert check_glob("src/**/*.py") == "src/**/*.py"
    for glob in ("**/" * 9, "a" * 501):
        with pytest.raises(ValueError):
            check_glob(glob)
    with pytest.raises(ValueError):
        check_filename("é" * 128 + ".md")  # 256 bytes in UTF-8
    deep: list = []
    for _ in range(40):
        deep = [deep]
    for bad in ({"k\x00": 1}, {"a": ["\udc00"]}, {"a": deep}):
        with pytest.raises(ValueError):
            clean_json(bad)
    assert clean_json({"sections": [{"text": "ok", "source_ids": ["1:2"]}]})


def test_a_stop_waits_for_the_model_load_while_a_job_runs(engine) -> None:
    """A server stopped while an upload or index run is running does not abandon its
    model load (which would end the process under the job): it waits as before."""
    from graphrag.config import load_settings
    from graphrag.server.runtime import Runtime

    jobs = Jobs()
    release = threading.Event()
    job = jobs.submit("upload", "app", release.wait)
    deadline = time.monotonic() + 10
    while not jobs.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert jobs.running()
    runtime = Runtime(load_settings(), engine, owns_process=True)
    runtime._loader = threading.Thread(target=time.sleep, args=(4.0,), daemon=True)
    runtime._loader.start()
    started = time.monotonic()
    runtime.close(abandon=not jobs.running())  # returns (os._exit would end pytest)
    assert time.monotonic() - started >= 3.5
    release.set()
    assert _settle(jobs, job.id)["status"] == "succeeded"
    assert not jobs.running()
