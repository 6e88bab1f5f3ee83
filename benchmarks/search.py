"""Search latency and HNSW recall on an application with >= 100,000 chunks; batch vs single.

Data: ``--topics`` topic sentences (templated, embedded with the real model) give the
vectors structure; each chunk takes one topic, its vector is the topic's vector plus
Gaussian noise (normalised), its text the topic sentence plus random identifiers. Nodes
and chunks are written with COPY. The application is kept between runs (rebuilt when
the parameters change; ``--rebuild`` forces it).

Measured:
- p50/p95 of the library call ``search()`` (query embedding included) per mode, also
  with a kind filter, and for symbol queries (an fqn, a class name: their definitions
  are looked up in the graph); targets: hybrid p50 <= 30 ms;
- a second application of ``--small-app`` chunks (copied from the big one) searched in
  the same database: hybrid and vector p50/p95 with the vector scan chosen by its share
  of all chunks, and with the fixed ``ef_search`` of before (widening when short);
- recall@10 of the HNSW path against exact search on the same data (no filter, a common
  kind, a rare kind); target >= 0.95;
- batch: per-query cost of a 500-query ``graphrag search --queries`` batch against
  single ``graphrag search`` CLI calls (``--single-calls`` of them, mean per call);
- cold start: the wall time of a whole one-shot ``graphrag search QUERY --app
  samples`` process (the README's main command indexes ``samples``), median of
  ``--cold-runs``; target <= 1.5 s; also the median time of one query's encoding.

    python benchmarks/search.py [--chunks 100000] [--queries 100] [--single-calls 20]
                                [--cold-runs 7] [--cold-app samples] [--cold-only]
                                [--small-app 2000]
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import bench_engine
from sqlalchemy import Engine, text

APP = "bench_search"
SMALL_APP = "bench_search_small"
VERBS = ["load", "save", "delete", "validate", "parse", "render", "cache", "sync", "charge",
         "refund", "schedule", "notify", "export", "import", "encrypt", "compress", "index",
         "merge", "retry", "authorize"]
NOUNS = ["user", "order", "invoice", "payment", "session", "token", "report", "product",
         "cart", "shipment", "account", "customer", "ticket", "message", "document",
         "image", "address", "coupon", "subscription", "warehouse"]
WHERE = ["database", "cache", "queue", "file", "http api", "email", "webhook", "s3 bucket"]
KINDS = ["METHOD"] * 12 + ["CLASS"] * 4 + ["FUNCTION"] * 3 + ["ENDPOINT"]


def topics(n: int, rng: random.Random) -> list[tuple[str, str, str]]:
    combos = [(v, o, w) for v in VERBS for o in NOUNS for w in WHERE]
    rng.shuffle(combos)
    return combos[:n]


def topic_text(t: tuple[str, str, str]) -> str:
    v, o, w = t
    return f"{v} the {o} records in the {w}"


def query_text(t: tuple[str, str, str]) -> str:
    v, o, w = t
    return f"how do we {v} a {o} stored in the {w}?"


def app_meta(args: argparse.Namespace) -> dict:
    # layout 2: rows written since migration 0017 (vectors kept in the row)
    return {"bench": "search", "chunks": args.chunks, "topics": args.topics, "seed": 1,
            "postings": 1, "layout": 2}


def existing(engine: Engine, meta: dict) -> int | None:
    """The application's id when a complete build with these parameters is stored (the
    meta is written only after the chunks are committed)."""
    with engine.connect() as conn:
        row = conn.execute(text("SELECT id, meta FROM applications WHERE name = :n"),
                           {"n": APP}).first()
    return row.id if row is not None and row.meta == meta else None


def build(engine: Engine, args: argparse.Namespace, embedder) -> int:
    """Write the application with COPY; returns its id."""
    from graphrag.pipeline.terms import compact_term_stats, refresh_terms

    rng = random.Random(1)
    np_rng = np.random.default_rng(1)
    tops = topics(args.topics, rng)
    t_vecs = embedder.encode([topic_text(t) for t in tops])
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": APP})
        app_id = conn.execute(text(
            "INSERT INTO applications (name, root_path) VALUES (:n, '/bench') RETURNING id"),
            {"n": APP}).scalar_one()
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        first = cur.execute("SELECT nextval('nodes_id_seq')").fetchone()[0]
        cur.execute("SELECT setval('nodes_id_seq', %s)", (first + args.chunks,))
        t0 = time.perf_counter()
        with cur.copy("COPY nodes (id, application_id, stable_key, kind, name, fqn, file_path,"
                      " lang, line_start, line_end, rank) FROM STDIN") as copy:
            for i in range(args.chunks):
                v, o, _ = tops[i % len(tops)]
                fqn = f"com.bench.m{i // 50}.{o.title()}Service.{v}{o.title()}{i}"
                copy.write_row((first + i, app_id, f"b:{i}", rng.choice(KINDS), f"{v}{i}", fqn,
                                f"src/m{i // 50}/{o}_service.py", "python", 10, 30,
                                round(rng.expovariate(1.0), 4)))
        with cur.copy("COPY chunks (plan_id, application_id, node_id, source, kind, content,"
                      " span_lines, title, emb, pending) FROM STDIN") as copy:
            for i in range(args.chunks):
                t = i % len(tops)
                vec = t_vecs[t] + np_rng.normal(0, args.noise / np.sqrt(384), 384)
                vec = vec / np.linalg.norm(vec)
                words = " ".join(rng.choice(NOUNS + VERBS) for _ in range(12))
                content = f"def {tops[t][0]}_{tops[t][1]}_{i}(self):\n    \"\"\"" \
                          f"{topic_text(tops[t])}.\"\"\"\n    # {words}\n"
                copy.write_row((f"{first + i}:code:snippet", app_id, first + i, "code",
                                "snippet", content, "[10,31)", f"bench.{i}",
                                "[" + ",".join(f"{x:.6f}" for x in vec) + "]", False))
        raw.commit()
    finally:
        raw.close()
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        # Statistics of the fresh rows first: planned on an empty table's estimates, the
        # postings' UPDATE below joins 100k chunks by nested loops and runs for hours.
        conn.execute(text("ANALYZE chunks"))
        conn.execute(text("ANALYZE nodes"))
    with engine.begin() as conn:
        # The BM25 postings, as the pipeline writes them with each chunk's text.
        ids = conn.execute(text("SELECT id FROM chunks WHERE application_id = :a"),
                           {"a": app_id}).scalars().all()
        refresh_terms(conn, ids)
        compact_term_stats(conn, app_id)
        conn.execute(text("UPDATE applications SET meta = CAST(:m AS jsonb) WHERE id = :a"),
                     {"m": json.dumps(app_meta(args)), "a": app_id})
    print(f"built {args.chunks} chunks in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE chunks"))
        conn.execute(text("VACUUM ANALYZE chunk_terms"))
        conn.execute(text("ANALYZE nodes"))
    return app_id


def small_app(engine: Engine, big_id: int, n: int) -> None:
    """``SMALL_APP``: the first ``n`` chunks of the big application copied into one of their
    own (the big one stays): a repository searched in a database that holds another
    fifty times its size."""
    from graphrag.pipeline.terms import compact_term_stats, refresh_terms

    meta = {"of": big_id, "chunks": n, "layout": 2}
    with engine.begin() as conn:
        row = conn.execute(text("SELECT id, meta FROM applications WHERE name = :n"),
                           {"n": SMALL_APP}).first()
        if row is not None and row.meta == meta:
            return
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": SMALL_APP})
        small = conn.execute(text(
            "INSERT INTO applications (name, root_path, meta) VALUES (:n, '/bench',"
            " CAST(:m AS jsonb)) RETURNING id"), {"n": SMALL_APP, "m": json.dumps(meta)}
        ).scalar_one()
        conn.execute(text(
            "INSERT INTO nodes (application_id, stable_key, kind, name, fqn, file_path, lang,"
            " line_start, line_end, rank) SELECT :s, stable_key, kind, name, fqn, file_path,"
            " lang, line_start, line_end, rank FROM nodes WHERE application_id = :b"
            " ORDER BY id LIMIT :n"), {"s": small, "b": big_id, "n": n})
        ids = conn.execute(text(
            "INSERT INTO chunks (plan_id, application_id, node_id, source, kind, content,"
            " span_lines, title, emb, pending)"
            " SELECT 'small:' || c.plan_id, :s, ns.id, c.source, c.kind, c.content,"
            " c.span_lines, c.title, c.emb, false"
            " FROM chunks c JOIN nodes nb ON nb.id = c.node_id"
            " JOIN nodes ns ON ns.application_id = :s AND ns.stable_key = nb.stable_key"
            " WHERE c.application_id = :b RETURNING id"), {"s": small, "b": big_id}
        ).scalars().all()
        refresh_terms(conn, ids)
        compact_term_stats(conn, small)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE chunks"))


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def latency(engine, embedder, queries: list[str], app: str = APP, **opts
            ) -> tuple[float, float]:
    from graphrag.config import load_settings
    from graphrag.db.context import resolve_scope
    from graphrag.retrieval.search import SearchOptions, search

    options = SearchOptions(top_k=10, **opts)
    scope = resolve_scope(engine, load_settings(), [app])
    for q in queries[:5]:  # warm caches and the model
        search(scope, q, options, embedder)
    times = []
    for q in queries:
        t0 = time.perf_counter()
        search(scope, q, options, embedder)
        times.append((time.perf_counter() - t0) * 1000)
    return pct(times, 50), pct(times, 95)


def recall(engine, embedder, queries: list[str], app_id: int, **opts) -> float:
    """Mean overlap of the HNSW path's top 10 with the exact top 10."""
    from graphrag.embedding import vector_literal
    from graphrag.retrieval.search.engine import set_ef_search, vector_candidates
    from graphrag.retrieval.search.model import SearchOptions
    from graphrag.retrieval.search.store import filter_sql, vector_sql

    options = SearchOptions(mode="vector", top_k=10, **opts)
    vectors = embedder.encode(queries)
    scores = []
    with engine.begin() as conn:
        set_ef_search(conn, options)
        for vec in vectors:
            got = [i for i, _ in vector_candidates(conn, [app_id], vec, options)[:10]]
            where, params = filter_sql([app_id], options)
            params.update(q=vector_literal(vec), lim=10)
            exact = [r.id for r in conn.execute(text(vector_sql(where, exact=True)), params)]
            scores.append(len(set(got) & set(exact)) / max(len(exact), 1))
    return statistics.mean(scores)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphrag", *args], capture_output=True,
                          text=True, check=True)


def batch_vs_single(queries: list[str], single_calls: int) -> tuple[float, float]:
    """Per-query wall time (ms) of one 500-query batch process and of single calls."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "q.jsonl"
        path.write_text("".join(json.dumps({"id": i, "query": q}) + "\n"
                                for i, q in enumerate(queries)))
        t0 = time.perf_counter()
        cli("search", "--queries", str(path), "--app", APP, "--json")
        batch = (time.perf_counter() - t0) * 1000 / len(queries)
    t0 = time.perf_counter()
    for q in queries[:single_calls]:
        cli("search", q, "--app", APP, "--json")
    single = (time.perf_counter() - t0) * 1000 / single_calls
    return batch, single


def cold_start(app: str, runs: int) -> list[float]:
    """Wall seconds of whole `graphrag search` processes (interpreter start to exit)."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        cli("search", "cancel an order and refund the payment", "--app", app, "--top-k", "5")
        times.append(time.perf_counter() - t0)
    return times


def query_encode_ms(embedder, queries: list[str]) -> float:
    """Median time of encoding one query alone (after a warm-up)."""
    embedder.encode(queries[:3])
    times = []
    for q in queries:
        t0 = time.perf_counter()
        embedder.encode([q])
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def report_cold_start(app: str, runs: int) -> None:
    from graphrag.db.apps import get_app
    from graphrag.errors import UnknownApplication

    try:
        with bench_engine().connect() as conn:
            get_app(conn, app)
    except UnknownApplication:
        print(f"cold start: no application {app!r} (run the README's main command)")
        return
    times = cold_start(app, runs)
    print(f"CLI one-shot search, whole process: median {statistics.median(times):.2f} s"
          f" (min {min(times):.2f}, max {max(times):.2f}, {runs} runs)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--topics", type=int, default=2000)
    ap.add_argument("--noise", type=float, default=0.9, help="noise norm relative to topic")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--single-calls", type=int, default=20)
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--cold-runs", type=int, default=7)
    ap.add_argument("--cold-app", default="samples")
    ap.add_argument("--cold-only", action="store_true", help="only the cold-start figures")
    ap.add_argument("--small-app", type=int, default=2000,
                    help="chunks of a second application searched beside the big one (0: none)")
    args = ap.parse_args()
    if args.cold_runs:
        report_cold_start(args.cold_app, args.cold_runs)
    if args.cold_only:
        return

    from graphrag.config import load_settings
    from graphrag.embedding import get_embedder

    engine = bench_engine()
    embedder = get_embedder(load_settings())
    app_id = None if args.rebuild else existing(engine, app_meta(args))
    if app_id is None:
        app_id = build(engine, args, embedder)
    rng = random.Random(2)
    tops = topics(args.topics, random.Random(1))
    queries = [query_text(rng.choice(tops)) for _ in range(max(args.queries, args.batch))]
    sample = queries[: args.queries]

    print(f"application {APP}: {args.chunks} chunks, {len(sample)} queries per row")
    print(f"query encoding alone ({embedder.name}): median "
          f"{query_encode_ms(embedder, sample):.2f} ms")
    print(f"{'case':<28} {'p50 ms':>8} {'p95 ms':>8}")
    cases = [("hybrid", {"mode": "hybrid"}), ("vector", {"mode": "vector"}),
             ("text", {"mode": "text"}),
             ("hybrid --kinds METHOD", {"mode": "hybrid", "kinds": ("METHOD",)}),
             ("hybrid --kinds ENDPOINT", {"mode": "hybrid", "kinds": ("ENDPOINT",)})]
    for name, opts in cases:
        p50, p95 = latency(engine, embedder, sample, **opts)
        print(f"{name:<28} {p50:>8.1f} {p95:>8.1f}")
    # Symbol queries: the definitions of the named identifier are looked up in the graph.
    with engine.connect() as conn:
        fqns = list(conn.execute(text(
            "SELECT fqn FROM nodes WHERE application_id = :a ORDER BY hashtext(fqn) LIMIT :n"),
            {"a": app_id, "n": len(sample)}).scalars())
    p50, p95 = latency(engine, embedder, fqns, mode="hybrid")
    print(f"{'hybrid, an fqn as query':<28} {p50:>8.1f} {p95:>8.1f}")
    names = [f.rsplit(".", 1)[0].rsplit(".", 1)[-1] for f in fqns]  # class names
    p50, p95 = latency(engine, embedder, names, mode="hybrid")
    print(f"{'hybrid, a class name':<28} {p50:>8.1f} {p95:>8.1f}")
    if args.small_app:
        small_app(engine, app_id, args.small_app)
        search_module = importlib.import_module("graphrag.retrieval.search.engine")
        share_based = search_module.vector_scan
        for label, scan in (("fixed ef", lambda share, options: search_module.VectorScan(
                                search_module.ef_search_for(options))),
                            ("by share", share_based)):
            search_module.vector_scan = scan
            try:
                for mode in ("hybrid", "vector"):
                    p50, p95 = latency(engine, embedder, sample, SMALL_APP, mode=mode)
                    print(f"{mode + ', small app, ' + label:<28} {p50:>8.1f} {p95:>8.1f}")
            finally:
                search_module.vector_scan = share_based
    for name, opts in [("none", {}), ("kinds METHOD", {"kinds": ("METHOD",)}),
                       ("kinds ENDPOINT", {"kinds": ("ENDPOINT",)})]:
        print(f"recall@10 HNSW vs exact, filter {name:<15} "
              f"{recall(engine, embedder, sample, app_id, **opts):.3f}")
    if args.single_calls:
        batch, single = batch_vs_single(queries[: args.batch], args.single_calls)
        print(f"CLI per query: batch of {args.batch} {batch:.1f} ms, single call {single:.0f} ms"
              f" (mean of {args.single_calls}), ratio {single / batch:.0f}x")


if __name__ == "__main__":
    main()
