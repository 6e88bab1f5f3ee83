"""Pure ranking helpers: reciprocal rank fusion, the PageRank boost, and dedup.

Hybrid score of a chunk (``RRF_K = 60``, ranks 1-based, a list the chunk is absent
from contributes nothing)::

    rrf   = sum over lists of 1 / (RRF_K + rank_in_list)
    rrf   = VECTOR_WEIGHT / (RRF_K + vector_rank) + TEXT_WEIGHT / (RRF_K + bm25_rank)
          + TITLE_WEIGHT / (RRF_K + title_rank)
    score = rrf * (1 + NAME_WEIGHT * name_match)
                * (1 + PAGERANK_WEIGHT * ln(max(rank_boost, 1)))

``title_rank`` orders the fused candidates by the similarity of the query to their title
vector (what a code chunk is called: its symbol's name, owner and signature); ``name_match``
is the share of the symbol name's words the query uses (:mod:`graphrag.retrieval.titles`).
Document chunks have neither: a page's title is its file name, which says nothing of what
the page answers (with one, chunk-hybrid MRR on ``benchmarks/documents.py`` fell from 0.77
to 0.56).
Both re-rank the candidates the vector and BM25 lists found; neither adds candidates.
On ``benchmarks/retrieval.py`` (werkzeug, click, gin, gson; strict MRR@10 macro) the
hybrid mode scores 0.612 without either, 0.641 with the title list, 0.631 with the name
match alone and 0.644 with both (the name match helps the camelCase code bases, gin and
gson, by 0.03-0.04 and costs the Python ones about 0.01).

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
# Weights of the vector and the BM25 list in hybrid mode, chosen on
# benchmarks/retrieval.py (werkzeug, click, gin, gson; strict MRR@10 macro, with the
# priors): 1:1 0.614, 1.5:1 0.615, 2:1 0.613, 3:1 0.611. Within noise of each other; 1:1
# keeps the weakest code base (gin, 0.790 against its best baseline's 0.779) furthest
# above its baseline. (Before BM25 kept whole camelCase identifiers, 2:1 was best.)
VECTOR_WEIGHT = 1.0
TEXT_WEIGHT = 1.0
TITLE_WEIGHT = 1.0
NAME_WEIGHT = 0.25
PAGERANK_WEIGHT = 0.03
# Two chunks of one file whose line spans overlap this much (intersection over union)
# say the same thing: only the better one is kept (seed 002, "> 80% overlap").
OVERLAP_DEDUP = 0.8

K = TypeVar("K", bound=Hashable)


def rrf(ranked_lists: Sequence[Sequence[K]], k: int = RRF_K,
        weights: Sequence[float] | None = None) -> dict[K, float]:
    """Weighted reciprocal rank fusion of several best-first lists of ids."""
    scores: dict[K, float] = {}
    for n, ranked in enumerate(ranked_lists):
        w = 1.0 if weights is None else weights[n]
        for rank, key in enumerate(ranked, start=1):
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
    return scores


def title_rerank(fused: dict[K, float], title_sim: dict[K, float],
                 name_match: dict[K, float], k: int = RRF_K) -> dict[K, float]:
    """``fused`` RRF scores with the title list and the name match folded in (see the
    module docstring). A candidate without a title vector (a document chunk) takes its
    rank in the fused order as its title rank: a missing signal agrees with the others,
    so documents are neither lifted nor pushed down against code."""
    out = dict(fused)
    titled = sorted((key for key in out if key in title_sim),
                    key=lambda key: -title_sim[key])
    for rank, key in enumerate(titled, start=1):
        out[key] += TITLE_WEIGHT / (k + rank)
    by_fused = sorted(fused, key=lambda key: -fused[key])
    for rank, key in enumerate(by_fused, start=1):
        if key not in title_sim:
            out[key] += TITLE_WEIGHT / (k + rank)
    return {key: s * (1.0 + NAME_WEIGHT * name_match.get(key, 0.0)) for key, s in out.items()}


def pagerank_factor(rank_boost: float | None, weight: float = PAGERANK_WEIGHT) -> float:
    """The multiplier a node's PageRank gives its chunks' fused score (>= 1)."""
    return 1.0 + weight * math.log(max(float(rank_boost or 1.0), 1.0))


def span_overlap(a: Candidate, b: Candidate) -> float:
    """Intersection over union of two chunks' own line spans (0 when in different files)."""
    if a.file_path != b.file_path or a.page_number != b.page_number:
        return 0.0
    a_lo, a_hi = a.chunk_line_start, a.chunk_line_end
    b_lo, b_hi = b.chunk_line_start, b.chunk_line_end
    if a_lo is None or a_hi is None or b_lo is None or b_hi is None:
        return 0.0
    lo, hi = max(a_lo, b_lo), min(a_hi, b_hi)
    if hi < lo:
        return 0.0
    return (hi - lo + 1) / (max(a_hi, b_hi) - min(a_lo, b_lo) + 1)


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
