"""Indexing a real-sized repository end to end, per embedding backend, phase by phase.

    python benchmarks/index_e2e.py [--pypi werkzeug==3.0.6 | --path DIR]
                                   [--backends onnx,model2vec] [--cache DIR] [--edit]

The repository (default: the werkzeug 3.0.6 source distribution, ~49k lines of Python
with its tests, downloaded when the benchmark runs) is indexed from scratch into a
scratch application per backend with the library call ``index_repository`` (graph,
documents, chunks, every stage), exactly as ``graphrag index`` does. The model is loaded
before the clock starts (its load time is printed apart: the first use of a backend may
export it once). Printed per backend: wall and CPU seconds (this process with its parser
workers, and the database server), the share of wall time of each phase (graph: parse,
resolve, store, sync; documents; chunk planning; each pipeline stage; the pipeline's
batch reads and the time it waited for its writes), the batch writes' own time in all
(they run beside the next batch's stages), chunks embedded per second, the ratio of the
first backend's total to each one's, and peak resident memory (this process from the
model load on, and the largest parser worker).

With ``--edit`` the repository is indexed from a copy, one function calling another is
then added to one of its files (the largest Python or other source file outside the
tests) and the copy is indexed again, as a nightly run after a small commit: printed are
that run's wall time and share of the full index, its chunk planning, and how many chunk
rows it wrote (each written row is a new row version with its vectors, inserted again
into the HNSW indexes) against how many chunks the edit actually changed.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import CpuClock, bench_engine, drop_app
from codesearch_corpus import CodeBase, fetch_source
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.db.context import resolve_context
from graphrag.embedding import get_embedder
from graphrag.indexing import index_repository
from graphrag.pipeline.runner import run_pipeline

SOURCE_SUFFIXES = (".py", ".java", ".kt", ".ts", ".tsx", ".js", ".go")


def lines_of_code(root: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in root.rglob("*")
               if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def phases(result: dict, wall: float) -> dict[str, float]:
    """Seconds per phase of one ``index_repository`` result; what no phase accounts for
    (documents, connections, the graph's scan and bookkeeping) is ``other``."""
    graph = result["graph"]
    timings = dict(graph.get("timings") or {})
    out = {f"graph: {name}": float(s) for name, s in timings.items()}
    out["graph: scan and rest"] = max(float(graph.get("seconds") or 0) - sum(out.values()), 0)
    out["chunk planning"] = float((result.get("chunks") or {}).get("duration") or 0)
    for name, s in (result["pipeline"].get("timings") or {}).items():
        out[f"pipeline: {name}"] = float(s)
    out["other (documents, ...)"] = max(wall - sum(out.values()), 0.0)
    return out


def reset_peak_rss() -> None:
    """Start this process's peak resident memory afresh (Linux: clear_refs 5)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_rss_mb() -> dict[str, float]:
    """Peak resident memory (MB) of this process since the last reset, and of the largest
    reaped child (the parser workers)."""
    status = Path("/proc/self/status").read_text()
    own = next((int(line.split()[1]) for line in status.splitlines()
                if line.startswith("VmHWM:")), 0)
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"own": own / 1024, "children": children / 1024}


def edit_one_file(root: Path) -> Path:
    """Append one small function to the largest Python file under ``root`` outside its
    tests (or the largest source file), calling the file's first top-level function: a
    new node and a new call edge, so the graph's ranks move as with a real commit."""
    files = [p for p in root.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES]
    library = [p for p in files if not any("test" in part for part in p.parts)] or files
    python = [p for p in library if p.suffix == ".py"]
    target = max(python or library, key=lambda p: (p.stat().st_size, str(p)))
    source = target.read_text(errors="replace")
    if target.suffix == ".py":
        first = re.search(r"^def (\w+)\(", source, re.M)
        call = f"{first.group(1)}(value)" if first else "value"
        added = f"\n\ndef bench_added_helper(value):\n    return {call}\n"
    else:
        added = "\n\nfunction benchAddedHelper(v) { return v * 2; }\n"
    target.write_text(source + added)
    return target


def _rows_written_since(engine, app: str, xid: int) -> tuple[int, int, int]:
    """(chunk rows written by transactions from ``xid`` on, chunks of the application,
    node rows written since)."""
    args = {"x": xid & 0xFFFFFFFF, "n": app}
    with engine.connect() as conn:
        written, total = conn.execute(text(
            "SELECT count(*) FILTER (WHERE c.xmin::text::bigint >= :x), count(*)"
            " FROM chunks c JOIN applications a ON a.id = c.application_id"
            " WHERE a.name = :n"), args).one()
        nodes = conn.execute(text(
            "SELECT count(*) FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :n AND n.xmin::text::bigint >= :x"), args).scalar_one()
    return written, total, nodes


def _txid(engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT txid_current()")).scalar_one())


def run_edit(engine, settings, root: Path, app: str, stages, full_wall: float
             ) -> dict:
    """Index ``root`` again after adding one function to one file; the run's figures."""
    target = edit_one_file(root)
    xid = _txid(engine)
    with CpuClock(engine) as clock:
        result = index_repository(engine, settings, root, app, stage_runner=stages)
    written, total, nodes = _rows_written_since(engine, app, xid)
    embedded = (result["pipeline"]["stages"].get("embed") or {}).get("done", 0)
    return {"file": str(target.relative_to(root)), "wall_s": clock.wall,
            "share": clock.wall / full_wall, "db_cpu_s": clock.db,
            "planning_s": float((result.get("chunks") or {}).get("duration") or 0),
            "rows_written": written, "chunks": total, "nodes_written": nodes,
            "embedded": embedded}


def run_backend(engine, root: Path, backend: str, edit: bool = False) -> dict:
    settings = dataclasses.replace(load_settings(), embed_backend=backend)
    reset_peak_rss()
    t0 = time.perf_counter()
    embedder = get_embedder(settings)
    embedder.encode(["warm up"])
    load_s = time.perf_counter() - t0
    app = f"bench_e2e_{backend.replace('-', '_')}"
    drop_app(engine, app)

    def stages(app_name: str):
        return run_pipeline(resolve_context(engine, settings, app_name), embedder=embedder)

    if edit:  # the edit goes into a copy: the cached source stays as published
        copy = Path(tempfile.mkdtemp(prefix="graphrag-edit-")) / root.name
        shutil.copytree(root, copy)
        root = copy
    with CpuClock(engine) as clock:
        result = index_repository(engine, settings, root, app, stage_runner=stages)
    edited = run_edit(engine, settings, root, app, stages, clock.wall) if edit \
        else None
    drop_app(engine, app)
    if edit:
        shutil.rmtree(root.parent, ignore_errors=True)
    pipeline = result["pipeline"]
    embedded = (pipeline["stages"].get("embed") or {}).get("done", 0)
    embed_s = (pipeline.get("timings") or {}).get("embed", 0.0)
    return {"backend": backend, "model_load_s": round(load_s, 2), "wall_s": clock.wall,
            "cpu_s": clock.cpu, "db_cpu_s": clock.db, "chunks": pipeline["chunks"],
            "embedded": embedded, "embed_rate": embedded / embed_s if embed_s else 0.0,
            "phases": phases(result, clock.wall), "failed": pipeline["failed"],
            "write_busy_s": float(pipeline.get("write_busy_s") or 0.0),
            "peak_rss_mb": peak_rss_mb(), "edit": edited}


def report(runs: list[dict], loc: int) -> None:
    first = runs[0]
    print(f"{loc} lines of code, {first['chunks']} chunks")
    names = list(dict.fromkeys(n for r in runs for n in r["phases"]))
    head = "".join(f"{r['backend']:>22}" for r in runs)
    print(f"{'phase (s, share of wall)':34}{head}")
    for name in names:
        cells = "".join(f"{r['phases'].get(name, 0):10.1f} s "
                        f"{r['phases'].get(name, 0) / r['wall_s']:7.1%}  " for r in runs)
        print(f"{name:34}{cells}")
    for label, key in (("wall", "wall_s"), ("own CPU", "cpu_s"), ("database CPU", "db_cpu_s")):
        cells = "".join(f"{r[key]:12.1f} s         " if r[key] is not None else f"{'n/a':>22}"
                        for r in runs)
        print(f"{label:34}{cells}")
    print(f"{'batch writes in all (s, of wall)':34}"
          + "".join(f"{r['write_busy_s']:10.1f} s {r['write_busy_s'] / r['wall_s']:7.1%}  "
                    for r in runs) + "   (pipeline: write = the run waiting for them)")
    print(f"{'embed stage, chunks/s':34}" + "".join(f"{r['embed_rate']:22.1f}" for r in runs))
    print(f"{'total vs ' + first['backend']:34}"
          + "".join(f"{first['wall_s'] / r['wall_s']:21.2f}x" for r in runs))
    print(f"{'model load (not in wall)':34}"
          + "".join(f"{r['model_load_s']:20.1f} s" for r in runs))
    print(f"{'peak memory, this process':34}"
          + "".join(f"{r['peak_rss_mb']['own']:19.0f} MB" for r in runs))
    print(f"{'peak memory, largest worker':34}"
          + "".join(f"{r['peak_rss_mb']['children']:19.0f} MB" for r in runs)
          + "   (cumulative over the run)")
    if any(r["edit"] for r in runs):
        print(f"after adding one function to {runs[0]['edit']['file']}, indexed again:")
        for label, cell in (
                ("  wall (share of the full index)",
                 lambda e: f"{e['wall_s']:8.2f} s {e['share']:7.1%}  "),
                ("  chunk planning", lambda e: f"{e['planning_s']:10.2f} s        "),
                ("  chunk rows written / chunks", lambda e: f"{e['rows_written']:8d} / "
                                                            f"{e['chunks']:<8d}  "),
                ("  node rows written", lambda e: f"{e['nodes_written']:12d}          "),
                ("  chunks embedded", lambda e: f"{e['embedded']:12d}          ")):
            print(f"{label:34}" + "".join(cell(r["edit"]) for r in runs))
    if any(r["failed"] for r in runs):
        print("failed chunks: " + ", ".join(f"{r['backend']} {r['failed']}" for r in runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pypi", default="werkzeug==3.0.6", help="a PyPI sdist NAME==VERSION")
    ap.add_argument("--path", type=Path, help="index this directory instead")
    ap.add_argument("--backends", default="onnx,model2vec",
                    help="comma list of: onnx, onnx-int8, torch, model2vec, onnx-head<N>, ...")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "graphrag-bench")
    ap.add_argument("--json", action="store_true", help="print the raw figures as JSON too")
    ap.add_argument("--edit", action="store_true",
                    help="then add one function to one file and index again")
    args = ap.parse_args()
    if args.path is not None:
        root = args.path.resolve()
    else:
        name = args.pypi.split("==")[0].lower()
        root = fetch_source(CodeBase(name=name, lang="python", pypi=args.pypi), args.cache, {})
    engine = bench_engine()
    runs = [run_backend(engine, root, b.strip(), args.edit)
            for b in args.backends.split(",") if b.strip()]
    report(runs, lines_of_code(root))
    if args.json:
        json.dump(runs, sys.stdout, indent=1, default=float)
        print()


if __name__ == "__main__":
    main()
