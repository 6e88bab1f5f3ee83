"""The documents' additions to `graphrag search`: ``--granularity sentence`` (search the
sentence pieces, return their parent chunks) and ``--adjacent-pages N`` (append the
chunks of neighbouring pages of document hits). Kept apart from the chunk search so that
each side stays small; ``cli/search.py`` calls :func:`document_search`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
from sqlalchemy import Engine

from graphrag.embedding import Embedder
from graphrag.retrieval.adjacent import with_adjacent_pages
from graphrag.retrieval.model import SearchOptions, SearchResult
from graphrag.retrieval.search import search
from graphrag.retrieval.sentences import GRANULARITIES, search_sentences

F = TypeVar("F", bound=Callable[..., Any])


def document_search_options(fn: F) -> F:
    """``--granularity`` and ``--adjacent-pages`` for a search command."""
    fn = click.option("--adjacent-pages", type=click.IntRange(min=0), default=0,
                      metavar="N", help="Add chunks of pages within N pages of each"
                      " document hit (same document).")(fn)
    return click.option("--granularity", type=click.Choice(GRANULARITIES), default="chunk",
                        show_default=True, help="sentence: search the sentence pieces of"
                        " document chunks and return their parent chunks.")(fn)


def document_search(engine: Engine, app_names: Sequence[str], query: str,
                    options: SearchOptions, embedder: Embedder | None, granularity: str,
                    adjacent_pages: int) -> SearchResult:
    """Chunk or sentence granularity search, then the adjacent pages when asked for."""
    if granularity == "sentence":
        if embedder is None:
            raise click.UsageError("--granularity sentence needs --mode vector or hybrid")
        result = search_sentences(engine, app_names, query, options, embedder)
    else:
        result = search(engine, app_names, query, options, embedder)
    if adjacent_pages:
        result.hits = with_adjacent_pages(engine, app_names, result.hits, adjacent_pages)
    return result
