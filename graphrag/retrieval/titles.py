"""What hybrid search's candidates are called, measured against the query.

Two signals per candidate code chunk (documents have neither: a page is called by its
file's name, which says nothing of what it answers), read for the few dozen candidates
of one query:

- ``title_sim``: cosine similarity of the query vector and the chunk's ``title_emb`` (its
  symbol name, owner and signature, or a document's title; see the embed stage);
- ``name_match``: the share of the node name's words that the query uses, both sides
  through the BM25 analyser ``graphrag_terms`` (split identifiers, stemmed, stop words
  dropped), so ``getContentLength`` matches "Returns the content length".

:func:`graphrag.retrieval.fusion.title_rerank` turns them into the final order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection, text

from graphrag.embedding import vector_literal
from graphrag.pipeline.terms import NAME_TERMS

# The query vector is parsed once (q.v), not once per candidate row: parsing a 384-float
# literal per row was most of this query's time. The name's words are analysed when the
# chunk's postings are written (``chunks.name_terms``, graphrag.pipeline.terms); a chunk
# written before that column existed has its name analysed here.
_TITLE_SQL = rf"""
WITH q AS (SELECT tsvector_to_array(graphrag_terms(:query)) AS terms,
                  CAST(:q AS vector) AS v),
     c AS (
    SELECT c.id, c.title_emb, coalesce(c.name_terms, {NAME_TERMS}) AS name_terms
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.id = ANY(:ids) AND c.application_id = ANY(:apps) AND c.source = 'code')
SELECT c.id,
       1 - (c.title_emb <=> q.v) AS title_sim,
       CASE WHEN cardinality(c.name_terms) = 0 THEN 0.0
            ELSE (SELECT count(DISTINCT t) FROM unnest(c.name_terms) t, q
                   WHERE t = ANY(q.terms))::float8 / cardinality(c.name_terms) END
           AS name_match
  FROM c, q
"""


@dataclass(frozen=True)
class TitleSignals:
    """Per chunk id: similarity of the query to its title vector (absent when it has
    none), and the share of its name's words found in the query."""

    title_sim: dict[int, float]
    name_match: dict[int, float]


def title_signals(conn: Connection, app_ids: Sequence[int], ids: Sequence[int],
                  query: str, vector: np.ndarray | None) -> TitleSignals:
    """The title signals of the candidate chunks ``ids`` (only the given applications')."""
    if not ids:
        return TitleSignals({}, {})
    rows = conn.execute(text(_TITLE_SQL), {
        "ids": list(ids), "apps": list(app_ids), "query": query,
        "q": vector_literal(vector) if vector is not None else None,
    }).all()
    return TitleSignals(
        title_sim={int(r.id): float(r.title_sim) for r in rows if r.title_sim is not None},
        name_match={int(r.id): float(r.name_match) for r in rows},
    )
