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

from sqlalchemy import Connection, text

from graphrag.retrieval.filters import filter_sql, has_filters
from graphrag.retrieval.model import SearchOptions

K1 = 1.2
B = 0.75
# A term's postings scored per query: the densest first (tf / length). Exact BM25 while a
# term is in fewer chunks than this; beyond it, a chunk that has only very common query
# terms, each diluted in a long text, can be missed. Bounds the cost on large
# applications (a word in 40% of 100k chunks: 160 ms exhaustive).
POSTINGS_PER_TERM = 300

QUERY_LEXEMES = "SELECT lexeme FROM unnest(graphrag_terms(:q))"


def query_lexemes(conn: Connection, query: str) -> list[str]:
    """The query's terms as PostgreSQL stems them (stop words dropped)."""
    return sorted(r[0] for r in conn.execute(text(QUERY_LEXEMES), {"q": query}))


# The statistics of the query's terms (``{terms}``: the terms and the empty term of the
# totals): df per term, N and avgdl, and each term's idf.
_STATS_TEMPLATE = """
        stats AS (
            SELECT x.term, CAST(sum(x.df) AS bigint) AS df, CAST(sum(x.dl) AS bigint) AS dl
              FROM (
                SELECT term, df, dl FROM term_stats
                 WHERE application_id = ANY(:apps) AND term = ANY({terms})
                UNION ALL
                SELECT term, df, dl FROM term_stats_delta
                 WHERE application_id = ANY(:apps) AND term = ANY({terms})) x
             GROUP BY x.term
        ),
        df AS (SELECT term, df, df <= :per_term AS complete FROM stats
                WHERE term <> '' AND df > 0),
        st AS (
            SELECT CAST(df AS float8) AS n,
                   greatest(CAST(dl AS float8) / greatest(df, 1), 1) AS avgdl
              FROM stats WHERE term = ''
        ),
        w AS MATERIALIZED (
            SELECT df.term, ln(1 + (st.n - df.df + 0.5::float8) / (df.df + 0.5::float8)) AS idf
              FROM df, st
        )"""
_STATS_CTES = _STATS_TEMPLATE.format(terms=":stat_terms")

_SCORE_CTE = """
        s AS (
            SELECT p.chunk_id,
                   sum(w.idf * p.tf * (CAST(:k1 AS float8) + 1)
                       / (p.tf + CAST(:k1 AS float8)
                          * (1 - CAST(:b AS float8) + CAST(:b AS float8) * p.dl / st.avgdl)))
                   AS score
              FROM p JOIN w USING (term), st
             GROUP BY p.chunk_id
        )"""


def _scores_sql(where: str | None) -> str:
    filtered = ""
    if where is not None:
        filtered = f"""
            JOIN chunks c ON c.id = s.chunk_id JOIN nodes n ON n.id = c.node_id
           WHERE {where}"""
    # All arithmetic in float8: with numeric (PostgreSQL's type of a bare 0.5 literal)
    # the per-posting sum cost most of the query's time.
    return f"""
        WITH {_STATS_CTES},
        top AS (
            SELECT t.chunk_id, t.term, t.tf, t.dl
              FROM df CROSS JOIN unnest(CAST(:apps AS bigint[])) AS a(id)
             CROSS JOIN LATERAL (
                SELECT t.chunk_id, t.term, t.tf, t.dl FROM chunk_terms t
                 WHERE t.application_id = a.id AND t.term = df.term
                 ORDER BY CAST(t.tf AS float8) / greatest(t.dl, 1) DESC, t.chunk_id
                 LIMIT :per_term) t
        ),
        risk AS (
            SELECT DISTINCT top.chunk_id FROM top JOIN df USING (term) WHERE df.complete
        ),
        more AS (
            SELECT t.chunk_id, t.term, t.tf, t.dl
              FROM risk CROSS JOIN df CROSS JOIN unnest(CAST(:apps AS bigint[])) AS a(id)
              JOIN chunk_terms t ON t.application_id = a.id AND t.term = df.term
                                AND t.chunk_id = risk.chunk_id
             WHERE NOT df.complete
        ),
        p AS (SELECT * FROM top UNION SELECT * FROM more),
        {_SCORE_CTE}
        SELECT s.chunk_id AS id, s.score FROM s {filtered}
         ORDER BY s.score DESC, s.chunk_id LIMIT :lim
    """


# BM25 of given chunks (``:ids``): their postings of the query's terms, read by primary
# key, the query (``:query``) analysed in the same statement. Also a part of the
# candidate signals' statement (graphrag.retrieval.signals).
_QUERY_TERMS = "ARRAY(SELECT '' UNION ALL SELECT lexeme FROM unnest(graphrag_terms(:query)))"
SCORES_OF_SQL = f"""
        WITH {_STATS_TEMPLATE.format(terms=_QUERY_TERMS)},
        p AS (
            SELECT t.chunk_id, t.term, t.tf, t.dl
              FROM df CROSS JOIN unnest(CAST(:apps AS bigint[])) AS a(id)
             CROSS JOIN unnest(CAST(:ids AS bigint[])) AS c(id)
             CROSS JOIN LATERAL (
                -- one primary-key probe per term and chunk (LIMIT 1 keeps the planner
                -- from turning it into a scan of the term's postings)
                SELECT t.chunk_id, t.term, t.tf, t.dl FROM chunk_terms t
                 WHERE t.application_id = a.id AND t.term = df.term AND t.chunk_id = c.id
                 LIMIT 1) t
        ),
        {_SCORE_CTE}
        SELECT s.chunk_id AS id, s.score FROM s
"""


def bm25_candidates(conn: Connection, app_ids: Sequence[int], query: str,
                    options: SearchOptions) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) best first, at most ``options.candidates`` rows."""
    terms = query_lexemes(conn, query)
    if not terms:
        return []
    where, params = filter_sql(list(app_ids), options)
    params.update(stat_terms=["", *terms], k1=K1, b=B, lim=options.candidates,
                  per_term=POSTINGS_PER_TERM)
    rows = conn.execute(text(_scores_sql(where if has_filters(options) else None)), params)
    return [(int(r.id), float(r.score)) for r in rows]


def scores_of_params(query: str) -> dict[str, object]:
    """The parameters of :data:`SCORES_OF_SQL` besides ``apps`` and ``ids``."""
    return {"query": query, "k1": K1, "b": B, "per_term": POSTINGS_PER_TERM}


def bm25_scores(conn: Connection, app_ids: Sequence[int], query: str,
                ids: Sequence[int]) -> dict[int, float]:
    """The exact BM25 score of each of the chunks ``ids`` (absent: none of the query's
    terms), with the statistics of the applications' whole text as in
    :func:`bm25_candidates`; hybrid search scores every candidate this way, also those
    only the vector list found."""
    if not ids:
        return {}
    rows = conn.execute(text(SCORES_OF_SQL), {
        "apps": list(app_ids), "ids": list(ids), **scores_of_params(query)})
    return {int(r.id): float(r.score) for r in rows}
