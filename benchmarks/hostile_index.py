"""Hostile repositories, indexing side: time and size per case.

1. Minified lines: ``one-line-15k`` (501 functions on one 15 kB line), ``bundle-1mb`` (a
   class of 30,000 methods on one line, 1 MB), ``bundle-1mb-ts`` (the same in TypeScript,
   which is indexed: each method gets its own text), ``long-lines`` (5,000 ordinary lines
   and 20 lines of 100 functions each: not minified, each symbol should get its own text).
   Indexed end to end (graph, chunks, every stage; the embedding model replaced by a hash
   stub so the numbers are graphrag's own cost): seconds, chunks, characters of chunk
   text, BM25 postings (``chunk_terms`` rows).
2. Name lookup: ``resolve_name`` of names of 200, 1,000 and 4,000 parts and of 1 MB.
3. A run interrupted after the graph's commit (planning raises): is the new symbol
   chunked by the next run, and what does that run cost.
4. ``GRAPHRAG_MAX_FILE_BYTES`` lowered so 9 of 10 files are over it: refused or not, and
   the nodes left.
5. A file flipped between a regular file and a link to a file outside the repository while
   it is parsed: runs (of 300) whose parse result holds the outside file's text.

Each case runs in a child process (killed after ``--timeout`` seconds) with the graphrag
of ``--checkout`` (default: this one), so the same script measures a checkout before a
change, e.g. ``--checkout /path/to/main``:

    nice -n 10 python benchmarks/hostile_index.py [--checkout PATH] [--timeout 600] [--only 1,2]

Uses GRAPHRAG_DATABASE_URL (or the embedded server of GRAPHRAG_HOME); the scratch
applications are dropped.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import hashlib, json, os, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np
from sqlalchemy import text
os.environ.setdefault("HF_HUB_OFFLINE", "1")
from graphrag.config import load_settings
from graphrag.db.engine import get_engine

case = sys.argv[1]
FLIP = sys.argv[2]  # the flipper of case link-race
settings = load_settings().with_overrides(workers=1)
engine = get_engine(settings)
APP = "bench_hostile_index"


class HashEmbedder:
    name = "hash-stub"
    dim = 384

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, int(hashlib.md5(t.encode()).hexdigest(), 16) % self.dim] = 1.0
        return out


def drop():
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": APP})


def index(root, settings=settings, **kw):
    from graphrag.db.context import resolve_context
    from graphrag.indexing import index_repository
    from graphrag.pipeline.runner import run_pipeline

    def stages(name):
        return run_pipeline(resolve_context(engine, settings, name), embedder=HashEmbedder())
    return index_repository(engine, settings, root, APP, stage_runner=stages, **kw)


def sizes():
    with engine.connect() as conn:
        row = conn.execute(text(
            "SELECT count(c.id) AS chunks, coalesce(sum(length(c.content)), 0) AS chars,"
            " (SELECT count(*) FROM chunk_terms t WHERE t.application_id = a.id) AS postings,"
            " (SELECT count(*) FROM nodes WHERE application_id = a.id) AS nodes"
            " FROM applications a LEFT JOIN chunks c ON c.application_id = a.id"
            " WHERE a.name = :n GROUP BY a.id"), {"n": APP}).mappings().first()
        files = dict(conn.execute(text(
            "SELECT f.parse_status, count(*) FROM files f JOIN applications a"
            " ON a.id = f.application_id WHERE a.name = :n GROUP BY 1"), {"n": APP}).all())
    return {**dict(row), "files": files}


def write_case(root, name):
    root.mkdir()
    if name == "one-line-15k":
        (root / "bundle.js").write_text(
            "".join(f"function m{i}(a){{return a+{i}}}" for i in range(501)) + "\n")
    elif name == "bundle-1mb":
        body = "".join(f"m{i}(a){{return a+{i}}}" for i in range(30_000))
        (root / "bundle.js").write_text(f"class Bundle{{{body}}}\n")
    elif name == "bundle-1mb-ts":  # TypeScript is not checked for minification
        body = "".join(f"m{i}(a:number){{return a+{i}}}" for i in range(30_000))
        (root / "bundle.ts").write_text(f"class Bundle{{{body}}}\n")
    elif name == "long-lines":
        lines = [f"function normal{i}(x) {{ return x + {i}; }}" for i in range(5000)]
        for k in range(20):
            lines.insert(250 * k, " ".join(
                f"function tiny{k}_{i}(a){{return a*{i}}}" for i in range(100)))
        (root / "mixed.js").write_text("\n".join(lines) + "\n")


out = {}
drop()
with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp) / "repo"
    if case in ("one-line-15k", "bundle-1mb", "bundle-1mb-ts", "long-lines"):
        write_case(root, case)
        t = time.perf_counter()
        index(root)
        out = {"seconds": round(time.perf_counter() - t, 2), **sizes()}
    elif case == "lookup":
        from graphrag.db.apps import get_app
        from graphrag.graph.lookup import resolve_name
        root.mkdir()
        (root / "a.py").write_text("def f():\n    return 1\n")
        index(root, graph_only=True)
        with engine.connect() as conn:
            app_id = get_app(conn, APP).id
            for label, name in (("200 parts", ".".join(["a"] * 200)),
                                ("1,000 parts", ".".join(["a"] * 1000)),
                                ("4,000 parts", ".".join(["a"] * 4000)),
                                ("1 MB", "a" * 1_000_000)):
                t = time.perf_counter()
                try:
                    resolve_name(conn, app_id, name)
                    answer = "found"
                except Exception as exc:
                    answer = type(exc).__name__ + ": " + str(exc)[:60]
                out[label] = [round(time.perf_counter() - t, 3), answer]
    elif case == "interrupted":
        import graphrag.indexing as ix
        root.mkdir()
        (root / "shop.py").write_text("def total(xs):\n    return sum(xs)\n")
        index(root)
        (root / "shop.py").write_text("def total(xs):\n    return sum(xs)\n\n\n"
                                      "def discount(x):\n    return x * 0.9\n")
        real = ix.plan_chunks
        def crash(*a, **k):
            raise KeyboardInterrupt("killed after the graph's commit")
        ix.plan_chunks = crash
        try:
            index(root)
        except KeyboardInterrupt:
            pass
        ix.plan_chunks = real
        t = time.perf_counter()
        res = index(root)
        with engine.connect() as conn:
            chunked = conn.execute(text(
                "SELECT count(*) FROM chunks c JOIN nodes n ON n.id = c.node_id"
                " JOIN applications a ON a.id = c.application_id"
                " WHERE a.name = :n AND n.fqn = 'shop.discount'"), {"n": APP}).scalar()
        out = {"rerun_seconds": round(time.perf_counter() - t, 2),
               "rerun_planned": not res["chunks"].get("skipped", False),
               "new_symbol_chunks": chunked}
    elif case == "lower-limit":
        from graphrag.errors import MassDeleteRefused
        root.mkdir()
        for i in range(9):
            (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n" + "# pad\n" * 20)
        (root / "t.py").write_text("x = 1\n")
        index(root, graph_only=True)
        before = sizes()["nodes"]
        t = time.perf_counter()
        try:
            index(root, settings=settings.with_overrides(max_file_bytes=20), graph_only=True)
            refused = False
        except MassDeleteRefused:
            refused = True
        out = {"seconds": round(time.perf_counter() - t, 2), "refused": refused,
               "nodes_before": before, "nodes_after": sizes()["nodes"]}
    elif case == "link-race":
        from graphrag.graph.parse_worker import ParseLimits, parse_one
        from graphrag.parsing.registry import RepoContext
        outside = Path(tmp) / "outside"
        outside.mkdir()
        (outside / "passwd.py").write_text("def root():\n    return 'root:x:0:0'\n")
        secret = hashlib.sha256((outside / "passwd.py").read_bytes()).hexdigest()
        root.mkdir()
        target = root / "a.py"
        plain = "def a():\n    return 1\n"
        target.write_text(plain)
        # The flipper is another process (a thread would wait for the GIL).
        flipper = subprocess.Popen([sys.executable, "-c", FLIP, str(root),
                                    str(outside / "passwd.py"), plain])
        leaks, statuses = 0, {}
        t = time.perf_counter()
        try:
            time.sleep(0.3)
            for _ in range(300):
                o = parse_one(str(root.resolve()), "a.py", "python", RepoContext(),
                              ParseLimits(1 << 20))
                leaks += o.content_hash == secret  # the outside file was read
                statuses[o.status] = statuses.get(o.status, 0) + 1
                time.sleep(0.001)
        finally:
            flipper.kill()
            flipper.wait()
        out = {"runs": 300, "leaked": leaks, "statuses": statuses,
               "seconds": round(time.perf_counter() - t, 2)}
drop()
print(json.dumps(out, default=str))
"""

# Case link-race: flips root/a.py between a file and a link to ``outside``, in a loop.
FLIP = r"""
import os, sys, time
from pathlib import Path
root, outside, plain = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
target, tmp = root / "a.py", root / ".a.tmp"
end = time.monotonic() + 120  # never outlives its case
while time.monotonic() < end:
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(outside)
    os.replace(tmp, target)
    time.sleep(0.0003)
    tmp.unlink(missing_ok=True)
    tmp.write_text(plain)
    os.replace(tmp, target)
    time.sleep(0.0003)
"""

CASES = {"1": ["one-line-15k", "bundle-1mb", "bundle-1mb-ts", "long-lines"], "2": ["lookup"],
         "3": ["interrupted"], "4": ["lower-limit"], "5": ["link-race"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", default=str(ROOT), help="graphrag checkout to measure")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per case")
    ap.add_argument("--only", default="1,2,3,4,5", help="items to run, e.g. 1,3")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": args.checkout}
    for item in args.only.split(","):
        for case in CASES[item.strip()]:
            started = time.perf_counter()
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    done = subprocess.run([sys.executable, "-c", CHILD, case, FLIP],
                                          env=env,
                                          cwd=tmp, capture_output=True, text=True,
                                          timeout=args.timeout)
                    lines = done.stdout.strip().splitlines()
                    result = lines[-1] if lines and done.returncode == 0 else (
                        "error: " + (done.stderr.strip().splitlines() or ["?"])[-1])
                except subprocess.TimeoutExpired:
                    result = f"> {args.timeout:g} s (killed)"
            print(f"item {item} {case:<13} {time.perf_counter() - started:7.1f}s  {result}",
                  flush=True)


if __name__ == "__main__":
    main()
