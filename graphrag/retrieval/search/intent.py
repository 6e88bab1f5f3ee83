"""What a search query asks for: a symbol by name, or behaviour described in words.

Developers search in two ways (semble's benchmark has both, and so do agents): a bare or
qualified identifier (``APIRouter``, ``click.Context.invoke``, ``Sinatra::Base``,
``field_validator``), or a sentence that may name identifiers (``how does safeParse
report errors``). A symbol query wants the node that *defines* the name first and ranks
lexically; a sentence ranks by meaning, and the identifiers it embeds still point at
their definitions, with less weight.

Pure functions over the query text; the graph is asked about the names afterwards
(:mod:`graphrag.retrieval.search.definitions`).
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
# A capitalised word inside a sentence (not its first word): a type's name as people write
# it ("how Monad composes ...", "how the Request class tracks ..."). Looked up like the
# names above: a word that names no symbol of the code finds nothing.
_CAPITALISED = re.compile(r"[A-Z][a-z0-9]{2,}")
_SEPARATORS = re.compile(r"::|\\|->|#|:")
# The longest identifier looked for; a query's whitespace-free runs, where they are.
MAX_NAME_CHARS = 200
_TOKENS = re.compile(r"[^\s,;\"'`]+")
# A question about how something works or where it happens (rather than a description of
# what one function does, as a doc comment would say it).
_QUESTION = re.compile(r"^(how|where|what|why|when|which|who)\b|\?\s*$", re.IGNORECASE)
# Verbs that open a doc comment's first sentence ("Returns the ...", "Parse the ...") or
# follow the name it documents ("BasicAuth returns a ..."): a statement of what one
# function does. A phrase without one ("boolean conversion and parsing helpers") names a
# topic, answered by the files where it lives.
_VERBS = """
    accept acquire add allocate append apply attach authenticate authorize begin bind
    build cache calculate call cancel check clear clone close commit compare compress
    compute configure construct convert copy count create decide decode decompress
    decrypt define delete deserialize destroy detach determine disable dispatch display
    do download draw dump emit enable encode encrypt end ensure escape execute export
    extend extract fetch filter find finish format free generate get give handle hash
    hide implement import index initialize insert install invoke iterate join load
    lock log look lookup make map mark match measure merge mount normalize notify open
    override parse peek perform pop prepare print process produce provide publish push
    quote raise read receive redirect reduce register reject release remove render
    replace reset resolve retry return rollback run save schedule search send serialize
    set show sign skip sort split start stop store strip subscribe take tell test throw
    translate trim try unescape unlock unmount unwrap update upload use validate verify
    wait wrap write yield
"""
_STATEMENT_VERBS = frozenset(_VERBS.split())
# Words asking where a program starts: its entry point, its command line, its startup.
# The code that does it rarely says so (``if ARGV.any?``, ``func main()``); the parser
# marks it (:mod:`graphrag.parsing.entrypoints`) and search looks those marks up.
_START = (r"entry[ -]?points?|startup|start[ -]up"
          r"|main (?:function|method|program|loop)|program (?:starts?|start-up)")
_ENTRY = re.compile(rf"\b(?:{_START}|command[ -]line|cli)\b", re.IGNORECASE)
# Of those, the words naming the start itself: "command line" alone is as often the
# domain of a command-line library ("how are command line options parsed").
_NAMES_START = re.compile(rf"\b(?:{_START})\b", re.IGNORECASE)
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9_']*")
# "X for Y": X is what is sought, Y what it is for ("case-insensitive hash for request
# params" wants the hash, not ``Request#params``; "WebSocket adapter for real-time
# subscriptions" the adapter). The first " for " after at least one word splits them.
_PURPOSE = re.compile(r"\s+for\s+", re.IGNORECASE)


@dataclass(frozen=True)
class QueryIntent:
    """``symbol``: the whole query names a symbol; ``names``: the identifiers it names
    (qualified as written, ``::``/``->``/``#`` turned into dots), most specific first;
    ``entry``: it asks where a program starts (its entry point, command line, startup);
    ``start``: it names the start itself (entry point, startup, not only the command
    line)."""

    symbol: bool
    names: tuple[str, ...] = ()
    question: bool = False
    statement: bool = False
    entry: bool = False
    start: bool = False

    @property
    def kind(self) -> str:
        """``symbol``, ``question``, ``text`` (a statement of what code does, as a doc
        comment says it) or ``topic`` (a phrase naming an area of the code)."""
        if self.symbol:
            return "symbol"
        return "question" if self.question else "text" if self.statement else "topic"


def normalise(name: str) -> str:
    """``Sinatra::Base`` -> ``Sinatra.Base``; trailing ``()`` dropped."""
    name = name.strip()
    if name.endswith("()"):
        name = name[:-2]
    return _SEPARATORS.sub(".", name)


def understand(query: str) -> QueryIntent:
    """Whether ``query`` names a symbol, and the identifiers it names."""
    text = query.strip()
    # No identifier is longer than MAX_NAME_CHARS: longer runs are not matched at all,
    # which also keeps the patterns' cost linear on hostile queries.
    if len(text) <= MAX_NAME_CHARS and (_QUALIFIED.match(text) or _CODE_LIKE.match(text)):
        return QueryIntent(True, (normalise(text),))
    words = [w for w in _TOKENS.findall(text) if len(w) <= MAX_NAME_CHARS]
    embedded = [normalise(m.group(0)) for w in words for m in _EMBEDDED.finditer(w)]
    capitalised = [core for w in words[1:]
                   if _CAPITALISED.fullmatch(core := w.strip("?!.:()[]{}"))]
    names = tuple(dict.fromkeys([*embedded, *capitalised]))
    return QueryIntent(False, names, question=bool(_QUESTION.search(text)),
                       statement=is_statement(text), entry=bool(_ENTRY.search(text)),
                       start=bool(_NAMES_START.search(text)))


def subject(query: str) -> str:
    """The part of a query naming what it seeks: the words before its first "for"
    ("case-insensitive hash for request params" -> "case-insensitive hash"), else the
    whole query."""
    m = _PURPOSE.search(query)
    if m is None or not _WORDS.search(query[:m.start()]):
        return query
    return query[:m.start()]


def _verb_form(word: str) -> bool:
    low = word.lower()
    return low in _STATEMENT_VERBS or (low.endswith("s") and (
        low[:-1] in _STATEMENT_VERBS or (low.endswith("es") and low[:-2] in _STATEMENT_VERBS)
        or (low.endswith("ies") and low[:-3] + "y" in _STATEMENT_VERBS)))


def is_statement(text: str) -> bool:
    """Whether a sentence states what code does: it ends with a full stop, or opens with
    a verb ("Returns ...", "Parse ..."), or a name and a verb ("BasicAuth returns ...")."""
    if text.rstrip().endswith("."):
        return True
    words = _WORDS.findall(text)
    if not words:
        return False
    if _verb_form(words[0]) and (words[0].lower().endswith("s") or len(words) >= 6):
        return True
    return len(words) > 1 and words[1].lower().endswith("s") and _verb_form(words[1])


def simple_name(name: str) -> str:
    """The last part of a (normalised) qualified name: ``click.Context.invoke`` -> ``invoke``."""
    return name.rsplit(".", 1)[-1]
