"""Edge accumulator: merges repeated (src, dst, kind) into one edge with all lines."""

from __future__ import annotations

from graphrag.graph.model import GraphEdge

CONFIDENCE = {
    "self": 1.0, "type": 1.0, "import": 1.0, "static": 1.0, "constructor": 1.0,
    "super": 1.0, "local": 1.0, "package": 1.0, "declared": 1.0, "embedding": 1.0,
    # a name of the one namespace of the linker (spec `global_names`)
    "global": 1.0,
    "inherited": 0.9, "method-set": 0.8, "unique-name": 0.5,
    # a method of the caller's own instance (`self.m()`, a bare `m()`) that a supertype
    # declares: dispatch reaches only the overrides in the caller's class and below
    "self-inherited": 0.9,
    # receiver typed by the declared return type of a call in a chain (`a.b().c()`)
    "return-type": 0.95,
    # receiver is a callback's parameter typed by the callee's declared function type
    "callback-param": 0.9,
    # the receiver is declared as one of several classes (`A | B`): an edge to each
    "union": 0.6,
    # `x.f()` linked to a visible extension function `fun T.f()` (`meta.receiver_type`)
    # whose receiver type matches x's class, or x's class is not known from the repository
    "extension": 0.9,
}


class EdgeSet:
    """Collects edges; the best (highest confidence) resolution of a merged edge wins."""

    def __init__(self) -> None:
        # (src, dst, kind) -> [confidence, resolution, set of lines]
        self._edges: dict[tuple[str, str, str], list] = {}

    def add(self, src: str, dst: str, kind: str, resolution: str | None = None,
            line: int | None = None, confidence: float | None = None) -> None:
        """Add one occurrence of an edge (``line`` = call/import site, if any)."""
        if confidence is None:
            confidence = CONFIDENCE.get(resolution or "", 1.0)
        key = (src, dst, kind)
        entry = self._edges.get(key)
        if entry is None:
            entry = self._edges[key] = [confidence, resolution, set()]
        elif _better(confidence, resolution, entry[0], entry[1]):
            entry[0], entry[1] = confidence, resolution
        if line is not None:
            entry[2].add(line)

    def has(self, src: str, dst: str, kind: str) -> bool:
        return (src, dst, kind) in self._edges

    def subset(self, srcs: set[str]) -> EdgeSet:
        """A copy holding the edges whose source is in ``srcs``."""
        out = EdgeSet()
        out._edges = {k: [v[0], v[1], set(v[2])] for k, v in self._edges.items()
                      if k[0] in srcs}
        return out

    def sorted_edges(self) -> list[GraphEdge]:
        """All edges ordered by (kind, src, dst), lines sorted."""
        keys = sorted(self._edges, key=lambda k: (k[2], k[0], k[1]))
        return [GraphEdge(src_key=src, dst_key=dst, kind=kind, confidence=entry[0],
                          resolution=entry[1], lines=sorted(entry[2]))
                for src, dst, kind in keys
                for entry in (self._edges[(src, dst, kind)],)]


def _better(conf: float, res: str | None, old_conf: float, old_res: str | None) -> bool:
    # Ties on confidence go to the alphabetically smallest resolution (deterministic).
    if conf != old_conf:
        return conf > old_conf
    return (res or "") < (old_res or "")
