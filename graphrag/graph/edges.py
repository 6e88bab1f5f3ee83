"""Edge accumulator: merges repeated (src, dst, kind) into one edge with all lines."""

from __future__ import annotations

from graphrag.graph.model import GraphEdge

CONFIDENCE = {
    "self": 1.0, "type": 1.0, "import": 1.0, "static": 1.0, "constructor": 1.0,
    "super": 1.0, "local": 1.0, "package": 1.0, "declared": 1.0, "embedding": 1.0,
    "inherited": 0.9, "method-set": 0.8, "unique-name": 0.5,
}


class EdgeSet:
    """Collects edges; the best (highest confidence) resolution of a merged edge wins."""

    def __init__(self) -> None:
        self._edges: dict[tuple[str, str, str], GraphEdge] = {}

    def add(self, src: str, dst: str, kind: str, resolution: str | None = None,
            line: int | None = None, confidence: float | None = None) -> None:
        """Add one occurrence of an edge (``line`` = call/import site, if any)."""
        if confidence is None:
            confidence = CONFIDENCE.get(resolution or "", 1.0)
        key = (src, dst, kind)
        edge = self._edges.get(key)
        if edge is None:
            edge = GraphEdge(src_key=src, dst_key=dst, kind=kind, confidence=confidence,
                             resolution=resolution)
            self._edges[key] = edge
        elif (confidence, _neg(resolution)) > (edge.confidence, _neg(edge.resolution)):
            edge.confidence, edge.resolution = confidence, resolution
        if line is not None and line not in edge.lines:
            edge.lines.append(line)

    def has(self, src: str, dst: str, kind: str) -> bool:
        return (src, dst, kind) in self._edges

    def of_kind(self, kind: str) -> list[GraphEdge]:
        return [e for e in self._edges.values() if e.kind == kind]

    def sorted_edges(self) -> list[GraphEdge]:
        """All edges in a deterministic order with sorted lines."""
        out = []
        for key in sorted(self._edges):
            edge = self._edges[key]
            edge.lines.sort()
            out.append(edge)
        return sorted(out, key=lambda e: (e.kind, e.src_key, e.dst_key))


def _neg(resolution: str | None) -> tuple[int, ...]:
    # Ties on confidence go to the alphabetically smallest resolution (deterministic).
    return tuple(-ord(c) for c in (resolution or ""))
