"""The BM25 postings of chunks (table ``chunk_terms``), kept in step with their text.

A chunk's terms are the lexemes the database function ``graphrag_terms`` (migration 0004:
identifiers split into words, English stemming, stop words dropped) makes of its title
and content, each with its frequency and the chunk's length in terms. The summary is not
indexed: the structural one is boilerplate ("Called by: ...") that would make a function
match the names of its callers. The runner refreshes them in the transaction that
writes new text, so search never sees postings of an older text; deleting a chunk
deletes its postings (foreign key). Read by :mod:`graphrag.retrieval.search.bm25`.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def count_assignments(content: str) -> list[str]:
    """``SET`` items of an ``UPDATE chunks`` that writes new text (``content``: the SQL
    of the new content, e.g. a bind parameter): the chunk's term count and its node
    name's words, computed in that same statement. A second update of the row would
    write a whole new row version, with an entry in every index of ``chunks`` (the two
    HNSW indexes included); :func:`refresh_terms` with ``counted=True`` then writes only
    the postings."""
    words = f"graphrag_terms(concat_ws(' ', chunks.title, CAST({content} AS text)))"
    return [f"term_count = (SELECT coalesce(sum({_TF}), 0) FROM unnest({words}) t)",
            f"name_terms = (SELECT {NAME_TERMS} FROM nodes n WHERE n.id = chunks.node_id)"]


def refresh_terms(conn: Connection, chunk_ids: Sequence[int], counted: bool = False) -> None:
    """Rewrite the postings and term counts of these chunks from their current text
    (``counted``: their counts were written with the text, :func:`count_assignments`)."""
    if not chunk_ids:
        return
    ids = {"ids": sorted(set(chunk_ids))}
    conn.execute(text("DELETE FROM chunk_terms WHERE chunk_id = ANY(:ids)"), ids)
    if not counted:
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
