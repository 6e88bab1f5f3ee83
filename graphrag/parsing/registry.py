"""Language registry: file extension -> language spec with its extractor.

Grammars come from the official per-language wheels; parsers and compiled queries
are created once per process (lazily) and reused for every file.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from tree_sitter import Language, Parser, Query

from graphrag.parsing.model import ParseResult
from graphrag.parsing.nesting import BoundedParser
from graphrag.parsing.tsconfig import TsConfig


@dataclass(frozen=True)
class RepoContext:
    """Repository-wide facts an extractor may need (e.g. Go module paths)."""

    # repo-relative directory of each go.mod -> its module path ("" = repo root)
    go_modules: dict[str, str] = field(default_factory=dict)
    # repo-relative directories holding an __init__.py (regular Python packages)
    python_packages: frozenset[str] = frozenset()
    # tsconfig.json/jsconfig.json module resolution (``paths`` aliases, ``baseUrl``)
    ts_configs: tuple[TsConfig, ...] = ()


Extractor = Callable[[bytes, str, RepoContext], ParseResult]


@dataclass(frozen=True)
class LanguageSpec:
    name: str                 # "python", "java", "kotlin", "typescript", "tsx", "javascript", "go"
    extensions: tuple[str, ...]
    module: str               # module under graphrag.parsing.languages exposing `extract`
    grammar: Callable[[], object]  # returns the capsule from the grammar wheel


_REGISTRY: dict[str, LanguageSpec] = {}


def register(spec: LanguageSpec) -> None:
    """Add (or replace) a language."""
    _REGISTRY[spec.name] = spec


def languages() -> dict[str, LanguageSpec]:
    return dict(_REGISTRY)


def spec_for_path(path: str) -> LanguageSpec | None:
    lower = path.lower()
    for spec in _REGISTRY.values():
        if lower.endswith(spec.extensions):
            return spec
    return None


@cache
def ts_language(name: str) -> Language:
    return Language(_REGISTRY[name].grammar())


@cache
def parser(name: str) -> BoundedParser:
    """The parser of language ``name``; its trees respect the nesting bound."""
    return BoundedParser(Parser(ts_language(name)))


@cache
def query(lang: str, qname: str) -> Query:
    """Compile ``queries/<qname>.scm`` for ``lang`` once per process."""
    text = resources.files("graphrag.parsing.queries").joinpath(f"{qname}.scm").read_text()
    return Query(ts_language(lang), text)


@cache
def extractor(name: str) -> Extractor:
    mod = importlib.import_module(f"graphrag.parsing.languages.{_REGISTRY[name].module}")
    return mod.extract


def _grammar(module: str, attr: str = "language") -> Callable[[], object]:
    def load() -> object:
        return getattr(importlib.import_module(module), attr)()
    return load


register(LanguageSpec("python", (".py",), "python", _grammar("tree_sitter_python")))
register(LanguageSpec("java", (".java",), "java", _grammar("tree_sitter_java")))
register(LanguageSpec("kotlin", (".kt", ".kts"), "kotlin", _grammar("tree_sitter_kotlin")))
register(LanguageSpec("typescript", (".ts", ".mts", ".cts"), "typescript",
                      _grammar("tree_sitter_typescript", "language_typescript")))
register(LanguageSpec("tsx", (".tsx",), "typescript",
                      _grammar("tree_sitter_typescript", "language_tsx")))
register(LanguageSpec("javascript", (".js", ".jsx", ".mjs", ".cjs"), "javascript",
                      _grammar("tree_sitter_javascript")))
register(LanguageSpec("go", (".go",), "go", _grammar("tree_sitter_go")))
