"""The data a strategy works on (a node row, its edges) and what it produces (ChunkPlan)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphrag.graph.store import NodeRecord

# The stages each chunk target (``graphrag.kinds.CHUNK_TARGETS``) runs, in order: the
# pipeline's stage registry knows them (``graphrag.pipeline.registry.stage_lists``), and
# a chunk build is given them, since chunking comes before the pipeline.
StageLists = Mapping[str, Sequence[str]]


# The columns of ``nodes`` chunking reads: the one node record of the nodes store.
NodeRow = NodeRecord


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """An outgoing edge of a node (``lines``: call-site lines, may be empty)."""

    src_id: int
    dst_id: int
    kind: str
    confidence: float
    lines: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    """One planned chunk row; the pipeline fills its content later."""

    plan_id: str
    node_id: int
    target: str  # what the plan is for the stages: "code" | "doc" | "page"
    source: str  # "code" | "doc"
    kind: str  # "snippet" | "explanation"
    lang: str | None
    chunk_index: int
    span: tuple[int, int] | None
    title: str | None
    section_path: tuple[str, ...]
    relations: tuple[dict[str, Any], ...]
    pipeline: dict[str, Any]  # params and service; the writer adds the target's stages
    priority: int
    plan_hash: str


def priority_for(node: NodeRow) -> int:
    """The order chunks are filled in: endpoints and methods first, then classes."""
    if node.kind in ("ENDPOINT", "METHOD"):
        return 10
    return 5 if node.kind == "CLASS" else 0


def section_path(node: NodeRow) -> tuple[str, ...]:
    """Package parts followed by the node's name, e.g. ("com", "acme", "UserService")."""
    parts: list[str] = node.package_name.split(".") if node.package_name else []
    if node.name:
        parts.append(node.name)
    return tuple(parts)


def calls_relations(edges: list[EdgeRow], span: tuple[int, int] | None = None,
                    ) -> tuple[dict[str, Any], ...]:
    """Outgoing CALLS edges as relation hints, with each edge's own confidence.

    With ``span``, only edges with a call site inside it (edges without recorded lines are
    kept everywhere), so each part of a split node carries the calls it makes."""
    out = []
    for e in edges:
        if e.kind != "CALLS":
            continue
        if span is not None and e.lines and not any(span[0] <= ln <= span[1] for ln in e.lines):
            continue
        out.append({"kind": "CALLS", "dst_node_id": e.dst_id,
                    "confidence": round(float(e.confidence), 4)})
    return tuple(out)


def plan_hash(node: NodeRow, strategy: str, version: int, plan: dict[str, Any]) -> str:
    """sha256 over everything a plan was derived from; re-planning compares it.

    The node's PageRank is left out on purpose: ranks move with every graph change, and
    search reads them from the node. So is the stage list: a stage added or removed
    changes what a chunk runs, not what the earlier stages made of it (the writer updates
    the list and keeps their states)."""
    # repr of plain dicts/tuples/str/int/float is deterministic (our dicts are built in a
    # fixed order) and several times cheaper than a sorted JSON dump.
    material = (node.content_hash, node.signature, node.doc_comment, node.fqn, node.span,
                strategy, version, plan)
    return hashlib.sha256(repr(material).encode()).hexdigest()


def make_plan(node: NodeRow, *, strategy: str, version: int, target: str, source: str,
              kind: str, lang: str | None, span: tuple[int, int] | None,
              relations: tuple[dict, ...], params: dict[str, Any], index: int | None = None,
              ) -> ChunkPlan:
    """Assemble a ChunkPlan and its hash; ``index`` given -> ``{node}:{source}:{kind}:{i}``.
    ``target`` (``graphrag.kinds.CHUNK_TARGETS``) decides the stages the chunk runs."""
    plan_id = f"{node.id}:{source}:{kind}" + ("" if index is None else f":{index}")
    priority = priority_for(node)
    pipeline = {
        "params": params,
        "service": {"strategy": strategy, "priority": priority},
    }
    sect = section_path(node)
    hashed = {
        "id": plan_id, "source": source, "kind": kind, "lang": lang, "span": span,
        "title": node.fqn, "section_path": sect, "relations": relations, "pipeline": pipeline,
    }
    return ChunkPlan(
        plan_id=plan_id, node_id=node.id, target=target, source=source, kind=kind, lang=lang,
        chunk_index=index or 0, span=span, title=node.fqn, section_path=sect,
        relations=relations, pipeline=pipeline, priority=priority,
        plan_hash=plan_hash(node, strategy, version, hashed),
    )
