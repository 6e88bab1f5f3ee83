"""C# syntax for HTTP call sites (``HttpClient``: ``GetAsync``, ``PostAsJsonAsync``...,
``new HttpRequestMessage(HttpMethod.Post, url)``)."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from graphrag.parsing.http.syntax import Syntax
from graphrag.parsing.http.urls import Part, lit


class CSharpSyntax(Syntax):
    call_types = frozenset({"invocation_expression", "object_creation_expression"})
    string_types = frozenset({"string_literal", "verbatim_string_literal",
                              "interpolated_string_expression", "raw_string_literal"})
    fragment_types = frozenset({"string_literal_content", "string_content",
                                "escape_sequence"})
    wrapper_types = frozenset({"parenthesized_expression", "await_expression", "argument"})
    binding_types = frozenset({"variable_declarator", "assignment_expression"})
    extra_types = frozenset({"variable_declaration", "parameter", "property_declaration"})
    name_types = frozenset({"identifier", "this_expression", "this"})
    member_types = {"member_access_expression": ("expression", "name")}

    def callee(self, call: Node) -> list[str] | None:
        if call.type == "object_creation_expression":
            type_node = call.child_by_field_name("type")
            return [self.text(type_node).split("<", 1)[0]] if type_node is not None else None
        return self.chain(call.child_by_field_name("function"))

    def arguments(self, call: Node) -> tuple[list[Node], dict[str, Node]]:
        args = call.child_by_field_name("arguments")
        out = []
        for arg in args.named_children if args is not None else ():
            if arg.type == "argument":
                inner = [c for c in arg.named_children if c.type != "comment"]
                if inner:
                    out.append(inner[-1])
        return out, {}

    def string_parts(self, node: Node) -> list[Part] | None:
        if node.type not in self.string_types:
            return None
        if node.type == "verbatim_string_literal":
            return [lit(self.text(node)[2:-1])]
        return super().string_parts(node)

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        if node.type == "variable_declarator":
            target = node.child_by_field_name("name")
            value = next((c for c in node.named_children if c != target
                          and c.type != "bracketed_argument_list"), None)
            if target is not None and value is not None:
                yield self.text(target), value
        elif node.type == "assignment_expression":
            yield from self.assigned(node)

    def typed_names(self) -> Iterator[tuple[str, str]]:
        for node in self.nodes_of(self.extra_types):
            type_text = self.text(node.child_by_field_name("type"))
            if node.type == "variable_declaration":
                for decl in node.named_children:
                    if decl.type == "variable_declarator":
                        yield self.text(decl.child_by_field_name("name")), type_text
            else:
                yield self.text(node.child_by_field_name("name")), type_text

    def env_key(self, node: Node) -> str | None:
        # configuration["Orders:BaseUrl"], _config["..."]
        if node.type == "element_access_expression":
            target = self.chain(node.child_by_field_name("expression"))
            if target and target[-1].lstrip("_").lower() in ("configuration", "config"):
                args = node.child_by_field_name("subscript")
                parts = self.value(args.named_children[0]) if args is not None \
                    and args.named_children else []
                if len(parts) == 1 and parts[0][0] == "lit":
                    return parts[0][1]
        return None

    def special_call(self, call: Node, chain: list[str]) -> list[Part] | None:
        if chain[-1:] in (["Uri"], ["string.Format"]) or chain[-2:] == ["string", "Format"]:
            args, _ = self.arguments(call)
            return self.value(args[0]) if args and chain[-1] == "Uri" else None
        return None
