"""Graph build speed: full index vs no-change re-index of a large generated repository.

The repository is assembled from `sample_repos/` copied N times with their package names
rewritten (so fqns stay unique and cross-file resolution does real work), until it holds
at least --min-lines lines. Prints lines/s and files/s for a full index and for a no-change
re-index, and the ratio between them; then the time of re-indexing after one edited file,
for three kinds of edit: a blank line appended (the parse result is unchanged but for the
file's length), a method body changed (its calls and lines change, nothing other files see),
and a method renamed (a definition other files call: they are resolved again too), each with
the number of files whose imports and calls were resolved again. Targets: >= 20,000 lines/s
full, re-index (no change and one edited file) < 5% of the full index.

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
        # one edited file: the typical nightly delta, three kinds of edit
        victim = next(p for p in sorted(repo.rglob("*.java"))
                      if re.search(r"\n    public \w[\w<>, ]* (\w+)\(", p.read_text()))
        source = victim.read_text()
        method = re.search(r"\n    public \w[\w<>, ]* (\w+)\(", source).group(1)
        body = source.index("{", source.index(f" {method}(")) + 1
        edits = {
            "blank line appended": source + "\n",
            "method body changed": source[:body] + "\n        System.out.println(\"x\");"
            + source[body:],
            "method renamed": re.sub(rf"\b{method}\b", method + "Renamed", source),
        }
        one = {}
        for label, edited in edits.items():
            victim.write_text(edited)
            t0 = time.perf_counter()
            stats = index_graph(engine, settings, repo, app)
            one[label] = (time.perf_counter() - t0, stats.files_resolved, stats.timings)
            victim.write_text(source)
            index_graph(engine, settings, repo, app)
        drop_app(engine, app)
        shutil.rmtree(repo, ignore_errors=True)

    nodes = sum(full.nodes_by_kind.values())
    edges = sum(full.edges_by_kind.values())
    print(f"repository: {files} files, {lines} lines -> {nodes} nodes, {edges} edges")
    print(f"full index:          {t_full:7.2f} s  {lines / t_full:9.0f} lines/s"
          f"  {files / t_full:7.0f} files/s   (target >= 20000 lines/s)")
    print(f"no-change re-index:  {t_again:7.2f} s  {lines / t_again:9.0f} lines/s"
          f"  {files / t_again:7.0f} files/s")
    for label, (seconds, resolved, timings) in one.items():
        print(f"one file, {label + ':':22s} {seconds:6.2f} s  ({seconds / t_full:6.2%} of full;"
              f" {resolved} files resolved again)  {timings}")
    print("phases of the full index:", full.timings)
    print(f"ratio no-change/full: {t_again / t_full:.3%}   (target < 5%)")


if __name__ == "__main__":
    main()
