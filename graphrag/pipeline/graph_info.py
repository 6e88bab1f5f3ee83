"""Batch reads of the graph around a batch's nodes: edges both ways, and child members.

Shared by summarize (names of callees and callers) and link-edges (the Markdown and the
refreshed relations); one query per batch (:func:`graphrag.graph.store.neighbours`), never
one per chunk.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from graphrag.graph.store import Neighbour, members, neighbours


@dataclass
class Neighbours:
    """Edges leaving (``out``) and entering (``in_``) one node, by edge kind."""

    out: dict[str, list[Neighbour]]
    in_: dict[str, list[Neighbour]]

    def outgoing(self, kind: str) -> list[Neighbour]:
        return self.out.get(kind, [])

    def incoming(self, kind: str) -> list[Neighbour]:
        return self.in_.get(kind, [])


def load_neighbours(conn: Connection, node_ids: Iterable[int], kinds: Iterable[str]
                    ) -> dict[int, Neighbours]:
    """Neighbours of every node in ``node_ids`` over edges of the given kinds."""
    ids = sorted(set(node_ids))
    if not ids:
        return {}
    out: dict[int, dict[str, list[Neighbour]]] = defaultdict(lambda: defaultdict(list))
    in_: dict[int, dict[str, list[Neighbour]]] = defaultdict(lambda: defaultdict(list))
    for n in neighbours(conn, ids, kinds=list(kinds)):
        (out if n.outgoing else in_)[n.this_id][n.edge_kind].append(n)
    return {
        i: Neighbours(out=dict(out.get(i, {})), in_=dict(in_.get(i, {}))) for i in ids
    }


def load_members(conn: Connection, parent_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """Child nodes (members) of each parent, in source order."""
    ids = sorted(set(parent_ids))
    if not ids:
        return {}
    found: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in members(conn, ids):
        found[r["parent_id"]].append(r)
    return dict(found)
