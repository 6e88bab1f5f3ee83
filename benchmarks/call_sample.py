"""CALLS precision by reading the code: a random sample of graphrag's CALLS edges on a
pinned real code base, each judged by hand (for languages without a compiler here).

The graph is built as ``graphrag index --graph-only`` resolves it (scan, parse,
``build_graph``; ``call_recall.build``). A seeded random sample of ``--n`` CALLS edges
(the lowest seeded hashes of their locations: the same sample whatever the fqns, and an
edge stays in it while the others change) is
printed with the call site (file, line, the line's text) and the callee's signature.
The verdicts live in ``benchmarks/call_sample/<name>.tsv`` (call site ``path:line``,
callee declaration ``path:line``, ``ok``/``wrong``, caller and callee fqn for the reader, a
note; keyed by the two locations so that renamed fqns keep their verdicts); the script
scores the sample against them and prints the edges of the sample that have none yet in
that format (``?`` as the verdict). Also printed: the share of call sites that
got an edge (all sites, and the sites whose callee is not known to be outside the
repository) and the build rate (lines/s of parse + resolve in this one process, wall
and CPU time: on a shared machine the CPU rate is the one that does not move with other
users' load). The shares are printed for the files outside tests too (tests mostly
call their framework's inherited assertions).

A second sample format is read too: ``benchmarks/call_sample/<name>.json`` (C# Dapper,
the Rust ``-sites`` samples) holds a fixed list of call sites (caller and callee fqn,
path, line, the site's text) with a ``correct``/``wrong`` verdict each; each site is
checked to still read as recorded (same commit) and its edge to still be produced, and
precision counts the verdicts of the edges still produced.

    python benchmarks/call_sample.py rust-axum /path/to/axum [--n 200] [--show]
    nice -n 10 python benchmarks/call_sample.py csharp-dapper /path/to/Dapper

The checkout must be the pinned commit (``PINNED``), e.g.
``git --git-dir MIRROR archive COMMIT | tar -x -C DIR``. Never part of the test suite;
nothing of the benchmarked code is stored in this repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

from call_recall import build

from graphrag.parsing import registry
from graphrag.parsing.testpaths import is_test_path

HERE = Path(__file__).resolve().parent / "call_sample"
# name -> (repository, pinned commit, language)
PINNED = {
    "rust-axum": ("tokio-rs/axum", "309d1bd9530eec2217134cb262760af1df42ee3b", "rust"),
    "rust-serde": ("serde-rs/serde", "fa7da4a93567ed347ad0735c28e439fca688ef26", "rust"),
    "php-monolog": ("Seldaek/monolog", "68b974809baff3f071893de61447212e9e688ee7", "php"),
    "ruby-sinatra": ("sinatra/sinatra", "f891dd2b6f4911e356600efe6c3b82af97d262c6", "ruby"),
    # the same code bases, a fixed sample of call sites (JSON)
    "rust-axum-sites": ("tokio-rs/axum", "309d1bd9530eec2217134cb262760af1df42ee3b", "rust"),
    "rust-serde-sites": ("serde-rs/serde", "fa7da4a93567ed347ad0735c28e439fca688ef26", "rust"),
    "csharp-dapper": ("DapperLib/Dapper", "288730e69b05c32cac898d9b55ebea219ea8a2d1", "csharp"),
    # no verdicts: its build rate and share of resolved sites (checkout: Src/Newtonsoft.Json)
    "csharp-newtonsoft": ("JamesNK/Newtonsoft.Json", "4f73e74372445108d2c1bda37b36e6f5e43402e0",
                          "csharp"),
    "swift-alamofire": ("Alamofire/Alamofire", "7595cbcf59809f9977c5f6378500de2ad73b7ddb",
                        "swift"),
    "scala-circe": ("circe/circe", "1da94272096eedd88a6ea04be127618ef8cf943a", "scala"),
}


def read_verdicts(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(site, callee declaration) -> (verdict, note) from a verdict file ('#' lines are
    comments)."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        site, declared, verdict, _caller, _callee, *note = line.split("\t")
        out[(site, declared)] = (verdict, note[0] if note else "")
    return out


def site_text(root: Path, path: str, line: int) -> str:
    """The stripped text of ``line`` of ``path`` ("" past the end)."""
    lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def score_fixed(sample_path: Path, root: Path, calls, nodes) -> bool:
    """Print the precision of a fixed JSON sample (sites with ``correct``/``wrong``
    verdicts); False when some site no longer reads as recorded (another commit)."""
    produced = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn, nodes[e.src_key].file_path,
                 line) for e in calls for line in e.lines}
    verdicts: Counter = Counter()
    by_resolution: dict[str, Counter] = {}
    moved = gone = 0
    for item in json.loads(sample_path.read_text())["edges"]:
        if site_text(root, item["path"], item["line"]) != item["site"]:
            moved += 1
            continue
        if (item["caller"], item["callee"], item["path"], item["line"]) not in produced:
            gone += 1
            continue
        verdicts[item["verdict"]] += 1
        by_resolution.setdefault(item.get("resolution", "?"), Counter())[item["verdict"]] += 1
    ok, wrong = verdicts["correct"], verdicts["wrong"]
    if ok + wrong:
        print(f"precision: {ok}/{ok + wrong} = {ok / (ok + wrong):.3f} (fixed sample)")
        for resolution, counts in sorted(by_resolution.items()):
            print(f"  {resolution:<12} {counts['correct']}/{counts['correct'] + counts['wrong']}")
    if moved or gone or verdicts[None]:
        print(f"not scored: {moved} sites not where recorded (another commit?), {gone} "
              f"edges no longer produced, {verdicts[None]} without a verdict")
    return not moved


def _location(src, dst, edge) -> tuple[str, str]:
    """(call site, callee declaration) of an edge: its key in the verdict file."""
    line = edge.lines[0] if edge.lines else src.line_start or 0
    return f"{src.file_path}:{line}", f"{dst.file_path}:{dst.line_start}"


def _rank(seed: str, src, dst, edge) -> str:
    """A seeded hash of the edge's locations: the sample is the ``--n`` lowest, so an
    edge keeps its place (and its verdict) when other edges come or go."""
    return hashlib.sha256(("\t".join((seed, *_location(src, dst, edge)))).encode()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name", choices=sorted(PINNED))
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", default="graphrag-calls")
    ap.add_argument("--show", action="store_true", help="print every sampled edge")
    args = ap.parse_args()
    repo, commit, lang = PINNED[args.name]
    print(f"{args.name}: {repo} at {commit}, {lang}")

    started, cpu = time.perf_counter(), time.process_time()
    graph, files, lines = build(args.checkout, [])
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"build: {files} files, {lines} lines in {elapsed:.2f} s = {lines / elapsed:,.0f}"
          f" lines/s, cpu {cpu:.2f} s = {lines / cpu:,.0f} lines/s (parse + resolve, one"
          " process)")

    nodes = graph.node_by_key()
    calls = [e for e in graph.edges if e.kind == "CALLS" and nodes[e.src_key].lang == lang]
    extensions = registry.spec(lang).extensions
    missed = [u for u in graph.unresolved if u.file_path.lower().endswith(extensions)]
    sites = sum(len(e.lines) for e in calls)
    external = sum(1 for u in missed if u.reason == "external")
    print(f"CALLS edges: {len(calls)} over {sites} sites; unresolved sites: {len(missed)} "
          f"({', '.join(f'{k} {v}' for k, v in Counter(u.reason for u in missed).most_common())})")
    total = sites + len(missed)
    print(f"sites resolved: {sites}/{total} = {sites / max(total, 1):.1%}; without the "
          f"external ones: {sites}/{total - external} = {sites / max(total - external, 1):.1%}")
    code_sites = sum(len(e.lines) for e in calls if not is_test_path(nodes[e.src_key].file_path))
    code_missed = [u for u in missed if not is_test_path(u.file_path)]
    code_total = code_sites + len(code_missed)
    code_external = sum(1 for u in code_missed if u.reason == "external")
    print(f"outside tests: {code_sites}/{code_total} = {code_sites / max(code_total, 1):.1%};"
          f" without the external ones: {code_sites}/{code_total - code_external} = "
          f"{code_sites / max(code_total - code_external, 1):.1%}")

    fixed = HERE / f"{args.name}.json"
    if fixed.exists():
        distinct = len({(e.src_key, line) for e in calls for line in e.lines})
        print(f"distinct caller sites resolved: {distinct}/{distinct + len(missed)} = "
              f"{distinct / max(distinct + len(missed), 1):.1%}; without the external ones: "
              f"{distinct}/{distinct + len(missed) - external} = "
              f"{distinct / max(distinct + len(missed) - external, 1):.1%}")
        if not score_fixed(fixed, args.checkout, calls, nodes):
            sys.exit(1)
        return
    sample = sorted(calls, key=lambda e: _rank(args.seed, nodes[e.src_key],
                                               nodes[e.dst_key], e))[:args.n]
    verdicts = read_verdicts(HERE / f"{args.name}.tsv")
    judged = Counter()
    by_resolution: dict[str, Counter] = {}
    todo = []
    for edge in sample:
        src, dst = nodes[edge.src_key], nodes[edge.dst_key]
        line = edge.lines[0] if edge.lines else src.line_start or 0
        site, declared = _location(src, dst, edge)
        verdict = verdicts.get((site, declared))
        if verdict is None:
            todo.append((edge, src, dst, line))
        else:
            judged[verdict[0]] += 1
            by_resolution.setdefault(edge.resolution or "?", Counter())[verdict[0]] += 1
        if args.show or verdict is None:
            text = ""
            if src.file_path:
                text = site_text(args.checkout, src.file_path, line)
            print(f"{site}\t{declared}\t{verdict[0] if verdict else '?'}\t{src.fqn}\t"
                  f"{dst.fqn}\t[{edge.resolution}] {text[:120]} => "
                  f"{(dst.signature or '')[:80]}")
    ok, wrong = judged["ok"], judged["wrong"]
    if ok + wrong:
        print(f"precision: {ok}/{ok + wrong} = {ok / (ok + wrong):.3f} "
              f"({len(todo)} of the sample not judged yet)")
        for resolution, counts in sorted(by_resolution.items()):
            print(f"  {resolution:<12} {counts['ok']}/{counts['ok'] + counts['wrong']}")


if __name__ == "__main__":
    main()
