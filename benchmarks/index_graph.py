"""Graph build speed: full index vs no-change re-index of a large generated repository.

The repository is assembled from `sample_repos/` copied N times with their package names
rewritten (so fqns stay unique and cross-file resolution does real work), until it holds
at least --min-lines lines. Prints lines/s and files/s for a full index and for a no-change
re-index, and the ratio between them. Targets: >= 20,000 lines/s full, re-index < 5%.

    python benchmarks/index_graph.py [--min-lines 150000] [--workers 0]
"""

from __future__ import annotations

import argparse
import re
import shutil
import tempfile
import time
from pathlib import Path

from _common import ROOT, bench_engine, drop_app

CODE = {".py", ".java", ".kt", ".ts", ".tsx", ".js", ".go"}


def assemble(dest: Path, min_lines: int) -> tuple[int, int]:
    samples = sorted(p for p in (ROOT / "sample_repos").iterdir() if p.is_dir())
    lines = files = copy = 0
    while lines < min_lines:
        for sample in samples:
            target = dest / f"c{copy}" / sample.name
            for src in sample.rglob("*"):
                if not src.is_file():
                    continue
                rel = src.relative_to(sample)
                out = target / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                data = src.read_text(encoding="utf-8", errors="replace")
                # unique JVM packages and Go module paths per copy
                data = re.sub(r"\bcom\.example\b", f"com.example.c{copy}", data)
                data = re.sub(r"\bexample\.com/", f"example.com/c{copy}/", data)
                out.write_text(data)
                if src.suffix in CODE:
                    files += 1
                    lines += data.count("\n")
        copy += 1
    return lines, files


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-lines", type=int, default=150_000)
    ap.add_argument("--workers", type=int, default=0)
    args = ap.parse_args()

    from graphrag.config import load_settings
    from graphrag.graph.index import index_graph

    engine = bench_engine()
    settings = load_settings().with_overrides(workers=args.workers or None)
    app = "bench_index_graph"
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        lines, files = assemble(repo, args.min_lines)
        drop_app(engine, app)
        t0 = time.perf_counter()
        full = index_graph(engine, settings, repo, app)
        t_full = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = index_graph(engine, settings, repo, app)
        t_again = time.perf_counter() - t0
        assert again.files_parsed == 0
        # one edited file: the typical nightly delta
        victim = next(p for p in sorted(repo.rglob("*.java")))
        victim.write_text(victim.read_text() + "\n")
        t0 = time.perf_counter()
        index_graph(engine, settings, repo, app)
        t_one = time.perf_counter() - t0
        drop_app(engine, app)
        shutil.rmtree(repo, ignore_errors=True)

    nodes = sum(full.nodes_by_kind.values())
    edges = sum(full.edges_by_kind.values())
    print(f"repository: {files} files, {lines} lines -> {nodes} nodes, {edges} edges")
    print(f"full index:          {t_full:7.2f} s  {lines / t_full:9.0f} lines/s"
          f"  {files / t_full:7.0f} files/s   (target >= 20000 lines/s)")
    print(f"no-change re-index:  {t_again:7.2f} s  {lines / t_again:9.0f} lines/s"
          f"  {files / t_again:7.0f} files/s")
    print(f"one-file re-index:   {t_one:7.2f} s")
    print("phases:", full.timings)
    print(f"ratio no-change/full: {t_again / t_full:.3%}   (target < 5%)")


if __name__ == "__main__":
    main()
