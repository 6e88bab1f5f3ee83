"""Search modes for measuring what each vector adds to hybrid search (benchmarks only).

Each is the built-in ``hybrid`` mode with parts switched off:

- ``hybrid-no-title``: the title vector's similarity weighs nothing;
- ``hybrid-no-body``: the body vector weighs nothing and its nearest chunks are no
  candidates (BM25's candidates, ranked with the title vector, BM25, name and priors);
- ``bm25-priors``: neither vector: BM25's candidates ranked by BM25, the name match and
  the graph's priors and boosts.
"""

from __future__ import annotations

from dataclasses import replace

ABLATIONS = {  # name: (body vector weight and candidates, title vector weight)
    "hybrid-no-title": (True, False),
    "hybrid-no-body": (False, True),
    "bm25-priors": (False, False),
}


def register_vector_ablations() -> list[str]:
    """Register the modes above; returns their names."""
    from graphrag.retrieval.search.modes import get_mode, register_mode

    hybrid = get_mode("hybrid")

    def variant(name: str, body: bool, title: bool):
        def rank(vec, txt, details, signals):
            if signals is not None:
                profile = replace(signals.profile,
                                  vector=signals.profile.vector if body else 0.0,
                                  title=signals.profile.title if title else 0.0)
                signals = replace(signals, profile=profile)
            return hybrid.rank(vec if body else [], txt, details, signals)
        return replace(hybrid, name=name, rank=rank, description=f"hybrid, ablated: {name}")

    for name, (body, title) in ABLATIONS.items():
        register_mode(variant(name, body, title))
    return list(ABLATIONS)
