"""Context for documentation generators and agents: a node (or a query's best hits), its
graph neighbourhood ranked by personalized PageRank, packed into a token budget.

Steps, each a function: seeds (fqn lookup or a hybrid search) -> neighbourhood graph
from the stored edges up to ``depth`` hops -> :func:`ranking.rank` -> one block per
chunk of the ranked nodes (doc before code; seeds also carry uses/used-by) ->
:func:`ranking.pack` -> render; the rendered text is counted again and trailing blocks
dropped until it fits, so the budget holds in every format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
from sqlalchemy import Connection, Engine, text

from graphrag.db.apps import get_app
from graphrag.embedding import Embedder
from graphrag.errors import InvalidInput, NotFound, UnknownName
from graphrag.retrieval.model import SearchOptions
from graphrag.retrieval.ranking import EDGE_WEIGHTS, Block, pack, rank
from graphrag.retrieval.render import FORMATS, render, render_block
from graphrag.retrieval.search import search
from graphrag.retrieval.segments import segment_ids

MAX_NODES = 400  # neighbourhood size cap: ranks stay fast and stable on hub-heavy graphs
QUERY_SEEDS = 5
# The walk does not continue through containers: a FILE or PACKAGE node links to
# everything inside it and would flood the neighbourhood with unrelated symbols.
HUB_KINDS = ("REPOSITORY", "FILE", "MODULE", "PACKAGE", "DOCUMENT")

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

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "tokens": self.tokens, "budget": self.budget,
                "seeds": self.seeds, "segments": [b.seg for b in self.blocks],
                "context": self.text}


def seeds_for_fqn(conn: Connection, app_id: int, fqn: str) -> dict[int, float]:
    """Nodes with this fqn; else the overloads it names (``a.B.parse`` ->
    ``a.B.parse(String)``, ...); else nodes whose fqn ends with it."""
    rows = conn.execute(text("SELECT id FROM nodes WHERE application_id = :a AND fqn = :f"
                             " ORDER BY id"), {"a": app_id, "f": fqn}).scalars().all()
    if not rows:
        rows = conn.execute(text(
            "SELECT id FROM nodes WHERE application_id = :a AND fqn LIKE :p ORDER BY id"
            " LIMIT 20"), {"a": app_id, "p": _like(fqn) + "(%)"}).scalars().all()
    if not rows:
        rows = conn.execute(text(
            "SELECT id FROM nodes WHERE application_id = :a AND (fqn LIKE :s1 OR fqn LIKE :s2)"
            " ORDER BY id LIMIT 20"),
            {"a": app_id, "s1": "%." + _like(fqn), "s2": "%:" + _like(fqn)}).scalars().all()
    if not rows:
        raise NotFound(f"no node with fqn {fqn!r} in this application")
    return {int(r): 1.0 for r in rows}


def _like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def seeds_for_query(engine: Engine, app: str, query: str,
                    embedder: Embedder | None) -> dict[int, float]:
    """The nodes of the best hybrid hits, weighted by their score."""
    result = search(engine, [app], query, SearchOptions(top_k=QUERY_SEEDS), embedder)
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
    kinds = list(EDGE_WEIGHTS)
    for _ in range(depth):
        if not frontier or graph.number_of_nodes() >= max_nodes:
            break
        rows = conn.execute(text(
            "SELECT e.src_id, e.dst_id, e.kind, e.confidence, s.kind AS sk, d.kind AS dk"
            "  FROM edges e JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id"
            " WHERE e.application_id = :a AND e.kind = ANY(:k)"
            "   AND (e.src_id = ANY(:f) OR e.dst_id = ANY(:f))"
            " ORDER BY e.src_id, e.dst_id, e.kind"),
            {"a": app_id, "k": kinds, "f": sorted(frontier)}).all()
        next_frontier: set[int] = set()
        for r in rows:
            new = [(n, k) for n, k in ((r.src_id, r.sk), (r.dst_id, r.dk)) if n not in graph]
            if graph.number_of_nodes() + len(new) > max_nodes:
                continue
            weight = EDGE_WEIGHTS[r.kind] * float(r.confidence)
            graph.add_edge(r.src_id, r.dst_id, weight=weight, kind=r.kind)
            next_frontier.update(n for n, k in new if k not in HUB_KINDS)
        frontier = next_frontier
    return graph


_CHUNKS_SQL = """
    SELECT c.id, c.plan_id, c.node_id, c.source, c.content, c.explain_md, c.uses_md, c.used_by_md,
           lower(c.span_lines) AS span_start, upper(c.span_lines) - 1 AS span_end,
           COALESCE(c.page_number, n.page_number) AS page_number,
           n.fqn, n.kind, n.file_path, n.line_start, n.line_end
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.application_id = :a AND c.node_id = ANY(:nodes)
     ORDER BY c.node_id, (c.source = 'doc') DESC, c.chunk_index, c.plan_id
"""


def block_text(row: Any, seed: bool) -> str:
    """Summary, then the chunk text; the relation lists only for seeds (budget)."""
    parts = []
    if row.explain_md and row.source == "code":
        parts.append(f"Summary: {row.explain_md.strip()}")
    parts.append(row.content or "")
    if seed:
        parts += [md for md in (row.uses_md, row.used_by_md) if md]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def load_blocks(conn: Connection, app_id: int, ranked: Sequence[tuple[int, float]],
                seeds: Sequence[int]) -> list[Block]:
    """One block per chunk of the ranked nodes, in rank order (doc, then code)."""
    by_node: dict[int, list[Any]] = {}
    rows = conn.execute(text(_CHUNKS_SQL),
                        {"a": app_id, "nodes": [n for n, _ in ranked]}).all()
    for r in rows:
        by_node.setdefault(r.node_id, []).append(r)
    # Document chunks are cited by segment id {document_id}:{segment_index} (seed 004);
    # code chunks by their plan id. Both are stable across re-indexing.
    segments = segment_ids(conn, [r.id for r in rows])
    blocks = []
    for node_id, score in ranked:
        for r in by_node.get(node_id, []):
            has_span = r.span_start is not None
            blocks.append(Block(
                seg=segments.get(r.id, r.plan_id), node_id=node_id, fqn=r.fqn, kind=r.kind,
                file_path=r.file_path,
                line_start=r.span_start if has_span else r.line_start,
                line_end=r.span_end if has_span else r.line_end,
                page_number=r.page_number, source=r.source,
                text=block_text(r, node_id in seeds), score=score, seed=node_id in seeds))
    return [b for b in blocks if b.text]


def fit(blocks: Sequence[Block], budget: int, fmt: str, title: str,
        count_tokens: CountTokens) -> tuple[str, list[Block], int]:
    """Pack blocks, render, and drop trailing blocks while the whole text is over budget."""
    overhead = count_tokens(render(fmt, [], title))
    packed = pack(blocks, budget, lambda b: count_tokens(render_block(fmt, b)), overhead)
    while True:
        rendered = render(fmt, packed, title)
        tokens = count_tokens(rendered)
        if tokens <= budget or not packed:
            return rendered, packed, tokens
        packed = packed[:-1]


def build_context(engine: Engine, app: str, *, fqn: str | None = None,
                  query: str | None = None, budget: int = 4000, depth: int = 2,
                  fmt: str = "markdown", count_tokens: CountTokens,
                  embedder: Embedder | None = None) -> Context:
    """Context around ``fqn`` (or the best hits of ``query``) within ``budget`` tokens."""
    if fmt not in FORMATS:
        raise UnknownName("context format", fmt, FORMATS)
    if (fqn is None) == (query is None):
        raise InvalidInput("give either an FQN or --query")
    if budget < 1 or depth < 0:
        raise InvalidInput("--budget-tokens must be positive and --depth not negative")
    with engine.connect() as conn:
        app_id = get_app(conn, app).id
        seeds = seeds_for_fqn(conn, app_id, fqn) if fqn is not None else {}
    if query is not None:
        seeds = seeds_for_query(engine, app, query, embedder)
    with engine.connect() as conn:
        graph = load_neighbourhood(conn, app_id, list(seeds), depth)
        ranked = [(int(n), s) for n, s in rank(graph, seeds)]
        blocks = load_blocks(conn, app_id, ranked, list(seeds))
    title = fqn if fqn is not None else (query or "")
    rendered, packed, tokens = fit(blocks, budget, fmt, title, count_tokens)
    return Context(rendered, fmt, sorted(seeds), packed, tokens, budget)

