"""Pure ranking helpers: reciprocal rank fusion, the PageRank boost, and dedup.

Hybrid score of a chunk (``RRF_K = 60``, ranks 1-based, a list the chunk is absent
from contributes nothing)::

    rrf   = sum over lists of 1 / (RRF_K + rank_in_list)
    score = rrf * (1 + PAGERANK_WEIGHT * ln(max(rank_boost, 1)))

``rank_boost`` is ``chunks.rank_boost`` = 1 + the node's scaled PageRank (the average
node has PageRank 1, so boost 2). The boost is deliberately small: an average node gains
about 2%, a hub with rank 20 about 6%, which reorders hits of nearly equal fused score
(RRF scores of neighbouring ranks differ by about 1.6%) but never lifts a weak match
above a clearly better one.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

from graphrag.retrieval.model import Candidate

RRF_K = 60
PAGERANK_WEIGHT = 0.03
# Two chunks of one file whose line spans overlap this much (intersection over union)
# say the same thing: only the better one is kept (seed 002, "> 80% overlap").
OVERLAP_DEDUP = 0.8

K = TypeVar("K", bound=Hashable)


def rrf(ranked_lists: Sequence[Sequence[K]], k: int = RRF_K) -> dict[K, float]:
    """Reciprocal rank fusion of several best-first lists of ids."""
    scores: dict[K, float] = {}
    for ranked in ranked_lists:
        for rank, key in enumerate(ranked, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


def pagerank_factor(rank_boost: float | None, weight: float = PAGERANK_WEIGHT) -> float:
    """The multiplier a node's PageRank gives its chunks' fused score (>= 1)."""
    return 1.0 + weight * math.log(max(float(rank_boost or 1.0), 1.0))


def span_overlap(a: Candidate, b: Candidate) -> float:
    """Intersection over union of two chunks' line spans (0 when in different files)."""
    if a.file_path != b.file_path or a.page_number != b.page_number:
        return 0.0
    if None in (a.line_start, a.line_end, b.line_start, b.line_end):
        return 0.0
    lo, hi = max(a.line_start, b.line_start), min(a.line_end, b.line_end)  # type: ignore[type-var]
    if hi < lo:
        return 0.0
    union = max(a.line_end, b.line_end) - min(a.line_start, b.line_start) + 1  # type: ignore[type-var,operator]
    return (hi - lo + 1) / union


def collapse(ranked: Sequence[Candidate], overlap: float = OVERLAP_DEDUP) -> list[Candidate]:
    """Keep the best chunk per node and drop chunks overlapping a better one.

    ``ranked`` is best first; the order of the kept chunks is preserved.
    """
    kept: list[Candidate] = []
    seen_nodes: set[tuple[str, int]] = set()
    for cand in ranked:
        if (cand.app, cand.node_id) in seen_nodes:
            continue
        if any(k.app == cand.app and span_overlap(k, cand) >= overlap for k in kept):
            continue
        seen_nodes.add((cand.app, cand.node_id))
        kept.append(cand)
    return kept
