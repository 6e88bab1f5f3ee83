"""Sentence-level retrieval: search the sentence pieces of document chunks,
return their distinct parent chunks, each with its best-matching sentence.

Vector mode ranks parents by their best sentence's cosine similarity; hybrid fuses that
ranking with the chunks' full-text ranking (reciprocal rank fusion, as chunk search does).
Code chunks have no sentence pieces, so only document chunks come back (the hybrid
full-text list is restricted to document chunks too)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np
from sqlalchemy import Connection

from graphrag.db.context import AppScope
from graphrag.db.vectors import require_model
from graphrag.embedding import Embedder, vector_literal
from graphrag.errors import InvalidInput
from graphrag.retrieval.documents import store
from graphrag.retrieval.search.engine import rank_candidates, set_ef_search, text_candidates
from graphrag.retrieval.search.filters import validate
from graphrag.retrieval.search.model import SearchOptions, SearchResult, hit_dict
from graphrag.retrieval.search.rows import load_candidates
from graphrag.retrieval.search.store import filter_sql

GRANULARITIES = ("chunk", "sentence")
# Sentences fetched per parent asked for: a chunk has a few pieces, several may match.
SENTENCES_PER_PARENT = 4


def sentence_parents(conn: Connection, app_ids: list[int], vector: np.ndarray,
                     options: SearchOptions) -> tuple[list[tuple[int, float]], dict[int, str]]:
    """Parent chunk ids ranked by their best sentence (score = its similarity), and that
    sentence's text per parent."""
    where, params = filter_sql(app_ids, options)
    limit = options.candidates * SENTENCES_PER_PARENT
    params.update(q=vector_literal(vector), lim=limit)
    rows = store.nearest_sentences(conn, where, params, exact=False)
    if len(rows) < limit:  # post-filtered HNSW scan came up short: exact over the rest
        rows = store.nearest_sentences(conn, where, params, exact=True)
    ranked: list[tuple[int, float]] = []
    best: dict[int, str] = {}
    for r in rows:
        score = float(r.score)
        if options.min_similarity is not None and score < options.min_similarity:
            continue
        if r.chunk_id not in best:
            best[r.chunk_id] = r.content
            ranked.append((int(r.chunk_id), score))
    return ranked[: options.candidates], best


def _search_one(conn: Connection, apps: dict[int, str], query: str, vector: np.ndarray,
                options: SearchOptions) -> list[dict[str, Any]]:
    app_ids = list(apps)
    vec, sentence = sentence_parents(conn, app_ids, vector, options)
    txt: list[tuple[int, float]] = []
    if options.mode == "hybrid":  # full text over document chunks only, like the sentences
        txt = text_candidates(conn, app_ids, query, replace(options, source="doc"))
    details = load_candidates(conn, apps, list(dict.fromkeys(i for i, _ in vec + txt)))
    ranked = rank_candidates(options.mode, vec, txt, details, query, options)[: options.top_k]
    hits = []
    for cand in ranked:
        hit = hit_dict(cand)
        hit["sentence"] = sentence.get(cand.id)
        hit["sentence_score"] = round(dict(vec).get(cand.id, 0.0), 6)
        hits.append(hit)
    return hits


def search_sentences(scope: AppScope, query: str, options: SearchOptions,
                     embedder: Embedder) -> SearchResult:
    """Search sentence pieces; the hits are their distinct parent chunks (``top_k``, 10 by
    default), each with ``sentence`` (the best matching piece) and ``sentence_score``."""
    validate(options)
    if options.mode == "text":
        raise InvalidInput("--granularity sentence searches sentence vectors:"
                           " use --mode vector or hybrid")
    t0 = time.perf_counter()
    vector = embedder.encode([query])[0]
    embed_ms = (time.perf_counter() - t0) * 1000
    if not scope.apps:
        raise InvalidInput("at least one --app is required")
    apps = dict(zip(scope.app_ids, scope.app_names, strict=True))
    with scope.engine.begin() as conn:
        require_model(conn, apps, embedder.name)  # never compare two models' vectors
        set_ef_search(conn, options)
        t1 = time.perf_counter()
        hits = _search_one(conn, apps, query, vector, options)
        search_ms = (time.perf_counter() - t1) * 1000
    timing = {"embed_ms": round(embed_ms, 2), "search_ms": round(search_ms, 2),
              "total_ms": round(embed_ms + search_ms, 2)}
    return SearchResult(query, options.mode, hits, timing)
