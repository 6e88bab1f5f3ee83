"""Context for documentation generators and agents: a node (or a query's best hits), its
graph neighbourhood ranked by personalized PageRank, packed into a token budget.

Steps, each a function: seeds (name lookup, :mod:`graphrag.graph.lookup`, or a hybrid
search) -> neighbourhood graph from the stored edges up to ``depth`` hops ->
:func:`ranking.rank` -> :func:`near_first` (what documents a seed directly, tests and
examples out) -> one block per member (:mod:`graphrag.retrieval.context.assemble`: whole
implementations, relation lists once) -> :func:`ranking.pack` -> render.

The block set is chosen once for all formats: a block costs what its largest rendering
costs, and the rendered Markdown, XML and JSON are each counted again, trailing blocks
dropped until all fit. So ``--format`` changes the layout, never the content, and the
budget holds in every format. What the budget left out is named at the end with its id.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
from sqlalchemy import Connection

from graphrag.db.context import AppContext
from graphrag.embedding import Embedder
from graphrag.errors import InvalidInput, UnknownName
from graphrag.graph.dispatch import call_neighbours
from graphrag.graph.lookup import resolve_name
from graphrag.graph.store import neighbours, nodes_by_id
from graphrag.retrieval.context.assemble import HUB_KINDS, build_blocks, test_or_example
from graphrag.retrieval.context.ranking import EDGE_WEIGHTS, Block, pack, rank
from graphrag.retrieval.context.render import FORMATS, LeftOut, render, render_block
from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions

MAX_NODES = 400  # neighbourhood size cap: ranks stay fast and stable on hub-heavy graphs
QUERY_SEEDS = 5
MAX_LEFT_OUT_LISTED = 5  # left-out blocks named one by one; the rest counted
# The walk does not continue through containers (HUB_KINDS): a FILE or PACKAGE node
# links to everything inside it and would flood the neighbourhood with unrelated symbols.

CountTokens = Callable[[str], int]


@dataclass
class Context:
    """A rendered context and what went into it."""

    text: str
    format: str
    seeds: list[int]
    blocks: list[Block]
    tokens: int
    budget: int
    left_out: list[LeftOut] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "tokens": self.tokens, "budget": self.budget,
                "seeds": self.seeds, "segments": [b.seg for b in self.blocks],
                "left_out": [lo.to_dict() for lo in self.left_out],
                "context": self.text}


def seeds_for_fqn(conn: Connection, app_id: int, fqn: str) -> dict[int, float]:
    """The nodes a name means (:func:`graphrag.graph.lookup.resolve_name`: exact fqn,
    overloads, re-exports, a unique suffix; else an error with the closest names)."""
    return {node_id: 1.0 for node_id in resolve_name(conn, app_id, fqn)}


def seeds_for_query(ctx: AppContext, query: str, embedder: Embedder | None
                    ) -> dict[int, float]:
    """The nodes of the best hybrid hits, weighted by their score."""
    result = search(ctx.scope(), query, SearchOptions(top_k=QUERY_SEEDS), embedder)
    seeds: dict[int, float] = {}
    for hit in result.hits:
        seeds.setdefault(int(hit["node_id"]), float(hit["score"]))
    if not seeds:
        raise InvalidInput(f"no chunk matches the query {query!r}")
    return seeds


def load_neighbourhood(conn: Connection, app_id: int, seeds: Sequence[int], depth: int,
                       max_nodes: int = MAX_NODES) -> nx.DiGraph:
    """The stored graph around the seeds, ``depth`` hops in both directions."""
    graph = nx.DiGraph()
    graph.add_nodes_from(seeds)
    frontier = set(seeds)
    kinds = [k for k in EDGE_WEIGHTS if k != "CALLS"]
    for _ in range(depth):
        if not frontier or graph.number_of_nodes() >= max_nodes:
            break
        # Every edge once (an edge between two frontier nodes is seen from both ends), in
        # (source, target, kind) order. The frontier's own nodes are in the graph already:
        # only the far end of an edge can be new. Calls include those through dispatch
        # (a caller of the base method calls the override too).
        found = neighbours(conn, frontier, kinds=kinds, app_ids=[app_id]) + \
            call_neighbours(conn, frontier, app_ids=[app_id])
        edges = {(n.src_id, n.dst_id, n.edge_kind): n for n in found}
        next_frontier: set[int] = set()
        for r in sorted(edges.values(), key=lambda n: (n.src_id, n.dst_id, n.edge_kind)):
            new = [(r.node_id, r.kind)] if r.node_id not in graph else []
            if graph.number_of_nodes() + len(new) > max_nodes:
                continue
            weight = EDGE_WEIGHTS[r.edge_kind] * r.confidence
            graph.add_edge(r.src_id, r.dst_id, weight=weight, kind=r.edge_kind)
            next_frontier.update(n for n, k in new if k not in HUB_KINDS)
        frontier = next_frontier
    return graph


def near_first(conn: Connection, graph: nx.DiGraph, ranked: Sequence[tuple[int, float]],
               seeds: set[int], with_tests: bool = False) -> list[tuple[int, float]]:
    """The ranked nodes with what documents a seed directly first: the seeds, then their
    direct callers and callees, the classes they construct and the methods they override
    (the most particular to the seed first: rank over global PageRank), then the rest
    in rank order (a busy node two calls away ranks high but says less). Nodes in tests
    and examples are left out (the relation lists count them) unless ``with_tests``."""
    near: set[int] = set()
    constructors: list[int] = []
    # a seed's nested functions are shown inside it: their calls are the seed's
    own = set(seeds) | {dst for seed in seeds if seed in graph
                        for _, dst, kind in graph.out_edges(seed, data="kind")
                        if kind == "CONTAINS"}
    for seed in own:
        if seed not in graph:
            continue
        for _, dst, data in graph.out_edges(seed, data=True):
            if data.get("kind") in ("CALLS", "OVERRIDES"):
                near.add(dst)
                if data.get("kind") == "CALLS":
                    constructors.append(dst)
        for src, _, data in graph.in_edges(seed, data=True):
            if data.get("kind") == "CALLS" and seed in seeds:
                near.add(src)
    rows = {r["id"]: r for r in nodes_by_id(conn, sorted({n for n, _ in ranked} | near))}
    # `Option(...)` calls Option's constructor: the class is what it makes
    made = {rows[c]["parent_id"] for c in constructors
            if c in rows and rows[c]["kind"] == "CONSTRUCTOR" and rows[c]["parent_id"]}
    near |= made
    score = dict(ranked)
    extra = [(n, 0.0) for n in sorted(made) if n not in score]

    def shown(node: int) -> bool:
        row = rows.get(node)
        return node in seeds or with_tests or row is None or not test_or_example(
            row["file_path"])

    def specific(item: tuple[int, float]) -> tuple[float, int]:
        # among the direct neighbours, the ones particular to the seed first: the score
        # over the node's global PageRank (a helper everything calls, like `echo`, last)
        row = rows.get(item[0])
        busy = max(float(row["rank"] or 0.0), 1.0) if row is not None else 1.0
        return (-item[1] / busy, item[0])

    every = [(n, s) for n, s in [*ranked, *extra] if shown(n)]
    return ([(n, s) for n, s in every if n in seeds]
            + sorted(((n, s) for n, s in every if n in near and n not in seeds), key=specific)
            + [(n, s) for n, s in every if n not in near and n not in seeds])


def left_out(ranked: Sequence[Block], packed: Sequence[Block]) -> list[LeftOut]:
    """What the budget cost: seeds' blocks shortened or dropped, one by one, then up to
    :data:`MAX_LEFT_OUT_LISTED` other dropped blocks, the rest as one count (neighbours
    shown in brief are not listed: they are there)."""
    taken = {b.seg: b for b in packed}
    out: list[LeftOut] = []
    others: list[Block] = []
    for b in ranked:
        got = taken.get(b.seg)
        if got is not None and not got.shortened:
            continue
        if b.seed:
            out.append(LeftOut(b.seg, b.fqn, "code" if got is not None else "block"))
        elif got is None:  # a neighbour in brief is shown, just without its code
            others.append(b)
    for b in others[:MAX_LEFT_OUT_LISTED]:
        out.append(LeftOut(b.seg, b.fqn, "block"))
    if len(others) > MAX_LEFT_OUT_LISTED:
        out.append(LeftOut(None, None, "more", len(others) - MAX_LEFT_OUT_LISTED))
    return out


def fit(blocks: Sequence[Block], budget: int, fmt: str, title: str,
        count_tokens: CountTokens) -> tuple[str, list[Block], int, list[LeftOut]]:
    """Pack blocks by their costliest rendering, then drop trailing blocks while any
    format's whole text (with the closing note of what was left out) is over budget;
    the same blocks in every format."""
    def cost(block: Block) -> int:
        return max(count_tokens(render_block(f, block)) for f in FORMATS)

    overhead = max(count_tokens(render(f, [], title)) for f in FORMATS)
    packed = pack(blocks, budget, cost, overhead)
    while True:
        full = left_out(blocks, packed)
        for notes in (full, brief(full)):  # the note shrinks before a block goes
            texts = {f: render(f, packed, title, notes) for f in FORMATS}
            counts = {f: count_tokens(t) for f, t in texts.items()}
            if max(counts.values()) <= budget:
                return texts[fmt], packed, counts[fmt], notes
        if not packed:
            text_ = render(fmt, [], title, [])
            return text_, [], count_tokens(text_), []
        packed = packed[:-1]


TITLE_CHARS = 200


def shorten_title(title: str) -> str:
    """The context's title (its fqn or query) cut to :data:`TITLE_CHARS` characters: a
    long query must not spend the budget on repeating itself."""
    return title if len(title) <= TITLE_CHARS else title[:TITLE_CHARS - 3] + "..."


def brief(notes: Sequence[LeftOut]) -> list[LeftOut]:
    """The left-out note with only the seeds named and the rest counted."""
    named = [n for n in notes if n.what != "more"][:1]
    rest = sum(n.count if n.what == "more" else 1 for n in notes) - len(named)
    return named + ([LeftOut(None, None, "more", rest)] if rest else [])


def build_context(ctx: AppContext, *, fqn: str | None = None,
                  query: str | None = None, budget: int = 4000, depth: int = 2,
                  fmt: str = "markdown", count_tokens: CountTokens,
                  embedder: Embedder | None = None, test_callers: bool = False,
                  visible: Collection[str] | None = None) -> Context:
    """Context around ``fqn`` (or the best hits of ``query``) within ``budget`` tokens.

    ``fqn`` is any name :func:`graphrag.graph.lookup.resolve_name` accepts;
    ``test_callers`` lists a seed's callers in tests and examples and shows their code
    (else they are counted). A seed's HTTP links (the endpoints its requests reach, the
    code of other services calling it) are listed from the applications ``visible``
    (None: any)."""
    if fmt not in FORMATS:
        raise UnknownName("context format", fmt, FORMATS)
    if (fqn is None) == (query is None):
        raise InvalidInput("give either an FQN or --query")
    if budget < 1 or depth < 0:
        raise InvalidInput("--budget-tokens must be positive and --depth not negative")
    app_id = ctx.app_id
    if fqn is not None:
        with ctx.engine.connect() as conn:
            seeds = seeds_for_fqn(conn, app_id, fqn)
    else:
        seeds = seeds_for_query(ctx, query or "", embedder)
    with ctx.engine.connect() as conn:
        graph = load_neighbourhood(conn, app_id, list(seeds), depth)
        ranked = [(int(n), s) for n, s in rank(graph, seeds)]
        ranked = near_first(conn, graph, ranked, set(seeds), test_callers)
        blocks = build_blocks(conn, app_id, ranked, list(seeds), test_callers, visible)
    title = shorten_title(fqn if fqn is not None else (query or ""))
    rendered, packed, tokens, notes = fit(blocks, budget, fmt, title, count_tokens)
    return Context(rendered, fmt, sorted(seeds), packed, tokens, budget, notes)

