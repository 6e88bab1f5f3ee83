"""Okapi BM25 over the ``chunk_terms`` postings, computed in PostgreSQL.

For query terms ``t`` (the lexemes of the database function ``graphrag_terms``, which
also makes the chunks' terms: identifiers split into words, English stemming), a chunk ``d`` of
length ``|d|`` terms scores::

    sum over t in d:  idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

with ``N`` and ``avgdl`` the number and mean length of the searched applications' chunks
that have terms, and ``df`` counted over the same chunks (the Lucene form of idf, never
negative). The postings of a term are one index range scan, so the cost grows with the
number of postings of the query's terms, not with the size of the corpus; the search
filters (kind, language, path, source) apply after scoring, so they never change a
term's idf.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text

from graphrag.retrieval.filters import filter_sql, has_filters
from graphrag.retrieval.model import SearchOptions

K1 = 1.2
B = 0.75

QUERY_LEXEMES = "SELECT lexeme FROM unnest(graphrag_terms(:q))"


def query_lexemes(conn: Connection, query: str) -> list[str]:
    """The query's terms as PostgreSQL stems them (stop words dropped)."""
    return sorted(r[0] for r in conn.execute(text(QUERY_LEXEMES), {"q": query}))


def _scores_sql(where: str | None) -> str:
    filtered = ""
    if where is not None:
        filtered = f"""
            JOIN chunks c ON c.id = s.chunk_id JOIN nodes n ON n.id = c.node_id
           WHERE {where}"""
    # All arithmetic in float8: with numeric (PostgreSQL's type of a bare 0.5 literal)
    # the per-posting sum cost most of the query's time.
    return f"""
        WITH p AS (
            SELECT t.chunk_id, t.term, t.tf, t.dl FROM chunk_terms t
             WHERE t.application_id = ANY(:apps) AND t.term = ANY(:terms)
        ),
        st AS (
            SELECT CAST(count(*) AS float8) AS n,
                   CAST(greatest(avg(term_count), 1) AS float8) AS avgdl FROM chunks
             WHERE application_id = ANY(:apps) AND term_count > 0
        ),
        w AS (
            SELECT p.term, ln(1 + (st.n - count(*) + 0.5::float8) / (count(*) + 0.5::float8))
                   AS idf
              FROM p, st GROUP BY p.term, st.n
        ),
        s AS (
            SELECT p.chunk_id,
                   sum(w.idf * p.tf * (CAST(:k1 AS float8) + 1)
                       / (p.tf + CAST(:k1 AS float8)
                          * (1 - CAST(:b AS float8) + CAST(:b AS float8) * p.dl / st.avgdl)))
                   AS score
              FROM p JOIN w USING (term), st
             GROUP BY p.chunk_id
        )
        SELECT s.chunk_id AS id, s.score FROM s {filtered}
         ORDER BY s.score DESC, s.chunk_id LIMIT :lim
    """


def bm25_candidates(conn: Connection, app_ids: Sequence[int], query: str,
                    options: SearchOptions) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) best first, at most ``options.candidates`` rows."""
    terms = query_lexemes(conn, query)
    if not terms:
        return []
    where, params = filter_sql(list(app_ids), options)
    params.update(terms=terms, k1=K1, b=B, lim=options.candidates)
    rows = conn.execute(text(_scores_sql(where if has_filters(options) else None)), params)
    return [(int(r.id), float(r.score)) for r in rows]
