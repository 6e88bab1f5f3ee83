"""Reading a language's syntax tree for HTTP call sites: the hooks each language
overrides (:class:`Syntax`), and the shared evaluation of an expression into URL parts
(literals, names from configuration, run-time parameters)."""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterator
from functools import cache

from tree_sitter import Node, Query, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.http.clients import HttpClients
from graphrag.parsing.http.urls import Part, lit, merge, name, param

_MAX_DEPTH = 8
_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
_CONFIG_LIKE = re.compile(r"url|uri|base|host|endpoint|address|server", re.IGNORECASE)


class Syntax:
    """How one language's tree reads. The defaults suit C-like trees; each language's
    subclass names its node types and overrides what differs."""

    call_types: frozenset[str] = frozenset({"call_expression"})
    string_types: frozenset[str] = frozenset({"string", "string_literal"})
    fragment_types: frozenset[str] = frozenset({"string_fragment", "string_content",
                                                "escape_sequence"})
    interpolation_types: frozenset[str] = frozenset({"interpolation", "template_substitution"})
    concat_types: frozenset[str] = frozenset({"binary_expression"})
    wrapper_types: frozenset[str] = frozenset({"parenthesized_expression",
                                               "await_expression"})
    # expressions of a value or a default (``a || b``, ``a or b``, ``a ?: b``)
    fallback_types: frozenset[str] = frozenset({"boolean_operator", "elvis_expression"})

    # node types that may bind a name (read by :meth:`binding_of`)
    binding_types: frozenset[str] = frozenset()
    # the other node types the hooks ask :meth:`nodes_of` for (typed declarations,
    # declared client interfaces)
    extra_types: frozenset[str] = frozenset()
    # number literals (as written in a URL: ``/orders/7``)
    number_types: frozenset[str] = frozenset({
        "integer", "int_literal", "number", "decimal_integer_literal", "integer_literal"})
    # a plain name, and a member access: its node type -> (object field, name field)
    name_types: frozenset[str] = frozenset({"identifier"})
    member_types: dict[str, tuple[str, str]] = {}
    # an object/dict literal of ``pair`` entries (key and value fields), and its entries
    # that are a key and its value at once (JavaScript's ``{method}``)
    map_type: str | None = None
    shorthand_types: frozenset[str] = frozenset()

    def __init__(self, source: bytes, root: Node, clients: HttpClients, lang: str) -> None:
        self.source = source
        self.root = root
        self.clients = clients
        self.lang = lang
        self._bindings: dict[str, list[tuple[int, Node]]] | None = None
        self._nodes: list[Node] | None = None

    @classmethod
    def query_types(cls) -> frozenset[str]:
        """Every node type :meth:`nodes_of` may be asked for."""
        return cls.call_types | cls.binding_types | cls.extra_types

    def nodes_of(self, types: frozenset[str] | tuple[str, ...]) -> list[Node]:
        """Every node of the file of one of ``types`` (of :meth:`query_types`), in
        document order. One compiled query per language finds them all, once per file:
        walking the tree in Python cost more than the rest of the step."""
        if self._nodes is None:
            query = type_query(self.lang, self.query_types())
            found = QueryCursor(query).captures(self.root).get("n", [])
            self._nodes = sorted(found, key=lambda n: n.start_byte)
        return [n for n in self._nodes if n.type in types]

    # -- hooks -------------------------------------------------------------------------

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    def callee(self, call: Node) -> list[str] | None:
        """The called name as a chain (``requests.get`` -> ``["requests", "get"]``; a
        call in the chain ends with ``()``: ``["c", "R()", "Get"]``)."""
        return self.chain(call.child_by_field_name("function"))

    def chain(self, node: Node | None) -> list[str] | None:
        """A name, member access or call chain as a list of names; None otherwise."""
        if node is None:
            return None
        if node.type in self.name_types:
            return [self.text(node)]
        fields = self.member_types.get(node.type)
        if fields is not None:
            head = self.chain(node.child_by_field_name(fields[0]))
            return None if head is None else [*head, self.text(
                node.child_by_field_name(fields[1]))]
        if node.type in self.call_types:
            head = self.callee(node)
            return None if not head else [*head[:-1], head[-1] + "()"]
        if node.type in self.wrapper_types:
            inner = node.named_children
            return self.chain(inner[0]) if inner else None
        return None

    def arguments(self, call: Node) -> tuple[list[Node], dict[str, Node]]:
        """Positional and keyword arguments of a call."""
        args = call.child_by_field_name("arguments")
        return ([c for c in args.named_children if c.type != "comment"] if args else []), {}

    def split_arguments(self, args: Node | None, keyword_type: str, key_field: str,
                        value_field: str) -> tuple[list[Node], dict[str, Node]]:
        """The children of an argument list as positional and keyword ones (a child of
        ``keyword_type`` names its key and value by the two fields)."""
        pos: list[Node] = []
        kw: dict[str, Node] = {}
        for child in args.named_children if args is not None else ():
            if child.type == keyword_type:
                kw[self.text(child.child_by_field_name(key_field))] = \
                    child.child_by_field_name(value_field)
            elif child.type != "comment":
                pos.append(child)
        return pos, kw

    def options(self, node: Node) -> dict[str, Node] | None:
        """The entries of an object/dict literal (``{method: "POST"}``) whose key reads
        (:meth:`option_key`); None for another node."""
        if self.map_type is None or node.type != self.map_type:
            return None
        out = {}
        for entry in node.named_children:
            if entry.type == "pair":
                key = self.option_key(entry.child_by_field_name("key"))
                if key is not None:
                    out[key] = entry.child_by_field_name("value")
            elif entry.type in self.shorthand_types:
                out[self.text(entry)] = entry
        return out

    def option_key(self, node: Node) -> str | None:
        """The key of an object/dict literal's entry as a string; None when unknown."""
        return self.text(node)

    def bindings(self) -> Iterator[tuple[str, Node, int]]:
        """Every name bound to a value in the file: (name, value node, byte position)."""
        for node in self.nodes_of(self.binding_types):
            for key, value in self.binding_of(node):
                yield key, value, node.start_byte

    def bindings_at(self, node: Node) -> Iterator[tuple[str, Node, int]]:
        for key, value in self.binding_of(node):
            yield key, value, node.start_byte

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        """The names ``node`` binds (an assignment, a declaration): (name, value)."""
        return iter(())

    def assigned(self, node: Node) -> Iterator[tuple[str, Node]]:
        """``x = v`` / ``this.x = v``: the target (without ``this``/``self``) and value."""
        chain = self.chain(node.child_by_field_name("left"))
        value = node.child_by_field_name("right")
        if chain and value is not None:
            yield ".".join(c for c in chain if c not in ("this", "self")), value

    def typed_names(self) -> Iterator[tuple[str, str]]:
        """Names declared with a type as written (fields, parameters): (name, type)."""
        return iter(())

    def annotated_methods(self) -> Iterator[tuple[dict[str, Node | None], Node,
                                                  dict[str, Node | None], int]]:
        """Methods of annotated interfaces: (class annotations, method node, method
        annotations, line); annotation name -> its argument list node."""
        return iter(())

    def annotation_args(self, args: Node | None) -> tuple[list[Node], dict[str, Node]]:
        return [], {}

    def string_parts(self, node: Node) -> list[Part] | None:
        """A string literal or template as parts; None for anything else."""
        if node.type not in self.string_types and node.type != "template_string":
            return None
        parts: list[Part] = []
        for child in node.named_children:
            if child.type in self.fragment_types:
                parts.append(lit(self.text(child)))
            elif child.type in self.interpolation_types:
                inner = [c for c in child.named_children if c.type not in _NOT_VALUES]
                parts += self.value(inner[0]) if inner else []
        if not node.named_children:
            parts.append(lit(self.text(node)[1:-1]))
        return parts

    def env_key(self, node: Node) -> str | None:
        """The key of an environment/configuration read (``process.env.X``,
        ``os.environ["X"]``); None otherwise."""
        return None

    def special_call(self, call: Node, chain: list[str]) -> list[Part] | None:
        """The value of a call the language knows (a format function); None otherwise."""
        return None

    # -- shared evaluation -------------------------------------------------------------

    def value(self, node: Node | None, depth: int = 0) -> list[Part]:
        """``node`` as URL parts; what cannot be read becomes a parameter."""
        if node is None:
            return []
        if depth > _MAX_DEPTH:
            return [param(_short(self.text(node)))]
        parts = self.string_parts(node)
        if parts is not None:
            return merge(parts)
        if node.type in self.number_types:
            return [lit(self.text(node))]
        if node.type in self.wrapper_types:
            inner = [c for c in node.named_children if c.type != "comment"]
            return self.value(inner[-1], depth + 1) if inner else []
        operator = self.text(node.child_by_field_name("operator") or _operator(node)) \
            if node.type in self.concat_types or node.type in self.fallback_types else ""
        if operator in ("||", "??", "or", "?:"):
            # a value with a default (``process.env.X || "http://..."``): the configured one
            first = node.child_by_field_name("left") or node.named_children[0]
            return self.value(first, depth + 1)
        if node.type in self.concat_types and operator == "+":
            left = node.child_by_field_name("left") or node.named_children[0]
            right = node.child_by_field_name("right") or node.named_children[-1]
            return merge(self.value(left, depth + 1) + self.value(right, depth + 1))
        key = self.env_key(node)
        if key is not None:
            return [name(key)]
        if node.type in self.call_types:
            chain = self.callee(node) or []
            if chain and ".".join(chain) in self.clients.env_readers:
                args, _ = self.arguments(node)
                key_parts = self.value(args[0], depth + 1) if args else []
                if len(key_parts) == 1 and key_parts[0][0] == "lit":
                    return [name(key_parts[0][1])]
            special = self.special_call(node, chain)
            if special is not None:
                return merge(special)
            return [param(_short(self.text(node)))]
        chain = self.chain(node)
        if chain is not None:
            return self.reference(chain, node.start_byte, depth)
        return [param(_short(self.text(node)))]

    def reference(self, chain: list[str], pos: int, depth: int) -> list[Part]:
        """A name or member chain: the value bound to it in the file (its last binding
        before ``pos``, else its first), else kept by name."""
        bound = self.bound(chain, pos)
        if bound is not None and not bound.start_byte <= pos < bound.end_byte:
            return self.value(bound, depth + 1)
        dotted = ".".join(chain)
        if _CONSTANT.match(chain[-1]) or _CONFIG_LIKE.search(chain[-1]):
            return [name(dotted)]
        return [param(chain[-1])]

    def bound(self, chain: list[str], pos: int) -> Node | None:
        if self._bindings is None:
            self._bindings = defaultdict(list)
            for key, value, at in self.bindings():
                self._bindings[key].append((at, value))
        entries = self._bindings.get(".".join(chain)) or (
            self._bindings.get(chain[-1]) if len(chain) <= 2 else None)
        if not entries:
            return None
        i = bisect.bisect_left([e[0] for e in entries], pos) - 1
        return entries[i][1] if i >= 0 else entries[0][1]


# named children of an interpolation that are not its value (C#'s braces and format)
_NOT_VALUES = frozenset({"comment", "interpolation_brace", "interpolation_start",
                         "interpolation_format_clause", "interpolation_alignment_clause"})


@cache
def type_query(lang: str, types: frozenset[str]) -> Query:
    """A query capturing (as ``n``) every node of ``types`` in ``lang``'s trees."""
    language = registry.ts_language(lang)
    # a type this grammar does not have (the dialects of one family differ) is left out
    known = [t for t in sorted(types) if language.id_for_node_kind(t, True)]
    return Query(language, "[" + " ".join(f"({t})" for t in known or ["ERROR"]) + "] @n")


def _operator(node: Node) -> Node | None:
    for child in node.children:
        if not child.is_named:
            return child
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."
