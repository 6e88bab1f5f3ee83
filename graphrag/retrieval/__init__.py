"""Retrieval: search (vector, full text, hybrid), call expansion, context, hit-test.

``Context``/``build_context`` are imported on first use: a one-shot ``graphrag search``
must not pay for networkx, which only the context builder needs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from graphrag.retrieval.batch import batch_search, read_query_lines
from graphrag.retrieval.hittest import hit_test
from graphrag.retrieval.model import SearchOptions, SearchResult
from graphrag.retrieval.search import search, search_many

_LAZY: dict[str, str] = {"Context": "context", "build_context": "context"}

__all__ = [
    "Context", "SearchOptions", "SearchResult", "batch_search", "build_context", "hit_test",
    "read_query_lines", "search", "search_many",
]

if TYPE_CHECKING:
    from graphrag.retrieval.context import Context, build_context


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphrag.retrieval' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"graphrag.retrieval.{module}"), name)
    globals()[name] = value
    return value
