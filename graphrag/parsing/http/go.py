"""Go syntax for HTTP call sites (``net/http``, resty)."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from graphrag.parsing.http.jvm import printf
from graphrag.parsing.http.syntax import Syntax
from graphrag.parsing.http.urls import Part, lit


class GoSyntax(Syntax):
    string_types = frozenset({"interpreted_string_literal", "raw_string_literal"})
    fragment_types = frozenset({"interpreted_string_literal_content",
                                "raw_string_literal_content", "escape_sequence"})
    binding_types = frozenset({"const_spec", "var_spec", "short_var_declaration",
                               "assignment_statement", "keyed_element"})
    extra_types = frozenset({"field_declaration", "parameter_declaration"})
    name_types = frozenset({"identifier", "field_identifier", "package_identifier"})
    member_types = {"selector_expression": ("operand", "field")}

    def string_parts(self, node: Node) -> list[Part] | None:
        if node.type not in self.string_types:
            return None
        if not node.named_children:
            return [lit(self.text(node)[1:-1])]
        return super().string_parts(node)

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        if node.type in ("const_spec", "var_spec"):
            names = [c for c in node.children_by_field_name("name")]
            values = node.child_by_field_name("value")
            vals = values.named_children if values is not None else []
            for target, value in zip(names, vals, strict=False):
                yield self.text(target), value
        elif node.type in ("short_var_declaration", "assignment_statement"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                return
            for target, value in zip(left.named_children, right.named_children,
                                     strict=False):
                chain = self.chain(target)
                if chain:
                    yield ".".join(chain[1:] if len(chain) > 1 else chain), value
        elif node.type == "keyed_element":
            kids = node.named_children
            if len(kids) == 2:
                yield self.text(kids[0]), kids[1]

    def typed_names(self) -> Iterator[tuple[str, str]]:
        for node in self.nodes_of(("field_declaration", "parameter_declaration", "var_spec")):
            if node.type in ("field_declaration", "parameter_declaration", "var_spec"):
                type_node = node.child_by_field_name("type")
                if type_node is None:
                    continue
                for target in node.children_by_field_name("name"):
                    yield self.text(target), self.text(type_node).lstrip("*")

    def special_call(self, call: Node, chain: list[str]) -> list[Part] | None:
        args, _ = self.arguments(call)
        if chain == ["fmt", "Sprintf"] and args:
            return printf(self.value(args[0]), [self.value(a) for a in args[1:]])
        if chain[-1:] == ["JoinPath"] and args:
            out: list[Part] = []
            for a in args:
                out += [lit("/"), *self.value(a)]
            return out
        return None
