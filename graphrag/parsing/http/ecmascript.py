"""JavaScript/TypeScript syntax for HTTP call sites (``fetch``, ``axios``, ``got``,
``ky``, Angular's ``HttpClient``)."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from graphrag.parsing.http.syntax import Syntax


class EcmaSyntax(Syntax):
    call_types = frozenset({"call_expression", "new_expression"})
    string_types = frozenset({"string", "template_string"})
    wrapper_types = frozenset({"parenthesized_expression", "await_expression",
                               "as_expression", "non_null_expression",
                               "satisfies_expression"})
    binding_types = frozenset({"variable_declarator", "assignment_expression",
                               "public_field_definition", "field_definition"})
    extra_types = frozenset({"required_parameter", "optional_parameter"})
    name_types = frozenset({"identifier", "this", "property_identifier"})
    member_types = {"member_expression": ("object", "property")}
    map_type = "object"
    shorthand_types = frozenset({"shorthand_property_identifier"})

    def callee(self, call: Node) -> list[str] | None:
        func = call.child_by_field_name("function") or call.child_by_field_name(
            "constructor")
        return self.chain(func)

    def arguments(self, call: Node) -> tuple[list[Node], dict[str, Node]]:
        args = call.child_by_field_name("arguments")
        if args is None:
            return [], {}
        if args.type == "template_string":  # got`...` tagged template: not a call site
            return [], {}
        return [c for c in args.named_children if c.type != "comment"], {}

    def option_key(self, node: Node) -> str | None:
        return self.text(node).strip("'\"`")

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        if node.type == "variable_declarator":
            target, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if target is not None and value is not None and target.type == "identifier":
                yield self.text(target), value
        elif node.type in ("assignment_expression", "public_field_definition",
                           "field_definition"):
            target = node.child_by_field_name("left") or node.child_by_field_name("name") \
                or node.child_by_field_name("property")
            value = node.child_by_field_name("right") or node.child_by_field_name("value")
            chain = self.chain(target)
            if chain and value is not None:
                yield ".".join(c for c in chain if c != "this"), value

    def typed_names(self) -> Iterator[tuple[str, str]]:
        for node in self.nodes_of(("required_parameter", "optional_parameter",
                                   "public_field_definition")):
            if node.type in ("required_parameter", "optional_parameter",
                             "public_field_definition"):
                target = node.child_by_field_name("pattern") or node.child_by_field_name(
                    "name")
                ann = node.child_by_field_name("type")
                if target is not None and ann is not None:
                    yield self.text(target), self.text(ann).lstrip(":").strip()

    def env_key(self, node: Node) -> str | None:
        if node.type == "member_expression":
            chain = self.chain(node)
            if chain and len(chain) == 3 and chain[:2] in (["process", "env"],
                                                          ["import", "meta"]):
                return chain[2]
            if chain and len(chain) == 4 and chain[:3] == ["import", "meta", "env"]:
                return chain[3]
        if node.type == "subscript_expression":
            chain = self.chain(node.child_by_field_name("object"))
            index = node.child_by_field_name("index")
            if chain == ["process", "env"] and index is not None:
                return self.text(index).strip("'\"`")
        return None
