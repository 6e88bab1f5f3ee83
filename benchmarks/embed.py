"""Embed stage throughput against a bare ``model.encode`` over the same texts, same run.

    python benchmarks/embed.py [--chunks 512] [--repeat 3] [--no-db]

Texts: windows of 30 lines of this repository's own Python source, composed into embed
inputs exactly as the stage does (title, section path, content). Three timings, each the
best of ``--repeat`` rounds (the machine may be shared), interleaved so load hits all:

- ``bare``: ``model.encode(texts, batch_size=64)``;
- ``stage``: ``EmbedStage.run`` over the same chunks in batches of 128 (input composition,
  hashing, encoding, normalization, pgvector literals), without the database;
- ``runner``: ``run_pipeline(stages=["embed"])`` on chunks seeded in a scratch
  application: the stage plus reading and writing the database (skip with ``--no-db``).

Target: ``stage / bare <= 1.15``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from sqlalchemy import text  # noqa: E402

from graphrag.config import load_settings  # noqa: E402
from graphrag.embedding import get_embedder  # noqa: E402
from graphrag.pipeline.model import NodeInfo, StageContext, WorkItem  # noqa: E402
from graphrag.pipeline.stages.embed import EmbedStage, embed_input  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
WINDOW = 30
BATCH = 128


def source_windows(count: int) -> list[tuple[str, str]]:
    """(title, content) pairs: 30-line windows of the package's Python files."""
    out: list[tuple[str, str]] = []
    files = sorted((REPO / "graphrag").rglob("*.py"))
    while len(out) < count:
        for path in files:
            lines = path.read_text().splitlines()
            for start in range(0, len(lines), WINDOW):
                body = "\n".join(lines[start:start + WINDOW]).strip()
                if body:
                    rel = path.relative_to(REPO).as_posix()
                    out.append((f"{rel}:{start + 1}#{len(out)}", body))
                if len(out) >= count:
                    return out
    return out


def work_items(pairs: list[tuple[str, str]]) -> list[WorkItem]:
    node = NodeInfo(id=0, kind="FUNCTION", name=None, fqn=None, file_path=None, lang="python",
                    line_start=None, line_end=None, signature=None, doc_comment=None,
                    content_hash=None, meta={})
    return [WorkItem(id=i, row={"title": t, "section_path": t.split("/")[:-1], "content": c},
                     node=node) for i, (t, c) in enumerate(pairs)]


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def time_stage(items: list[WorkItem], embedder) -> None:
    ctx = StageContext(engine=None, settings=load_settings(), app_id=0, app_name="bench",
                       root_path=None)  # type: ignore[arg-type]
    ctx.provide("embedder", embedder)
    ctx.provide("embedder_checked", True)  # no database in this timing
    stage = EmbedStage()
    for start in range(0, len(items), BATCH):
        batch = items[start:start + BATCH]
        for item in batch:
            item.changes.clear()
        result = stage.run(batch, ctx)
        assert not result.failed and not result.skipped


def seed_db(pairs: list[tuple[str, str]]):
    """A scratch application whose chunks only need the embed stage."""
    from graphrag.db.apps import ensure_app
    from graphrag.db.engine import get_engine

    settings = load_settings()
    engine = get_engine(settings)
    name = f"bench-embed-{os.getpid()}"
    with engine.begin() as conn:
        app = ensure_app(conn, name, str(REPO))
        node_id = conn.execute(text(
            "INSERT INTO nodes (application_id, stable_key, kind, name, fqn)"
            " VALUES (:a, 'bench', 'FUNCTION', 'bench', 'bench') RETURNING id"),
            {"a": app.id}).scalar_one()
        conn.execute(text(
            "INSERT INTO chunks (plan_id, application_id, node_id, source, kind, title,"
            " section_path, content, pipeline)"
            " VALUES (:p, :a, :n, 'code', 'snippet', :t, :sp, :c,"
            " '{\"stages\": [\"embed\"]}'::jsonb)"),
            [{"p": f"bench:{os.getpid()}:{i}", "a": app.id, "n": node_id, "t": t,
              "sp": t.split("/")[:-1], "c": c} for i, (t, c) in enumerate(pairs)])
    return settings, engine, name, app.id


def time_runner(settings, engine, name: str, app_id: int, embedder) -> float:
    from graphrag.pipeline.runner import run_pipeline

    with engine.begin() as conn:  # fresh work each round (and no skip on unchanged input)
        conn.execute(text("UPDATE chunks SET stage_state = '{}', pending = true, emb = NULL"
                          " WHERE application_id = :a"), {"a": app_id})
    started = time.perf_counter()
    stats = run_pipeline(engine, settings, name, stages=["embed"], batch_size=BATCH,
                         embedder=embedder)
    elapsed = time.perf_counter() - started
    assert stats.stages["embed"]["done"] == stats.chunks and stats.failed == 0
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-db", action="store_true")
    args = parser.parse_args()

    embedder = get_embedder(load_settings())
    items = work_items(source_windows(args.chunks))
    texts = [embed_input(i) for i in items]
    embedder.model.encode(texts[:64], batch_size=64)  # warm-up

    db = None if args.no_db else seed_db(source_windows(args.chunks))
    bare, stage, runner = [], [], []
    try:
        for _ in range(args.repeat):
            bare.append(best_of(1, lambda: embedder.model.encode(texts, batch_size=64)))
            stage.append(best_of(1, lambda: time_stage(items, embedder)))
            if db:
                runner.append(time_runner(*db, embedder))
    finally:
        if db:
            from graphrag.db.apps import delete_app
            delete_app(db[1], db[2])
    report = {"chunks": len(texts), "model": embedder.name, "bare_s": round(min(bare), 3),
              "stage_s": round(min(stage), 3),
              "bare_chunks_per_s": round(len(texts) / min(bare), 1),
              "stage_chunks_per_s": round(len(texts) / min(stage), 1),
              "stage_ratio": round(min(stage) / min(bare), 3)}
    if runner:
        report.update(runner_s=round(min(runner), 3),
                      runner_ratio=round(min(runner) / min(bare), 3))
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
