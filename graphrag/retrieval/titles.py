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
from sqlalchemy import Connection

from graphrag.embedding import vector_literal
from graphrag.retrieval import store


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
    rows = store.title_rows(conn, app_ids, ids, query,
                            vector_literal(vector) if vector is not None else None)
    return TitleSignals(
        title_sim={int(r.id): float(r.title_sim) for r in rows if r.title_sim is not None},
        name_match={int(r.id): float(r.name_match) for r in rows},
    )
