"""Retrieval: search (vector, full text, hybrid), call expansion, context, hit-test."""

from graphrag.retrieval.batch import batch_search, read_query_lines
from graphrag.retrieval.context import Context, build_context
from graphrag.retrieval.hittest import hit_test
from graphrag.retrieval.model import SearchOptions, SearchResult
from graphrag.retrieval.search import search, search_many

__all__ = [
    "Context", "SearchOptions", "SearchResult", "batch_search", "build_context", "hit_test",
    "read_query_lines", "search", "search_many",
]
