"""Pure context ranking and packing: ``rank(graph, seeds)`` then
``pack(ranked, budget, count_tokens)``, as aider ranks tags and then fits its budget."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import networkx as nx

PPR_ALPHA = 0.85
# Edge kinds weigh differently in the neighbourhood walk: a call or inheritance says
# more about what a symbol does than being in the same class or file.
EDGE_WEIGHTS = {
    "CALLS": 1.0, "OVERRIDES": 1.0, "EXTENDS": 0.8, "IMPLEMENTS": 0.8,
    "CONTAINS": 0.5, "IMPORTS": 0.3, "MENTIONS": 0.5, "NEXT": 0.3,
}


@dataclass(frozen=True)
class Block:
    """One context block -- a code node as a whole member, or one document chunk --
    carrying its stable segment id."""

    seg: str  # printed as [SEG=...]: a chunk plan id, or a document segment id
    node_id: int
    fqn: str | None
    kind: str
    file_path: str | None
    line_start: int | None
    line_end: int | None
    page_number: int | None
    source: str  # code | doc
    text: str
    score: float = 0.0
    seed: bool = False
    lang: str | None = None
    # What to show when ``text`` does not fit: the block without its code body.
    short: str | None = None
    shortened: bool = False  # this is the short form: ``text`` left the code out
    chunks: tuple[str, ...] = ()  # plan ids of the chunks the block was made of
    # a seed's relation lists as data (``calls``, ``callers``, ... each a list of
    # {fqn, kind, file_path, line_start, via}; ``callers_in_tests`` a count): what the
    # text says in words, for a JSON reader (render.block_json)
    relations: tuple[tuple[str, Any], ...] = ()

    def short_form(self) -> Block | None:
        """The block with its short text, or None when it has none."""
        if self.short is None:
            return None
        return replace(self, text=self.short, short=None, shortened=True)


def rank(graph: nx.Graph, seeds: Mapping[Hashable, float]) -> list[tuple[Hashable, float]]:
    """Nodes of ``graph`` by personalized PageRank from ``seeds`` (node -> weight), best
    first. Seeds always lead, in the order of their weights (a query's best hit first);
    ties are broken by node id so the order is reproducible.

    Direction is ignored: a symbol's callers matter to its documentation as much as its
    callees. Edge attribute ``weight`` is honoured.
    """
    present = {n: float(w) for n, w in seeds.items() if n in graph and w > 0}
    if not present:
        return []
    undirected = nx.Graph()
    undirected.add_nodes_from(graph.nodes)
    for u, v, data in graph.edges(data=True):
        w = float(data.get("weight", 1.0))
        if undirected.has_edge(u, v):
            w = max(w, undirected[u][v]["weight"])
        undirected.add_edge(u, v, weight=w)
    scores = nx.pagerank(undirected, alpha=PPR_ALPHA, personalization=present,
                         weight="weight", tol=1e-10, max_iter=500)
    return sorted(scores.items(),
                  key=lambda kv: (kv[0] not in present, -present.get(kv[0], 0.0), -kv[1],
                                  str(kv[0])))


def pack(ranked: Sequence[Block], budget: int, count_tokens: Callable[[Block], int],
         overhead: int = 0) -> list[Block]:
    """The blocks that fit ``budget`` tokens, taken in rank order; a block too large is
    taken in its short form (without its code body) if that fits, else skipped, and
    smaller later ones may still fit. ``overhead`` is the fixed cost of the surrounding
    format. A block is never cut: it is whole, short, or left out."""
    left = budget - overhead
    packed = []
    for block in ranked:
        if left <= 0:
            break  # nothing more can fit; do not measure the rest
        for variant in (block, block.short_form()):
            if variant is None:
                continue
            cost = count_tokens(variant)
            if cost <= left:
                packed.append(variant)
                left -= cost
                break
    return packed
