"""Chunks that are no candidates of a query, scored as the candidates are: the chunks next
to the candidates, and the chunks the graph adds to them.

The ``neighbours`` signal (:mod:`graphrag.retrieval.search.boosts`) lifts a chunk by the best
score among the chunks beside it. Reading only the candidates (the union of the vector and
the BM25 lists, a few dozen chunks) made it depend on how long those lists are: a method
whose neighbour matches the query moderately (41st by vector) gained nothing with 40
candidates and a fifth of that neighbour's score with 60 (``top_k`` 15), so the first hits
changed with ``top_k``. Here the chunks beside the candidates are read and measured as the
candidates are (in one statement, :func:`graphrag.retrieval.search.store.beside_rows`), each signal
scaled by the candidates' range so that they move no candidate's own score; they are
never hits.

The chunks the graph adds (the definition of a name the question asks about, the file a
doc comment refers to, ...) are hits: they are scored the same way
(:func:`joined_scores`), so that they rank by what they match whatever the lists' length.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

import numpy as np
from sqlalchemy import Connection

from graphrag.embedding import vector_literal
from graphrag.kinds import DOCUMENT_KINDS
from graphrag.retrieval.search import store
from graphrag.retrieval.search.fusion import pagerank_factor, score_fusion
from graphrag.retrieval.search.model import Candidate, CandidateSignals, SearchOptions
from graphrag.retrieval.search.rows import candidate_from_row
from graphrag.retrieval.search.signals import candidate_signals, signal_params, signals_of_rows

# The best code candidates whose neighbours are read.
READ_BESIDE = 20


def beside_candidates(conn: Connection, apps: dict[int, str], query: str,
                      vector: np.ndarray, details: Mapping[int, Candidate],
                      signals: CandidateSignals, keys: Sequence[int],
                      options: SearchOptions, gap: int) -> dict[int, Candidate]:
    """The code chunks (their ``score``: the fused score with the PageRank boost, scaled
    as the candidates ``keys`` are) that lie beside a code candidate of ``details`` (start
    inside it or at most ``gap`` lines after it, or end at most ``gap`` lines before it)
    and are no candidates, among the chunks the search's filters admit; beside the
    ``READ_BESIDE`` best code candidates only (a weaker one's share of a neighbour's score
    does not bring it near the first hits)."""
    pool = score_fusion(keys, signals.similarity, signals.bm25, signals.title_sim,
                        signals.name_match, signals.profile)
    code = [details[k] for k in keys
            if details[k].source == "code" and details[k].kind not in DOCUMENT_KINDS
            and details[k].file_path and details[k].chunk_line_start is not None
            and details[k].chunk_line_end is not None]
    best = heapq.nlargest(READ_BESIDE, code, key=lambda c: (pool[c.id], -c.id))
    app_ids = {name: app_id for app_id, name in apps.items()}
    # a span is one application's: another application of the search may hold a file
    # of the same path
    spans = {(app_ids[c.app], c.file_path, c.chunk_line_start, c.chunk_line_end)
             for c in best}
    if not spans:
        return {}
    owners, files, los, his = zip(*sorted(spans), strict=True)
    where, params = store.filter_sql(list(apps), options)
    params.update(signal_params(query), q=vector_literal(vector), owners=list(owners),
                  files=list(files), los=list(los), his=list(his), gap=gap,
                  exclude=list(details))
    rows = store.beside_rows(conn, where, params)
    if not rows:
        return {}
    found = {int(r.id): candidate_from_row(r, apps) for r in rows}
    scored = score_extras(signals, keys, found, signals_of_rows(rows))
    for chunk_id, cand in found.items():
        cand.score = scored[chunk_id]
    return found


def score_extras(signals: CandidateSignals, keys: Sequence[int],
                 extras: Mapping[int, Candidate], extra: CandidateSignals
                 ) -> dict[int, float]:
    """The fused scores with the PageRank boost of chunks that are no candidates
    (``extras``, their signals ``extra``), each signal scaled by the range of the
    candidates ``keys`` (their ``signals``), so that no candidate's score moves."""
    fused = score_fusion(
        keys, {**signals.similarity, **extra.similarity}, {**signals.bm25, **extra.bm25},
        {**signals.title_sim, **extra.title_sim}, {**signals.name_match, **extra.name_match},
        signals.profile, extra=list(extras))
    return {i: fused[i] * pagerank_factor(cand.rank_boost) for i, cand in extras.items()}


def joined_scores(conn: Connection, apps: dict[int, str], query: str, vector: np.ndarray,
                  signals: CandidateSignals, keys: Sequence[int],
                  joined: Mapping[int, Candidate]) -> dict[int, float]:
    """The scores (:func:`score_extras`) of the chunks the graph adds to a query's
    candidates (the definitions of the names it asks about, the types of documented
    values, what doc comments refer to, entry points) that neither list reached: they
    rank by what they match as the candidates do, whatever the lists' length."""
    if not joined:
        return {}
    extra = candidate_signals(conn, list(apps), list(joined), query, vector)
    return score_extras(signals, keys, joined, extra)
