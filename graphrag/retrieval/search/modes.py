"""The registry of search modes: what each mode needs (a query vector, the BM25 list,
candidate signals) and how it scores the candidates of both lists.

:func:`graphrag.retrieval.search.engine.search_many` fetches the lists a mode asks for, then
calls its :attr:`SearchMode.rank`; the priors, dedup and ``top_k`` after it are shared.
Built-ins are registered the way a plugin registers its own, through the
``graphrag.search_modes`` entry point group (:mod:`graphrag.plugins`)::

    def register_modes(register):
        register("vector-only-long", SearchMode("vector-only-long", rank=..., ...))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphrag.plugins import SEARCH_MODES_GROUP, Registry
from graphrag.retrieval.search.fusion import pagerank_factor, rrf, score_fusion
from graphrag.retrieval.search.model import Candidate, CandidateSignals

Scored = list[tuple[int, float]]
# (vector list, text list, candidate details, candidate signals) -> (chunk id, score),
# best first; lists are (chunk id, score) best first; signals are None unless the mode
# needs them
Ranker = Callable[[Scored, Scored, dict[int, Candidate], CandidateSignals | None], Scored]


@dataclass(frozen=True)
class SearchMode:
    """One way of ranking chunks for a query."""

    name: str
    rank: Ranker
    needs_vectors: bool = False   # encode the query; fetch the nearest chunks (pgvector)
    needs_text: bool = False      # fetch the BM25 list (:mod:`graphrag.retrieval.search.bm25`)
    needs_signals: bool = False   # every candidate's signals (search/signals.py)
    # the ranking of the graph and the file tree after the mode's scores: definitions of
    # named symbols, path words, neighbours, file coherence, per-file diversity
    # (search/boosts.py)
    ranks_with_graph: bool = False
    description: str = ""


def _vector(vec: Scored, txt: Scored, details: dict[int, Candidate],
            signals: CandidateSignals | None) -> Scored:
    return vec


def _text(vec: Scored, txt: Scored, details: dict[int, Candidate],
          signals: CandidateSignals | None) -> Scored:
    return txt


def _hybrid(vec: Scored, txt: Scored, details: dict[int, Candidate],
            signals: CandidateSignals | None) -> Scored:
    """The candidates' scaled signals fused, with the PageRank boost; reciprocal rank
    fusion of the two lists when there are no signals (:mod:`graphrag.retrieval.search.fusion`)."""
    if signals is not None:
        keys = [i for i in dict.fromkeys([i for i, _ in vec + txt]) if i in details]
        fused = score_fusion(keys, signals.similarity, signals.bm25, signals.title_sim,
                             signals.name_match, signals.profile)
    else:
        fused = rrf([[i for i, _ in vec], [i for i, _ in txt]])
    return [(i, s * pagerank_factor(details[i].rank_boost))
            for i, s in fused.items() if i in details]


def _builtins(register: Callable[[str, SearchMode], SearchMode]) -> None:
    # Order is the display order of `--mode` and hit-test.
    register("hybrid", SearchMode("hybrid", _hybrid, needs_vectors=True, needs_text=True,
                                  needs_signals=True, ranks_with_graph=True,
                                  description="vector, BM25, title and name signals fused"))
    register("vector", SearchMode("vector", _vector, needs_vectors=True,
                                  description="cosine similarity of the query embedding"))
    register("text", SearchMode("text", _text, needs_text=True,
                                description="BM25 over the chunks' full text"))


_MODES: Registry[SearchMode] = Registry("search mode", SEARCH_MODES_GROUP, _builtins)


def register_mode(mode: SearchMode) -> SearchMode:
    """Add (or replace) a search mode under its name."""
    return _MODES.register(mode.name, mode)


def get_mode(name: str) -> SearchMode:
    """The mode called ``name``; :class:`~graphrag.errors.UnknownName` lists the valid ones."""
    return _MODES.get(name)


def mode_names() -> list[str]:
    """Registered modes, built-ins first."""
    return _MODES.names()


def modes() -> Registry[SearchMode]:
    """The registry itself (``reload()`` after installing a plugin in this process)."""
    return _MODES
