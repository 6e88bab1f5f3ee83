"""Search quality on real code bases nobody here wrote, against simple baselines.

The CodeSearchNet method (see ``codesearch_corpus.py``): every function's doc comment is
removed from an indexed copy of the code base, and the first sentence of the comment is
the query whose answer is that function. A hit is a returned span in the right file that
overlaps the function; the strict rule also demands that the span be at most
max(2x, +20 lines) of the function, so a whole-class chunk does not count.

Measured in the same run, on the same stripped copy:

- graphrag ``hybrid`` (the default), ``vector`` and ``text`` modes: the copy is indexed
  end to end (graph, chunks, every stage) into application ``bench-retrieval-<name>``;
- baseline ``bm25``: BM25 (``bm25s``, k1 1.5, b 0.75) over each function's text,
  identifiers split into words;
- baseline ``embed``: the same embedding model over each function's raw code;
- baseline ``fusion``: reciprocal rank fusion (k 60) of those two lists.

Code bases (pinned; fetched when the benchmark runs, never stored in this repository):

- ``werkzeug`` (Python): PyPI sdist werkzeug==3.0.6, ``src/``
- ``click`` (Python): PyPI sdist click==8.1.7, ``src/``
- ``gson`` (Java): github.com/google/gson at 9835b6f90192f79cdf5300c528fc6212455fb6c1,
  ``gson/src/main``
- ``gin`` (Go): github.com/gin-gonic/gin at dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9

Test files are left out of the indexed copy (``--with-tests`` keeps them: four times the
work; their functions are never asked for).

The git code bases need a local clone or mirror holding that commit::

    python benchmarks/retrieval.py --git gson=/path/to/gson --git gin=/path/to/gin
    python benchmarks/retrieval.py --only werkzeug --limit 100   # one code base, fewer queries

Prints strict and lenient MRR@10 and R@1/5/10 per code base and method, then the macro
table and the ratio of graphrag's default mode to the best baseline of each code base.
Uses ``GRAPHRAG_DATABASE_URL`` or the embedded server; ``--out FILE`` keeps the numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
from _common import bench_engine, drop_app
from codesearch_corpus import CodeBase, Corpus, build_corpus, fetch_source, metrics, rank_of

CODE_BASES = [
    CodeBase("werkzeug", "python", pypi="werkzeug==3.0.6", subdir="src"),
    CodeBase("click", "python", pypi="click==8.1.7", subdir="src"),
    CodeBase("gin", "go", git="gin-gonic/gin",
             commit="dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9"),
    CodeBase("gson", "java", git="google/gson",
             commit="9835b6f90192f79cdf5300c528fc6212455fb6c1", subdir="gson/src/main"),
]
MODES = ("hybrid", "vector", "text")
BASELINES = ("bm25", "embed", "fusion")
TOP_K = 10
POOL = 100  # candidates per baseline list before fusion
RRF_K = 60

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will",
    "with",
})

Span = tuple[str | None, int | None, int | None]


def tokens(text: str) -> list[str]:
    """Lower-cased words, identifiers also split into their parts, stop words dropped."""
    out = []
    for word in _WORD.findall(text):
        parts = _CAMEL.findall(word)
        for t in {word.lower(), *(p.lower() for p in parts)}:
            if t not in _STOP:
                out.append(t)
    return out


def function_texts(corpus: Corpus) -> list[str]:
    texts = []
    for fn in corpus.functions:
        lines = corpus.sources[fn.path].splitlines()
        texts.append("\n".join(lines[fn.line_start - 1: fn.line_end]))
    return texts


def embed_cached(embedder, texts: list[str], cache: Path) -> np.ndarray:
    digest = hashlib.sha256(embedder.name.encode())
    for t in texts:
        digest.update(hashlib.sha256(t.encode("utf-8", "replace")).digest())
    path = cache / "vectors" / f"{digest.hexdigest()[:24]}.npy"
    if path.is_file():
        return np.load(path)
    vectors = embedder.encode(texts) if texts else np.zeros((0, embedder.dim), np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def fuse(lists: list[list[int]]) -> list[int]:
    scores: dict[int, float] = {}
    for ranked in lists:
        for rank, key in enumerate(ranked, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores, key=lambda k: (-scores[k], k))


def baseline_spans(corpus: Corpus, embedder, cache: Path) -> dict[str, list[list[Span]]]:
    """Best-first function spans of every query, for each baseline."""
    import bm25s

    texts = function_texts(corpus)
    spans = [(f.path, f.line_start, f.line_end) for f in corpus.functions]
    queries = [q.text for q in corpus.queries]
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index([tokens(t) or ["_"] for t in texts], show_progress=False)
    ids, _ = retriever.retrieve([tokens(q) or ["_"] for q in queries],
                                k=min(POOL, len(texts)), show_progress=False)
    bm25 = [[int(i) for i in row] for row in ids]
    fvec = embed_cached(embedder, texts, cache)
    qvec = embedder.encode(queries)
    sims = qvec @ fvec.T
    emb = [list(np.argsort(-row, kind="stable")[:POOL]) for row in sims]
    fused = [fuse([b, [int(i) for i in e]]) for b, e in zip(bm25, emb, strict=True)]
    pick = lambda rows: [[spans[i] for i in row[:TOP_K]] for row in rows]  # noqa: E731
    return {"bm25": pick(bm25), "embed": pick([[int(i) for i in e] for e in emb]),
            "fusion": pick(fused)}


def graphrag_spans(corpus: Corpus, engine, settings, embedder, fresh: bool,
                   modes: tuple[str, ...] = MODES) -> tuple[dict[str, list[list[Span]]], dict]:
    from graphrag.db.context import resolve_scope
    from graphrag.indexing import index_repository
    from graphrag.retrieval.search.engine import search_many
    from graphrag.retrieval.search.model import SearchOptions
    from graphrag.retrieval.search.modes import get_mode

    app = f"bench-retrieval-{corpus.base.name}"
    if fresh:
        drop_app(engine, app)
    t0 = time.perf_counter()
    stats = index_repository(engine, settings, corpus.root, app)
    index_s = time.perf_counter() - t0
    queries = [q.text for q in corpus.queries]
    vectors = list(embedder.encode(queries))
    out = {}
    for mode in modes:
        options = SearchOptions(mode=mode, top_k=TOP_K)
        results = search_many(resolve_scope(engine, settings, [app]), queries, options,
                              embedder=embedder,
                              vectors=vectors if get_mode(options.mode).needs_vectors else None)
        out[mode] = [[(h["file_path"], h["line_start"], h["line_end"]) for h in r.hits]
                     for r in results]
    return out, {"index_s": round(index_s, 1), "stats": _counts(stats)}


def _counts(stats: dict) -> dict:
    keep = {}
    for key, value in stats.items():
        if isinstance(value, int | float | str):
            keep[key] = value
    return keep


def score(corpus: Corpus, spans: list[list[Span]]) -> dict[str, dict[str, float]]:
    out = {}
    for strict in (True, False):
        ranks = [rank_of(q.target, s, strict) for q, s in zip(corpus.queries, spans,
                                                                strict=True)]
        out["strict" if strict else "lenient"] = metrics(ranks, TOP_K)
    return out


def print_table(name: str, corpus: Corpus, results: dict[str, dict]) -> None:
    print(f"\n## {name} ({corpus.base.lang}, {corpus.lines_of_code:,} lines, "
          f"{len(corpus.functions):,} functions, {len(corpus.queries)} queries)")
    print(f"{'method':<16} {'MRR strict':>10} {'R@1':>6} {'R@5':>6} {'R@10':>6}"
          f" {'MRR lenient':>12}")
    for method, res in results.items():
        s, le = res["strict"], res["lenient"]
        print(f"{method:<16} {s['mrr']:>10.3f} {s['r1']:>6.3f} {s['r5']:>6.3f}"
              f" {s['r10']:>6.3f} {le['mrr']:>12.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path,
                        default=Path.home() / ".cache" / "graphrag-bench" / "retrieval")
    parser.add_argument("--git", action="append", default=[], metavar="NAME=PATH",
                        help="a local clone/mirror for a git code base")
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    parser.add_argument("--limit", type=int, default=300, help="queries per code base")
    parser.add_argument("--fresh", action="store_true",
                        help="drop the benchmark applications first (default: incremental)")
    parser.add_argument("--with-tests", action="store_true",
                        help="index the code bases' tests too")
    parser.add_argument("--ablate-vectors", action="store_true",
                        help="also rank without the title vector, without the body vector,"
                             " and with neither (benchmarks/_vector_ablation.py)")
    parser.add_argument("--out", type=Path, help="write all numbers as JSON")
    args = parser.parse_args()

    from graphrag.config import load_settings
    from graphrag.embedding import get_embedder

    git_dirs = dict(item.split("=", 1) for item in args.git)
    git_dirs = {k: Path(v) for k, v in git_dirs.items()}
    bases = [b for b in CODE_BASES if not args.only or b.name in args.only]
    settings = load_settings()
    engine = bench_engine()
    embedder = get_embedder(settings)
    modes = MODES
    if args.ablate_vectors:
        from _vector_ablation import register_vector_ablations

        modes = (*MODES, *register_vector_ablations())
    report: dict[str, dict] = {}
    for base in bases:
        t0 = time.perf_counter()
        source = fetch_source(base, args.cache, git_dirs)
        corpus = build_corpus(base, source, args.cache, args.limit, tests=args.with_tests)
        ours, info = graphrag_spans(corpus, engine, settings, embedder, args.fresh,
                                     modes)
        theirs = baseline_spans(corpus, embedder, args.cache)
        results = {m: score(corpus, s) for m, s in {**ours, **theirs}.items()}
        print_table(base.name, corpus, results)
        print(f"(indexed in {info['index_s']} s; whole code base {time.perf_counter() - t0:.0f} s)")
        sys.stdout.flush()
        report[base.name] = {"results": results, "queries": len(corpus.queries),
                             "lines": corpus.lines_of_code, "functions": len(corpus.functions),
                             **info}
    print_summary(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


def print_summary(report: dict[str, dict]) -> None:
    names = list(report)
    methods = list(report[names[0]]["results"]) if names else []
    print("\n## strict MRR@10, macro")
    print(f"{'method':<16}" + "".join(f"{n:>10}" for n in names) + f"{'macro':>10}")
    for m in methods:
        vals = [report[n]["results"][m]["strict"]["mrr"] for n in names]
        print(f"{m:<16}" + "".join(f"{v:>10.3f}" for v in vals)
              + f"{sum(vals) / max(len(vals), 1):>10.3f}")
    best = [max(report[n]["results"][b]["strict"]["mrr"] for b in BASELINES) for n in names]
    ours = [report[n]["results"]["hybrid"]["strict"]["mrr"] for n in names]
    ratios = [o / b if b else float("nan") for o, b in zip(ours, best, strict=True)]
    print(f"{'ratio':<16}" + "".join(f"{r:>10.2f}" for r in ratios)
          + f"{(sum(ours) / max(sum(best), 1e-9)):>10.2f}"
          + "   (hybrid / best baseline; macro: mean over mean)")


if __name__ == "__main__":
    main()
