"""Search chunks: vector (pgvector HNSW, cosine), full text (BM25) and hybrid (fused).

Flow of one query:

1. the query embedding (vector and hybrid modes; one batched encode for many queries),
   while a second connection fetches the BM25 list,
2. each ranked list fetches ``options.candidates`` chunk ids, filtered by application
   and the metadata filters inside SQL; for hybrid, the vector list, the candidates'
   rows and their signals come from one statement,
3. hybrid fuses the candidates' signals (score fusion) with the PageRank boost
   (:mod:`graphrag.retrieval.search.fusion`),
4. several chunks of one node, or overlapping spans, collapse to the best one,
5. top_k hits, optionally followed by ``--expand calls`` neighbours.

Vector search and filters: pgvector 0.6 filters *after* the HNSW scan, which returns at
most ``hnsw.ef_search`` rows of the whole table. We set ``ef_search`` per search
(``SET LOCAL``) to ``max(EF_SEARCH, 2 * candidates)``, raised when the searched
applications hold a small share of all chunks (a database indexing many repositories) so
that the scan still keeps enough of theirs; when even ``EF_SEARCH_MAX`` would not, the
vector list is read by an exact scan of their rows at once (:func:`vector_scan`). When
the filters leave fewer rows than asked for, the scan is repeated once with
``EF_SEARCH_MAX``, and if that is still short the filtered set is small and an exact scan
over it (filter first, then order) is used.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sqlalchemy import Connection

from graphrag.db.apps import searched_apps
from graphrag.db.context import AppScope
from graphrag.db.vectors import require_model
from graphrag.embedding import Embedder, vector_literal
from graphrag.errors import InvalidInput
from graphrag.parsing.pathroles import superseded_versions
from graphrag.retrieval.search import store
from graphrag.retrieval.search.beside import beside_candidates, joined_scores
from graphrag.retrieval.search.bm25 import bm25_candidates
from graphrag.retrieval.search.boosts import NEIGHBOUR_GAP, boost, wants_definitions
from graphrag.retrieval.search.definitions import Definition, definitions, entry_points
from graphrag.retrieval.search.expand import expand_calls
from graphrag.retrieval.search.filters import validate
from graphrag.retrieval.search.fusion import select
from graphrag.retrieval.search.intent import QueryIntent, understand
from graphrag.retrieval.search.model import Candidate, SearchOptions, SearchResult, hit_dict
from graphrag.retrieval.search.modes import get_mode
from graphrag.retrieval.search.priors import left_out, prior, wanted_roles
from graphrag.retrieval.search.profiles import profile
from graphrag.retrieval.search.rows import candidate_from_row, load_candidates
from graphrag.retrieval.search.seealso import see_also
from graphrag.retrieval.search.signals import (
    CandidateSignals,
    candidate_signals,
    hybrid_rows,
    signals_of_rows,
)
from graphrag.retrieval.search.valuetypes import value_types

EF_SEARCH = 100
EF_SEARCH_MAX = 1000
def ef_search_for(options: SearchOptions) -> int:
    return min(max(EF_SEARCH, 2 * options.candidates), EF_SEARCH_MAX)


def set_ef_search(conn: Connection, options: SearchOptions) -> None:
    """``SET LOCAL hnsw.ef_search`` for this transaction: enough candidates for the
    over-fetched list (see the module docstring)."""
    store.set_ef(conn, ef_search_for(options))


# How many of the searched applications' rows a scan should expect to keep, in
# multiples of the list asked for: the estimate assumes their chunks are spread among the
# others, and a query about another application's subject finds fewer of them near it.
SHARE_MARGIN = 2.0


@dataclass(frozen=True)
class VectorScan:
    """How a search reads its vector lists: through the HNSW index keeping ``ef`` rows,
    or (``exact``) by scanning the searched applications' rows."""

    ef: int
    exact: bool = False


def vector_scan(share: float, options: SearchOptions) -> VectorScan:
    """The scan for applications holding ``share`` of all chunks
    (:func:`graphrag.retrieval.search.store.searched_share`): the usual ``ef_search`` when its
    rows keep enough of theirs, a larger one up to ``EF_SEARCH_MAX`` when that does, else
    an exact scan (their rows are then few beside the table, and an index scan would be
    short and repeated before falling back to it anyway)."""
    ef = ef_search_for(options)
    need = SHARE_MARGIN * options.candidates
    if share * ef >= need:
        return VectorScan(ef)
    if share * EF_SEARCH_MAX >= need:
        return VectorScan(min(EF_SEARCH_MAX, int(-(-need // share))))
    return VectorScan(ef, exact=True)


def vector_candidates(conn: Connection, app_ids: list[int], vector: np.ndarray,
                      options: SearchOptions, first_scan: int | None = None,
                      scan: VectorScan | None = None) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) best first, at most ``options.candidates`` rows.
    Call :func:`set_ef_search` (or set ``scan.ef``) first in the same transaction.
    ``first_scan``: the number of rows a scan at the transaction's ``ef_search`` already
    returned (the hybrid statement's), so the widening starts at once."""
    scan = scan or VectorScan(ef_search_for(options))
    where, params = store.filter_sql(app_ids, options)
    limit = options.candidates
    params.update(q=vector_literal(vector), lim=limit)
    rows: list[Any] = []
    if not scan.exact:
        if first_scan is None:
            rows = store.nearest_chunks(conn, where, params, exact=False)
        if (len(rows) if first_scan is None else first_scan) < limit \
                and scan.ef < EF_SEARCH_MAX:
            # Selective filters: widen the scan once before paying for an exact search.
            store.set_ef(conn, EF_SEARCH_MAX)
            rows = store.nearest_chunks(conn, where, params, exact=False)
            store.set_ef(conn, scan.ef)
    if len(rows) < limit:
        rows = store.nearest_chunks(conn, where, params, exact=True)
    pairs = [(int(r.id), float(r.score)) for r in rows]
    if options.min_similarity is not None:
        pairs = [p for p in pairs if p[1] >= options.min_similarity]
    return pairs


def text_candidates(conn: Connection, app_ids: list[int], query: str,
                    options: SearchOptions) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) best first (:mod:`graphrag.retrieval.search.bm25`)."""
    return bm25_candidates(conn, app_ids, query, options)


def rank_candidates(mode: str, vec: list[tuple[int, float]], txt: list[tuple[int, float]],
                    details: dict[int, Candidate], query: str,
                    options: SearchOptions,
                    signals: CandidateSignals | None = None,
                    defined: dict[int, Definition] | None = None,
                    intent: QueryIntent | None = None,
                    typed: dict[int, Definition] | None = None,
                    entries: dict[int, Candidate] | None = None,
                    beside: dict[int, Candidate] | None = None,
                    referenced: dict[int, list[Definition]] | None = None,
                    joined: dict[int, float] | None = None) -> list[Candidate]:
    """Best-first candidates with their mode's score: similarity (vector), BM25 (text) or
    the fused ``signals`` with the PageRank boost (hybrid; reciprocal rank fusion of the
    two lists when there are no signals, as for sentences;
    :mod:`graphrag.retrieval.search.fusion`); then the boosts of the graph and the file tree
    (:mod:`graphrag.retrieval.search.boosts`: ``defined`` are the chunks defining a name the
    query mentions; ``typed`` the types documented values are declared with;
    ``referenced`` the files and symbols candidates' doc comments refer to; ``joined``
    the scores of those of them that were no candidates; ``entries``
    the program's entry points it asks about; ``beside`` the scored chunks next to
    candidates, :mod:`graphrag.retrieval.search.beside`) and each candidate's prior
    (:mod:`graphrag.retrieval.search.priors`) unless priors are off. Documents in hidden
    tool folders and vendored trees are left out unless the source is ``all`` or the path
    filter names them."""
    intent = intent or understand(query)
    defined = defined or {}
    entries = entries or {}
    for definition in [*defined.values(), *(typed or {}).values(),
                       *(d for ds in (referenced or {}).values() for d in ds)]:
        details.setdefault(definition.candidate.id, definition.candidate)
    for chunk_id, cand in entries.items():
        details.setdefault(chunk_id, cand)
    spec = get_mode(mode)
    # The plain modes keep the plain priors: only the graph-ranked ones read the query.
    weights = profile(intent.kind, options.uses("intent") and spec.ranks_with_graph)
    scored = dict(spec.rank(vec, txt, details, signals))  # graphrag.retrieval.search.modes
    if spec.ranks_with_graph:
        for chunk_id, score in (joined or {}).items():
            scored.setdefault(chunk_id, score)
        scored = boost(scored, {**(beside or {}), **details}, query, intent, defined,
                       options.disabled, weights, typed, entries,
                       {i: c.score for i, c in (beside or {}).items()}, referenced)
    wanted = wanted_roles(query, options)
    paths = options.uses("paths")
    superseded = superseded_versions(
        details[i].file_path for i in scored if i in details) if paths else frozenset()
    # The front file publishing a queried name (a Rust ``pub use``) is where it is found,
    # whichever of its chunks the boost went to.
    defining = {(d.candidate.app, d.candidate.node_id) for d in defined.values()}
    out = []
    for chunk_id, score in scored.items():
        cand = details.get(chunk_id)
        if cand is None or left_out(cand, options, wanted):
            continue
        if options.priors:
            score *= prior(cand, wanted, paths, weights.kind_priors, superseded,
                           (cand.app, cand.node_id) in defining)
        cand.score = score
        out.append(cand)
    # Stable sort: equal scores keep their list order, then the smaller id.
    out.sort(key=lambda c: (-c.score, c.id))
    return out


def _hybrid_lists(conn: Connection, apps: dict[int, str], query: str, vector: np.ndarray,
                  txt: list[tuple[int, float]], options: SearchOptions,
                  scan: VectorScan | None = None
                  ) -> tuple[tuple[list[tuple[int, float]], dict[int, Candidate],
                                   CandidateSignals] | None, int]:
    """The vector list, the candidates and their signals from one statement
    (:func:`graphrag.retrieval.search.signals.hybrid_rows`), and the vector list's length;
    None instead when the filters leave an index scan's list short, for
    :func:`vector_candidates` to widen the scan."""
    exact = scan is not None and scan.exact
    rows = hybrid_rows(conn, list(apps), query, vector, [i for i, _ in txt], options, exact)
    vec = sorted(((int(r.id), float(r.vec_score)) for r in rows if r.vec_score is not None),
                 key=lambda pair: (-pair[1], pair[0]))
    if not exact and len(vec) < options.candidates:  # the statement saw a short list
        return None, len(vec)
    if options.min_similarity is not None:
        vec = [p for p in vec if p[1] >= options.min_similarity]
    return (vec, {r.id: candidate_from_row(r, apps) for r in rows},
            signals_of_rows(rows)), len(vec)


def _search_one(conn: Connection, apps: dict[int, str], query: str,
                vector: np.ndarray | None, txt: list[tuple[int, float]],
                options: SearchOptions, scan: VectorScan) -> list[dict[str, Any]]:
    app_ids = list(apps)
    mode = get_mode(options.mode)
    got, first_scan = None, None
    if mode.needs_signals and vector is not None:
        got, first_scan = _hybrid_lists(conn, apps, query, vector, txt, options, scan)
    if got is not None:
        vec, details, signals = got
    else:
        vec = (vector_candidates(conn, app_ids, vector, options, first_scan, scan)
               if vector is not None else [])
        ids = list(dict.fromkeys([i for i, _ in vec + txt]))
        details = load_candidates(conn, apps, ids)
        signals = (candidate_signals(conn, app_ids, ids, query, vector)
                   if mode.needs_signals else None)
    intent = understand(query)
    weights = profile(intent.kind, options.uses("intent"))
    if signals is not None:
        signals = replace(signals, profile=weights)
    graph = mode.ranks_with_graph
    defined = (definitions(conn, apps, intent, options)
               if graph and wants_definitions(intent, weights) and options.uses("definitions")
               else {})
    typed = (value_types(conn, apps, list(details.values()), options)
             if graph and weights.value_types and options.uses("value-types") else {})
    referenced = (see_also(conn, apps, list(details.values()), options)
                  if graph and weights.see_also and options.uses("see-also") else {})
    entries = (entry_points(conn, apps, options, query)
               if graph and intent.entry and weights.entry_points > 0
               and options.uses("entry-points") else {})
    keys = [i for i in dict.fromkeys(i for i, _ in vec + txt) if i in details]
    beside = (beside_candidates(conn, apps, query, vector, details, signals, keys, options,
                                NEIGHBOUR_GAP)
              if graph and signals is not None and vector is not None and weights.neighbours
              and options.uses("neighbours") else {})
    joined = {c.id: c for c in [*(d.candidate for d in defined.values()),
                                *(d.candidate for d in typed.values()),
                                *(d.candidate for ds in referenced.values() for d in ds),
                                *entries.values()] if c.id not in details}
    joined_base = (joined_scores(conn, apps, query, vector, signals, keys, joined)
                   if graph and signals is not None and vector is not None else {})
    ranked = rank_candidates(options.mode, vec, txt, details, query, options, signals,
                             defined, intent, typed, entries, beside, referenced,
                             joined_base)
    per_file = (weights.per_file if options.per_file is None else options.per_file) \
        if graph and options.uses("diversity") else 0
    top = select(ranked, limit=options.top_k, per_file=per_file)
    if "calls" in options.expand:
        top = top + expand_calls(conn, apps, top)
    return [hit_dict(c) for c in top]


def encode_queries(embedder: Embedder | None, queries: Sequence[str],
                   options: SearchOptions) -> list[np.ndarray | None]:
    """One vector per query (one batched encode), or Nones when the mode needs none."""
    if not get_mode(options.mode).needs_vectors:
        return [None] * len(queries)
    if embedder is None:
        raise ValueError(f"mode {options.mode!r} needs an embedder")
    if not queries:
        return []
    return list(embedder.encode(list(queries)))


def _start(scope: AppScope, queries: Sequence[str], options: SearchOptions,
           model: str | None
           ) -> tuple[dict[int, str], dict[str, str | None], list[list[tuple[int, float]]],
                      VectorScan]:
    """The applications (as they are now: one deleted since the scope was resolved is
    refused), the model check when ``model`` names the query encoder, the indexed
    commits, each query's BM25 list (empty lists when the mode reads none) and how to
    read the vector lists."""
    if not scope.apps:
        raise InvalidInput("at least one --app is required")
    with scope.engine.connect() as conn:
        store.reuse_plans(conn)
        found = searched_apps(conn, scope.app_names)
        apps = {a.id: a.name for a in found}
        if model is not None:  # never compare two models' vectors
            require_model(conn, apps, model, {a.id: a.embed_model for a in found})
        # what the hits come from: each application's indexed commit (repository runs)
        commits = {a.name: a.indexed_commit for a in found}
        mode = get_mode(options.mode)
        scan = (vector_scan(store.searched_share(conn, list(apps)), options)
                if mode.needs_vectors else VectorScan(ef_search_for(options)))
        if not mode.needs_text:
            return apps, commits, [[] for _ in queries], scan
        return (apps, commits, [text_candidates(conn, list(apps), q, options) for q in queries],
                scan)


def search_many(scope: AppScope, queries: Sequence[str], options: SearchOptions,
                embedder: Embedder | None = None,
                vectors: Sequence[np.ndarray | None] | None = None) -> list[SearchResult]:
    """Run many queries with one model call for all embeddings.

    While the model encodes the queries, a second connection reads the applications'
    state and fetches the BM25 lists (the database and the model then use both cores). Then
    each hybrid query is one statement (the vector list, every candidate's row and its
    signals) before the fusion; the other modes read their list and the candidates.
    ``vectors`` (one per query) skips encoding, e.g. when hit-test runs several modes.
    """
    validate(options)
    t0 = time.perf_counter()
    needs_vectors = get_mode(options.mode).needs_vectors
    model = embedder.name if needs_vectors and embedder is not None else None
    with ThreadPoolExecutor(max_workers=1) as pool:
        start = pool.submit(_start, scope, queries, options, model)
        t1 = time.perf_counter()
        if vectors is None:
            vectors = encode_queries(embedder, queries, options)
        embed_ms = (time.perf_counter() - t1) * 1000 / max(len(queries), 1)
        apps, commits, text_lists, scan = start.result()
    results = []
    with scope.engine.begin() as conn:
        store.reuse_plans(conn, scan.ef if needs_vectors else None)
        for query, vector, txt in zip(queries, vectors, text_lists, strict=True):
            hits = _search_one(conn, apps, query, vector, txt, options, scan)
            results.append(SearchResult(query, options.mode, hits,
                                        indexed_commits=commits))
    total_ms = (time.perf_counter() - t0) * 1000 / max(len(queries), 1)
    for result in results:
        # Per query, averaged over the batch (the parts overlap, so they do not add up).
        result.timing = {"embed_ms": round(embed_ms, 2), "total_ms": round(total_ms, 2)}
    return results


def search(scope: AppScope, query: str, options: SearchOptions | None = None,
           embedder: Embedder | None = None) -> SearchResult:
    """Search the chunks of the scope's applications (several only when asked for)."""
    return search_many(scope, [query], options or SearchOptions(), embedder)[0]
