"""Which repository paths hold tests, by the conventions of the supported languages.

Used by search to prefer the code people ask about over the tests that exercise it.
Folders: ``test``, ``tests``, ``__tests__``, ``testing``, ``testdata``, ``spec`` (and so
Maven/Gradle's ``src/test``); files: ``test_*.py``, ``*_test.py``, ``conftest.py``,
``*_test.go``, ``*Test.java``/``*Tests.java``/``*IT.java`` (and Kotlin), ``*.test.*`` and
``*.spec.*`` for JavaScript and TypeScript.
"""

from __future__ import annotations

import re

_TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|testing|testdata|spec)/")
_TEST_FILE = re.compile(
    r"(^|/)("
    r"test_[^/]*\.py|[^/]*_test\.py|conftest\.py"
    r"|[^/]*_test\.go"
    r"|[^/]*(Test|Tests|IT)\.(java|kt)"
    r"|[^/]*\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs)"
    r")$"
)


def is_test_path(path: str | None) -> bool:
    """Whether a repo-relative path is test code."""
    if not path:
        return False
    return bool(_TEST_DIR.search(path) or _TEST_FILE.search(path))
