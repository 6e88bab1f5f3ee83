"""What a search query asks for: a symbol by name, or behaviour described in words.

Developers search in two ways (semble's benchmark has both, and so do agents): a bare or
qualified identifier (``APIRouter``, ``click.Context.invoke``, ``Sinatra::Base``,
``field_validator``), or a sentence that may name identifiers (``how does safeParse
report errors``). A symbol query wants the node that *defines* the name first and ranks
lexically; a sentence ranks by meaning, and the identifiers it embeds still point at
their definitions, with less weight.

Pure functions over the query text; the graph is asked about the names afterwards
(:mod:`graphrag.retrieval.definitions`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A whole query that is one identifier, optionally qualified (a.b, A::B, a->b, A\B).
# A lowercase English word ("session") is not taken for one: nothing marks it as code.
_IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"
_QUALIFIED = re.compile(rf"^{_IDENT}(?:(?:::|\\|->|\.|#|:){_IDENT})+(?:\(\))?$")
_CODE_LIKE = re.compile(
    r"^(?:_[A-Za-z0-9_$]*"                   # _private, __init__
    r"|[A-Za-z$][A-Za-z0-9$]*[A-Z_][A-Za-z0-9_$]*"  # getUser, field_validator, HTTPAdapter
    r"|[A-Z][A-Za-z0-9$]*)(?:\(\))?$"       # URL, Base
)
# Identifiers inside a sentence: camelCase, PascalCase with a second capital, snake_case
# with a letter on both sides, qualified names, or a word followed by ``()``.
_EMBEDDED = re.compile(
    rf"(?<![\w$.])(?:"
    rf"{_IDENT}(?:(?:::|\.|#){_IDENT})+"      # qualified
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"        # PascalCase: ZodType, StateManager
    r"|[A-Z]{2,}[a-z][A-Za-z0-9]*"             # HTTPException, URLPattern
    r"|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"        # camelCase: safeParse
    r"|[a-z][a-z0-9]*(?:_[a-z0-9]+)+"          # snake_case: add_api_route
    rf"|{_IDENT}(?=\(\))"                      # name()
    r")(?![\w$])"
)
_SEPARATORS = re.compile(r"::|\\|->|#|:")
# A question about how something works or where it happens (rather than a description of
# what one function does, as a doc comment would say it).
_QUESTION = re.compile(r"^(how|where|what|why|when|which|who)\b|\?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class QueryIntent:
    """``symbol``: the whole query names a symbol; ``names``: the identifiers it names
    (qualified as written, ``::``/``->``/``#`` turned into dots), most specific first."""

    symbol: bool
    names: tuple[str, ...] = ()
    question: bool = False

    @property
    def kind(self) -> str:
        """``symbol``, ``question`` or ``text`` (a description of code)."""
        return "symbol" if self.symbol else "question" if self.question else "text"


def normalise(name: str) -> str:
    """``Sinatra::Base`` -> ``Sinatra.Base``; trailing ``()`` dropped."""
    name = name.strip()
    if name.endswith("()"):
        name = name[:-2]
    return _SEPARATORS.sub(".", name)


def understand(query: str) -> QueryIntent:
    """Whether ``query`` names a symbol, and the identifiers it names."""
    text = query.strip()
    if _QUALIFIED.match(text) or _CODE_LIKE.match(text):
        return QueryIntent(True, (normalise(text),))
    names = tuple(dict.fromkeys(normalise(m.group(0)) for m in _EMBEDDED.finditer(text)))
    return QueryIntent(False, names, question=bool(_QUESTION.search(text)))


def simple_name(name: str) -> str:
    """The last part of a (normalised) qualified name: ``click.Context.invoke`` -> ``invoke``."""
    return name.rsplit(".", 1)[-1]
