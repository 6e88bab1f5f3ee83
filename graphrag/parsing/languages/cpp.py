"""C++ extractor: ``.cc``/``.cpp``/``.cxx``/``.hpp``/``.hh`` files, read by the C family
extractor (:mod:`graphrag.parsing.languages.c`) with the C++ grammar."""

from __future__ import annotations

from graphrag.parsing.languages.c import extract_as
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext

LANG = "cpp"


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one C++ file."""
    return extract_as(source, rel_path, ctx, LANG, LANG)
