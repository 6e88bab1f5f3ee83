"""The cross-references a doc comment makes: the files and symbols it sends the reader to.

Authors point to where a subject is documented or done: "For full documentation, see
comments in `log.h`" (a header of alternative spellings sends the reader to the header
that documents them), Javadoc's ``@see Foo#bar``, "See also: parse_args()". Such a
reference says the target answers what the documented code is about. Only references
introduced by *see* count: inline mentions (Javadoc's ``{@link Foo}``, rustdoc's
``[`Foo`]``, Sphinx roles) name the types a sentence uses, not where to read on.

Pure functions over the comment's text (the doc comment as stored on the node, comment
markers removed); search resolves the names against the graph
(:mod:`graphrag.retrieval.search.seealso`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# What may stand between "see" and the target: "see also", "see the comments in",
# "see the documentation of", "@see".
_LEAD = (r"(?:(?<![\w@])see|@see)(?:\s+also)?[:,]?\s+"
         r"(?:the\s+)?(?:(?:full\s+)?(?:comments?|documentation|docs?|notes?|description|"
         r"definition|implementation|examples?)\s+(?:in|of|at|for)\s+)?(?:the\s+)?")
# A target: in backquotes, or a path with an extension, or a code-like identifier
# (qualified, CamelCase, snake_case, or called), optionally followed by ``()``.
_PATH = r"[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}"
_IDENT = (r"[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.|#)[A-Za-z_~][A-Za-z0-9_]*)*")
_TARGET = (rf"(?:`(?P<quoted>[^`\s]{{1,200}})`|(?P<path>{_PATH})(?![\w/])"
           rf"|(?P<ident>{_IDENT})(?P<call>\(\))?)")
_SEE = re.compile(_LEAD + _TARGET, re.IGNORECASE)
# Words that follow "see" in prose and are no targets.
_PROSE_WORDS = """
    above below here there this that these those also how why what when where which
    section chapter page comment comments documentation docs doc note notes example
    examples details issue bug http https www the a an it its them their our your
    e.g i.e etc and or for in of on to with
"""
_PROSE = frozenset(_PROSE_WORDS.split())
# File extensions that make a dotted token a path rather than a qualified name
# (``log.h``, ``config.py``), when not in backquotes.
_EXTENSIONS = """
    h hh hpp hxx c cc cpp cxx py pyi go rs java kt kts scala rb php swift cs ts tsx js
    jsx mjs md rst txt
"""
_SOURCE_EXTENSIONS = frozenset(_EXTENSIONS.split())
MAX_REFERENCES = 8


@dataclass(frozen=True)
class DocReference:
    """A file (``path``: as written, ``log.h`` or ``absl/base/config.h``) or a symbol
    (``name``: as written, ``Foo#bar`` or ``absl::StrCat``) a doc comment sends the
    reader to."""

    text: str
    is_path: bool


def doc_references(doc: str | None) -> list[DocReference]:
    """The files and symbols ``doc`` sends the reader to with *see*, in order, without
    repeats, at most ``MAX_REFERENCES``."""
    if not doc or "see" not in doc.lower():
        return []
    out: list[DocReference] = []
    for match in _SEE.finditer(doc):
        ref = _reference(match)
        if ref is not None and ref not in out:
            out.append(ref)
            if len(out) >= MAX_REFERENCES:
                break
    return out


def _reference(match: re.Match[str]) -> DocReference | None:
    quoted, path, ident = match.group("quoted"), match.group("path"), match.group("ident")
    if quoted is not None:
        text = quoted.strip(".,;:()")
        if text.endswith("()"):
            text = text[:-2]
        if not text:
            return None
        return DocReference(text, _is_path(text))
    if path is not None and _is_path(path):
        return DocReference(path, True)
    token = path or ident
    if token is None or token.lower() in _PROSE:
        return None
    # A bare word is a target only when it looks like code: qualified, called, in
    # mixed case or with an underscore inside ("see symbolize" is prose as often as not,
    # "see RFC 7230" names no code).
    code_like = (match.group("call") is not None or any(s in token for s in ("::", "#", "."))
                 or "_" in token.strip("_")
                 or (any(ch.isupper() for ch in token[1:]) and not token.isupper()))
    return DocReference(token, False) if code_like else None


def _is_path(text: str) -> bool:
    stem, dot, ext = text.rpartition(".")
    return bool(dot and stem) and ("/" in text or ext.lower() in _SOURCE_EXTENSIONS) \
        and not any(s in text for s in ("::", "#", "("))
