"""Search: ranked chunks for a query (vector, full text, hybrid), batch search, hit-test.

The flow of one query is in :mod:`graphrag.retrieval.search.engine`; the value types in
:mod:`~graphrag.retrieval.search.model`; the registry of search modes (an extension
point) in :mod:`~graphrag.retrieval.search.modes`; every statement in
:mod:`~graphrag.retrieval.search.store`.
"""

from __future__ import annotations

from graphrag.retrieval.search.batch import batch_search, read_query_lines
from graphrag.retrieval.search.engine import search, search_many
from graphrag.retrieval.search.filters import build_options
from graphrag.retrieval.search.hittest import hit_test
from graphrag.retrieval.search.model import SearchOptions, SearchResult

__all__ = [
    "SearchOptions", "SearchResult", "batch_search", "build_options", "hit_test",
    "read_query_lines", "search", "search_many",
]
