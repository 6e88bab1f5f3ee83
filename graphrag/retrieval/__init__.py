"""Retrieval: search (vector, full text, hybrid), call expansion, context, hit-test.

Names are imported on first use: a one-shot ``graphrag search`` must not pay for
networkx, which only ``build_context`` needs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "batch_search": "batch", "read_query_lines": "batch",
    "Context": "context", "build_context": "context",
    "hit_test": "hittest",
    "SearchOptions": "model", "SearchResult": "model",
    "search": "search", "search_many": "search",
}

__all__ = [
    "Context", "SearchOptions", "SearchResult", "batch_search", "build_context", "hit_test",
    "read_query_lines", "search", "search_many",
]

if TYPE_CHECKING:
    from graphrag.retrieval.batch import batch_search, read_query_lines
    from graphrag.retrieval.context import Context, build_context
    from graphrag.retrieval.hittest import hit_test
    from graphrag.retrieval.model import SearchOptions, SearchResult
    from graphrag.retrieval.search import search, search_many


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphrag.retrieval' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"graphrag.retrieval.{module}"), name)
    globals()[name] = value
    return value
