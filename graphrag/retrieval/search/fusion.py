"""Pure ranking helpers: score fusion, reciprocal rank fusion, the PageRank boost, dedup.

Hybrid score of a code chunk among one query's candidates (the union of the vector and
the BM25 lists), each signal min-max scaled to [0, 1] over those candidates
(:mod:`graphrag.retrieval.search.signals`)::

    score = (VECTOR_WEIGHT * similarity + TEXT_WEIGHT * bm25 + TITLE_WEIGHT * title_sim
             + NAME_WEIGHT * name_match + EPSILON)
            * (1 + PAGERANK_WEIGHT * ln(max(rank_boost, 1)))

Each range is at least ``COSINE_SPAN`` / ``BM25_SPAN`` (below). ``similarity`` and
``bm25`` are measured for every candidate, also those only the other
list found (a candidate absent from a list is not a worst match, it was just not in that
list's top). ``name_match`` (the share of the symbol name's words the query uses) is not
scaled. A document chunk has no title vector and no symbol name: its title signal is the
mean of its other two (a missing signal agrees with the others), its name match 0.

Why scores and not ranks: on ``benchmarks/retrieval.py`` (werkzeug, click, gin, gson;
strict MRR@10 macro, same candidates) reciprocal rank fusion of the two lists with the
title list and name match scored 0.647; fusing the scaled scores, 0.682. Ranks throw away
how far apart two candidates are: a function whose vector similarity is far above the
rest gains only 1/61 - 1/62 over the next. Weights chosen there: 1/1/1.3/0.5 (0.682);
title 1.0 gives 0.679, name 0.3 or 0.7 about 0.678; text 0.7 or 1.3 about 0.677. Chosen on
three code bases and measured on the fourth (a 27-point grid), the choice loses at most
0.012 on the held-out one (gin; macro 0.678 held out).

Reciprocal rank fusion (``RRF_K = 60``) remains for the sentence search of documents,
whose lists have no title signals.

``rank_boost`` is 1 + the scaled PageRank of the chunk's node (``nodes.rank``, read at
query time; the average node has PageRank 1, so boost 2). The boost is deliberately
small: an average node gains about 2%, a hub with rank 20 about 6%: it reorders hits of
nearly equal score but never lifts a weak match above a clearly better one.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import TypeVar

from graphrag.retrieval.search.model import Candidate
from graphrag.retrieval.search.profiles import DESCRIPTION, Profile

RRF_K = 60
VECTOR_WEIGHT = 1.0
TEXT_WEIGHT = 1.0
TITLE_WEIGHT = 1.3
NAME_WEIGHT = 0.5


# Signal ``diversity``: each chunk of a file beyond the per-file allowance already shown
# (SearchOptions.per_file, else the query's profile) has its score multiplied by this once
# more, so one file cannot fill the page.
DIVERSITY_DECAY = 0.5
EPSILON = 1e-3  # keeps a candidate scaled to 0 everywhere ordered by its priors
# Smallest ranges the scaling stretches to [0, 1]: among a handful of candidates that
# are nearly equal (a small application, narrow filters) a difference of noise must not
# become a whole point. A cosine range of 0.2, and half the best BM25 score; among the
# 40-80 candidates of the benchmark's queries the ranges are wider (no change there).
COSINE_SPAN = 0.2
BM25_SPAN = 0.5
PAGERANK_WEIGHT = 0.03
# Two chunks of one file whose line spans overlap this much (intersection over union)
# say the same thing: only the better one is kept.
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


def _scaled(values: dict[K, float], keys: Sequence[K], floor: float,
            extra: Sequence[K] = ()) -> dict[K, float]:
    """Min-max scaling over ``keys``, the range at least ``floor``; a key without a value
    takes the minimum (0). ``extra`` keys are scaled by the same range, clipped to [0, 1]."""
    present = [values[k] for k in keys if k in values]
    if not present:
        return {}
    lo, hi = min(present), max(present)
    span = max(hi - lo, floor)
    out = {k: ((values[k] - lo) / span if span > 0 else 1.0) if k in values else 0.0
           for k in keys}
    for k in extra:
        out[k] = min(max((values[k] - lo) / span, 0.0), 1.0) if k in values and span > 0 \
            else 0.0
    return out


def score_fusion(keys: Sequence[K], similarity: dict[K, float], bm25: dict[K, float],
                 title_sim: dict[K, float], name_match: dict[K, float],
                 weights: Profile = DESCRIPTION, extra: Sequence[K] = ()) -> dict[K, float]:
    """Hybrid scores of the candidates ``keys`` (see the module docstring), before the
    PageRank boost and the priors. A candidate without a title similarity (a document
    chunk) takes the mean of its other two scaled signals as its title signal. ``extra``
    (chunks that are no candidates, e.g. the neighbours of candidates) are scored too,
    each signal scaled by the candidates' range, so that they do not move the candidates'
    scores."""
    vec = _scaled(similarity, keys, COSINE_SPAN, extra)
    lexical = {k: bm25.get(k, 0.0) for k in [*keys, *extra]}
    txt = _scaled(lexical, keys, BM25_SPAN * max((lexical[k] for k in keys), default=0.0),
                  extra)
    title = _scaled(title_sim, keys, COSINE_SPAN, extra)
    out = {}
    for k in [*keys, *extra]:
        v, t = vec.get(k, 0.0), txt.get(k, 0.0)
        ti = title.get(k, (v + t) / 2) if k in title_sim else (v + t) / 2
        out[k] = (weights.vector * v + weights.text * t + weights.title * ti
                  + weights.name * name_match.get(k, 0.0) + EPSILON)
    return out


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


class _Kept:
    """The hits kept so far, and whether another would say the same: one chunk per
    node, none overlapping a kept one of its file (and page)."""

    def __init__(self, overlap: float) -> None:
        self.overlap = overlap
        self.hits: list[Candidate] = []
        self._nodes: set[tuple[str, int]] = set()
        # Only chunks of one file (and page) can overlap: compare within it.
        self._by_file: dict[tuple[str, str | None, int | None], list[Candidate]] = {}

    def admits(self, cand: Candidate) -> bool:
        if (cand.app, cand.node_id) in self._nodes:
            return False
        same_file = self._by_file.get((cand.app, cand.file_path, cand.page_number), ())
        return not any(span_overlap(k, cand) >= self.overlap for k in same_file)

    def add(self, cand: Candidate) -> None:
        self._nodes.add((cand.app, cand.node_id))
        self.hits.append(cand)
        self._by_file.setdefault((cand.app, cand.file_path, cand.page_number), []).append(cand)


def collapse(ranked: Sequence[Candidate], overlap: float = OVERLAP_DEDUP,
             limit: int | None = None) -> list[Candidate]:
    """Keep the best chunk per node and drop chunks overlapping a better one.

    ``ranked`` is best first; the order of the kept chunks is preserved. ``limit``: stop
    once that many are kept (the later ones cannot change them).
    """
    kept = _Kept(overlap)
    for cand in ranked:
        if limit is not None and len(kept.hits) >= limit:
            break
        if kept.admits(cand):
            kept.add(cand)
    return kept.hits


def select(ranked: Sequence[Candidate], limit: int, per_file: int,
           overlap: float = OVERLAP_DEDUP) -> list[Candidate]:
    """The ``limit`` hits of ``ranked`` (best first by ``score``): :func:`collapse`'s
    rules (one chunk per node, no chunk overlapping a better one), and each chunk of a
    file beyond the first ``per_file`` shown is decayed by ``DIVERSITY_DECAY`` per chunk
    already shown (``per_file`` 0: no decay). Greedy: the next hit is the best decayed
    score among the rest (a heap, re-keyed lazily: decay only lowers a score). Scores of
    the returned candidates are their decayed ones; the input keeps its own."""
    if per_file <= 0:
        return collapse(ranked, overlap, limit)
    kept = _Kept(overlap)
    shown: dict[tuple[str, str | None], int] = {}

    def decayed(c: Candidate) -> float:
        if c.file_path is None:
            return c.score
        extra = shown.get((c.app, c.file_path), 0) - per_file + 1
        return c.score * DIVERSITY_DECAY ** extra if extra > 0 else c.score

    # (-score, position): ties keep the input order
    heap = [(-c.score, i) for i, c in enumerate(ranked)]
    heapq.heapify(heap)
    while heap and len(kept.hits) < limit:
        key, i = heapq.heappop(heap)
        cand = ranked[i]
        score = decayed(cand)
        if score < -key:  # its file was shown since it was keyed: key it again
            heapq.heappush(heap, (-score, i))
            continue
        if kept.admits(cand):
            kept.add(replace(cand, score=score))  # the input keeps its score
            shown[(cand.app, cand.file_path)] = shown.get((cand.app, cand.file_path), 0) + 1
    return kept.hits
