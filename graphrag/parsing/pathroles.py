"""What a repository path is for, by convention: library code, or tests, examples,
benchmarks, vendored or generated code, compatibility shims, type declarations, hidden
tool folders.

Search ranks library code above the rest (a question about a behaviour is answered where
it is implemented, not where it is exercised or copied); these are the conventions, as
data. Test paths come from :mod:`graphrag.parsing.testpaths` (each language's test file
names).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from graphrag.parsing.testpaths import is_test_path

TEST = "test"
EXAMPLE = "example"
BENCHMARK = "benchmark"
VENDORED = "vendored"
GENERATED = "generated"
COMPAT = "compat"
DECLARATION = "declaration"
HIDDEN = "hidden"

# role -> pattern over the repo-relative path (folders end with "/")
_ROLE_PATTERNS: dict[str, re.Pattern[str]] = {
    EXAMPLE: re.compile(r"(^|/)(_?examples?|samples?|demos?|docs?_src|docs?/src|tutorials?)/",
                        re.IGNORECASE),
    BENCHMARK: re.compile(r"(^|/)(benchmarks?|benches|bench|perf)/", re.IGNORECASE),
    VENDORED: re.compile(r"(^|/)(vendor|vendored|third[_-]?party|node_modules|bower_components"
                         r"|external|extern)/", re.IGNORECASE),
    GENERATED: re.compile(r"(^|/)(generated|gen|__generated__|_generated)/"
                          r"|(_pb2(_grpc)?\.py|\.pb\.go|\.pb\.(cc|h)|_generated\.\w+|\.g\.\w+"
                          r"|\.min\.(js|css))$", re.IGNORECASE),
    COMPAT: re.compile(r"(^|/)(_?compat|legacy|deprecated)(/|\.\w+$)", re.IGNORECASE),
    DECLARATION: re.compile(r"\.d\.[cm]?ts$"),
    HIDDEN: re.compile(r"(^|/)\.[^/.][^/]*/"),
}
# Any role at all (case-insensitive: a superset of each pattern's own matches): most paths
# are library code and take one scan instead of one per role.
_ANY_ROLE = re.compile("|".join(f"(?:{p.pattern})" for p in _ROLE_PATTERNS.values()),
                       re.IGNORECASE)
# Words of a query (or a path filter) that ask for a role: it is then not demoted.
ROLE_WORDS: dict[str, re.Pattern[str]] = {
    TEST: re.compile(r"\b(tests?|testing|tested|unit ?tests?|spec|specs|fixtures?)\b",
                     re.IGNORECASE),
    EXAMPLE: re.compile(r"\b(examples?|samples?|demos?|tutorials?)\b", re.IGNORECASE),
    BENCHMARK: re.compile(r"\b(bench|benchmarks?|benchmarking|perf)\b", re.IGNORECASE),
    VENDORED: re.compile(r"\b(vendor|vendored|third[- ]party)\b", re.IGNORECASE),
    GENERATED: re.compile(r"\b(generated|protobuf|minified)\b", re.IGNORECASE),
    COMPAT: re.compile(r"\b(compat|compatibility|legacy|deprecated|shims?)\b", re.IGNORECASE),
    DECLARATION: re.compile(r"\b(d\.ts|declarations?|typings)\b", re.IGNORECASE),
}
# A package's front file: it mostly re-exports what its modules define.
PACKAGE_FRONT_FILES = frozenset({"__init__.py", "index.ts", "index.js", "index.mjs",
                                 "index.tsx", "package-info.java", "mod.rs", "doc.go"})


@functools.lru_cache(maxsize=65536)
def path_roles(path: str | None) -> frozenset[str]:
    """The roles of a repo-relative path (empty: library code)."""
    if not path:
        return frozenset()
    roles = ({role for role, pattern in _ROLE_PATTERNS.items() if pattern.search(path)}
             if _ANY_ROLE.search(path) else set())
    if is_test_path(path):
        roles.add(TEST)
    return frozenset(roles)


def is_example_path(path: str | None) -> bool:
    """Whether a repo-relative path is example code (``examples/``, ``docs_src/``...)."""
    return EXAMPLE in path_roles(path)


def is_package_front(path: str | None) -> bool:
    """Whether the file is a package's front file (``__init__.py``, ``index.ts``...)."""
    return bool(path) and PurePosixPath(path or "").name in PACKAGE_FRONT_FILES


def asked_roles(text: str) -> frozenset[str]:
    """The roles a query or a path filter asks for by name."""
    return frozenset(role for role, words in ROLE_WORDS.items() if words.search(text))


_VERSION_DIR = re.compile(r"(?:^|/)v(\d+)/")


def superseded_versions(paths: Iterable[str | None]) -> frozenset[str]:
    """Of version folders side by side (``src/v3/`` beside ``src/v4/``), the folders a
    newer sibling replaces, as path prefixes ending with ``/``: the older major versions
    a package keeps for compatibility."""
    newest: dict[str, int] = {}
    seen: set[tuple[str, int]] = set()
    for path in paths:
        if not path:
            continue
        for match in _VERSION_DIR.finditer(path):
            start = match.start() + (match.group(0)[0] == "/")
            parent, version = path[:start], int(match.group(1))
            seen.add((parent, version))
            newest[parent] = max(newest.get(parent, version), version)
    return frozenset(f"{parent}v{version}/" for parent, version in seen
                     if version < newest[parent])
