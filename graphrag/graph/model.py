"""In-memory graph produced by the resolver: nodes, edges and their stable keys.

Keys never contain the node kind (an ENDPOINT promotion changes a FUNCTION's kind
but not its identity) and depend only on the file path and the fqn, so they survive
re-indexing and serve as the upsert key of incremental sync.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphrag.parsing.registry import key_family

REPO_KEY = "repo"
# The edges PageRank walks (the ranking itself: :mod:`graphrag.graph.analysis`).
RANK_EDGE_KINDS = ("CALLS", "IMPORTS")
# Keys live in a btree unique index (at most ~2.7 kB a row). A longer key keeps a
# readable head and ends in a digest of the whole key: bounded, unique, and stable
# across re-indexing. The full name and fqn stay in their own columns.
MAX_KEY_BYTES = 1000
_KEY_HEAD_CHARS = 200

def bounded_key(key: str) -> str:
    """``key`` itself, or its head and a sha256 of all of it when longer than
    :data:`MAX_KEY_BYTES` (UTF-8)."""
    if len(key) * 4 <= MAX_KEY_BYTES or len(key.encode("utf-8")) <= MAX_KEY_BYTES:
        return key
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{key[:_KEY_HEAD_CHARS]}~sha256:{digest}"


def file_key(path: str) -> str:
    """Stable key of a FILE node."""
    return bounded_key(f"file:{path}")


def package_key(lang: str, name: str) -> str:
    """Stable key of a PACKAGE node."""
    return bounded_key(f"package:{lang}:{name}")


def symbol_key(lang: str, fqn: str, key_suffix: str = "") -> str:
    """Stable key of a symbol before duplicate numbering (``#2``, ``#3`` ...)."""
    return bounded_key(f"sym:{key_family(lang)}:{fqn}{key_suffix}")


@dataclass
class GraphNode:
    """One node of the code graph (REPOSITORY, PACKAGE, FILE or a symbol)."""

    key: str
    kind: str
    name: str
    fqn: str
    parent_key: str | None
    file_path: str | None
    lang: str | None
    package_name: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    signature: str | None = None
    doc_comment: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class GraphEdge:
    """A directed edge; identity is ``(src_key, dst_key, kind)``.

    ``lines`` holds every call/import site (sorted, unique) merged into this edge."""

    src_key: str
    dst_key: str
    kind: str
    confidence: float = 1.0
    resolution: str | None = None
    lines: list[int] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


class UnresolvedCall(NamedTuple):
    """A call site with no edge: its caller, the file it is in, the called name, the
    receiver as written (dotted; None for a bare call), line and reason
    (:data:`graphrag.graph.calls.REASONS`)."""

    caller_key: str
    file_path: str
    name: str
    receiver: str | None
    line: int | None
    reason: str


@dataclass
class Graph:
    """Nodes and edges of one repository, and the call sites it could not resolve."""

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    unresolved: list[UnresolvedCall] = field(default_factory=list)

    def node_by_key(self) -> dict[str, GraphNode]:
        """Index of nodes by key (built on demand)."""
        return {n.key: n for n in self.nodes}
