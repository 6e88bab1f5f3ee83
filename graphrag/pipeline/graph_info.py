"""Batch reads of the graph around a batch's nodes: edges both ways, and child members.

Shared by summarize (names of callees and callers) and link-edges (the Markdown and the
refreshed relations); one query per direction per batch, never one per chunk.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text


@dataclass(frozen=True)
class Neighbour:
    """The node at the other end of an edge."""

    edge_kind: str
    node_id: int
    kind: str
    name: str | None
    fqn: str | None
    file_path: str | None
    line_start: int | None
    confidence: float
    lines: tuple[int, ...]

    @property
    def label(self) -> str:
        return self.fqn or self.name or f"node {self.node_id}"

    @property
    def location(self) -> str | None:
        if not self.file_path:
            return None
        return f"{self.file_path}:{self.line_start}" if self.line_start else self.file_path


@dataclass
class Neighbours:
    """Edges leaving (``out``) and entering (``in_``) one node, by edge kind."""

    out: dict[str, list[Neighbour]]
    in_: dict[str, list[Neighbour]]

    def outgoing(self, kind: str) -> list[Neighbour]:
        return self.out.get(kind, [])

    def incoming(self, kind: str) -> list[Neighbour]:
        return self.in_.get(kind, [])


_EDGE_SQL = """
SELECT e.{this} AS this_id, e.kind AS edge_kind, o.id AS node_id, o.kind, o.name, o.fqn,
       o.file_path, o.line_start, e.confidence, e.lines
  FROM edges e JOIN nodes o ON o.id = e.{other}
 WHERE e.{this} = ANY(:ids) AND e.kind = ANY(:kinds)
 ORDER BY e.{this}, e.kind, o.fqn, o.id
"""


def _edges(conn: Connection, ids: list[int], kinds: list[str], *, outgoing: bool
           ) -> dict[int, dict[str, list[Neighbour]]]:
    this, other = ("src_id", "dst_id") if outgoing else ("dst_id", "src_id")
    rows = conn.execute(
        text(_EDGE_SQL.format(this=this, other=other)), {"ids": ids, "kinds": kinds}
    ).mappings()
    found: dict[int, dict[str, list[Neighbour]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        found[r["this_id"]][r["edge_kind"]].append(Neighbour(
            edge_kind=r["edge_kind"], node_id=r["node_id"], kind=r["kind"], name=r["name"],
            fqn=r["fqn"], file_path=r["file_path"], line_start=r["line_start"],
            confidence=float(r["confidence"]), lines=tuple(r["lines"] or ()),
        ))
    return found


def load_neighbours(conn: Connection, node_ids: Iterable[int], kinds: Iterable[str]
                    ) -> dict[int, Neighbours]:
    """Neighbours of every node in ``node_ids`` over edges of the given kinds."""
    ids, kind_list = sorted(set(node_ids)), list(kinds)
    if not ids:
        return {}
    out = _edges(conn, ids, kind_list, outgoing=True)
    in_ = _edges(conn, ids, kind_list, outgoing=False)
    return {
        i: Neighbours(out=dict(out.get(i, {})), in_=dict(in_.get(i, {}))) for i in ids
    }


def load_members(conn: Connection, parent_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """Child nodes (members) of each parent, in source order."""
    ids = sorted(set(parent_ids))
    if not ids:
        return {}
    rows = conn.execute(
        text(
            "SELECT parent_id, id, kind, name, fqn, signature, line_start FROM nodes"
            " WHERE parent_id = ANY(:ids) ORDER BY parent_id, line_start NULLS LAST, id"
        ),
        {"ids": ids},
    ).mappings()
    members: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        members[r["parent_id"]].append(dict(r))
    return dict(members)
