"""Minified JavaScript: recognised before parsing, recorded as skipped with the reason.

A minified bundle is build output: its names are mangled, its symbols duplicate the
sources it was built from, and a thousand functions share one line (every chunk, every
search hit and every BM25 posting list would pay for that line). Such a file is listed
with status ``skipped`` and a reason saying why, like GitHub's linguist does for
``*.min.js`` and files of very long lines.

Generated code with ordinary lines (``// Code generated ... DO NOT EDIT.``, ``@generated``:
protobuf and gRPC stubs, ORMs) is *not* skipped: hand-written code calls it, and the
graph would lose those calls. Nor is a file of another language, whatever its lines
(minifiers are a JavaScript habit; a Python module holding a long data literal is still
code). A long line outside a minified file is handled by the chunker instead (a symbol
on it gets its own characters, not the whole line).
"""

from __future__ import annotations

import re

# File names of minified output, whatever their content.
_MINIFIED_NAME = re.compile(r"[.-]min\.(?:js|mjs|cjs)$", re.IGNORECASE)
MINIFIED_LANGUAGES = frozenset({"javascript"})
# Hand-written code averages 30-40 characters a line; linguist's threshold for minified
# JS/CSS is 110. Both conditions must hold, so one long data line in a normal file (a
# base64 literal, a table) does not make the file "minified".
MINIFIED_AVERAGE_LINE = 200
MINIFIED_LONGEST_LINE = 1_000
_SOURCE_MAP = re.compile(r"^\s*//[#@]\s*sourceMappingURL=", re.MULTILINE)


def minified_reason(rel_path: str, lang: str | None, text: str) -> str | None:
    """Why ``text`` (the file at ``rel_path``, in ``lang``) is minified code, or None."""
    if lang not in MINIFIED_LANGUAGES or not text:
        return None
    if _MINIFIED_NAME.search(rel_path):
        return "minified code (file name *.min.js); not indexed"
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    longest = max(map(len, text.splitlines()), default=0)
    if longest <= MINIFIED_LONGEST_LINE:
        return None
    average = len(text) // lines
    if average > MINIFIED_AVERAGE_LINE:
        return (f"minified code (average line {average} characters, longest {longest});"
                " not indexed")
    if _SOURCE_MAP.search(text[-4096:]):
        return f"minified code (a line of {longest} characters and a source map); not indexed"
    return None
