"""Crash safety: SIGKILL a real `graphrag pipeline run` mid-run, run again, lose nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.conftest import run_cli
from tests.pipeline_seed import seed_many_functions

CHUNKS = 200
BATCH = 8


def _done(engine, app_id: int) -> int:
    with engine.connect() as conn:
        return conn.execute(text(
            "SELECT count(*) FROM chunks WHERE application_id = :a AND NOT pending"),
            {"a": app_id}).scalar_one()


def _kill_after_some_batches(engine, app_name: str, app_id: int) -> int:
    """Start the run, SIGKILL it once a few batches are committed; the done count then."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphrag", "pipeline", "run", "--app", app_name,
         "--batch-size", str(BATCH)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ),
    )
    try:
        deadline = time.monotonic() + 300
        while _done(engine, app_id) < 3 * BATCH:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no batch committed in time"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return _done(engine, app_id)


def test_sigkill_mid_run_then_rerun_finishes_every_chunk_exactly_once(
        engine, app_name: str, tmp_path: Path) -> None:
    seeded = seed_many_functions(engine, app_name, tmp_path / "repo", CHUNKS)
    done_at_kill = _kill_after_some_batches(engine, app_name, seeded.app_id)
    assert 3 * BATCH <= done_at_kill < CHUNKS, "the run must be cut short"

    res = run_cli("pipeline", "run", "--app", app_name, "--batch-size", "64", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["chunks"] == CHUNKS - done_at_kill  # only the rest ran

    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT plan_id, pending, stage_state, vector_dims(emb) AS dims, content"
            " FROM chunks WHERE application_id = :a"), {"a": seeded.app_id}).mappings().all()
    assert len(rows) == CHUNKS and len({r["plan_id"] for r in rows}) == CHUNKS
    for r in rows:
        assert r["pending"] is False and r["dims"] == 384 and r["content"].startswith("def ")
        # every stage ran once in effect: the killed batch's work was never committed
        assert {k: (v["status"], v["attempts"]) for k, v in r["stage_state"].items()} == {
            "extract-snippet": ("done", 1), "summarize": ("done", 1),
            "embed": ("done", 1), "link-edges": ("done", 1)}
    rerun = run_cli("pipeline", "run", "--app", app_name, "--json")
    assert json.loads(rerun.stdout)["chunks"] == 0


# A real `graphrag index` process SIGKILLs itself at the named step (the graph already
# committed): the state a crash, an OOM kill or a power cut there leaves.
_KILLED_AT = (
    "import os, signal, sys\n"
    "import graphrag.indexing as ix\n"
    "setattr(ix, sys.argv[1], lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL))\n"
    "from graphrag.cli.main import main\n"
    "sys.argv = ['graphrag', *sys.argv[2:]]\n"
    "main()\n")


def _code_chunks(engine, app_name: str) -> dict[str, str]:
    with engine.connect() as conn:
        return dict(conn.execute(text(
            "SELECT n.fqn, c.content FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " JOIN applications a ON a.id = c.application_id"
            " WHERE a.name = :n AND c.source = 'code' AND NOT c.pending"),
            {"n": app_name}).all())


@pytest.mark.parametrize("step", ["plan_chunks", "index_repository_documents"])
def test_a_run_killed_after_the_graph_commit_is_finished_by_the_next(
        engine, app_name: str, tmp_path: Path, step: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "shop.py").write_text("def total(xs):\n    return sum(xs)\n")
    assert run_cli("index", str(repo), "--app", app_name).returncode == 0
    # A new symbol and a renamed one, then the run dies right after the graph's commit.
    (repo / "shop.py").write_text("def grand_total(xs):\n    return sum(xs)\n\n\n"
                                  "def discount(x):\n    return x * 0.9\n")
    killed = subprocess.run([sys.executable, "-c", _KILLED_AT, step, "index", str(repo),
                             "--app", app_name], capture_output=True, text=True,
                            timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    res = run_cli("index", str(repo), "--app", app_name, "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["chunks"].get("skipped") is not True
    chunks = _code_chunks(engine, app_name)
    assert chunks["shop.discount"].startswith("def discount(x):")
    assert chunks["shop.grand_total"].startswith("def grand_total(xs):")
    assert "shop.total" not in chunks
    again = run_cli("index", str(repo), "--app", app_name, "--json")
    assert json.loads(again.stdout)["chunks"] == {"skipped": True, "reason": "graph unchanged"}
