"""JavaScript (and JSX, ESM, CommonJS) extractor."""

from __future__ import annotations

from graphrag.parsing.languages.ecmascript import Dialect, extract_file
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext

JAVASCRIPT = Dialect(grammar="javascript", queries="javascript", lang="javascript")


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Symbols, imports, calls, heritage, Express registrations of one JS file."""
    return extract_file(source, rel_path, JAVASCRIPT, ctx)
