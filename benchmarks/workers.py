"""The job queue's cost and scaling: one stage-heavy application indexed inline and through
the queue with 1 and 2 `graphrag worker` processes, in the same run.

    nice -n 10 python benchmarks/workers.py [--functions 400] [--batch 64] [--rounds 1]

A generated repository of ``--functions`` small documented Python functions (one chunk
each: the embed stage dominates) is indexed from scratch into a new application per
variant:

- inline: ``index_repository`` in this process, the model loaded beforehand;
- queue-1 / queue-2: ``graphrag index --queue``'s service, executed by 1 or 2 worker
  subprocesses started (and warmed up: each loads the model before taking jobs) before
  the clock starts; the time runs from the job's deferral to the end of its last attempt
  (database timestamps), with stage batches of ``--batch`` chunks.

Prints chunks/s per variant (best and median of the rounds, interleaved) and the overhead
ratio queue-1 / inline (target <= 1.10x),
and the load average before and after: on a machine shared with other work, the 2-worker
number says as much about free cores as about the queue.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import bench_engine, drop_app
from sqlalchemy import Engine, text

from graphrag.config import load_settings
from graphrag.embedding import get_embedder
from graphrag.graph.request import IndexRequest
from graphrag.indexing import index_repository
from graphrag.jobs.service import enqueue_index


def make_repo(root: Path, functions: int) -> Path:
    """``functions`` documented functions over a few modules, calling each other."""
    per_module = 50
    for m in range(0, functions, per_module):
        lines = []
        for i in range(m, min(m + per_module, functions)):
            lines.append(
                f"def settle_order_{i}(order, ledger):\n"
                f'    """Settle order {i}: reserve stock, charge the card and book the'
                f' refund window of {i % 30} days."""\n'
                f"    total = sum(item.price * item.quantity for item in order.items)\n"
                f"    ledger.book(order.id, total, window={i % 30})\n"
                f"    return settle_order_{max(i - 1, m)}(order, ledger) if total < 0"
                f" else total\n")
        (root / f"orders_{m // per_module}.py").write_text("\n\n".join(lines))
    return root


def chunk_count(engine: Engine, app: str) -> int:
    with engine.connect() as conn:
        return conn.execute(text(
            "SELECT count(*) FROM chunks c JOIN applications a ON a.id = c.application_id"
            " WHERE a.name = :a AND c.emb IS NOT NULL"), {"a": app}).scalar_one()


def queue_seconds(engine: Engine, app: str, job_id: int) -> float | None:
    """Deferral of the index job to the end of the app's last job attempt, once no job of
    the app is waiting or running (None before)."""
    with engine.connect() as conn:
        busy = conn.execute(text(
            "SELECT count(*) FROM procrastinate_jobs WHERE args->>'app' = :a"
            " AND status IN ('todo', 'doing')"), {"a": app}).scalar_one()
        if busy:
            return None
        row = conn.execute(text(
            """
            SELECT (SELECT min(at) FROM procrastinate_events
                     WHERE job_id = :j AND type = 'deferred') AS t0,
                   (SELECT max(x.finished_at) FROM job_attempts x
                      JOIN procrastinate_jobs j ON j.id = x.job_id
                     WHERE j.args->>'app' = :a) AS t1
            """), {"j": job_id, "a": app}).one()
    return (row.t1 - row.t0).total_seconds()


def live_workers(engine: Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(text(
            "SELECT count(*) FROM procrastinate_workers"
            " WHERE last_heartbeat > now() - interval '3 seconds'")).scalar_one()


def run_queue(engine: Engine, repo: Path, app: str, n_workers: int, batch: int) -> float:
    env = {**os.environ, "GRAPHRAG_STAGE_BATCH": str(batch),
           "GRAPHRAG_WORKER_HEARTBEAT": "1"}
    before = live_workers(engine)
    procs = [subprocess.Popen([sys.executable, "-m", "graphrag", "worker"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(n_workers)]
    try:
        while live_workers(engine) < before + n_workers:  # registered after warm-up
            assert all(p.poll() is None for p in procs), "a worker exited"
            time.sleep(0.2)
        job_id = enqueue_index(load_settings(), IndexRequest(Path(repo), app))
        while (seconds := queue_seconds(engine, app, job_id)) is None:
            time.sleep(0.2)
        return seconds
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=400)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    engine = bench_engine()
    settings = load_settings()
    get_embedder(settings)  # inline pays no model load, like a warmed-up worker
    load_before = os.getloadavg()
    results: dict[str, list[tuple[float, int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp), args.functions)
        for r in range(args.rounds):
            for variant in ("inline", "queue-1", "queue-2"):
                app = f"bench_workers_{variant}_{r}"
                drop_app(engine, app)
                if variant == "inline":
                    t0 = time.perf_counter()
                    index_repository(engine, settings, repo, app)
                    seconds = time.perf_counter() - t0
                else:
                    seconds = run_queue(engine, repo, app, int(variant[-1]), args.batch)
                results.setdefault(variant, []).append((seconds, chunk_count(engine, app)))
                drop_app(engine, app)
    load_after = os.getloadavg()
    print(f"{args.functions} functions, stage batches of {args.batch} chunks,"
          f" {os.cpu_count()} cores, load average {load_before[0]:.2f} before,"
          f" {load_after[0]:.2f} after")
    best, median = {}, {}
    for variant, runs in results.items():
        seconds, chunks = min(runs)
        best[variant] = seconds
        median[variant] = statistics.median(s for s, _ in runs)
        print(f"{variant:8s} {chunks:5d} chunks  best {seconds:7.2f} s"
              f" {chunks / seconds:7.1f} chunks/s  median {median[variant]:7.2f} s"
              f" {chunks / median[variant]:7.1f} chunks/s")
    for name, times in (("best", best), ("median", median)):
        print(f"{name:6s} overhead queue-1 / inline: {times['queue-1'] / times['inline']:.3f}x"
              f" (target <= 1.10x); speed-up queue-2 / queue-1:"
              f" {times['queue-1'] / times['queue-2']:.2f}x")


if __name__ == "__main__":
    main()
