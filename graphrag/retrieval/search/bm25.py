"""Okapi BM25 over the ``chunk_terms`` postings, computed in PostgreSQL.

For query terms ``t`` (the lexemes of the database function ``graphrag_terms``, which
also makes the chunks' terms: identifiers split into words, English stemming), a chunk ``d`` of
length ``|d|`` terms scores::

    sum over t in d:  idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

with ``N`` and ``avgdl`` the number and mean length of the searched applications' chunks
that have terms, and ``df`` counted over the same chunks (the Lucene form of idf, never
negative). These figures are read from ``term_stats`` plus its not yet folded
``term_stats_delta`` (kept by triggers on the postings, :mod:`graphrag.pipeline.terms`),
not counted per query. The postings of a term are one index range scan; at most
``POSTINGS_PER_TERM`` of them (the densest) are scored, so the cost is bounded however
common a query word is. The search filters (kind, language, path, source) apply after
scoring, so they never change a term's idf.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection

from graphrag.retrieval.search import store
from graphrag.retrieval.search.filters import has_filters
from graphrag.retrieval.search.model import SearchOptions

K1 = 1.2
B = 0.75
# A term's postings scored per query: the densest first (tf / length). Exact BM25 while a
# term is in fewer chunks than this; beyond it, a chunk that has only very common query
# terms, each diluted in a long text, can be missed. Bounds the cost on large
# applications (a word in 40% of 100k chunks: 160 ms exhaustive).
POSTINGS_PER_TERM = 300

def query_lexemes(conn: Connection, query: str) -> list[str]:
    """The query's terms as PostgreSQL stems them (stop words dropped)."""
    return store.query_lexemes(conn, query)


def bm25_candidates(conn: Connection, app_ids: Sequence[int], query: str,
                    options: SearchOptions) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) best first, at most ``options.candidates`` rows."""
    # The query is analysed inside the statement: no round trip for its terms; a query
    # of stop words only finds no statistics, hence no postings.
    where, params = store.filter_sql(list(app_ids), options)
    params.update(query=query, k1=K1, b=B, lim=options.candidates,
                  per_term=POSTINGS_PER_TERM)
    rows = store.bm25_top_rows(conn, where if has_filters(options) else None, params)
    return [(int(r.id), float(r.score)) for r in rows]


def scores_of_params(query: str) -> dict[str, object]:
    """The parameters of the BM25 of given chunks besides ``apps`` and ``ids``
    (:data:`graphrag.retrieval.search.store.SCORES_OF_SQL`)."""
    return {"query": query, "k1": K1, "b": B, "per_term": POSTINGS_PER_TERM}
