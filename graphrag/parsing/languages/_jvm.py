"""Helpers shared by the Java and Kotlin extractors: doc comments, signatures, type
names, declared HTTP clients and overload keys (the route frameworks they ask live in
:mod:`graphrag.parsing.routes`)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import PurePosixPath

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import (
    ScopeIndex,
    count_errors,
    keeps_items,
    normalize,
    parse_recovering,
)
from graphrag.parsing.model import Call, Import, ParseResult
from graphrag.parsing.routes import Annotation

NodeKey = tuple[int, int, str]
CALLABLE_KINDS = frozenset({"METHOD", "FUNCTION", "CONSTRUCTOR", "ENDPOINT"})
_QUALIFIED_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_ANNOTATION_IN_TYPE = re.compile(r"@[\w.]+(?:\([^)]*\))?\s*")


def node_key(node: Node) -> NodeKey:
    """A hashable identity for a node (Node objects are re-created on each access)."""
    return (node.start_byte, node.end_byte, node.type)


def text_of(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace")



def clean_doc(raw: str) -> str | None:
    """Strip ``/** */`` markers and leading ``*`` from a Javadoc/KDoc comment."""
    body = raw[3:]
    if body.endswith("*/"):
        body = body[:-2]
    lines = []
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("*"):
            stripped = stripped[1:]
            if stripped.startswith(" "):
                stripped = stripped[1:]
        lines.append(stripped.rstrip())
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) or None


def doc_comment_before(node: Node) -> str | None:
    """The ``/** */`` comment directly before ``node`` (only whitespace between)."""
    prev = node.prev_sibling
    if prev is None or prev.type != "block_comment":
        return None
    raw = text_of(prev)
    if not raw.startswith("/**") or raw.startswith("/**/"):
        return None
    return clean_doc(raw)


_OPEN_SPACE = re.compile(r"([(<\[]) ")
_SPACE_CLOSE = re.compile(r" ([)>\],])")


def collapse(text: str) -> str:
    """Normalise whitespace and tidy the gaps left by removed annotations (also inside
    ``<...>``; a space before a comma goes too)."""
    return normalize(text, _OPEN_SPACE, _SPACE_CLOSE)


def header_text(source: bytes, node: Node, end: int, skip_types: frozenset[str]) -> str:
    """Source of ``node`` up to byte ``end`` without subtrees of ``skip_types``
    (annotations), whitespace normalised: the declaration header used as signature."""
    skipped = sorted(_descendants_of_types(node, skip_types, end), key=lambda n: n.start_byte)
    parts: list[bytes] = []
    pos = node.start_byte
    for skip in skipped:
        if skip.start_byte < pos:  # nested inside an already skipped annotation
            continue
        parts.append(source[pos:skip.start_byte])
        pos = skip.end_byte
    parts.append(source[pos:max(pos, end)])
    return collapse(b"".join(parts).decode("utf-8", errors="replace")).rstrip(";").strip()


def _descendants_of_types(node: Node, types: frozenset[str], end: int) -> Iterator[Node]:
    for child in node.children:
        if child.start_byte >= end:
            break
        if child.type in types:
            yield child
        else:
            yield from _descendants_of_types(child, types, end)


def simple_type(text: str | None) -> str | None:
    """A type as written with annotations, generics, ``[]``, ``...`` and ``?`` stripped;
    None when no plain (dotted) name remains, e.g. function types."""
    if not text:
        return None
    t = _ANNOTATION_IN_TYPE.sub("", text)
    previous = None
    while previous != t:
        previous = t
        t = re.sub(r"<[^<>]*>", "", t)
    t = re.sub(r"\s+", "", t).replace("...", "").replace("[]", "").replace("?", "")
    return t if _QUALIFIED_NAME.fullmatch(t) else None


def declared_type(text: str | None) -> str | None:
    """A declared variable, parameter or field type for the resolver: :func:`simple_type`,
    except that a container whose items have a class keeps its type arguments
    (``Map<String, User>``, ``List<User>``, ``User[]``: ``users.get(k)`` is a User)."""
    if not text:
        return None
    raw = re.sub(r"\s+", " ", _ANNOTATION_IN_TYPE.sub("", text)).strip().rstrip("?")
    if keeps_items(raw):
        return raw
    return simple_type(text)


def key_type(text: str | None) -> str:
    """A parameter type as used in overload keys: generics and whitespace removed."""
    if not text:
        return "?"
    t = text
    previous = None
    while previous != t:
        previous = t
        t = re.sub(r"<[^<>]*>", "", t)
    return re.sub(r"\s+", "", t)


def overload_names(entries: Iterable[tuple[object, str]]) -> set[tuple[object, str]]:
    """The ``(owner, name)`` pairs that occur more than once: overloaded callables."""
    counts: dict[tuple[object, str], int] = defaultdict(int)
    for entry in entries:
        counts[entry] += 1
    return {entry for entry, n in counts.items() if n > 1}


def overload_fqn(fqn: str, params: list[list[str | None]]) -> str:
    """``Parser.parse`` + params -> ``Parser.parse(String,int)``: the fqn of one overload.

    Only overloaded callables carry the parameter list: the fqn (and with it the stable
    key, which was ``fqn + "(T1,T2)"`` before overloads became separate fqns) of every
    other method stays what users read and type, and a method's key changes only when
    its own name gains or loses an overload."""
    return fqn + "(" + ",".join(key_type(t) for _, t in params) + ")"


def literal_type(kind: str, text: str) -> str | None:
    """Static type of a literal argument (Java/Kotlin tree-sitter node types)."""
    if kind in ("string_literal", "text_block", "string_literal_expression"):
        return "String"
    if kind == "character_literal":
        return "char"
    if kind in ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal",
                "binary_integer_literal", "integer_literal", "hex_literal", "bin_literal"):
        return "long" if text[-1:] in ("l", "L") else "int"
    if kind == "long_literal":
        return "long"
    if kind in ("decimal_floating_point_literal", "real_literal"):
        return "float" if text[-1:] in ("f", "F") else "double"
    if kind in ("true", "false", "boolean_literal"):
        return "boolean"
    return None


def dotted_call_target(name: str, receiver: list[str] | None) -> str | None:
    """``"=call:..."`` var type for an initialising call whose target is statically
    knowable: a bare call or a call on a capitalised (type/object) receiver."""
    if receiver is None:
        return f"=call:{name}"
    if receiver != ["?"] and receiver[0][:1].isupper():
        return "=call:" + ".".join([*receiver, name])
    return None


# --- declared HTTP clients ---------------------------------------------------

# Annotations of an interface that declares a client of another service (OpenFeign,
# MicroProfile REST Client, Spring HTTP interfaces): its mapped methods send requests,
# they serve none. The HTTP call sites read them (``graphrag.parsing.http``).
CLIENT_ANNOTATIONS = {"FeignClient": "feign", "RegisterRestClient": "microprofile",
                      "HttpExchange": "spring-http-interface"}


def declares_client(annotations: list[Annotation]) -> bool:
    """Whether a type's annotations make it a declared HTTP client."""
    return any(a.name in CLIENT_ANNOTATIONS for a in annotations)


# ---------------------------------------------------------------------------
# Java specifics
# ---------------------------------------------------------------------------


def enclosing_fqn(node: Node, scopes: ScopeIndex[NodeKey, str]) -> str | None:
    """The fqn of the innermost scope (declaration) around ``node``; None = file level."""
    return scopes.enclosing(node)


def collect_calls(captures: dict[str, list[Node]],
                  handlers: dict[str, Callable[[Node, str | None], Call | None]],
                  scopes: ScopeIndex[NodeKey, str]) -> list[Call]:
    """Run each capture's handler with its caller; the calls found, in line order."""
    found: list[Call] = []
    for capture, handler in handlers.items():
        for node in captures.get(capture, []):
            call = handler(node, enclosing_fqn(node, scopes))
            if call is not None:
                found.append(call)
    found.sort(key=lambda c: c.line)
    return found


def owning_type(node: Node, type_decls: Collection[str], containers: Collection[str],
                root: str) -> Node | None | bool:
    """The type declaration that member ``node`` belongs to: None at top level (``root``),
    False for a local or anonymous-class declaration (no symbol owns it)."""
    current = node.parent
    while current is not None:
        if current.type in type_decls:
            return current
        if current.type == root:
            return None
        if current.type not in containers:
            return False
        current = current.parent
    return None


class JvmFile(FileExtractor):
    """Extraction state of one Java or Kotlin file: its package, the scopes calls are
    attributed to and the overloaded names. A language sets the class attributes below and
    implements the passes :meth:`run` makes."""

    lang: str
    decl_start: re.Pattern[bytes]  # where a top-level declaration starts (recovery)
    root_type: str  # the node of the whole file
    type_decls: Collection[str]  # nodes declaring a type that owns members
    member_containers: Collection[str]  # nodes between a member and its type
    callable_kinds: Collection[str]  # definitions that may be overloaded
    constructor_kind: str  # the definition of a constructor (named ``<init>``)

    @classmethod
    def extract(cls, source: bytes, rel_path: str) -> ParseResult:
        """One file's symbols, imports, calls, heritage and var types; a top-level
        declaration the grammar cannot read does not hide the next ones
        (:func:`~graphrag.parsing.languages._common.parse_recovering`); ``error_count``
        counts the errors of the file as written."""
        root, errors = parse_recovering(registry.parser(cls.lang), source, cls.decl_start)
        result = cls(source, rel_path, root).run()
        result.error_count = errors
        return result

    def __init__(self, source: bytes, rel_path: str, root: Node) -> None:
        self.source, self.root = source, root  # the package clause is read first
        package = self._package()
        super().__init__(source, root, ParseResult(
            path=rel_path, lang=self.lang, module=package or PurePosixPath(rel_path).stem,
            package=package, error_count=count_errors(root),
        ))
        self.prefix = f"{package}." if package else ""
        # node key -> fqn for types and callables (the scopes calls are attributed to)
        self.scopes: ScopeIndex[NodeKey, str] = ScopeIndex(node_key)
        self.superclass: dict[str, str] = {}  # class fqn -> superclass simple name
        self.callables: set[str] = set()  # fqns of methods/constructors (local scopes)
        self.overloaded: set[tuple[object, str]] = set()  # (owner key, name) pairs

    def run(self) -> ParseResult:
        self.constants = self._constants()
        self._imports()
        self._definitions()
        self._references()
        self._locals()
        self.result.var_types = {k: v for k, v in self.result.var_types.items() if v}
        return self.result

    def _package(self) -> str | None:
        caps = QueryCursor(registry.query(self.lang, f"{self.lang}-imports")).captures(
            self.root)
        names = caps.get("package", [])
        return text_of(names[0]).replace(" ", "") if names else None

    def _constants(self) -> dict[str, str]:
        """The file's string constants by name, for routes built from them."""
        raise NotImplementedError

    def _imports(self) -> None:
        caps = QueryCursor(registry.query(self.lang, f"{self.lang}-imports")).captures(
            self.root)
        for node in sorted(caps.get("import", []), key=lambda n: n.start_byte):
            found = self._import(node)
            if found is not None:
                alias, target = found
                self.result.imports.append(Import(alias, target, node.start_point[0] + 1))

    def _import(self, node: Node) -> tuple[str, str] | None:
        """(alias, target) of an import (alias ``*`` for a wildcard); None when unreadable."""
        raise NotImplementedError

    def _definition_captures(self) -> Iterator[tuple[str, dict[str, list[Node]]]]:
        """Each match of the definitions query: its ``definition.*`` capture, all captures."""
        query = registry.query(self.lang, f"{self.lang}-definitions")
        for _, caps in QueryCursor(query).matches(self.root):
            yield next(k for k in caps if k.startswith("definition.")), caps

    def _definitions(self) -> None:
        matches = self._definition_matches()
        self.overloaded = overload_names(
            (self._owner_key(node), "<init>" if kind == self.constructor_kind
             else text_of(name_node))
            for node, name_node, kind in matches if kind in self.callable_kinds)
        for node, name_node, kind in matches:
            parent = self._owner(node)
            if parent is not False:  # else a local or anonymous declaration: no symbol
                self._add_symbol(node, name_node, kind, parent)

    def _definition_matches(self) -> list[tuple[Node, Node | None, str]]:
        """The declarations of the file in source order: (node, name node, kind)."""
        raise NotImplementedError

    def _add_symbol(self, node: Node, name_node: Node | None, kind: str,
                    parent: str | None) -> None:
        raise NotImplementedError

    def _owner_key(self, node: Node) -> NodeKey | None | bool:
        """Identity of the type declaration owning member ``node`` (None at top level;
        False for a local or anonymous-class declaration, which is no symbol): overload
        groups."""
        owner = owning_type(node, self.type_decls, self.member_containers, self.root_type)
        return node_key(owner) if isinstance(owner, Node) else owner

    def _owner(self, node: Node) -> str | None | bool:
        """fqn of the enclosing type, None at top level, False for local declarations."""
        key = self._owner_key(node)
        return key if key is None or key is False else self.scopes.get(key, False)

    def _references(self) -> None:
        query = registry.query(self.lang, f"{self.lang}-references")
        caps = QueryCursor(query).captures(self.root)
        self.result.calls.extend(collect_calls(caps, self._call_handlers(), self.scopes))

    def _call_handlers(self) -> dict[str, Callable[[Node, str | None], Call | None]]:
        """The reader of each reference capture."""
        raise NotImplementedError

    def _caller(self, node: Node) -> str | None:
        return enclosing_fqn(node, self.scopes)

    def _locals(self) -> None:
        raise NotImplementedError
