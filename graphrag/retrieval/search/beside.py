"""The chunks next to a query's candidates that are no candidates themselves, scored.

The ``neighbours`` signal (:mod:`graphrag.retrieval.search.boosts`) lifts a chunk by the best
score among the chunks beside it. Reading only the candidates (the union of the vector and
the BM25 lists, a few dozen chunks) made it depend on how long those lists are: a method
whose neighbour matches the query moderately (41st by vector) gained nothing with 40
candidates and a fifth of that neighbour's score with 60, so the first hits changed
with ``top_k``. Here the chunks beside the candidates are read and measured as the
candidates are (:func:`graphrag.retrieval.search.signals.candidate_signals`), each signal
scaled by the candidates' range so that they move no candidate's own score; they are
never hits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from sqlalchemy import Connection

from graphrag.kinds import DOCUMENT_KINDS
from graphrag.retrieval.search import store
from graphrag.retrieval.search.fusion import pagerank_factor, score_fusion
from graphrag.retrieval.search.model import Candidate, CandidateSignals, SearchOptions
from graphrag.retrieval.search.rows import candidate_from_row
from graphrag.retrieval.search.signals import candidate_signals


def beside_candidates(conn: Connection, apps: dict[int, str], query: str,
                      vector: np.ndarray, details: Mapping[int, Candidate],
                      signals: CandidateSignals, keys: Sequence[int],
                      options: SearchOptions, gap: int) -> dict[int, Candidate]:
    """The code chunks (their ``score``: the fused score with the PageRank boost, scaled
    as the candidates ``keys`` are) that lie beside a code candidate of ``details`` (start
    inside it or at most ``gap`` lines after it, or end at most ``gap`` lines before it)
    and are no candidates, among the chunks the search's filters admit."""
    spans = {(c.file_path, c.chunk_line_start, c.chunk_line_end) for c in details.values()
             if c.source == "code" and c.kind not in DOCUMENT_KINDS and c.file_path
             and c.chunk_line_start is not None and c.chunk_line_end is not None}
    if not spans:
        return {}
    files, los, his = zip(*sorted(spans), strict=True)
    where, params = store.filter_sql(list(apps), options)
    found = {int(r.id): candidate_from_row(r, apps)
             for r in store.beside_rows(conn, where, params, files, los, his, gap)
             if int(r.id) not in details}
    if not found:
        return {}
    extra = candidate_signals(conn, list(apps), list(found), query, vector)
    fused = score_fusion(
        keys, {**signals.similarity, **extra.similarity}, {**signals.bm25, **extra.bm25},
        {**signals.title_sim, **extra.title_sim}, {**signals.name_match, **extra.name_match},
        signals.profile, extra=list(found))
    for chunk_id, cand in found.items():
        cand.score = fused[chunk_id] * pagerank_factor(cand.rank_boost)
    return found
