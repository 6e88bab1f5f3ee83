"""Rust syntax for HTTP call sites (reqwest: ``reqwest::get``, ``Client::new()`` and
its ``get``/``post``... builders; ``format!`` URLs)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from graphrag.parsing.http.syntax import Syntax
from graphrag.parsing.http.urls import Part, lit, param

_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)?(?::[^}]*)?\}")


class RustSyntax(Syntax):
    string_types = frozenset({"string_literal", "raw_string_literal"})
    fragment_types = frozenset({"string_content", "escape_sequence"})
    wrapper_types = frozenset({"parenthesized_expression", "await_expression",
                               "reference_expression", "try_expression"})
    binding_types = frozenset({"let_declaration", "const_item", "static_item"})
    extra_types = frozenset({"parameter", "field_declaration", "macro_invocation"})
    name_types = frozenset({"identifier", "field_identifier", "self"})
    member_types = {"field_expression": ("value", "field")}

    def chain(self, node: Node | None) -> list[str] | None:
        if node is not None and node.type == "scoped_identifier":
            return self.text(node).split("::")
        return super().chain(node)

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        target = node.child_by_field_name("pattern") or node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if target is not None and value is not None and target.type == "identifier":
            yield self.text(target), value

    def typed_names(self) -> Iterator[tuple[str, str]]:
        for node in self.nodes_of(("parameter", "field_declaration")):
            target = node.child_by_field_name("pattern") or node.child_by_field_name("name")
            type_node = node.child_by_field_name("type")
            if target is not None and type_node is not None:
                yield self.text(target), self.text(type_node).lstrip("&").split("::")[-1]

    def value(self, node: Node | None, depth: int = 0) -> list[Part]:
        if node is not None and node.type == "macro_invocation" and self.text(
                node.child_by_field_name("macro")) == "format":
            return self._format(node, depth)
        return super().value(node, depth)

    def _format(self, node: Node, depth: int) -> list[Part]:
        """``format!("{}/orders/{id}", base)``: ``{}`` takes the next argument, ``{id}``
        the name (a constant when one is bound, else a parameter)."""
        tree = next((c for c in node.named_children if c.type == "token_tree"), None)
        tokens = [c for c in tree.named_children] if tree is not None else []
        if not tokens or tokens[0].type != "string_literal":
            return [param("format")]
        template = self.text(tokens[0])[1:-1]
        values = [t for t in tokens[1:] if t.type not in ("string_literal",)]
        out: list[Part] = []
        pos = index = 0
        for match in _PLACEHOLDER.finditer(template):
            out.append(lit(template[pos:match.start()]))
            named = match.group(1)
            if named:
                out += self.reference([named], node.start_byte, depth + 1)
            elif index < len(values):
                out += self.value(values[index], depth + 1)
                index += 1
            else:
                out.append(param("_"))
            pos = match.end()
        out.append(lit(template[pos:]))
        return out
