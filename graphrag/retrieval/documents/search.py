"""The documents' additions to `graphrag search`: ``--granularity sentence`` (search the
sentence pieces, return their parent chunks) and ``--adjacent-pages N`` (append the
chunks of neighbouring pages of document hits). Kept apart from the chunk search so that
each side stays small; ``cli/search.py`` and the server call :func:`document_search`."""

from __future__ import annotations

from graphrag.db.context import AppScope
from graphrag.embedding import Embedder
from graphrag.errors import InvalidInput, UnknownName, UsageError
from graphrag.retrieval.documents.adjacent import with_adjacent_pages
from graphrag.retrieval.documents.sentences import GRANULARITIES, search_sentences
from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions, SearchResult


def document_search(scope: AppScope, query: str, options: SearchOptions,
                    embedder: Embedder | None, granularity: str, adjacent_pages: int
                    ) -> SearchResult:
    """Chunk or sentence granularity search, then the adjacent pages when asked for."""
    if granularity not in GRANULARITIES:
        raise UnknownName("granularity", granularity, GRANULARITIES)
    if adjacent_pages < 0:
        raise InvalidInput("--adjacent-pages must not be negative")
    if granularity == "sentence":
        if embedder is None:
            raise UsageError("--granularity sentence needs --mode vector or hybrid")
        result = search_sentences(scope, query, options, embedder)
    else:
        result = search(scope, query, options, embedder)
    if adjacent_pages:
        result.hits = with_adjacent_pages(scope, result.hits, adjacent_pages)
    return result
