"""Chunking benchmark: rate (nodes/s) and peak memory of both strategies at two graph sizes.

Run: ``python benchmarks/chunking.py [--sizes 50000,200000]``. Uses GRAPHRAG_DATABASE_URL or
the embedded server. For each size it writes a synthetic repository (Python files, 25
nodes each: FILE, CLASS, 3 FIELDs, 20 METHODs with doc comments on half, 2 CALLS edges per
method) into a scratch application with COPY, then times ``build_chunks`` for
``per-node`` and ``ast`` -- each in a fresh subprocess so its peak RSS is its own -- and
deletes the scratch data. "nodes/s" is a first build (every chunk inserted, or replaced
when the other strategy ran before); "rerun n/s" re-plans the unchanged graph (the common
incremental case: every plan hash matches, nothing is written). Memory should stay flat
as the graph grows (paging); the target rate is >= 5,000 nodes/s. On a shared machine the
wall-time rate moves with other users' load; the CPU seconds of the build (its process and
the database server's, when the server is local) and nodes per CPU second do not."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

METHODS_PER_FILE = 20
NODES_PER_FILE = 5 + METHODS_PER_FILE
STRATEGIES = ("per-node", "ast")


def _engine():
    from graphrag.config import load_settings
    from graphrag.db.engine import get_engine

    return get_engine(load_settings())


def _source(f: int) -> str:
    lines = [f'"""Module {f}."""', "import os", "", f"class Service{f}:",
             f'    """Service number {f} of the benchmark."""', "    alpha = 1",
             "    beta = os.sep", "    gamma = None", ""]
    for j in range(METHODS_PER_FILE):
        lines += [f"    def method_{j}(self, value):", f'        """Return value {j}."""',
                  f"        result = self.method_{(j + 1) % METHODS_PER_FILE}(value) + {j}",
                  "        return result", ""]
    return "\n".join(lines) + "\n"


def _method_span(j: int) -> tuple[int, int]:
    start = 10 + 5 * j
    return start, start + 3


def _write_graph(engine, app_name: str, size: int, root: Path) -> int:
    """Files under ``root`` and their nodes/edges in the database (COPY); the app id."""
    from sqlalchemy import text

    from graphrag.db.apps import ensure_app
    from graphrag.db.bulk_copy import copy_checked

    files = size // NODES_PER_FILE
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": app_name})
        app_id = ensure_app(conn, app_name, str(root)).id
        ids = list(conn.execute(text("SELECT nextval('nodes_id_seq') FROM"
                                     " generate_series(1, :n)"), {"n": files * NODES_PER_FILE}
                                ).scalars())
    it = iter(ids)
    node_rows: list[tuple] = []
    method_ids = [_copy_file(node_rows.append, app_id, f, it, root) for f in range(files)]
    edge_rows = []
    for f, mids in enumerate(method_ids):
        other = method_ids[(f + 1) % len(method_ids)]
        for j, mid in enumerate(mids):
            line = _method_span(j)[0] + 2
            edge_rows.append((app_id, mid, mids[(j + 1) % len(mids)], "CALLS", 0.9, [line]))
            edge_rows.append((app_id, mid, other[j], "CALLS", 0.5, [line]))
    with engine.begin() as conn:
        # The product's bulk path: foreign keys checked once per statement (per row, the
        # checks planned on an emptied table's statistics once took over ten minutes).
        cur = conn.connection.driver_connection.cursor()
        copy_checked(cur, "nodes", ("id", "application_id", "stable_key", "kind", "name",
                                    "fqn", "package_name", "file_path", "lang", "line_start",
                                    "line_end", "signature", "doc_comment", "parent_id",
                                    "content_hash", "rank"), node_rows)
        copy_checked(cur, "edges", ("application_id", "src_id", "dst_id", "kind",
                                    "confidence", "lines"), edge_rows)
    return app_id


def _copy_file(write, app_id: int, f: int, ids, root: Path) -> list[int]:
    rel = f"pkg{f // 1000}/mod{f}.py"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    src = _source(f)
    path.write_text(src)
    total = src.count("\n")
    mod = f"pkg{f // 1000}.mod{f}"
    file_id, cls_id = next(ids), next(ids)

    def row(nid, key, kind, name, fqn, start, end, sig, doc, parent):
        return (nid, app_id, key, kind, name, fqn, mod, rel, "python", start, end, sig, doc,
                parent, f"h{nid}", 1.0 / (1 + nid % 97))

    write(row(file_id, rel, "FILE", rel, rel, 1, total, None, f"Module {f}.", None))
    write(row(cls_id, f"{mod}.S", "CLASS", f"Service{f}", f"{mod}.Service{f}", 4,
                       total - 1, f"class Service{f}", f"Service number {f}.", file_id))
    for i, name in enumerate(("alpha", "beta", "gamma")):
        nid = next(ids)
        write(row(nid, f"{mod}.S.{name}", "FIELD", name, f"{mod}.Service{f}.{name}",
                           6 + i, 6 + i, None, None, cls_id))
    mids = []
    for j in range(METHODS_PER_FILE):
        nid = next(ids)
        s, e = _method_span(j)
        write(row(nid, f"{mod}.S.m{j}", "METHOD", f"method_{j}",
                           f"{mod}.Service{f}.method_{j}", s, e, f"def method_{j}(self, value)",
                           f"Return value {j}." if j % 2 == 0 else None, cls_id))
        mids.append(nid)
    return mids


def worker(app_name: str, strategy: str) -> None:
    """One timed build in this process; prints a JSON line."""
    from _common import CpuClock

    from graphrag.chunking import ChunkBuildRequest, build_chunks
    from graphrag.chunking.tokens import model_token_counter
    from graphrag.pipeline.registry import stage_lists

    engine = _engine()
    model_token_counter()  # load the tokenizer before measuring the baseline
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    request = ChunkBuildRequest(app_name, strategy=strategy)
    with CpuClock(engine) as clock:
        stats = build_chunks(engine, request, stages=stage_lists())
    elapsed = clock.wall
    # re-planning an unchanged graph: all skipped
    again = build_chunks(engine, request, stages=stage_lists())
    assert again.written_chunks == 0, again.to_dict()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"nodes": stats.processed_nodes, "chunks": stats.written_chunks,
                      "status": stats.status, "seconds": round(elapsed, 2),
                      "rate": round(stats.processed_nodes / elapsed),
                      "rerun_rate": round(again.rate),
                      "cpu": round(clock.cpu, 2),
                      "db_cpu": round(clock.db, 2) if clock.db is not None else None,
                      "peak_rss_mb": round(peak / 1024, 1),
                      "growth_mb": round((peak - base) / 1024, 1)}))


def _measure(app_name: str, strategy: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", app_name, strategy],
                         capture_output=True, text=True, check=True, env=os.environ.copy())
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50000,200000", help="graph sizes (nodes)")
    parser.add_argument("--worker", nargs=2, metavar=("APP", "STRATEGY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.worker:
        worker(*args.worker)
        return
    from sqlalchemy import text

    engine = _engine()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'nodes':>8} {'strategy':>9} {'chunks':>8} {'seconds':>8} {'nodes/s':>8}"
          f" {'rerun n/s':>10} {'peak RSS MB':>12} {'growth MB':>10} {'cpu s':>6}"
          f" {'db cpu s':>8} {'n/cpu-s':>8}")
    for size in (int(s) for s in args.sizes.split(",")):
        app_name = f"bench_chunking_{size}"
        root = Path(tempfile.mkdtemp(prefix="graphrag-bench-"))
        try:
            t = time.perf_counter()
            _write_graph(engine, app_name, size, root)
            print(f"# {size} nodes written in {time.perf_counter() - t:.1f}s", file=sys.stderr)
            for strategy in STRATEGIES:
                r = _measure(app_name, strategy)
                print(f"{r['nodes']:>8} {strategy:>9} {r['chunks']:>8} {r['seconds']:>8}"
                      f" {r['rate']:>8} {r['rerun_rate']:>10} {r['peak_rss_mb']:>12}"
                      f" {r['growth_mb']:>10} {r['cpu']:>6} {r['db_cpu'] or 0:>8}"
                      f" {r['nodes'] / (r['cpu'] + (r['db_cpu'] or 0)):>8.0f}",
                      flush=True)
        finally:
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": app_name})
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
