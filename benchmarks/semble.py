"""Search on developers' own questions: semble's public code-search benchmark.

semble (github.com/MinishLab/semble, MIT) publishes hand-written developer questions per
pinned repository, in three kinds: ``semantic`` (find the code that does X),
``architecture`` (how does X work, where is X decided) and ``symbol`` (a bare name such as
``APIRouter``), each with relevant and secondary targets (a file, or a file and a line
span). This script indexes each repository at its pinned revision with graphrag, runs
every question through :func:`graphrag.retrieval.search.engine.search_many` (what ``graphrag
search`` runs) and scores it the way semble scores itself:

- NDCG@10 with binary gains over relevant + secondary targets; a hit matches a target when
  its path equals the target's (relative to the checkout) or ends with ``/target``, and for
  a span target when its chunk's lines overlap the span; a target's rank is the first hit
  that matches it; the ideal counts the targets present in the benchmark folder;
- mean per repository, then over repositories (and per language and per kind).

Printed next to semble's published NDCG@10 (``PUBLISHED`` below: semble-hybrid and
CodeRankEmbed-hybrid, from semble's ``benchmarks/results/semble-hybrid-0332378809c5.json``
and ``coderankembed-*.json``). ``COMPARABLE`` are the repositories whose stored questions
are the set semble scored; express, chi and trpc are measured and reported, not compared.

Inputs (nothing of the benchmarked code is stored in this repository):

- ``--bench-dir``: a folder with semble's ``annotations/<name>.json`` and a ``repos.json``
  (entries ``name``, ``language``, ``revision``, ``benchmark_root``, ``mirror``); semble's
  own ``benchmarks/`` folder, or the copy the project keeps beside it;
- ``--checkouts``: a folder holding ``<name>/`` = the repository at its pinned revision
  (e.g. ``git --git-dir MIRROR archive REV | tar -x -C <checkouts>/<name>``; with
  ``--mirror-root`` the script exports missing ones itself from bare mirrors).

    python benchmarks/semble.py --bench-dir DIR --checkouts DIR [--only fastapi,gin]
    python benchmarks/semble.py ... --skip-index --ablate      # each signal switched off
    python benchmarks/semble.py ... --skip-index --ablate-vectors   # each vector switched off

``--ablate`` runs the questions again with each ranking signal off
(``SearchOptions.disabled``) and prints the macro NDCG@10 of each variant: what every
signal adds. Index seconds are wall time of ``graphrag index`` on this machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from _common import ROOT, bench_engine

# semble's published per-repository NDCG@10 (see the module docstring).
PUBLISHED = {
    "semble": {"fastapi": 0.787, "model2vec": 0.693, "gin": 0.860, "commons-lang": 0.896,
               "ktor": 0.843, "exposed": 0.712, "zod": 0.615, "express": 0.964,
               "chi": 0.867, "trpc": 0.811,
               "axum": 0.801, "serde": 0.815, "libuv": 0.615, "fmtlib": 0.935,
               "abseil-cpp": 0.949, "sinatra": 0.953, "cats": 0.911, "alamofire": 0.964},
    "coderankembed-hybrid": {"fastapi": 0.837, "model2vec": 0.743, "gin": 0.839,
                             "commons-lang": 0.852, "ktor": 0.864, "exposed": 0.698,
                             "zod": 0.558, "express": 0.971, "chi": 0.874, "trpc": 0.830,
                             "axum": 0.766, "serde": 0.718, "libuv": 0.723, "fmtlib": 0.888,
                             "abseil-cpp": 0.889, "sinatra": 0.951, "cats": 0.911,
                             "alamofire": 0.978},
}
COMPARABLE = ("fastapi", "model2vec", "gin", "commons-lang", "ktor", "exposed", "zod")
MEASURED_ONLY = ("express", "chi", "trpc")
# Comparable too (their stored questions are the set semble scored), run with --only: the
# repositories of languages added later, kept out of the default set and its mean.
COMPARABLE_BY_LANGUAGE = ("axum", "serde", "sinatra", "cats")
K = 10


@dataclass
class Repo:
    name: str
    language: str
    revision: str
    root: str | None
    mirror: str | None
    queries: list[dict[str, Any]] = field(default_factory=list)

    def bench_dir(self, checkouts: Path) -> Path:
        base = checkouts / self.name
        return base / self.root if self.root else base


def load_repos(bench_dir: Path, only: list[str] | None) -> list[Repo]:
    specs = {s["name"]: s for s in json.loads((bench_dir / "repos.json").read_text())}
    names = only or [*COMPARABLE, *MEASURED_ONLY]
    repos = []
    for name in names:
        spec = specs[name]
        repo = Repo(name, spec["language"], spec["revision"], spec.get("benchmark_root"),
                    spec.get("mirror"))
        repo.queries = json.loads((bench_dir / "annotations" / f"{name}.json").read_text())
        repos.append(repo)
    return repos


def export(repo: Repo, checkouts: Path, mirror_root: Path | None) -> None:
    """The checkout at the pinned revision (from a bare mirror when it is missing)."""
    dest = checkouts / repo.name
    if dest.is_dir():
        return
    if mirror_root is None or repo.mirror is None:
        sys.exit(f"{dest} is missing; pass --mirror-root to export it")
    git_dir = mirror_root / repo.mirror / "repo"
    part = Path(tempfile.mkdtemp(dir=checkouts, prefix=f"{repo.name}.part"))
    # The benchmark folder only: snapshots may lack large files elsewhere in the tree.
    args = ["git", "--git-dir", str(git_dir), "archive", repo.revision]
    if repo.root:
        args.append(repo.root)
    archive = subprocess.run(args, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(part)], input=archive, check=True)
    part.rename(dest)


# --- scoring (semble's rules) ---------------------------------------------------------

def _lines_of(path: Path) -> int:
    try:
        with path.open("rb") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return -1


def present_targets(query: dict[str, Any], checkout: Path, bench: Path) -> list[dict[str, Any]]:
    """The query's targets (relevant + secondary) whose file is inside the benchmark
    folder (a span target's file: at least ``start_line`` lines long)."""
    out = []
    root = bench.resolve()
    for target in [*query.get("relevant", []), *query.get("secondary", [])]:
        t = {"path": target} if isinstance(target, str) else dict(target)
        t["path"] = t.get("path") or t.get("file")
        for cand in (checkout / t["path"], bench / t["path"]):
            real = cand.resolve()
            if not real.is_file() or not (real == root or root in real.parents):
                continue
            if t.get("start_line") is None or _lines_of(real) >= int(t["start_line"]):
                out.append(t)
                break
    return out


def _matches(hit: dict[str, Any], target: dict[str, Any], root: str | None) -> bool:
    path = hit.get("file_path") or ""
    full = f"{root}/{path}" if root else path
    want = target["path"]
    if not (full == want or full.endswith("/" + want)):
        return False
    if target.get("start_line") is None:
        return True
    lo = hit.get("chunk_line_start") or hit.get("line_start")
    hi = hit.get("chunk_line_end") or hit.get("line_end")
    if lo is None or hi is None:
        return False
    return lo <= int(target["end_line"]) and hi >= int(target["start_line"])


def ndcg10(hits: list[dict[str, Any]], targets: list[dict[str, Any]], root: str | None
           ) -> float:
    if not targets:
        return 0.0
    ranks = set()
    for target in targets:
        for rank, hit in enumerate(hits[:K], start=1):
            if _matches(hit, target, root):
                ranks.add(rank)
                break
    dcg = sum(1 / math.log2(r + 1) for r in ranks)
    ideal = sum(1 / math.log2(r + 1) for r in range(1, min(K, len(targets)) + 1))
    return dcg / ideal


# --- running --------------------------------------------------------------------------

def index(repo: Repo, checkouts: Path, app: str) -> float:
    exe = Path(sys.executable).with_name("graphrag")
    t0 = time.perf_counter()
    proc = subprocess.run([str(exe), "index", str(repo.bench_dir(checkouts)), "--app", app],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"index of {repo.name} failed:\n{proc.stderr[-2000:]}")
    return time.perf_counter() - t0


def run_queries(engine: Any, embedder: Any, repo: Repo, app: str, options: Any,
                checkouts: Path) -> tuple[list[dict[str, Any]], float]:
    from graphrag.config import load_settings
    from graphrag.db.context import resolve_scope
    from graphrag.retrieval.search.engine import search_many

    texts = [q["query"] for q in repo.queries]
    t0 = time.perf_counter()
    results = search_many(resolve_scope(engine, load_settings(), [app]), texts, options,
                          embedder)
    seconds = (time.perf_counter() - t0) / max(len(texts), 1)
    # Hit paths are relative to the indexed folder: the benchmark folder.
    checkout = checkouts / repo.name
    scored = []
    for query, result in zip(repo.queries, results, strict=True):
        targets = present_targets(query, checkout, repo.bench_dir(checkouts))
        scored.append({"query": query["query"], "category": query.get("category"),
                       "ndcg10": ndcg10(result.hits, targets, repo.root),
                       "top": [h["file_path"] for h in result.hits[:K]]})
    return scored, seconds


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def summarise(per_repo: dict[str, list[dict[str, Any]]], repos: list[Repo]
              ) -> dict[str, Any]:
    lang = {r.name: r.language for r in repos}
    by_repo = {name: mean([q["ndcg10"] for q in qs]) for name, qs in per_repo.items()}
    kinds: dict[str, list[float]] = {}
    for qs in per_repo.values():
        per_kind: dict[str, list[float]] = {}
        for q in qs:
            per_kind.setdefault(q["category"], []).append(q["ndcg10"])
        for kind, values in per_kind.items():
            kinds.setdefault(kind, []).append(mean(values))
    langs: dict[str, list[float]] = {}
    for name, score in by_repo.items():
        langs.setdefault(lang[name], []).append(score)
    comparable = [by_repo[n] for n in COMPARABLE if n in by_repo]
    return {"by_repo": by_repo, "by_kind": {k: mean(v) for k, v in kinds.items()},
            "by_language": {k: mean(v) for k, v in langs.items()},
            "macro_comparable": mean(comparable),
            "macro_all": mean(list(by_repo.values()))}


def print_table(summary: dict[str, Any], index_s: dict[str, float],
                query_ms: dict[str, float]) -> None:
    print(f"{'repository':14} {'graphrag':>9} {'semble':>7} {'diff':>7} {'CRE-hyb':>8}"
          f" {'index s':>8} {'query ms':>9}")
    for name, score in summary["by_repo"].items():
        sem = PUBLISHED["semble"].get(name)
        cre = PUBLISHED["coderankembed-hybrid"].get(name)
        note = "" if name in COMPARABLE or name in COMPARABLE_BY_LANGUAGE \
            else "  (not comparable)"
        diff = f"{score - sem:+.3f}" if sem is not None else "-"
        idx = f"{index_s[name]:.1f}" if name in index_s else "-"
        print(f"{name:14} {score:9.3f} {sem or float('nan'):7.3f} {diff:>7}"
              f" {cre or float('nan'):8.3f} {idx:>8} {query_ms.get(name, 0):9.1f}{note}")
    sem_macro = mean([PUBLISHED["semble"][n] for n in COMPARABLE if n in summary["by_repo"]])
    print(f"{'mean, comparable':16} {summary['macro_comparable']:7.3f} {sem_macro:7.3f}"
          f" {summary['macro_comparable'] - sem_macro:+7.3f}")
    later = [n for n in COMPARABLE_BY_LANGUAGE if n in summary["by_repo"]]
    if later:
        ours = mean([summary["by_repo"][n] for n in later])
        theirs = mean([PUBLISHED["semble"][n] for n in later])
        print(f"{'mean, ' + ','.join(later):16} {ours:7.3f} {theirs:7.3f} {ours - theirs:+7.3f}")
    print(f"{'mean, all':16} {summary['macro_all']:7.3f}")
    print("by kind:", ", ".join(f"{k} {v:.3f}" for k, v in sorted(summary["by_kind"].items())))
    print("by language:", ", ".join(f"{k} {v:.3f}"
                                     for k, v in sorted(summary["by_language"].items())))


def main() -> None:
    from graphrag.config import load_settings
    from graphrag.embedding import get_embedder
    from graphrag.retrieval.search.model import SIGNALS, SearchOptions

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-dir", type=Path, required=True)
    parser.add_argument("--checkouts", type=Path, required=True)
    parser.add_argument("--mirror-root", type=Path)
    parser.add_argument("--only", help="comma list of repository names")
    parser.add_argument("--app-prefix", default="semble-")
    parser.add_argument("--skip-index", action="store_true",
                        help="reuse the applications indexed by an earlier run")
    parser.add_argument("--ablate", action="store_true",
                        help="also run with each ranking signal switched off")
    parser.add_argument("--ablate-vectors", action="store_true",
                        help="also run without the title vector, without the body vector,"
                             " and with neither (benchmarks/_vector_ablation.py)")
    parser.add_argument("--disable", default="",
                        help="comma list of ranking signals to switch off: "
                             + ", ".join(SIGNALS))
    parser.add_argument("--per-file", type=int, default=None)
    parser.add_argument("--out", type=Path, help="write every query's score here (JSON)")
    args = parser.parse_args()

    repos = load_repos(args.bench_dir, args.only.split(",") if args.only else None)
    args.checkouts.mkdir(parents=True, exist_ok=True)
    index_s: dict[str, float] = {}
    for repo in repos:
        export(repo, args.checkouts, args.mirror_root)
        if not args.skip_index:
            index_s[repo.name] = index(repo, args.checkouts, args.app_prefix + repo.name)
            print(f"indexed {repo.name} in {index_s[repo.name]:.1f} s", file=sys.stderr)

    engine = bench_engine()
    embedder = get_embedder(load_settings())
    base = SearchOptions(top_k=K, disabled=tuple(s for s in args.disable.split(",") if s))
    if args.per_file is not None:
        base = replace(base, per_file=args.per_file)
    variants = {"default": base}
    if args.ablate:
        for signal in SIGNALS:
            if signal not in base.disabled:
                variants[f"without {signal}"] = replace(base,
                                                        disabled=(*base.disabled, signal))
        variants["no priors"] = replace(base, priors=False)
    if args.ablate_vectors:
        from _vector_ablation import register_vector_ablations

        for mode in register_vector_ablations():
            variants[mode] = replace(base, mode=mode)
    report: dict[str, Any] = {}
    for label, options in variants.items():
        per_repo, query_ms = {}, {}
        for repo in repos:
            per_repo[repo.name], secs = run_queries(engine, embedder, repo,
                                                    args.app_prefix + repo.name, options,
                                                    args.checkouts)
            query_ms[repo.name] = secs * 1000
        summary = summarise(per_repo, repos)
        report[label] = {"summary": summary, "queries": per_repo, "query_ms": query_ms}
        if label == "default":
            print_table(summary, index_s, query_ms)
        else:
            print(f"{label:28} comparable {summary['macro_comparable']:.3f}"
                  f"  all {summary['macro_all']:.3f}  "
                  + " ".join(f"{k} {v:.3f}" for k, v in sorted(summary["by_kind"].items())))
    if args.out:
        args.out.write_text(json.dumps({"index_s": index_s, **report}, indent=1))


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    shutil.which("git") or sys.exit("git is needed")
    main()
