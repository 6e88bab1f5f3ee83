"""Small text helpers shared by the stages: hashing, doc-comment cleanup, identifier words."""

from __future__ import annotations

import hashlib
import re
import textwrap

_COMMENT_OPEN = re.compile(r"^\s*(/\*\*+|/\*|\"\"\"|'''|///?|#+)\s?")
_COMMENT_CLOSE = re.compile(r"\s*(\*+/|\"\"\"|''')\s*$")
_LINE_PREFIX = re.compile(r"^\s*(\*(?!/)|///?|#)\s?")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def clean_doc_comment(doc: str | None) -> str:
    """A doc comment without its comment syntax (``/** */``, ``*``, ``//``, ``#``, quotes)."""
    if not doc or not doc.strip():
        return ""
    lines = doc.strip().splitlines()
    opener = _COMMENT_OPEN.match(lines[0])
    lines[0] = _COMMENT_OPEN.sub("", lines[0], count=1)
    lines[-1] = _COMMENT_CLOSE.sub("", lines[-1], count=1)
    rest = lines[1:]
    # Line markers (` * `, `//`, `#`) belong to comment syntax, not to docstrings.
    if opener and not opener.group(1).startswith(("\"", "'")):
        rest = [_LINE_PREFIX.sub("", ln, count=1) for ln in rest]
    text = lines[0].strip() + "\n" + textwrap.dedent("\n".join(rest))
    return "\n".join(ln.rstrip() for ln in text.splitlines()).strip()


def identifier_words(identifier: str) -> list[str]:
    """``getUserName`` / ``get_user_name`` / ``HTTPServer`` -> lower-case words."""
    words: list[str] = []
    for part in _SEPARATORS.split(identifier):
        words.extend(w.lower() for w in _CAMEL.split(part) if w)
    return words


def words_of(*identifiers: str | None) -> list[str]:
    """Distinct words of several identifiers, in first-seen order."""
    seen: dict[str, None] = {}
    for ident in identifiers:
        for word in identifier_words(ident or ""):
            seen.setdefault(word, None)
    return list(seen)
