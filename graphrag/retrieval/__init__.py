"""Retrieval: search (vector, full text, hybrid), call expansion, context, hit-test.

Names are imported on first use: a one-shot ``graphrag search`` must not pay for
networkx, which only ``build_context`` needs. ``search`` and ``search_many`` are the
exception: the function ``search`` shares its name with the module ``search``, and
once that module is imported Python binds the module to the package attribute, so the
function is bound here first (the search module imports neither networkx nor torch)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from graphrag.retrieval.search import search, search_many

_EXPORTS: dict[str, str] = {
    "batch_search": "batch", "read_query_lines": "batch",
    "Context": "context", "build_context": "context",
    "hit_test": "hittest",
    "SearchOptions": "model", "SearchResult": "model",
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphrag.retrieval' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"graphrag.retrieval.{module}"), name)
    globals()[name] = value
    return value
