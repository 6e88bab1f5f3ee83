"""The HTTP server under load against the library call, in the same run.

A bounded load of concurrent clients (``--concurrency 8 32``) sends ``--requests`` POST
/v1/search requests (API key in every request) to a real ``graphrag serve`` process on
127.0.0.1 (its default ``--threads 8``: more clients queue); the same queries are run by
the library call ``graphrag.search`` in this process, one at a time and from as many
threads as there are clients. Printed per level:
requests/s, p50/p95/p99 latency, error count, and the ratio of the server's p50 to the
library's p50 at the same concurrency (the server's overhead: HTTP, JSON, auth, thread
pool) and to the library's one-at-a-time p50. Target: zero errors, server p50 <= 1.5x the
library call at 8 concurrent.

The queries are the sample repositories' ``queries.jsonl``; the application (default
``bench_serve``) is indexed from ``sample_repos`` when missing and kept between runs.

    nice -n 10 python benchmarks/serve.py [--requests 2000] [--concurrency 8 32]
                                          [--threads 8] [--app bench_serve] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from _common import ROOT, bench_engine


def _queries() -> list[str]:
    out = []
    for path in sorted((ROOT / "sample_repos").glob("*/queries.jsonl")):
        out += [json.loads(line)["query"] for line in path.open() if line.strip()]
    return out


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _summary(latencies: list[float], seconds: float, errors: int) -> dict[str, Any]:
    return {"requests": len(latencies) + errors, "errors": errors,
            "rps": round((len(latencies) + errors) / seconds, 1),
            "p50_ms": round(_pct(latencies, 50) * 1000, 2),
            "p95_ms": round(_pct(latencies, 95) * 1000, 2),
            "p99_ms": round(_pct(latencies, 99) * 1000, 2)}


def ensure_app(engine: Any, app: str) -> None:
    from graphrag.config import load_settings
    from graphrag.db.apps import list_apps
    from graphrag.indexing import index_repository

    if any(a["name"] == app and a["counts"]["chunks"] for a in list_apps(engine)):
        return
    print(f"indexing sample_repos into {app} (once) ...", file=sys.stderr)
    index_repository(engine, load_settings(), ROOT / "sample_repos", app)


def library(engine: Any, app: str, queries: list[str], requests: int,
            concurrency: int) -> dict[str, Any]:
    """The same searches through ``graphrag.search`` from ``concurrency`` threads."""
    from graphrag.config import load_settings
    from graphrag.db.context import resolve_scope
    from graphrag.embedding import get_embedder
    from graphrag.retrieval.search.engine import search
    from graphrag.retrieval.search.model import SearchOptions

    settings = load_settings()
    embedder = get_embedder(settings)
    options = SearchOptions(top_k=10)
    search(resolve_scope(engine, settings, [app]), "warm up", options, embedder)

    def one(i: int) -> float:
        t0 = time.perf_counter()
        # a request resolves its applications once, as the server's routes do
        search(resolve_scope(engine, settings, [app]), queries[i % len(queries)], options,
               embedder)
        return time.perf_counter() - t0

    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        latencies = list(pool.map(one, range(requests)))
    return _summary(latencies, time.perf_counter() - t0, 0)


async def _load(url: str, key: str, app: str, queries: list[str], requests: int,
                concurrency: int) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    reasons: dict[str, int] = {}
    counter = iter(range(requests))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120,
                                 headers={"Authorization": f"Bearer {key}"}) as client:
        async def worker() -> None:
            nonlocal errors
            for i in counter:
                t0 = time.perf_counter()
                try:
                    r = await client.post("/v1/search", json={
                        "query": queries[i % len(queries)], "apps": [app], "top_k": 10})
                    reason = None if r.status_code == 200 and "hits" in r.json() \
                        else f"{r.status_code} {r.text[:200]}"
                except httpx.HTTPError as exc:
                    reason = f"{type(exc).__name__}: {exc}"
                if reason is None:
                    latencies.append(time.perf_counter() - t0)
                else:
                    errors += 1
                    reasons[reason] = reasons.get(reason, 0) + 1

        await client.post("/v1/search", json={"query": "warm up", "apps": [app]})
        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.perf_counter() - t0
    for reason, n in reasons.items():
        print(f"  {n} x {reason}", file=sys.stderr)
    return {**_summary(latencies, seconds, errors), "error_reasons": reasons}


def start_server(threads: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "graphrag", "serve", "--port", str(port),
                             "--threads", str(threads)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    healthy = None
    while time.perf_counter() - t0 < 120:
        try:
            if healthy is None and httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                healthy = time.perf_counter() - t0
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                print(f"server: /healthz after {healthy:.2f} s, ready (model loaded) after"
                      f" {time.perf_counter() - t0:.2f} s", file=sys.stderr)
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not become ready")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--app", default="bench_serve")
    parser.add_argument("--threads", type=int, default=8,
                        help="serve --threads (requests handled at once; more queue)")
    parser.add_argument("--json", dest="json_out", type=Path)
    args = parser.parse_args()

    from graphrag.db.keys import create_key, revoke_key

    engine = bench_engine()
    ensure_app(engine, args.app)
    queries = _queries()
    key = create_key(engine, [args.app], "benchmarks/serve.py")
    rows: dict[str, Any] = {"queries": len(queries), "requests": args.requests}
    print(f"{len(queries)} distinct queries, {args.requests} requests per level",
          file=sys.stderr)
    rows["library_1"] = library(engine, args.app, queries, args.requests, 1)
    proc, url = start_server(args.threads)
    try:
        for c in args.concurrency:
            lib = library(engine, args.app, queries, args.requests, c)
            srv = asyncio.run(_load(url, key["key"], args.app, queries, args.requests, c))
            rows[f"c{c}"] = {"library": lib, "server": srv,
                             "p50_ratio_same_concurrency": round(
                                 srv["p50_ms"] / lib["p50_ms"], 2),
                             "p50_ratio_one_at_a_time": round(
                                 srv["p50_ms"] / rows["library_1"]["p50_ms"], 2)}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        revoke_key(engine, key["id"])
    one = rows["library_1"]
    print(f"\n{'':<22} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    print(f"{'library, 1 at a time':<22} {one['rps']:>8} {one['p50_ms']:>8} {one['p95_ms']:>8}"
          f" {one['p99_ms']:>8} {0:>7}")
    for c in args.concurrency:
        row = rows[f"c{c}"]
        for label in ("library", "server"):
            r = row[label]
            print(f"{f'{label}, {c} concurrent':<22} {r['rps']:>8} {r['p50_ms']:>8}"
                  f" {r['p95_ms']:>8} {r['p99_ms']:>8} {r['errors']:>7}")
        print(f"  server p50 / library p50: {row['p50_ratio_same_concurrency']}x at {c}"
              f" concurrent, {row['p50_ratio_one_at_a_time']}x the one-at-a-time call")
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
