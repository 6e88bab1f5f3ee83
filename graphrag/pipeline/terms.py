"""The BM25 postings of chunks (table ``chunk_terms``), kept in step with their text.

A chunk's terms are the lexemes the database function ``graphrag_terms`` (migration 0004:
identifiers split into words, English stemming, stop words dropped) makes of its title
and content, each with its frequency and the chunk's length in terms. The summary is not
indexed: the structural one is boilerplate ("Called by: ...") that would make a function
match the names of its callers. The runner writes them with the new text, in the same
statement, so search never sees postings of an older text; deleting a chunk deletes its
postings (foreign key). Read by :mod:`graphrag.retrieval.search.bm25`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

# Columns whose change changes the postings (the title is the plan's, and a new plan
# rewrites the content too).
TEXT_COLUMNS = frozenset({"content"})
CHUNK_TERMS = "graphrag_terms(concat_ws(' ', c.title, c.content))"

_TF = "coalesce(array_length(t.positions, 1), 1)"

# The node name's words as the analyser makes them (camelCase split first: a question
# uses the words, never the whole identifier), for search's name match
# (:mod:`graphrag.retrieval.search.signals`). Kept with the postings so a query does not analyse
# every candidate's name.
NAME_TERMS = (r"tsvector_to_array(graphrag_terms(regexp_replace(coalesce(n.name, ''),"
              r" '([a-z0-9])([A-Z])', '\1 \2', 'g')))")


def update_with_postings(conn: Connection, rows: str, sets: Sequence[str],
                         params: dict[str, Any]) -> None:
    """``UPDATE chunks c SET {sets} FROM {rows} WHERE c.id = v.id`` for chunks with a new
    text (``rows``: a FROM item ``v`` with columns ``id`` and ``content``), their term
    count and name words written in the same row version, and their postings inserted
    by the same statement. The text is analysed once, for the count and the postings;
    the chunks' old postings must be gone (:func:`drop_postings`). A second update of
    the rows would write a whole new row version, with an entry in every index of
    ``chunks`` (the HNSW one included)."""
    conn.execute(text(
        f"""
        WITH v AS MATERIALIZED (SELECT * FROM {rows}),
        t AS MATERIALIZED (
            SELECT v.id, t.lexeme, {_TF} AS tf
              FROM v JOIN chunks c ON c.id = v.id
             CROSS JOIN unnest(graphrag_terms(concat_ws(' ', c.title, v.content))) t
        ),
        k AS (SELECT id, sum(tf) AS n FROM t GROUP BY id),
        u AS (
            UPDATE chunks c SET {", ".join(sets)}, term_count = coalesce(k.n, 0),
                   name_terms = (SELECT {NAME_TERMS} FROM nodes n WHERE n.id = c.node_id)
              FROM v LEFT JOIN k ON k.id = v.id
             WHERE c.id = v.id
            RETURNING c.id, c.application_id, c.term_count
        )
        INSERT INTO chunk_terms (application_id, term, chunk_id, tf, dl)
        SELECT u.application_id, t.lexeme, u.id, t.tf, u.term_count
          FROM u JOIN t ON t.id = u.id
         ORDER BY u.id, t.lexeme
        """), params)


def drop_postings(conn: Connection, chunk_ids: Sequence[int]) -> None:
    """Delete the postings of these chunks (their text is about to be rewritten)."""
    if chunk_ids:
        conn.execute(text("DELETE FROM chunk_terms WHERE chunk_id = ANY(:ids)"),
                     {"ids": sorted(set(chunk_ids))})


def refresh_terms(conn: Connection, chunk_ids: Sequence[int]) -> None:
    """Rewrite the postings and term counts of these chunks from their current text."""
    if not chunk_ids:
        return
    ids = {"ids": sorted(set(chunk_ids))}
    drop_postings(conn, ids["ids"])
    _write_counts(conn, ids)
    conn.execute(text(
        f"""
        INSERT INTO chunk_terms (application_id, term, chunk_id, tf, dl)
        SELECT c.application_id, t.lexeme, c.id, {_TF}, c.term_count
          FROM chunks c, unnest({CHUNK_TERMS}) t
         WHERE c.id = ANY(:ids)
        """), ids)


def _write_counts(conn: Connection, ids: dict[str, list[int]]) -> None:
    conn.execute(text(
        f"""
        UPDATE chunks c SET term_count = s.n, name_terms = s.name_terms
          FROM (SELECT c.id, (SELECT coalesce(sum({_TF}), 0)
                                FROM unnest({CHUNK_TERMS}) t) AS n,
                       {NAME_TERMS} AS name_terms
                  FROM chunks c JOIN nodes n ON n.id = c.node_id
                 WHERE c.id = ANY(:ids)) s
         WHERE c.id = s.id AND (c.term_count IS DISTINCT FROM s.n
                                OR c.name_terms IS DISTINCT FROM s.name_terms)
        """), ids)


# Serialises the folding of one application's deltas (the two-key advisory lock space
# is apart from the one-key locks of graph indexing).
_COMPACT_LOCK_CLASS = 4_025


def compact_term_stats(conn: Connection, app_id: int) -> bool:
    """Fold the application's appended BM25 statistic changes (``term_stats_delta``,
    written by triggers on ``chunk_terms``) into ``term_stats``. Readers add both, so
    this changes no figure, only the cost of reading them. Returns False when another
    process is folding them at this moment (it takes what was committed before it)."""
    locked = conn.execute(text("SELECT pg_try_advisory_xact_lock(:cls, CAST(:app AS int))"),
                          {"cls": _COMPACT_LOCK_CLASS, "app": app_id}).scalar()
    if not locked:
        return False
    folded = conn.execute(text(
        """
        WITH d AS (DELETE FROM term_stats_delta WHERE application_id = :app
                   RETURNING term, df, dl)
        INSERT INTO term_stats AS s (application_id, term, df, dl)
        SELECT :app, term, sum(df), sum(dl) FROM d GROUP BY term ORDER BY term
        ON CONFLICT (application_id, term)
        DO UPDATE SET df = s.df + excluded.df, dl = s.dl + excluded.dl
        RETURNING s.term, s.df
        """), {"app": app_id}).all()
    vanished = [r.term for r in folded if r.df == 0 and r.term != ""]
    if vanished:  # words no chunk holds any more
        conn.execute(text("DELETE FROM term_stats WHERE application_id = :app"
                          " AND term = ANY(:terms) AND df = 0"),
                     {"app": app_id, "terms": vanished})
    return True
