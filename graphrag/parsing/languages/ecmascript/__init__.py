"""Shared TypeScript/JavaScript extraction (the grammars share most node types).

The tree-sitter queries (``queries/<dialect>-definitions.scm`` and
``-references.scm``, compiled once per process by the registry) find the nodes;
``symbols`` turns declarations into symbols, heritage and variable types, ``references``
turns the rest into imports, calls and Express registrations. ``common`` documents the
conventions decided here.
"""

from __future__ import annotations

from graphrag.parsing import registry
from graphrag.parsing.languages._common import decl_starts, parse_recovering
from graphrag.parsing.languages.ecmascript import references, symbols
from graphrag.parsing.languages.ecmascript.common import (
    Dialect,
    FileContext,
    captures,
    module_of,
    resolve_specifier,
)
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext

__all__ = ["Dialect", "extract_file", "module_of", "resolve_specifier"]

_DECL_START = decl_starts("export import function async class abstract interface type enum "
                          "const let var declare namespace module")


def extract_file(source: bytes, rel_path: str, dialect: Dialect,
                 repo: RepoContext | None = None) -> ParseResult:
    """Parse one TS/JS file and return everything it contributes to the graph.

    Syntax errors do not stop extraction: tree-sitter recovers, the symbols it still
    recognises are returned and ``error_count`` counts ERROR/MISSING nodes."""
    # a bad top-level statement must not hide the declarations after it
    root, errors = parse_recovering(registry.parser(dialect.grammar), source, _DECL_START)
    configs = repo.of(dialect.grammar, ()) if repo else ()
    result = _EcmaScriptFile(source, rel_path, dialect, root, configs).run()
    result.error_count = errors
    return result


class _EcmaScriptFile(FileContext):
    """One TS/JS file's extraction: the passes of ``symbols`` and ``references``."""

    def run(self) -> ParseResult:
        definitions = captures("definitions", self.dialect, self.root)
        refs = captures("references", self.dialect, self.root)
        symbols.collect(self, definitions)
        references.collect_imports(self, refs)
        references.collect_export_defaults(self, refs)
        # registrations before calls: inline handlers must exist as callers first
        references.collect_registrations(self, refs, definitions)
        references.collect_calls(self, refs)
        symbols.collect_variable_types(self, definitions)
        return self.result
