"""The BM25 postings of chunks (table ``chunk_terms``), kept in step with their text.

A chunk's terms are the lexemes the database function ``graphrag_terms`` (migration 0004:
identifiers split into words, English stemming, stop words dropped) makes of its title
and content, each with its frequency and the chunk's length in terms. The summary is not
indexed: the structural one is boilerplate ("Called by: ...") that would make a function
match the names of its callers. The runner refreshes them in the transaction that
writes new text, so search never sees postings of an older text; deleting a chunk
deletes its postings (foreign key). Read by :mod:`graphrag.retrieval.bm25`.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text

# Columns whose change changes the postings (the title is the plan's, and a new plan
# rewrites the content too).
TEXT_COLUMNS = frozenset({"content"})
CHUNK_TERMS = "graphrag_terms(concat_ws(' ', c.title, c.content))"

_TF = "coalesce(array_length(t.positions, 1), 1)"


def refresh_terms(conn: Connection, chunk_ids: Sequence[int]) -> None:
    """Rewrite the postings and term counts of these chunks from their current text."""
    if not chunk_ids:
        return
    ids = {"ids": sorted(set(chunk_ids))}
    conn.execute(text("DELETE FROM chunk_terms WHERE chunk_id = ANY(:ids)"), ids)
    conn.execute(text(
        f"""
        UPDATE chunks c SET term_count = s.n
          FROM (SELECT c.id, (SELECT coalesce(sum({_TF}), 0)
                                FROM unnest({CHUNK_TERMS}) t) AS n
                  FROM chunks c WHERE c.id = ANY(:ids)) s
         WHERE c.id = s.id AND c.term_count IS DISTINCT FROM s.n
        """), ids)
    conn.execute(text(
        f"""
        INSERT INTO chunk_terms (application_id, term, chunk_id, tf, dl)
        SELECT c.application_id, t.lexeme, c.id, {_TF}, c.term_count
          FROM chunks c, unnest({CHUNK_TERMS}) t
         WHERE c.id = ANY(:ids)
        """), ids)
