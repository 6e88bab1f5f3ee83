"""Helpers and per-file state shared by the TS/JS symbol and reference passes.

Conventions (see model.py for the shared ones):

* module = repo-relative path without extension; relative import specifiers are
  resolved to module paths (a specifier naming a directory resolves to that path; the
  resolver is expected to also try ``<target>/index``); bare specifiers are kept as
  written. Named imports target ``<module>:<Name>``, default imports
  ``<module>:default``, namespace imports and ``require`` of a whole module ``<module>``.
* var_types of file-level code are keyed by the file path (the FILE node's fqn).
* ``app.use('/prefix', router)`` joins the prefix into the routes of ``router`` when
  the router is created in the same file. A router imported from another module is
  recorded as a Registration with ``http_method="USE"``, ``route=<prefix>`` and
  ``handler_name=<local alias>`` so the resolver can join the prefix across modules.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import (
    ScopeIndex,
    count_errors,  # noqa: F401 - shared API
    keeps_items,
    node_id,
)
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol
from graphrag.parsing.tsconfig import TsConfig, resolve_alias
from graphrag.parsing.typetext import split_top_level

CODE_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
FUNCTION_NODES = {"arrow_function", "function_expression", "function"}
CLASS_NODES = {"class_declaration", "abstract_class_declaration", "class"}
REFERENCE_NODES = {"identifier", "member_expression"}
MAX_SIGNATURE = 300
# built-in types never name a repository symbol: kept in meta, not in var_types
PRIMITIVE_TYPES = {"string", "number", "boolean", "bigint", "symbol", "any", "unknown",
                   "void", "never", "object", "null", "undefined", "true", "false"}
JSDOC_PARAM = re.compile(r"@param\s+\{([^}]+)\}\s+\[?([\w$]+)")
JSDOC_RETURNS = re.compile(r"@returns?\s+\{([^}]+)\}")
JSDOC_TYPE = re.compile(r"@type\s+\{([^}]+)\}")


@dataclass(frozen=True)
class Dialect:
    """Which grammar parses the file and which query files describe it."""

    grammar: str        # registry name: "typescript", "tsx" or "javascript"
    queries: str        # query file prefix: "typescript" (also for tsx) or "javascript"
    lang: str           # ParseResult.lang


def module_of(rel_path: str) -> str:
    """``src/routes/index.ts`` -> ``src/routes/index``."""
    stem, ext = posixpath.splitext(rel_path)
    return stem if ext.lower() in CODE_EXTENSIONS else rel_path


def resolve_specifier(spec: str, rel_path: str, configs: tuple[TsConfig, ...] = ()) -> str:
    """Module path of an import specifier seen in ``rel_path``.

    Relative specifiers (``./x``, ``../lib``, ``.``) are joined to the importing file's
    directory and lose a code extension (``./x.js`` in TS ESM code names ``x.ts``).
    A bare specifier that a tsconfig ``paths`` alias or ``baseUrl`` maps into the
    repository becomes that path; other bare specifiers (``express``, ``@scope/pkg``)
    are returned as written.
    """
    if not (spec == "." or spec == ".." or spec.startswith(("./", "../"))):
        aliased = resolve_alias(spec, rel_path, configs) if configs else None
        return module_of(aliased) if aliased else spec
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel_path), spec))
    return module_of(joined)


def node_text(node: Node | None) -> str:
    """Decoded source text of ``node`` ("" for None)."""
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def var_type(text: str | None) -> str | None:
    """A declared variable, parameter or property type for the resolver:
    :func:`simple_type`, except that a container whose items have a class keeps its type
    arguments (``Map<string, Item>``, ``Item[]``, ``Record<string, Item>``: ``m.get(k)``
    and ``xs[i]`` are Items)."""
    if text:
        raw = " ".join(text.strip().lstrip(":").split()).removeprefix("readonly ")
        if "|" not in raw and keeps_items(raw):
            return raw
    return simple_type(text)


def simple_type(text: str | None) -> str | None:
    """A type as written -> the name the resolver looks up.

    Strips ``:``, ``readonly``, generics, ``[]`` and null/undefined union members:
    ``Repository<User> | null`` -> ``Repository``; a union of several named types stays
    one: ``Subscriber<T> | Observer<T>`` -> ``Subscriber | Observer``.
    """
    if not text:
        return None
    text = text.strip().lstrip(":").strip()
    parts = [p.strip() for p in split_top_level(text, "|")]
    parts = [p for p in parts if p and p not in ("null", "undefined", "void")]
    if not parts:
        return None
    if len(parts) > 1:  # `A | B`: each class stays (the resolver links a call to each)
        names = [_plain(p) for p in parts]
        names = list(dict.fromkeys(n for n in names if n and n not in PRIMITIVE_TYPES))
        if len(names) > 1:
            return " | ".join(names)
        if names:  # `string | Foo`: the one class
            return names[0]
    return _plain(parts[0])


def _plain(text: str) -> str | None:
    text = text.removeprefix("readonly ").strip()
    if text[:1] in "{([\"'`":  # object/function/tuple/literal types name no symbol
        return None
    text = text.split("<", 1)[0].strip()
    while text.endswith("[]"):
        text = text[:-2].strip()
    return text or None


def clean_jsdoc(text: str) -> str | None:
    """Strip ``/**``, ``*/`` and leading ``*`` from a JSDoc block."""
    body = text.strip().removeprefix("/**").removesuffix("*/")
    lines = []
    for line in body.splitlines():
        line = line.strip()
        if line.startswith("*"):
            line = line[1:]
            line = line[1:] if line.startswith(" ") else line
        lines.append(line.rstrip())
    cleaned = "\n".join(lines).strip()
    return cleaned or None


def receiver_chain(node: Node, calls: bool = False) -> list[str]:
    """Receiver chain of a call's object: ``this.repo`` -> ["this", "repo"]; ["?"] when
    the object is an expression we cannot name (an index...). With ``calls`` a call
    result names its call: ``a.b().c`` -> ["a", "b()", "c"], ``new Foo()`` -> ["Foo()"]
    (without, a call result is ["?"])."""
    if node.type in ("this", "super", "identifier"):
        return [node_text(node)]
    if node.type == "member_expression":
        head = receiver_chain(node.child_by_field_name("object"), calls)
        if head == ["?"]:
            return head
        return [*head, node_text(node.child_by_field_name("property"))]
    if node.type in ("non_null_expression", "parenthesized_expression") and node.named_children:
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) == 1 and (node.type == "non_null_expression" or calls):
            return receiver_chain(inner[0], calls)
    if calls and node.type == "subscript_expression":  # `xs[i].run()`: one item
        head = receiver_chain(node.child_by_field_name("object"), calls)
        return ["?"] if head == ["?"] else [*head, "[]"]
    if calls and node.type in ("call_expression", "new_expression"):
        field = "function" if node.type == "call_expression" else "constructor"
        callee = node.child_by_field_name(field)
        if callee is not None and callee.type == "identifier":
            return [node_text(callee) + "()"]
        if callee is not None and callee.type == "member_expression":
            head = receiver_chain(callee.child_by_field_name("object"), calls)
            if head != ["?"]:
                return [*head, node_text(callee.child_by_field_name("property")) + "()"]
    return ["?"]


def dotted(node: Node | None) -> str | None:
    """``a.b.c`` for an identifier/member chain, else None."""
    if node is None:
        return None
    chain = receiver_chain(node)
    return None if chain == ["?"] else ".".join(chain)


def string_value(node: Node | None) -> str | None:
    """Value of a string literal or a template string without substitutions."""
    if node is None or node.type not in ("string", "template_string"):
        return None
    if any(c.type == "template_substitution" for c in node.named_children):
        return None
    return node_text(node)[1:-1]


def join_route(prefix: str, route: str) -> str:
    """``/api`` + ``/:id`` -> ``/api/:id``; ``/api`` + ``/`` -> ``/api``."""
    prefix = prefix.rstrip("/")
    route = route.strip()
    joined = prefix if route in ("", "/") else f"{prefix}/{route.lstrip('/')}"
    return joined if joined.startswith("/") else "/" + joined



def walk(node: Node) -> Iterator[Node]:
    """All descendants of ``node`` in document order."""
    stack = list(reversed(node.children))
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def captures(query_name: str, dialect: Dialect, root: Node) -> list[tuple[str, Node]]:
    """All captures of ``<dialect>-<query_name>.scm`` as (name, node), in source order,
    outer nodes before the nodes they contain; ``_``-prefixed helper captures dropped."""
    query = registry.query(dialect.grammar, f"{dialect.queries}-{query_name}")
    found = QueryCursor(query).captures(root)
    pairs = [(name, node) for name, nodes in found.items() if not name.startswith("_")
             for node in nodes]
    pairs.sort(key=lambda p: (p[1].start_byte, -p[1].end_byte))
    return pairs


class FileContext(FileExtractor):
    """State while extracting one file: the ParseResult being built; ``owners`` maps
    the node id of each symbol that can enclose code (class, function, method, endpoint)
    to its fqn. The passes over the file are the functions of ``symbols`` and
    ``references`` (:func:`graphrag.parsing.languages.ecmascript.extract_file`)."""

    def __init__(self, source: bytes, rel_path: str, dialect: Dialect, root: Node,
                 ts_configs: tuple[TsConfig, ...] = ()) -> None:
        self.module = module_of(rel_path)
        super().__init__(source, root, ParseResult(
            path=rel_path, lang=dialect.lang, module=self.module, package=None))
        self.ts_configs = ts_configs
        self.path = rel_path
        self.dialect = dialect
        self.owners: ScopeIndex[int, str] = ScopeIndex(node_id)
        self.by_fqn: dict[str, Symbol] = {}
        self.class_fqns: set[str] = set()
        # node id of an object literal that is an OBJECT symbol -> its fqn
        self.object_literals: dict[int, str] = {}
        self.imported: set[str] = set()
        self.deferred: list[Callable[[], None]] = []

    # ----------------------------------------------------------------- helpers
    def owner_of(self, node: Node) -> str | None:
        """fqn of the innermost symbol enclosing ``node`` (None = file level)."""
        return self.owners.enclosing(node)

    def child_fqn(self, parent: str | None, name: str) -> str:
        return f"{parent}.{name}" if parent else f"{self.module}:{name}"

    def add_symbol(self, kind: str, name: str, fqn: str, parent: str | None, span: Node,
                   *, signature: str | None = None, doc: str | None = None,
                   meta: dict[str, Any] | None = None, owner_node: Node | None = None,
                   ) -> Symbol:
        """Record a symbol spanning ``span``; ``owner_node`` (if any) encloses its code."""
        suffix = ""
        if fqn in self.by_fqn:  # overloads / re-declarations: keep stable keys distinct
            suffix = f"#{span.start_point[0] + 1}"
        symbol = Symbol(
            kind=kind, name=name, fqn=fqn, parent=parent,
            line_start=span.start_point[0] + 1, line_end=span.end_point[0] + 1,
            char_start=self.offsets(span.start_byte), char_end=self.offsets(span.end_byte),
            signature=signature, doc_comment=doc, meta=meta or {}, key_suffix=suffix,
        )
        self.result.symbols.append(symbol)
        self.by_fqn.setdefault(fqn, symbol)
        if owner_node is not None:
            self.owners[owner_node.id] = fqn
        return symbol

    def set_var_type(self, scope: str | None, name: str, type_: str | None) -> None:
        """Remember the type of ``name`` in ``scope`` (None = file level)."""
        if not type_ or not name or type_ in PRIMITIVE_TYPES:
            return
        key = scope if scope is not None else self.path
        self.result.var_types.setdefault(key, {}).setdefault(name, type_)

    def add_call(self, caller: str | None, name: str, receiver: list[str] | None,
                 node: Node, kind: str = "call") -> None:
        self.result.calls.append(Call(caller=caller, name=name, receiver=receiver,
                                      line=node.start_point[0] + 1, kind=kind))

    def add_heritage(self, cls: str, base: str, relation: str, node: Node) -> None:
        self.result.heritage.append(Heritage(cls=cls, base=base, relation=relation,
                                             line=node.start_point[0] + 1))

    def add_import(self, alias: str, target: str, node: Node) -> None:
        self.imported.add(alias)
        self.result.imports.append(Import(alias=alias, target=target,
                                          line=node.start_point[0] + 1))

    def add_registration(self, registration: Registration) -> None:
        self.result.registrations.append(registration)
