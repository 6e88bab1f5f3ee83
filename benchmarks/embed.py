"""Embedding backends side by side: throughput, query latency and quality vs torch.

    python benchmarks/embed.py [--app samples] [--chunks 256] [--repeat 2] [--no-quality]

The application (default ``samples``: the README's main command indexes it) supplies the
chunks: their embed inputs, composed exactly as the embed stage does. Three parts:

1. Speed, interleaved round by round so load on a shared machine hits all backends:
   chunks/s of ``encode`` on ``--chunks`` of those inputs, best of ``--repeat`` rounds,
   per backend (torch, onnx, onnx-int8) and the ratio to torch (target: onnx-int8
   >= 3x torch); the median time of one query's encoding (target: half of torch's).
2. Retrieval: ``graphrag reembed`` of the application with each backend (chunks/s of the
   whole embed stage with the database), then ``hit-test`` MRR@10 per sample repository
   (``sample_repos/*/queries.jsonl``) in vector and hybrid modes (target: within 0.02 of
   torch). The application ends embedded with the default backend.
3. Quality: the stored vectors of every chunk, per backend; cosine of the onnx and
   onnx-int8 vectors to torch's, min and mean (target: mean >= 0.99).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np
from _common import ROOT, bench_engine
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.embedding import get_embedder
from graphrag.pipeline.model import NodeInfo, WorkItem
from graphrag.pipeline.stages.embed import embed_input

BACKENDS = ("torch", "onnx", "onnx-int8")
QUERY = "cancel an order and refund the payment"


def app_inputs(engine, app: str) -> dict[int, str]:
    """Chunk id -> the embed stage's input text, for every chunk of ``app``."""
    rows = engine.connect().execute(text(
        "SELECT c.id, c.title, c.section_path, c.explain_md, c.content, n.fqn"
        " FROM chunks c JOIN nodes n ON n.id = c.node_id JOIN applications a"
        " ON a.id = c.application_id WHERE a.name = :a ORDER BY c.id"), {"a": app}).all()
    out = {}
    for r in rows:
        node = NodeInfo(id=0, kind="FUNCTION", name=None, fqn=r.fqn, file_path=None, lang=None,
                        line_start=None, line_end=None, signature=None, doc_comment=None,
                        content_hash=None, meta={})
        item = WorkItem(id=r.id, row={"title": r.title, "section_path": r.section_path,
                                      "explain_md": r.explain_md, "content": r.content},
                        node=node)
        out[r.id] = embed_input(item)
    return out


def speed(embedders: dict, texts: list[str], repeat: int) -> dict[str, dict[str, float]]:
    best = {b: float("inf") for b in embedders}
    query = {b: [] for b in embedders}
    for e in embedders.values():
        e.encode(texts[:8])  # sessions, threads, caches
    for _ in range(repeat):
        for b, e in embedders.items():
            t0 = time.perf_counter()
            e.encode(texts)
            best[b] = min(best[b], time.perf_counter() - t0)
            for _ in range(15):
                t0 = time.perf_counter()
                e.encode([QUERY])
                query[b].append((time.perf_counter() - t0) * 1000)
    return {b: {"chunks_per_s": round(len(texts) / best[b], 2),
                "x_torch": round(best["torch"] / best[b], 2),
                "query_ms_p50": round(statistics.median(query[b]), 2)} for b in embedders}


def stored_vectors(engine, app: str) -> dict[int, np.ndarray]:
    rows = engine.connect().execute(text(
        "SELECT c.id, c.emb::text AS v FROM chunks c JOIN applications a"
        " ON a.id = c.application_id WHERE a.name = :a AND c.emb IS NOT NULL"), {"a": app})
    return {r.id: np.array(json.loads(r.v), dtype=np.float32) for r in rows}


def cosines(vectors: dict[str, dict[int, np.ndarray]]) -> dict[str, dict[str, float]]:
    out = {}
    ids = sorted(set.intersection(*(set(v) for v in vectors.values())))
    torch = np.stack([vectors["torch"][i] for i in ids])
    for b in ("onnx", "onnx-int8"):
        cos = (np.stack([vectors[b][i] for i in ids]) * torch).sum(axis=1)
        out[b] = {"min": round(float(cos.min()), 4), "mean": round(float(cos.mean()), 5),
                  "p01": round(float(np.percentile(cos, 1)), 4)}
    return out


def retrieval(engine, settings, app: str, embedders: dict) -> dict[str, dict]:
    from graphrag.db.context import resolve_context, resolve_scope
    from graphrag.pipeline.reembed import reembed
    from graphrag.retrieval.search.batch import read_query_lines
    from graphrag.retrieval.search.hittest import hit_test
    from graphrag.retrieval.search.model import SearchOptions

    repos = sorted(p for p in (ROOT / "sample_repos").iterdir()
                   if (p / "queries.jsonl").is_file())
    out = {}
    for b in BACKENDS:  # the default backend last: the application ends embedded with it
        chosen = settings.with_overrides(embed_backend=b)
        t0 = time.perf_counter()
        result = reembed(resolve_context(engine, chosen, app), embedder=embedders[b])
        elapsed = time.perf_counter() - t0
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE chunks"))  # the same HNSW state for every backend
        embedded = result.stats.stages.get("embed", {}).get("done", 0)
        row = {"reembed_chunks": embedded,
               "reembed_chunks_per_s": round(embedded / elapsed, 2), "mrr": {}}
        for repo in repos:
            with open(repo / "queries.jsonl", encoding="utf-8") as fh:
                items = read_query_lines(fh)
            reports, _ = hit_test(resolve_scope(engine, chosen, [app]), items,
                                  ["vector", "hybrid"], SearchOptions(), embedders[b])
            row["mrr"][repo.name] = {r.mode: round(r.metrics["mrr@10"], 3) for r in reports}
        row["vectors"] = stored_vectors(engine, app)
        out[b] = row
        print(f"{b}: re-embedded {embedded} chunks in {elapsed:.0f}s", file=sys.stderr)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", default="samples")
    parser.add_argument("--chunks", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-quality", action="store_true")
    args = parser.parse_args()

    engine = bench_engine()
    settings = load_settings()
    inputs = app_inputs(engine, args.app)
    if not inputs:
        sys.exit(f"application {args.app!r} has no chunks: run the README's main command")
    texts = list(inputs.values())
    sample = texts[:: max(1, len(texts) // args.chunks)][: args.chunks]
    embedders = {b: get_embedder(settings.with_overrides(embed_backend=b)) for b in BACKENDS}
    report = {"app": args.app, "chunks": len(texts), "speed_sample": len(sample),
              "speed": speed(embedders, sample, args.repeat)}
    print(json.dumps(report["speed"]), file=sys.stderr)
    if not args.no_quality:
        report["retrieval"] = retrieval(engine, settings, args.app, embedders)
        vectors = {b: r.pop("vectors") for b, r in report["retrieval"].items()}
        report["cosine_vs_torch"] = cosines(vectors)
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
