"""The web pages' server time, against the service calls they render, in the
same run.

Applications (kept between runs): ``bench_search`` (``--chunks`` synthetic chunks, built
by benchmarks/search.py's builder when missing: 100,000 by default), ``bench_web_code``
(sample_repos/python_fastapi, fully indexed: real code, callers, context) and
``bench_web_hub`` (graph only: one function with ``--hub-callers`` callers).

A real ``graphrag serve`` application (uvicorn in a thread of this process, keys on, the
key in the page cookie) answers GET requests on 127.0.0.1; a page's time is the request's
wall time seen by the client (loopback: the server's time plus well under a millisecond).
Printed: p50/p95 of
- the search page ``/?q=...&app=bench_search`` against ``operations.search`` with the same
  arguments called in-process (the page's overhead: HTTP, key lookup, rendering); target
  page p50 <= 150 ms;
- the symbol page ``/apps/APP/nodes/FQN`` on both applications against the API's
  ``GET /v1/apps/APP/nodes/FQN`` (the page adds the implementation, the mentions and the
  documentation generator's context); target p50 <= 200 ms;
- the graph view of the hub (``--hub-callers`` neighbours): nodes sent (at most 300) and
  server time; with Chromium (``/usr/bin/chromium``) also the time from navigation start
  to the drawn graph in the browser, and one expand-on-click.

    nice -n 10 python benchmarks/web.py [--chunks 100000] [--requests 60]
                                        [--hub-callers 1000] [--no-browser]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from _common import ROOT, bench_engine

CODE_APP, HUB_APP = "bench_web_code", "bench_web_hub"


def pct(values: list[float], p: float) -> float:
    return round(float(np.percentile(values, p)), 1)


def row(name: str, times: list[float], base: list[float] | None = None) -> str:
    out = f"{name:<46} p50 {pct(times, 50):7.1f} ms  p95 {pct(times, 95):7.1f} ms"
    if base:
        out += f"  ({pct(times, 50) / max(pct(base, 50), 0.01):.2f}x the service call)"
    return out


def ensure_apps(engine: Any, args: argparse.Namespace) -> None:
    import search as search_bench

    from graphrag.config import load_settings
    from graphrag.db.apps import list_apps
    from graphrag.embedding import get_embedder
    from graphrag.indexing import index_repository

    settings = load_settings()
    meta = search_bench.app_meta(argparse.Namespace(chunks=args.chunks, topics=2000))
    if search_bench.existing(engine, meta) is None:
        print(f"building {search_bench.APP} ({args.chunks} chunks, once) ...", file=sys.stderr)
        search_bench.build(engine, argparse.Namespace(chunks=args.chunks, topics=2000,
                                                      noise=0.9), get_embedder(settings))
    have = {a["name"]: a for a in list_apps(engine)}
    if not have.get(CODE_APP, {}).get("counts", {}).get("chunks"):
        index_repository(engine, settings, ROOT / "sample_repos" / "python_fastapi", CODE_APP)
    hub_nodes = have.get(HUB_APP, {}).get("counts", {}).get("nodes", 0)
    if hub_nodes < args.hub_callers:
        with tempfile.TemporaryDirectory() as tmp:
            from tests.graph_hub import hub_repo

            index_repository(engine, settings, hub_repo(Path(tmp), args.hub_callers),
                             HUB_APP, graph_only=True, full=True)


def serve(engine: Any) -> tuple[str, Any, Any]:
    import socket

    import uvicorn

    from graphrag.config import load_settings
    from graphrag.server.http import ServeConfig, create_app
    from graphrag.server.runtime import Runtime

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    runtime = Runtime(load_settings(), engine)
    app = create_app(ServeConfig(port=port, threads=4, mcp=False), runtime)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, runtime


def timed(client: httpx.Client, paths: list[str]) -> list[float]:
    for p in paths[:3]:  # warm up
        assert client.get(p).status_code == 200, p
    out = []
    for p in paths:
        t0 = time.perf_counter()
        r = client.get(p)
        out.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, (p, r.status_code, r.text[:300])
    return out


def browser_graph(url: str, key: str, path: str) -> tuple[float, float, int] | None:
    if not shutil.which("/usr/bin/chromium"):
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="bench-web-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,900",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    try:
        driver.get(url + "/login")
        driver.add_cookie({"name": "graphrag_key", "value": key, "path": "/"})
        draws = []
        for _ in range(3):
            driver.get(url + path)
            while not driver.execute_script("return window.graphragDrawnMs || 0"):
                time.sleep(0.05)
            draws.append(driver.execute_script("return window.graphragDrawnMs"))
        n = driver.execute_script("return window.graphragGraph.nodes().length")
        leaf = driver.execute_script("return window.graphragGraph.nodes()"
                                     ".filter(x => x.data('centre') === 0)[0].id()")
        t0 = time.perf_counter()
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"window.graphragExpand({leaf}).then(() => done(1));")
        expand = (time.perf_counter() - t0) * 1000
        return statistics.median(draws), expand, n
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--hub-callers", type=int, default=1000)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()

    import search as search_bench
    from sqlalchemy import text

    from graphrag.db.keys import create_key
    from graphrag.server import operations as ops
    from graphrag.server.operations import Scope

    engine = bench_engine()
    ensure_apps(engine, args)
    url, server, runtime = serve(engine)
    runtime.embedder()
    key = create_key(engine, [search_bench.APP, CODE_APP, HUB_APP], "bench web")["key"]
    scope = Scope(frozenset([search_bench.APP, CODE_APP, HUB_APP]))
    rng = random.Random(3)
    tops = search_bench.topics(2000, random.Random(1))
    queries = [search_bench.query_text(rng.choice(tops)) for _ in range(args.requests)]
    with engine.connect() as conn:
        big_fqns = list(conn.execute(text(
            "SELECT fqn FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :a ORDER BY n.id"), {"a": search_bench.APP}).scalars())
        code_fqns = list(conn.execute(text(
            "SELECT fqn FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :a AND n.kind IN ('METHOD', 'FUNCTION', 'ENDPOINT')"
            " ORDER BY n.id"), {"a": CODE_APP}).scalars())
    big_sample = [rng.choice(big_fqns) for _ in range(args.requests)]
    code_sample = [code_fqns[i % len(code_fqns)] for i in range(args.requests)]

    print(f"{search_bench.APP}: {len(big_fqns)} nodes/chunks; {CODE_APP}: {len(code_fqns)}"
          f" callables; {args.requests} requests per row")
    from urllib.parse import quote, urlencode

    with httpx.Client(base_url=url, cookies={"graphrag_key": key}, timeout=120) as web, \
            httpx.Client(base_url=url, timeout=120,
                         headers={"Authorization": f"Bearer {key}"}) as api:
        # the service call and the page take turns on each query, each first every
        # other time: caches and the machine's load weigh on both alike
        service, page = [], []

        def by_service(q: str) -> float:
            t0 = time.perf_counter()
            ops.search(runtime, scope, [search_bench.APP], [q], top_k=20)
            return (time.perf_counter() - t0) * 1000

        def by_page(q: str) -> float:
            t0 = time.perf_counter()
            r = web.get("/?" + urlencode({"q": q, "app": search_bench.APP}))
            assert r.status_code == 200, r.text[:300]
            return (time.perf_counter() - t0) * 1000

        for n, q in enumerate(queries[:3] + queries):
            if n % 2:
                s_ms, p_ms = by_service(q), by_page(q)
            else:
                p_ms, s_ms = by_page(q), by_service(q)
            if n >= 3:
                service.append(s_ms)
                page.append(p_ms)
        print(row("operations.search (top 20, in-process)", service))
        print(row("search page /?q=..&app=bench_search", page, service))
        for app, sample in ((search_bench.APP, big_sample), (CODE_APP, code_sample)):
            node_api = timed(api, [f"/v1/apps/{app}/nodes/{quote(f, safe='/:')}"
                                   for f in sample])
            node_page = timed(web, [f"/apps/{app}/nodes/{quote(f, safe='/:')}"
                                    for f in sample])
            print(row(f"GET /v1/apps/{app}/nodes/FQN", node_api))
            print(row(f"symbol page {app}", node_page, node_api))
        graph_path = f"/apps/{HUB_APP}/graph/hub.core.hub?kinds=CALLS"
        graph = timed(web, [graph_path] * max(10, args.requests // 4))
        hub_id = api.get(f"/v1/apps/{HUB_APP}/nodes/hub.core.hub").json()["nodes"][0]["id"]
        sent = web.get("/web/graph.json", params={"app": HUB_APP, "node": hub_id}).json()
        print(row(f"graph page, a node with {args.hub_callers} callers", graph)
              + f"  ({len(sent['nodes'])} nodes sent, {sent['omitted']} counted)")
    if not args.no_browser:
        drawn = browser_graph(url, key, graph_path)
        if drawn is not None:
            print(f"{'browser: navigation start -> graph drawn':<46} median {drawn[0]:7.1f} ms"
                  f"  ({drawn[2]} nodes drawn); one expand-on-click {drawn[1]:.1f} ms")
    server.should_exit = True


if __name__ == "__main__":
    main()
