"""Search options: built from what a person types, validated. The SQL clauses they
become are in :func:`graphrag.retrieval.search.store.filter_sql`."""

from __future__ import annotations

from collections.abc import Sequence

from graphrag.errors import InvalidInput, UnknownName
from graphrag.kinds import NODE_KINDS
from graphrag.retrieval.search.model import (
    EXPANSIONS,
    HTTP_FILTERS,
    SIGNALS,
    SOURCES,
    SearchOptions,
)
from graphrag.retrieval.search.modes import get_mode


def build_options(mode: str = "hybrid", top_k: int = 10, min_similarity: float | None = None,
                  kinds: str | Sequence[str] | None = None, lang: str | None = None,
                  path: str | None = None, source: str | None = None,
                  expand: Sequence[str] = (), priors: bool = True,
                  per_file: int | None = None, disabled: Sequence[str] = (),
                  http: str | None = None) -> SearchOptions:
    """Search options from what a person types (``kinds`` as ``"method,endpoint"`` or a
    list, ``lang`` as a name or alias such as ``py``), validated. The CLI, the HTTP API
    and the MCP tools all build their options here."""
    from graphrag.parsing.registry import aliases

    parts = kinds.split(",") if isinstance(kinds, str) else list(kinds or ())
    kind_list = tuple(k.strip().upper() for k in parts if k and k.strip())
    if lang is not None:  # `--lang py` means python, as in `graphrag index --languages`
        lang = aliases().get(lang.strip().lower(), lang.strip())
    return validate(SearchOptions(mode=mode, top_k=top_k, min_similarity=min_similarity,
                                  kinds=kind_list, lang=lang, path=path or None,
                                  source=source, expand=tuple(expand), priors=priors,
                                  per_file=per_file,
                                  disabled=tuple(dict.fromkeys(disabled)),
                                  http=http or None))


def validate(options: SearchOptions) -> SearchOptions:
    """Reject unknown modes, kinds, sources and expansions (a user error, exit 1)."""
    get_mode(options.mode)  # UnknownName lists the registered modes
    for kind in options.kinds:
        if kind not in NODE_KINDS:
            raise UnknownName("node kind", kind, NODE_KINDS)
    if options.source is not None and options.source not in SOURCES:
        raise UnknownName("chunk source", options.source, SOURCES)
    for name in options.expand:
        if name not in EXPANSIONS:
            raise UnknownName("expansion", name, EXPANSIONS)
    for signal in options.disabled:
        if signal not in SIGNALS:
            raise UnknownName("ranking signal", signal, SIGNALS)
    if options.http is not None and options.http not in HTTP_FILTERS:
        raise UnknownName("HTTP filter", options.http, HTTP_FILTERS)
    if options.per_file is not None and options.per_file < 0:
        raise InvalidInput("--per-file must not be negative")
    if options.top_k < 1:
        raise InvalidInput("--top-k must be at least 1")
    sim = options.min_similarity
    if sim is not None and not -1.0 <= sim <= 1.0:  # also NaN
        raise InvalidInput(f"--min-similarity must be between -1 and 1 (cosine), not {sim}")
    if options.lang is not None and options.lang not in known_languages():
        raise UnknownName("language", options.lang, known_languages())
    return options


def known_languages() -> tuple[str, ...]:
    """The values ``nodes.lang`` can take: the registry's languages."""
    from graphrag.parsing.registry import languages

    return tuple(sorted(languages()))


def has_filters(options: SearchOptions) -> bool:
    """Whether anything besides the applications narrows the search."""
    return bool(options.kinds or options.lang or options.path or options.http
                or options.source not in (None, "all"))
