"""Hit-rate testing: Recall@1/5/10 and MRR@10 per search mode.

Each query line (the batch format, :mod:`graphrag.retrieval.search.batch`) names its target
either by ``fqn`` or by ``file_path`` plus ``line_start``/``line_end`` (a hit matches
when its file is the same and its lines overlap the span). A query whose target is not
among the top_k hits is a miss, listed with the fqns that were returned instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from graphrag.db.context import AppScope
from graphrag.embedding import Embedder
from graphrag.retrieval.search.batch import QueryLine, error_record
from graphrag.retrieval.search.engine import encode_queries, search_many
from graphrag.retrieval.search.model import MODES, SearchOptions
from graphrag.retrieval.search.modes import get_mode

RECALL_AT = (1, 5, 10)
MRR_AT = 10


def has_target(item: QueryLine) -> bool:
    f = item.fields
    return bool(f.get("fqn")) or bool(f.get("file_path"))


def is_match(hit: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Does this hit find the expected target (by fqn, else by file and line overlap)?"""
    if expected.get("fqn"):
        return hit.get("fqn") == expected["fqn"]
    if hit.get("file_path") != expected.get("file_path"):
        return False
    lo, hi = expected.get("line_start"), expected.get("line_end")
    if lo is None and hi is None:
        return True
    lo = lo if lo is not None else hi
    hi = hi if hi is not None else lo
    hs, he = hit.get("line_start"), hit.get("line_end")
    return hs is not None and he is not None and hs <= hi and lo <= he


def first_rank(hits: Sequence[dict[str, Any]], expected: dict[str, Any]) -> int | None:
    """1-based rank of the first matching ranked hit (expansions do not count)."""
    ranked = [h for h in hits if not h.get("added_by")]
    return next((n for n, h in enumerate(ranked, start=1) if is_match(h, expected)), None)


def metrics(ranks: Sequence[int | None]) -> dict[str, float]:
    """Recall@k for k in RECALL_AT and MRR@10 over the first-hit ranks of the queries."""
    n = max(len(ranks), 1)
    out = {f"recall@{k}": sum(1 for r in ranks if r is not None and r <= k) / n
           for k in RECALL_AT}
    out[f"mrr@{MRR_AT}"] = sum(1.0 / r for r in ranks if r is not None and r <= MRR_AT) / n
    return {k: round(v, 4) for k, v in out.items()}


@dataclass
class ModeReport:
    mode: str
    queries: int
    metrics: dict[str, float]
    misses: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "queries": self.queries, **self.metrics,
                "misses": self.misses}


def _target(item: QueryLine) -> dict[str, Any]:
    keys = ("fqn", "file_path", "line_start", "line_end")
    return {k: item.fields[k] for k in keys if item.fields.get(k) is not None}


def evaluate(mode: str, items: Sequence[QueryLine],
             hit_lists: Sequence[Sequence[dict[str, Any]]]) -> ModeReport:
    """Metrics and misses of one mode's hits (one list per item)."""
    ranks, misses = [], []
    for item, hits in zip(items, hit_lists, strict=True):
        rank = first_rank(hits, item.fields)
        ranks.append(rank)
        if rank is None:
            misses.append({"id": item.id, "query": item.query, "expected": _target(item),
                           "got": [h.get("fqn") for h in hits[:3]]})
    return ModeReport(mode, len(items), metrics(ranks), misses)


def split_items(items: Sequence[QueryLine]) -> tuple[list[QueryLine], list[dict[str, Any]]]:
    """Runnable items, and error records for bad lines or lines without a target."""
    good, errors = [], []
    for item in items:
        if item.ok and not has_target(item):
            item.error = "no expected 'fqn' or 'file_path'"
        (good if item.ok else errors).append(item)
    return good, [error_record(i) for i in errors]


def hit_test(scope: AppScope, items: Sequence[QueryLine], modes: Sequence[str] | None = None,
             options: SearchOptions | None = None,
             embedder: Embedder | None = None) -> tuple[list[ModeReport], list[dict[str, Any]]]:
    """Run every query in every mode through the batch path; the embeddings are computed
    once and shared by the modes (default: the built-in modes). Returns the reports and
    the bad lines."""
    modes = list(modes or MODES)
    base = options or SearchOptions()
    good, errors = split_items(items)
    queries = [i.query or "" for i in good]
    vectors = None
    if any(get_mode(m).needs_vectors for m in modes):
        vectors = encode_queries(embedder, queries, SearchOptions(mode="vector"))
    reports = []
    for mode in modes:
        opts = replace(base, mode=mode)
        results = search_many(scope, queries, opts, embedder,
                              vectors=vectors if get_mode(mode).needs_vectors
                              else [None] * len(queries))
        reports.append(evaluate(mode, good, [r.hits for r in results]))
    return reports, errors
