"""The search store: every query a search runs against chunks and their nodes (filters,
candidate rows, vectors, BM25, signals, the definitions of named symbols).

Search latency is measured on these statements (``benchmarks/search.py``). Each function runs one
statement (or one pair, a fallback) with bound parameters; ``where`` fragments come from
:func:`filter_sql`, which binds every value it takes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, text

from graphrag.pipeline.terms import NAME_TERMS
from graphrag.retrieval.search.model import SearchOptions

# --- search filters (tenant first, always) ---------------------------------------------

def glob_to_regex(pattern: str) -> str:
    """A POSIX regex (PostgreSQL ``~``) for a path glob: ``**`` crosses folders, ``*`` and
    ``?`` do not; ``**/`` also matches no folder at all."""
    out = ["^"]
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
        i += 1
    out.append("$")
    return "".join(out)


def filter_sql(app_ids: list[int], options: SearchOptions) -> tuple[str, dict[str, Any]]:
    """``AND``-joined conditions over ``c`` (chunks) and ``n`` (nodes), with parameters.

    The application filter is always the first condition: no query built here can
    return another tenant's rows.
    """
    clauses = ["c.application_id = ANY(:apps)"]
    params: dict[str, Any] = {"apps": list(app_ids)}
    if options.kinds:
        clauses.append("n.kind = ANY(:kinds)")
        params["kinds"] = list(options.kinds)
    if options.lang:
        clauses.append("n.lang = :lang")
        params["lang"] = options.lang
    if options.path:
        clauses.append("n.file_path ~ :path_re")
        params["path_re"] = glob_to_regex(options.path)
    if options.source and options.source != "all":
        clauses.append("c.source = :source")
        params["source"] = options.source
    if options.http:
        clauses.append(_HTTP_SQL[options.http])
    return " AND ".join(clauses), params


# a node that serves an HTTP route, or whose code sends HTTP requests (``http_calls``)
_ENDPOINT_SQL = "n.kind = 'ENDPOINT'"
_CALLER_SQL = "EXISTS (SELECT 1 FROM http_calls h WHERE h.caller_id = n.id)"
_HTTP_SQL = {"endpoints": _ENDPOINT_SQL, "callers": _CALLER_SQL,
             "any": f"({_ENDPOINT_SQL} OR {_CALLER_SQL})"}


# --- candidate rows (hits) -------------------------------------------------------------

# rank_boost is read from the node: PageRank moves with every graph change, and a copy in
# the chunk row would rewrite that row (and its vectors' HNSW entries) each time.
CANDIDATE_COLUMNS = """
    c.id, c.plan_id, c.node_id, c.application_id, c.source, c.kind AS chunk_kind,
    c.content, c.explain_md, 1 + n.rank AS rank_boost,
    lower(c.span_lines) AS span_start, upper(c.span_lines) - 1 AS span_end,
    COALESCE(c.page_number, n.page_number) AS page_number,
    n.fqn, n.kind, n.file_path, n.line_start, n.line_end, n.parent_id
"""

# The names of CANDIDATE_COLUMNS' output columns.
CANDIDATE_NAMES = ("id", "plan_id", "node_id", "application_id", "source", "chunk_kind",
                   "content", "explain_md", "rank_boost", "span_start", "span_end",
                   "page_number", "fqn", "kind", "file_path", "line_start", "line_end",
                   "parent_id")

_DETAILS_SQL = f"""
    SELECT {CANDIDATE_COLUMNS}
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.id = ANY(:ids) AND c.application_id = ANY(:apps)
"""


def candidate_rows(conn: Connection, app_ids: Sequence[int], ids: Sequence[int]) -> list[Any]:
    """Chunk and node fields (``CANDIDATE_COLUMNS``) of the given chunk ids, only the
    given applications'."""
    return list(conn.execute(text(_DETAILS_SQL), {"ids": list(ids), "apps": list(app_ids)}).all())


_BEST_CHUNK_SQL = f"""
    SELECT DISTINCT ON (c.node_id) {CANDIDATE_COLUMNS}
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.application_id = ANY(:apps) AND c.node_id = ANY(:nodes)
     ORDER BY c.node_id, (c.source = 'code') DESC, c.chunk_index, c.id
"""


def best_chunk_rows(conn: Connection, app_ids: Sequence[int], node_ids: Sequence[int]
                    ) -> list[Any]:
    """Per node its best chunk (code before documentation, then the first chunk index),
    as candidate rows."""
    return list(conn.execute(text(_BEST_CHUNK_SQL),
                             {"apps": list(app_ids), "nodes": list(node_ids)}).all())


# --- vector search (retrieval.search composes these) ---------------------------------

def vector_sql(where: str, exact: bool) -> str:
    """Nearest chunks by cosine distance: through the HNSW index, or exactly.

    The exact form filters first (a materialized CTE, so the planner cannot compute the
    distance of every chunk of the table before joining the filters) and orders the
    filtered rows by distance."""
    if not exact:
        return (
            "SELECT c.id, 1 - (c.emb <=> CAST(:q AS vector)) AS score"
            " FROM chunks c JOIN nodes n ON n.id = c.node_id"
            f" WHERE {where} AND c.emb IS NOT NULL"
            " ORDER BY c.emb <=> CAST(:q AS vector) LIMIT :lim"
        )
    return (
        f"WITH {_filtered(where)}"
        " SELECT f.id, 1 - (f.emb <=> CAST(:q AS vector)) AS score FROM f"
        " ORDER BY f.emb <=> CAST(:q AS vector), f.id LIMIT :lim"
    )


def _filtered(where: str) -> str:
    """The CTE ``f``: (id, emb) of every chunk passing ``where``, computed first
    (materialized: never a distance for every chunk of the table); nodes are joined only
    when a filter reads them."""
    join = " JOIN nodes n ON n.id = c.node_id" if re.search(r"\bn\.", where) else ""
    return (f"f AS MATERIALIZED (SELECT c.id, c.emb FROM chunks c{join}"
            f" WHERE {where} AND c.emb IS NOT NULL)")


@contextmanager
def custom_plans(conn: Connection) -> Iterator[None]:
    """Statements run inside are planned for their parameters' values, whatever
    :func:`reuse_plans` set: an exact scan's plan depends on how many rows the
    applications hold (an index scan of theirs, or a scan of the table), which a
    generic plan cannot know."""
    before = conn.execute(text(
        "SELECT current_setting('plan_cache_mode'),"
        " set_config('plan_cache_mode', 'force_custom_plan', true)")).scalar_one()
    yield
    # Not on an error: the transaction is then aborted, and its rollback drops the
    # local setting anyway.
    conn.execute(text("SELECT set_config('plan_cache_mode', :mode, true)"), {"mode": before})


def _rows(conn: Connection, sql: str, params: dict[str, Any], exact: bool) -> list[Any]:
    """The rows of ``sql``; an exact scan's under :func:`custom_plans`."""
    if not exact:
        return list(conn.execute(text(sql), params).all())
    with custom_plans(conn):
        return list(conn.execute(text(sql), params).all())


def nearest_chunks(conn: Connection, where: str, params: dict[str, Any], exact: bool
                   ) -> list[Any]:
    """(id, score) of the chunks nearest ``:q`` passing ``where`` (:func:`vector_sql`)."""
    return _rows(conn, vector_sql(where, exact=exact), params, exact)


def set_ef(conn: Connection, ef: int) -> None:
    """``SET LOCAL hnsw.ef_search``: how many candidates an HNSW scan keeps."""
    conn.execute(text("SELECT set_config('hnsw.ef_search', :ef, true)"), {"ef": str(ef)})


def reuse_plans(conn: Connection, ef: int | None = None) -> None:
    """For the rest of this transaction, statements the driver has prepared (psycopg
    prepares one after a few executions on a connection, so in a server or a batch)
    keep their generic plan instead of being planned again for each query: planning the
    search statements cost a fifth of their time. With ``ef``, also :func:`set_ef`,
    in the same round trip."""
    generic = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"
    if ef is None:
        conn.execute(text(generic))
    else:
        conn.execute(text(generic + ", set_config('hnsw.ef_search', :ef, true)"),
                     {"ef": str(ef)})


# --- BM25 (search.bm25 composes these) ----------------------------------------------

QUERY_LEXEMES = "SELECT lexeme FROM unnest(graphrag_terms(:q))"


def query_lexemes(conn: Connection, query: str) -> list[str]:
    """The query's terms as PostgreSQL stems them (stop words dropped), sorted."""
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
# The query's terms (``:query`` analysed in the statement) and the empty term of the totals.
_QUERY_TERMS = "ARRAY(SELECT '' UNION ALL SELECT lexeme FROM unnest(graphrag_terms(:query)))"
_STATS_CTES = _STATS_TEMPLATE.format(terms=_QUERY_TERMS)

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


# BM25 of given chunks (``{ids}``: a FROM item with one column ``id``): their postings
# of the query's terms, read by primary key, the query (``:query``) analysed in the same
# statement; a part of the candidate signals' statements below.
_SCORES_OF_TEMPLATE = f"""
        WITH {_STATS_TEMPLATE.format(terms=_QUERY_TERMS)},
        p AS (
            SELECT t.chunk_id, t.term, t.tf, t.dl
              FROM df CROSS JOIN unnest(CAST(:apps AS bigint[])) AS a(id)
             CROSS JOIN {{ids}}
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
SCORES_OF_SQL = _SCORES_OF_TEMPLATE.replace("{ids}", "unnest(CAST(:ids AS bigint[])) AS c(id)")


def bm25_top_rows(conn: Connection, where: str | None, params: dict[str, Any]) -> Any:
    """(id, score) rows of the BM25 query (``where``: the search filters, or None)."""
    return conn.execute(text(_scores_sql(where)), params)


# --- candidate signals (search.signals composes these) ---------------------------------

# The query vector is parsed once (q.v), not once per candidate row: parsing a 384-float
# literal per row was most of this query's time. The name's words are analysed when the
# chunk's postings are written (``chunks.name_terms``, graphrag.pipeline.terms); a chunk
# written before that column existed has its name analysed here.
_QUERY_CTE = """q AS (SELECT tsvector_to_array(graphrag_terms(:query)) AS terms,
                  tsvector_to_array(graphrag_terms(:subject)) AS subject,
                  CAST(:q AS vector) AS v)"""
_SIGNAL_INPUTS = f"""c.emb, c.title_emb,
           CASE WHEN c.source = 'code'
                THEN coalesce(c.name_terms, {NAME_TERMS}) END AS name_terms"""
_SIGNAL_COLUMNS = """
       1 - (c.emb <=> q.v) AS similarity, b.score AS bm25,
       CASE WHEN c.source = 'code' THEN 1 - (c.title_emb <=> q.v) END AS title_sim,
       CASE WHEN c.source <> 'code' THEN NULL
            WHEN cardinality(c.name_terms) = 0 THEN 0.0
            ELSE (SELECT coalesce(sum(CASE WHEN t = ANY(q.subject) THEN 1.0
                                           ELSE :purpose_weight END), 0)
                    FROM (SELECT DISTINCT t FROM unnest(c.name_terms) t) u, q
                   WHERE t = ANY(q.terms))::float8 / cardinality(c.name_terms) END
           AS name_match"""

_SIGNALS_SQL = f"""
WITH {_QUERY_CTE},
     c AS (
    SELECT c.id, c.source, {_SIGNAL_INPUTS}
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.id = ANY(:ids) AND c.application_id = ANY(:apps))
SELECT c.id, {_SIGNAL_COLUMNS}
  FROM c CROSS JOIN q LEFT JOIN ({SCORES_OF_SQL}) b ON b.id = c.id
"""


def signal_rows(conn: Connection, params: dict[str, Any]) -> list[Any]:
    """(id, similarity, bm25, title_sim, name_match) of the chunks ``:ids`` (only the
    applications ``:apps``'); ``:q`` is the query's vector literal or None."""
    return list(conn.execute(text(_SIGNALS_SQL), params).all())


_SCORES_OF_IDS = _SCORES_OF_TEMPLATE.replace("{ids}", "(SELECT id FROM ids) AS c(id)")


def hybrid_sql(where: str, exact: bool = False) -> str:
    """One hybrid query in one statement: the nearest chunks (``where``: the search
    filters; ``:q``, ``:lim``) through the HNSW index, or (``exact``) by scanning the
    filtered rows, joined with the BM25 list's ids (``:text_ids``), and for every
    candidate its row (``CANDIDATE_COLUMNS``), its place in the vector list
    (``vec_score``, NULL when only BM25 found it) and its signals. Through the index, no
    rows when the vector list is shorter than ``:lim``. Call :func:`set_ef` first in the
    same transaction."""
    names = ", ".join(f"c.{name}" for name in CANDIDATE_NAMES)
    # an exact list is complete even when shorter than :lim
    complete = "true" if exact else "(SELECT count(*) FROM vec) >= :lim"
    return f"""
WITH {_QUERY_CTE},
     vec AS MATERIALIZED ({vector_sql(where, exact)}),
     ids AS MATERIALIZED (
    -- none when the filters left the vector list short: the caller widens the scan and
    -- reads the candidates then, so nothing is computed here for nothing
    SELECT x.id FROM (SELECT id FROM vec UNION SELECT unnest(CAST(:text_ids AS bigint[]))) x
     WHERE {complete}),
     c AS (
    SELECT {CANDIDATE_COLUMNS}, {_SIGNAL_INPUTS}
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.id IN (SELECT id FROM ids) AND c.application_id = ANY(:apps))
SELECT {names}, vec.score AS vec_score, {_SIGNAL_COLUMNS}
  FROM c CROSS JOIN q LEFT JOIN vec ON vec.id = c.id
  LEFT JOIN ({_SCORES_OF_IDS}) b
         ON b.id = c.id
"""


def hybrid_rows(conn: Connection, where: str, params: dict[str, Any], exact: bool = False
                ) -> list[Any]:
    """The rows of :func:`hybrid_sql`."""
    return _rows(conn, hybrid_sql(where, exact), params, exact)


# The searched applications' chunks (the BM25 totals, kept at write time, with their
# unfolded deltas) and the table's estimated rows (the planner's, kept by ANALYZE).
_SHARE_SQL = """
SELECT (SELECT coalesce(sum(x.df), 0) FROM (
            SELECT df FROM term_stats WHERE application_id = ANY(:apps) AND term = ''
            UNION ALL
            SELECT df FROM term_stats_delta WHERE application_id = ANY(:apps) AND term = ''
        ) x) AS searched,
       (SELECT reltuples FROM pg_class WHERE oid = CAST('chunks' AS regclass)) AS total
"""


def searched_share(conn: Connection, app_ids: Sequence[int]) -> float:
    """The searched applications' share of all chunks, from kept statistics (no count):
    1.0 when the table's estimate is missing or stale (smaller than the applications')."""
    row = conn.execute(text(_SHARE_SQL), {"apps": list(app_ids)}).one()
    searched, total = float(row.searched or 0), float(row.total or 0)
    if total <= 0 or searched >= total:
        return 1.0
    return searched / total


# --- definitions of the names a query mentions (search.definitions) ------------------

_DEFINED_SQL = """
    SELECT id, application_id, name, fqn, kind, file_path
      FROM (SELECT n.id, n.application_id, n.name, n.fqn, n.kind, n.file_path, n.rank,
                   row_number() OVER (PARTITION BY n.name ORDER BY n.rank DESC, n.id) AS k
              FROM nodes n
             WHERE n.application_id = ANY(:apps) AND n.name = ANY(:names)
               AND n.kind = ANY(:kinds) AND n.meta->>'implied' IS NULL) ranked
     WHERE k <= :lim
     ORDER BY rank DESC, id
"""


def defined_rows(conn: Connection, app_ids: Sequence[int], names: Sequence[str],
                 kinds: Sequence[str], limit: int) -> list[Any]:
    """Nodes of the kinds whose simple name is one of ``names`` (case-sensitive), the
    highest PageRank first (not a namespace only implied by a qualified class name,
    ``meta.implied``), at most ``limit`` per name (a name defined everywhere, such
    as ``get``, does not crowd out the others)."""
    return list(conn.execute(text(_DEFINED_SQL), {
        "apps": list(app_ids), "names": list(names), "kinds": list(kinds), "lim": limit,
    }).all())


def documented_value_rows(conn: Connection, node_ids: Sequence[int], kinds: Sequence[str]
                          ) -> list[Any]:
    """(id, application_id, name, kind, lang, package_name, meta) of the nodes of
    ``node_ids`` of the ``kinds`` that have a doc comment."""
    return list(conn.execute(text("""
        SELECT id, application_id, name, kind, lang, package_name, meta FROM nodes
         WHERE id = ANY(:ids) AND kind = ANY(:kinds) AND doc_comment <> ''
    """), {"ids": list(node_ids), "kinds": list(kinds)}).all())


def referring_rows(conn: Connection, node_ids: Sequence[int]) -> list[Any]:
    """(id, application_id, file_path, package_name, doc_comment) of the nodes of
    ``node_ids`` whose doc comment says *see* (it may refer the reader elsewhere)."""
    return list(conn.execute(text("""
        SELECT id, application_id, file_path, package_name, doc_comment FROM nodes
         WHERE id = ANY(:ids) AND doc_comment ~* '(^|[^[:alnum:]_])see([^[:alnum:]_]|$)'
    """), {"ids": list(node_ids)}).all())


def type_rows(conn: Connection, app_ids: Sequence[int], names: Sequence[str],
              kinds: Sequence[str], limit: int) -> list[Any]:
    """(id, application_id, name, fqn, kind, lang, package_name, meta) of the nodes of
    the ``kinds`` whose simple name is one of ``names``, at most ``limit`` per name and
    application."""
    return list(conn.execute(text("""
        SELECT id, application_id, name, fqn, kind, lang, package_name, meta
          FROM (SELECT n.id, n.application_id, n.name, n.fqn, n.kind, n.lang,
                       n.package_name, n.meta,
                       row_number() OVER (PARTITION BY n.application_id, n.name
                                          ORDER BY n.id) AS k
                  FROM nodes n
                 WHERE n.application_id = ANY(:apps) AND n.name = ANY(:names)
                   AND n.kind = ANY(:kinds)) named
         WHERE k <= :lim
    """), {"apps": list(app_ids), "names": list(names), "kinds": list(kinds),
           "lim": limit}).all())


def node_chunk_rows(conn: Connection, where: str, params: dict[str, Any],
                    node_ids: Sequence[int]) -> list[Any]:
    """Per node of ``node_ids`` its first code chunk that passes the search filters
    ``where`` (:func:`filter_sql`), as candidate rows."""
    sql = f"""
        SELECT DISTINCT ON (c.node_id) {CANDIDATE_COLUMNS}
          FROM chunks c JOIN nodes n ON n.id = c.node_id
         WHERE {where} AND c.node_id = ANY(:nodes)
         ORDER BY c.node_id, (c.source = 'code') DESC, c.chunk_index, c.id
    """
    return list(conn.execute(text(sql), {**params, "nodes": list(node_ids)}).all())


def node_chunks_rows(conn: Connection, where: str, params: dict[str, Any],
                     node_ids: Sequence[int], per_node: int) -> list[Any]:
    """Per node of ``node_ids`` its first ``per_node`` chunks (code, then documentation,
    in order) that pass the search filters ``where``, as candidate rows."""
    sql = f"""
        SELECT * FROM (
            SELECT {CANDIDATE_COLUMNS},
                   row_number() OVER (PARTITION BY c.node_id
                                      ORDER BY (c.source = 'code') DESC, c.chunk_index, c.id)
                       AS k
              FROM chunks c JOIN nodes n ON n.id = c.node_id
             WHERE {where} AND c.node_id = ANY(:nodes)) ranked
         WHERE k <= :per_node
    """
    return list(conn.execute(text(sql), {**params, "nodes": list(node_ids),
                                         "per_node": per_node}).all())


def reexport_chunk_rows(conn: Connection, where: str, params: dict[str, Any],
                        names: Sequence[str], limit: int) -> list[Any]:
    """Candidate rows (plus ``name``, as published) of the code chunks holding the line
    where a file publishes a name defined outside the repository (FILE meta
    ``external_exports``) whose last part (after ``::``) is one of the simple ``names``,
    at most ``limit`` files per published name, the most central first."""
    sql = f"""
        SELECT *
          FROM (SELECT DISTINCT ON (e.key, c.node_id) {CANDIDATE_COLUMNS}, e.key AS name,
                       n.rank AS node_rank
                  FROM nodes n
                  CROSS JOIN LATERAL jsonb_each_text(n.meta -> 'external_exports') e
                  JOIN chunks c ON c.node_id = n.id
                 WHERE {where} AND n.kind = 'FILE' AND n.application_id = ANY(:apps)
                   AND n.meta -> 'external_exports' IS NOT NULL
                   AND regexp_replace(e.key, '^.*::', '') = ANY(:names)
                   AND c.source = 'code' AND c.span_lines @> e.value::int
                 ORDER BY e.key, c.node_id, c.chunk_index) published
         ORDER BY published.node_rank DESC, published.id
    """
    rows = conn.execute(text(sql), {**params, "names": list(names)}).all()
    return _first_per(rows, "name", limit)


def _first_per(rows: Sequence[Any], key: str, limit: int) -> list[Any]:
    """The first ``limit`` rows of each value of column ``key``, in order."""
    seen: dict[Any, int] = {}
    out = []
    for row in rows:
        value = getattr(row, key)
        if seen.get(value, 0) < limit:
            seen[value] = seen.get(value, 0) + 1
            out.append(row)
    return out


def _chunk_at_line(where: str, file_node: str, line: str) -> str:
    """A lateral subquery: the narrowest code chunk (``best.id``) of the file of FILE node
    ``file_node`` holding the line ``line`` (SQL expressions) that passes the search
    filters ``where`` (a ``main`` function's own chunk, not its class's)."""
    return f"""
          CROSS JOIN LATERAL (
              SELECT c.id
                FROM chunks c JOIN nodes n ON n.id = c.node_id
               WHERE {where} AND n.file_path = {file_node}.file_path
                 AND n.application_id = {file_node}.application_id
                 AND c.source = 'code' AND c.span_lines @> ({line})::int
               ORDER BY upper(c.span_lines) - lower(c.span_lines), c.id
               LIMIT 1) best
          JOIN chunks c ON c.id = best.id
          JOIN nodes n ON n.id = c.node_id"""


def entry_chunk_rows(conn: Connection, where: str, params: dict[str, Any],
                     limit: int) -> list[Any]:
    """Candidate rows of the code chunks holding the lines that make a file a program's
    entry point (FILE meta ``entry_points``, :mod:`graphrag.parsing.entrypoints`): per
    line the narrowest chunk of the file holding it, at most ``limit`` files, the most
    central first."""
    sql = f"""
        WITH entry_files AS (
            SELECT n.id, n.file_path, n.application_id, n.meta -> 'entry_points' AS marks
              FROM nodes n
             WHERE n.kind = 'FILE' AND n.application_id = ANY(:apps)
               AND n.meta ? 'entry_points'
             ORDER BY n.rank DESC NULLS LAST, n.id
             LIMIT :lim
        )
        SELECT DISTINCT ON (c.id) {CANDIDATE_COLUMNS}
          FROM entry_files f
          CROSS JOIN LATERAL jsonb_array_elements(f.marks) m
          {_chunk_at_line(where, "f", "m ->> 0")}
         ORDER BY c.id
    """
    return list(conn.execute(text(sql), {**params, "lim": limit}).all())


def reopened_chunk_rows(conn: Connection, where: str, params: dict[str, Any],
                        type_ids: Sequence[int], limit: int) -> list[Any]:
    """Candidate rows (plus ``type_id``) of the code chunks holding the line where another
    file reopens one of the types ``type_ids`` (FILE meta ``reopens``: Ruby's open
    classes), one per type and file, at most ``limit`` files per type, the most central
    first."""
    sql = f"""
        SELECT *
          FROM (SELECT DISTINCT ON (t.id, f.id) {CANDIDATE_COLUMNS}, t.id AS type_id,
                       f.rank AS file_rank
                  FROM nodes t
                  JOIN nodes f ON f.application_id = t.application_id AND f.kind = 'FILE'
                              AND f.meta -> 'reopens' ? t.fqn
                  {_chunk_at_line(where, "f", "f.meta -> 'reopens' ->> t.fqn")}
                 WHERE t.id = ANY(:types) AND t.application_id = ANY(:apps)
                 ORDER BY t.id, f.id) reopened
         ORDER BY reopened.file_rank DESC NULLS LAST, reopened.id
    """
    rows = conn.execute(text(sql), {**params, "types": list(type_ids)}).all()
    return _first_per(rows, "type_id", limit)


_IMPLEMENTERS_SQL = """
    SELECT e.dst_id AS iface, n.id, n.fqn
      FROM edges e JOIN nodes n ON n.id = e.src_id
     WHERE e.dst_id = ANY(:ids) AND e.kind = 'IMPLEMENTS' AND n.kind = ANY(:kinds)
     ORDER BY n.rank DESC, n.id
     LIMIT :lim
"""


_SUPERTYPES_SQL = """
    SELECT e.src_id AS sub, n.id, n.fqn
      FROM edges e
      JOIN nodes n ON n.id = e.dst_id
      JOIN nodes s ON s.id = e.src_id
     WHERE e.src_id = ANY(:ids) AND e.kind IN ('EXTENDS', 'IMPLEMENTS')
       AND n.kind = ANY(:kinds)
       AND CASE WHEN s.package_name IS NULL  -- no packages (Python, TypeScript): its folder
                THEN n.package_name IS NULL
                     AND regexp_replace(n.file_path, '[^/]*$', '')
                         = regexp_replace(s.file_path, '[^/]*$', '')
                ELSE n.package_name = s.package_name END
     ORDER BY n.rank DESC, n.id
"""


def supertype_rows(conn: Connection, type_ids: Sequence[int], kinds: Sequence[str]
                   ) -> list[Any]:
    """(subtype id, supertype id, its fqn) of the direct supertypes (EXTENDS and
    IMPLEMENTS edges) of the given types that are declared in the subtype's own package
    (in a language without packages, its folder), the most central first."""
    return list(conn.execute(text(_SUPERTYPES_SQL), {
        "ids": list(type_ids), "kinds": list(kinds)}).all())


def implementer_rows(conn: Connection, iface_ids: Sequence[int], kinds: Sequence[str],
                     limit: int) -> list[Any]:
    """(interface id, implementing node id, its fqn) of the types that implement the
    given interfaces (IMPLEMENTS edges), the most central first."""
    return list(conn.execute(text(_IMPLEMENTERS_SQL), {
        "ids": list(iface_ids), "kinds": list(kinds), "lim": limit}).all())




def beside_rows(conn: Connection, where: str, params: dict[str, Any]) -> list[Any]:
    """In one statement, the code chunks that pass the search filters ``where``
    (:func:`filter_sql`), are none of ``:exclude`` and start inside one of the spans
    (application ``:owners[i]``, ``:files[i]``, lines ``:los[i]``..``:his[i]``) or at
    most ``:gap`` lines after it, or
    end at most ``:gap`` lines before it: their rows (``CANDIDATE_COLUMNS``) and signals,
    as :func:`hybrid_sql` gives the candidates' (``:q``, ``:query`` and the BM25
    parameters)."""
    names = ", ".join(f"c.{name}" for name in CANDIDATE_NAMES)
    # Ids first, through the nodes of the file near each span (a chunk lies in its
    # node's lines); the rows' text and signals only for the few found.
    sql = f"""
WITH {_QUERY_CTE},
     ids AS MATERIALIZED (
    SELECT DISTINCT c.id
      FROM unnest(CAST(:owners AS bigint[]), CAST(:files AS text[]), CAST(:los AS int[]),
                  CAST(:his AS int[])) AS s(app, file_path, lo, hi)
      JOIN nodes n ON n.application_id = s.app AND n.file_path = s.file_path
                  AND n.line_start <= s.hi + :gap AND n.line_end >= s.lo - :gap
      JOIN chunks c ON c.node_id = n.id
     WHERE {where} AND c.source = 'code' AND NOT c.id = ANY(:exclude)
       AND (lower(c.span_lines) BETWEEN s.lo AND s.hi + :gap
            OR upper(c.span_lines) - 1 BETWEEN s.lo - :gap AND s.lo - 1)),
     c AS (
    SELECT {CANDIDATE_COLUMNS}, {_SIGNAL_INPUTS}
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.id IN (SELECT id FROM ids))
SELECT {names}, {_SIGNAL_COLUMNS}
  FROM c CROSS JOIN q LEFT JOIN ({_SCORES_OF_IDS}) b ON b.id = c.id
"""
    return list(conn.execute(text(sql), params).all())
