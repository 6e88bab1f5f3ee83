"""CALLS precision by a hand-verified random sample, for languages without a compiler
here to give an exact reference (C#): the share of call sites resolved, and the graph
build rate, on a pinned real code base.

The sample file (``benchmarks/call_sample/<name>.json``) names the repository and the
commit it was drawn at, and holds each sampled edge (one call site of one CALLS edge:
caller fqn, callee fqn, path, line, the site's text) with the verdict given by reading
the code (``correct``/``wrong``) and why. Scoring rebuilds the graph of the checkout and
checks that each site still reads as recorded (same commit) and that its edge is still
produced; precision counts the verdicts of the edges still produced.

    # score a sample (and measure the build rate) on a checkout of the pinned commit
    nice -n 10 python benchmarks/call_sample_json.py /path/to/Dapper \\
        --sample benchmarks/call_sample/csharp-dapper.json
    # draw a new sample to annotate (verdicts left empty)
    python benchmarks/call_sample_json.py /path/to/Dapper --lang csharp --draw 220 --seed 7 \\
        --repository DapperLib/Dapper --commit <sha> --sample new.json

The build rate is the in-process scan + parse + resolve of ``graphrag index
--graph-only`` (wall and CPU time of this process: on a shared machine the CPU rate is
the one that does not move with other users' load). Never part of the test suite; the
benchmarked code is not stored in this repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

from _common import ROOT  # noqa: F401 - puts the repository on sys.path


def build(root: Path, lang: str):
    """(graph, files, lines, wall seconds, cpu seconds) of the checkout's ``lang`` files."""
    from graphrag.graph.resolve import build_graph
    from graphrag.graph.scan import scan_repository
    from graphrag.parsing.extract import parse_file, repo_context

    wall, cpu = time.perf_counter(), time.process_time()
    every = list(scan_repository(root))
    scanned = [f for f in every if f.lang == lang and f.problem is None]
    # the configuration files the scan tracks (Cargo.toml, go.mod) give repository facts
    ctx = repo_context(root, [f.rel_path for f in every])
    results, lines = [], 0
    for f in scanned:
        data = f.abs_path.read_bytes()
        lines += data.count(b"\n")
        result = parse_file(data, f.rel_path, ctx)
        if result is not None:
            results.append(result)
    graph = build_graph(results)
    return (graph, len(results), lines, time.perf_counter() - wall,
            time.process_time() - cpu)


def sites(graph) -> list[dict]:
    """Every call site of every CALLS edge, in a stable order."""
    nodes = graph.node_by_key()
    out = []
    for edge in graph.edges:
        if edge.kind != "CALLS":
            continue
        src, dst = nodes[edge.src_key], nodes[edge.dst_key]
        for line in edge.lines:
            out.append({"caller": src.fqn, "callee": dst.fqn, "path": src.file_path,
                        "line": line, "resolution": edge.resolution})
    out.sort(key=lambda s: (s["path"], s["line"], s["caller"], s["callee"]))
    return out


def _rank(seed: int, site: dict) -> str:
    key = f"{seed}:{site['caller']}:{site['callee']}:{site['path']}:{site['line']}"
    return hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def site_text(root: Path, path: str, line: int) -> str:
    lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout", type=Path, help="a checkout of the pinned commit")
    ap.add_argument("--sample", type=Path, required=True, help="the sample file (JSON)")
    ap.add_argument("--lang", default=None, help="language (default: the sample's)")
    ap.add_argument("--draw", type=int, default=0, metavar="N",
                    help="draw N sites into --sample (verdicts empty) instead of scoring")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repository", default="", help="owner/name (with --draw)")
    ap.add_argument("--commit", default="", help="the checkout's commit (with --draw)")
    args = ap.parse_args()
    root = args.checkout.resolve()

    if args.draw:
        lang = args.lang or "csharp"
        graph, files, lines, wall, cpu = build(root, lang)
        # the sites whose seeded hashes are lowest: a uniform sample that keeps its other
        # sites when a change of the resolver moves some edges
        drawn = sorted(sites(graph), key=lambda s: _rank(args.seed, s))[:args.draw]
        drawn.sort(key=lambda s: (s["path"], s["line"]))
        for item in drawn:
            item["site"] = site_text(root, item["path"], item["line"])
            item["verdict"] = None
            item["reason"] = ""
        args.sample.write_text(json.dumps({
            "repository": args.repository, "commit": args.commit, "language": lang,
            "seed": args.seed, "edges": drawn}, indent=1) + "\n")
        print(f"drew {len(drawn)} of the call sites of {files} files into {args.sample}")
        return

    sample = json.loads(args.sample.read_text())
    lang = args.lang or sample["language"]
    graph, files, lines, wall, cpu = build(root, lang)
    produced = {(s["caller"], s["callee"], s["path"], s["line"]) for s in sites(graph)}
    verdicts: Counter[str] = Counter()
    by_resolution: dict[str, Counter[str]] = {}
    moved = gone = 0
    for item in sample["edges"]:
        if site_text(root, item["path"], item["line"]) != item["site"]:
            moved += 1  # another commit: the site is not where it was
            continue
        if (item["caller"], item["callee"], item["path"], item["line"]) not in produced:
            gone += 1
            continue
        verdicts[item["verdict"]] += 1
        by_resolution.setdefault(item.get("resolution", "?"), Counter())[item["verdict"]] += 1
    judged = verdicts["correct"] + verdicts["wrong"]
    resolved = len({(s["caller"], s["path"], s["line"]) for s in sites(graph)})
    unresolved = Counter(u.reason for u in graph.unresolved)
    total = resolved + sum(unresolved.values())

    print(f"{sample['repository']} at {sample['commit']} ({lang}): {files} files, "
          f"{lines} lines")
    print(f"build (scan, parse, resolve): wall {wall:.2f}s = {lines / wall:,.0f} lines/s, "
          f"cpu {cpu:.2f}s = {lines / cpu:,.0f} lines/s   (target >= 20,000 lines/s)")
    if judged:
        print(f"precision on {judged} hand-verified sites: "
              f"{verdicts['correct'] / judged:.3f} ({verdicts['wrong']} wrong)"
              f"   (target >= 0.95)")
    for resolution, counts in sorted(by_resolution.items()):
        print(f"  {resolution:12s} {counts['correct']:4d} correct {counts['wrong']:3d} wrong")
    if moved or gone or verdicts[None]:
        print(f"not scored: {moved} sites not where recorded (another commit?), {gone} "
              f"edges no longer produced, {verdicts[None]} without a verdict")
    print(f"call sites resolved: {resolved} of {total} = {resolved / max(total, 1):.1%}; "
          f"unresolved by reason: {dict(unresolved.most_common())}")
    if moved:
        sys.exit(1)


if __name__ == "__main__":
    main()
