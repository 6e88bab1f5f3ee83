"""TypeScript and TSX extractor (registry names ``typescript`` and ``tsx``).

Both grammars share node types, so the same ``typescript-*.scm`` queries are compiled
for each grammar; the grammar is picked from the file extension."""

from __future__ import annotations

from graphrag.parsing.languages.ecmascript import Dialect, extract_file
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext

TYPESCRIPT = Dialect(grammar="typescript", queries="typescript", lang="typescript")
TSX = Dialect(grammar="tsx", queries="typescript", lang="tsx")


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Symbols, imports, calls, heritage, Express registrations of one TS/TSX file."""
    dialect = TSX if rel_path.lower().endswith(".tsx") else TYPESCRIPT
    return extract_file(source, rel_path, dialect, ctx)


def unwrap_parenthesized(text: str) -> str:
    """The spec's type prepass (TypeScript, TSX, JSDoc): a parenthesized type
    ``(A | B)`` -> ``A | B`` (the rest of the reduction is shared)."""
    if text.startswith("(") and text.endswith(")"):
        return text[1:-1].split(",")[0].strip()
    return text
