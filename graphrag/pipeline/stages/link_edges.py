"""link-edges: the chunk's neighbourhood in the graph, as Markdown and as relations.

- ``uses_md``: what the node calls (``- `fqn` (path:line)``), and for classes what they
  extend and implement;
- ``used_by_md``: what calls the node, and for classes/interfaces their subclasses and
  implementors; the document pages/sections that mention it;
- pages and sections list the code they mention in ``uses_md``;
- ``relations``: refreshed from the current CALLS edges
  (``{"kind": "CALLS", "dst_node_id": n, "confidence": c}``, ordered by node id), so a
  chunk reflects the graph as it is now even when its plan was not rebuilt;
- ``used_objects``: the called nodes (``{"node_id", "fqn", "kind"}``).

Every list comes from two queries per batch (edges out, edges in).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphrag.kinds import CHUNK_TARGETS, LINK_EDGES
from graphrag.pipeline.graph_info import Neighbour, Neighbours, load_neighbours
from graphrag.pipeline.model import Stage, StageContext, WorkItem

EDGE_KINDS = ("CALLS", "EXTENDS", "IMPLEMENTS", "MENTIONS")
MAX_LISTED = 50


def bullet(n: Neighbour) -> str:
    where = n.location
    return f"- `{n.label}`" + (f" ({where})" if where else "")


def section(heading: str, neighbours: list[Neighbour]) -> str | None:
    if not neighbours:
        return None
    unique = list({n.node_id: n for n in neighbours}.values())
    lines = [bullet(n) for n in unique[:MAX_LISTED]]
    if len(unique) > MAX_LISTED:
        lines.append(f"- ... and {len(unique) - MAX_LISTED} more")
    return f"**{heading}**\n\n" + "\n".join(lines)


def _join(sections: list[str | None]) -> str | None:
    present = [s for s in sections if s]
    return "\n\n".join(present) if present else None


def uses_markdown(nb: Neighbours) -> str | None:
    return _join([section("Calls", nb.outgoing("CALLS")),
                  section("Extends", nb.outgoing("EXTENDS")),
                  section("Implements", nb.outgoing("IMPLEMENTS")),
                  section("Mentions", nb.outgoing("MENTIONS"))])


def used_by_markdown(nb: Neighbours) -> str | None:
    return _join([section("Called by", nb.incoming("CALLS")),
                  section("Subclasses", nb.incoming("EXTENDS")),
                  section("Implemented by", nb.incoming("IMPLEMENTS")),
                  section("Mentioned in", nb.incoming("MENTIONS"))])


def relations_of(nb: Neighbours) -> list[dict[str, Any]]:
    best: dict[int, float] = {}
    for n in nb.outgoing("CALLS"):
        best[n.node_id] = max(best.get(n.node_id, 0.0), n.confidence)
    return [{"kind": "CALLS", "dst_node_id": node_id, "confidence": round(conf, 4)}
            for node_id, conf in sorted(best.items())]


class LinkEdgesStage(Stage):
    name = LINK_EDGES
    applies_to = frozenset(CHUNK_TARGETS)
    reads_edges = True

    def prepare(self, items: Sequence[WorkItem], ctx: StageContext) -> dict[int, Neighbours]:
        with ctx.engine.connect() as conn:
            return load_neighbours(conn, [i.node.id for i in items], EDGE_KINDS)

    def process(self, item: WorkItem, prepared: dict[int, Neighbours], ctx: StageContext
                ) -> None:
        nb = prepared.get(item.node.id) or Neighbours(out={}, in_={})
        item.set("uses_md", uses_markdown(nb))
        item.set("used_by_md", used_by_markdown(nb))
        item.set("relations", relations_of(nb))
        item.set("used_objects", [
            {"node_id": n.node_id, "fqn": n.fqn, "kind": n.kind}
            for n in {n.node_id: n for n in nb.outgoing("CALLS")}.values()
        ])
