"""``--expand calls``: add the callers and callees of the top hits.

Each added hit says why it is there (``added_by``: the relation, the hit's node and
fqn) and scores half of the hit that brought it, so expansions sort after the ranked
hits they belong to. Per node the best chunk is shown: code before documentation,
then the first chunk index.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection

from graphrag.graph.store import neighbours
from graphrag.retrieval.search import store
from graphrag.retrieval.search.model import Candidate
from graphrag.retrieval.search.rows import candidate_from_row

EXPAND_FROM = 5  # top hits whose neighbours are added
EXPAND_PER_HIT = 5  # callers + callees added per hit
EXPANSION_DECAY = 0.5

def neighbour_rows(conn: Connection, app_ids: list[int],
                   node_ids: list[int]) -> list[tuple[int, int, str, float]]:
    """(from node, neighbour node, 'caller'|'callee', confidence) over CALLS edges."""
    rows = neighbours(conn, node_ids, kinds=["CALLS"], app_ids=app_ids, far=False)
    return sorted(((n.this_id, n.node_id, "callee" if n.outgoing else "caller", n.confidence)
                   for n in rows), key=lambda r: (r[0], -r[3], r[2], r[1]))


def plan_expansion(top: Sequence[Candidate], neighbours: Sequence[tuple[int, int, str, float]],
                   per_hit: int = EXPAND_PER_HIT) -> list[tuple[Candidate, int, str]]:
    """Which (hit, neighbour node, relation) to add: nodes not already shown, each once,
    in hit order, at most ``per_hit`` per hit (pure)."""
    shown = {c.node_id for c in top}
    by_hit: dict[int, list[tuple[int, str]]] = {}
    for from_id, node_id, relation, _ in neighbours:
        by_hit.setdefault(from_id, []).append((node_id, relation))
    plan: list[tuple[Candidate, int, str]] = []
    for hit in top:
        added = 0
        for node_id, relation in by_hit.get(hit.node_id, []):
            if node_id in shown or added >= per_hit:
                continue
            shown.add(node_id)
            plan.append((hit, node_id, relation))
            added += 1
    return plan


def expand_calls(conn: Connection, apps: dict[int, str],
                 top: Sequence[Candidate]) -> list[Candidate]:
    """Callers and callees of the first hits, as extra candidates marked ``added_by``."""
    seeds = list(top[:EXPAND_FROM])
    if not seeds:
        return []
    app_ids = list(apps)
    plan = plan_expansion(seeds, neighbour_rows(conn, app_ids, [c.node_id for c in seeds]))
    if not plan:
        return []
    rows = store.best_chunk_rows(conn, app_ids, [node for _, node, _ in plan])
    best = {r.node_id: candidate_from_row(r, apps) for r in rows}
    out = []
    for hit, node_id, relation in plan:
        cand = best.get(node_id)
        if cand is None:  # a node without chunks (e.g. not chunked yet) adds nothing
            continue
        cand.score = hit.score * EXPANSION_DECAY
        cand.added_by = {"expand": "calls", "relation": relation, "node_id": hit.node_id,
                         "fqn": hit.fqn, "chunk_id": hit.plan_id}
        out.append(cand)
    return out
