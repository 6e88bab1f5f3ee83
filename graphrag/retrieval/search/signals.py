"""What hybrid search measures of each candidate, read for the few dozen candidates of
one query (:func:`graphrag.retrieval.search.fusion.score_fusion` turns them into the order):

- ``similarity``: cosine similarity of the query vector and the chunk's vector, also for
  the candidates only the BM25 list found;
- ``bm25``: the chunk's exact BM25 score, with the statistics :mod:`graphrag.retrieval.search.bm25`
  uses (``SCORES_OF_SQL`` in the retrieval store, in the same statement), also for the
  candidates only the vector list found;
- ``title_sim`` (code chunks): similarity of the query vector and the chunk's
  ``title_emb`` (its symbol name, owner and signature; see the embed stage);
- ``name_match`` (code chunks): the share of the node name's words that the query uses,
  both sides through the BM25 analyser ``graphrag_terms`` (split identifiers, stemmed,
  stop words dropped), so ``getContentLength`` matches "Returns the content length". A
  word the query uses only after "for", in the purpose of what it seeks, counts
  ``PURPOSE_WEIGHT`` of a word: "case-insensitive hash for request params" seeks the
  hash, and ``Request#params`` is what the hash is for (on semble's benchmark, 3
  questions up and 1 down of 344; the docstring benchmark's macro MRR .615 -> .619).

Documents have no title signals: a page is called by its file's name, which says nothing
of what it answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection

from graphrag.embedding import vector_literal
from graphrag.retrieval.search import store
from graphrag.retrieval.search.bm25 import scores_of_params
from graphrag.retrieval.search.intent import subject
from graphrag.retrieval.search.model import CandidateSignals, SearchOptions

# A name word the query uses only in its purpose ("... for request params") counts this
# much of a word of what it seeks (:func:`graphrag.retrieval.search.intent.subject`).
PURPOSE_WEIGHT = 0.5


def signal_params(query: str) -> dict[str, object]:
    """The parameters of the signals' statements for ``query`` besides ``apps``,
    ``ids`` and ``q``: the BM25's, and the words naming what it seeks."""
    return {**scores_of_params(query), "subject": subject(query),
            "purpose_weight": PURPOSE_WEIGHT}


def candidate_signals(conn: Connection, app_ids: Sequence[int], ids: Sequence[int],
                      query: str, vector: np.ndarray | None) -> CandidateSignals:
    """The signals of the candidate chunks ``ids`` (only the given applications')."""
    if not ids:
        return CandidateSignals({}, {}, {}, {})
    rows = store.signal_rows(conn, {
        "ids": list(ids), "apps": list(app_ids), **signal_params(query),
        "q": vector_literal(vector) if vector is not None else None,
    })
    return signals_of_rows(rows)


def signals_of_rows(rows: Sequence[Any]) -> CandidateSignals:
    """The signals of rows with the columns ``similarity``, ``bm25``, ``title_sim`` and
    ``name_match`` (NULL: no such signal)."""
    def column(name: str) -> dict[int, float]:
        return {int(r.id): float(getattr(r, name)) for r in rows
                if getattr(r, name) is not None}

    return CandidateSignals(
        similarity=column("similarity"), bm25=column("bm25"),
        title_sim=column("title_sim"), name_match=column("name_match"),
    )


def hybrid_rows(conn: Connection, app_ids: Sequence[int], query: str, vector: np.ndarray,
                text_ids: Sequence[int], options: SearchOptions, exact: bool = False
                ) -> list[Any]:
    """In one statement, the vector list (the ``options.candidates`` nearest chunks that
    pass the filters, through the HNSW index or, ``exact``, by scanning them) and, for it
    and the BM25 list's ``text_ids``, each candidate's row, ``vec_score`` (its
    similarity when the vector list holds it, else None) and its signals; through the
    index, no rows when the filters leave the vector list short (the caller then widens
    the scan). The caller sets ``hnsw.ef_search`` in the same transaction."""
    where, params = store.filter_sql(list(app_ids), options)
    params.update(signal_params(query), q=vector_literal(vector),
                  lim=options.candidates, text_ids=list(text_ids))
    return store.hybrid_rows(conn, where, params, exact)
