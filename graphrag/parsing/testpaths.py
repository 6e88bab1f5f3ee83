"""Which repository paths hold tests, by the conventions of the supported languages.

Used by search to prefer the code people ask about over the tests that exercise it, and
by context to count tests and examples instead of showing them.
Folders (any language): ``test``, ``tests``, ``__tests__``, ``testing``, ``testdata``,
``spec`` (and so Maven/Gradle's ``src/test``); files: each language's ``test_files``
in its :class:`~graphrag.parsing.registry.LanguageSpec` (``test_*.py``, ``*_test.go``,
``*Test.java``, ``*.spec.ts`` ...).
"""

from __future__ import annotations

import re

from graphrag.parsing.registry import test_file_pattern

_TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|testing|testdata|spec)/")


def is_test_path(path: str | None) -> bool:
    """Whether a repo-relative path is test code."""
    if not path:
        return False
    if _TEST_DIR.search(path):
        return True
    files = test_file_pattern()
    return bool(files is not None and files.search(path))
