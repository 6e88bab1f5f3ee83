"""Python syntax for HTTP call sites (``requests``, ``httpx``, ``aiohttp``, ``urllib``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from graphrag.parsing.http.syntax import Syntax
from graphrag.parsing.http.urls import Part, fill_template, lit, param


class PythonSyntax(Syntax):
    call_types = frozenset({"call"})
    string_types = frozenset({"string", "concatenated_string"})
    concat_types = frozenset({"binary_operator"})
    wrapper_types = frozenset({"parenthesized_expression", "await"})
    binding_types = frozenset({"assignment", "with_item"})
    member_types = {"attribute": ("object", "attribute")}
    map_type = "dictionary"

    def arguments(self, call: Node) -> tuple[list[Node], dict[str, Node]]:
        return self.split_arguments(call.child_by_field_name("arguments"),
                                    "keyword_argument", "name", "value")

    def option_key(self, node: Node) -> str | None:
        key = self.string_parts(node)
        return key[0][1] if key and len(key) == 1 else None

    def string_parts(self, node: Node) -> list[Part] | None:
        if node.type == "concatenated_string":
            out: list[Part] = []
            for child in node.named_children:
                out += self.string_parts(child) or []
            return out
        if node.type != "string":
            return None
        parts: list[Part] = []
        for child in node.named_children:
            if child.type in ("string_content", "escape_sequence"):
                parts.append(lit(self.text(child)))
            elif child.type == "interpolation":
                expr = child.child_by_field_name("expression")
                parts += self.value(expr) if expr is not None else []
        return parts

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            chain = self.chain(left)
            if chain is not None and right is not None:
                yield ".".join(c for c in chain if c not in ("self", "cls")), right
        elif node.type == "with_item":
            value = node.child_by_field_name("value")
            if value is not None and value.type == "as_pattern":
                target = value.child_by_field_name("alias")
                inner = value.named_children[0] if value.named_children else None
                if target is not None and inner is not None:
                    yield self.text(target).strip(), inner

    def env_key(self, node: Node) -> str | None:
        # os.environ["X"]
        if node.type == "subscript":
            chain = self.chain(node.child_by_field_name("value"))
            sub = node.child_by_field_name("subscript")
            if chain and chain[-1] == "environ" and sub is not None:
                key = self.string_parts(sub)
                if key and len(key) == 1:
                    return key[0][1]
        return None

    def special_call(self, call: Node, chain: list[str]) -> list[Part] | None:
        args, kw = self.arguments(call)
        if chain and chain[-1] == "urljoin" and len(args) == 2:
            return self.value(args[0]) + self.value(args[1])
        func = call.child_by_field_name("function")
        if func is not None and func.type == "attribute" \
                and self.text(func.child_by_field_name("attribute")) == "format":
            obj = func.child_by_field_name("object")
            template = self.string_parts(obj) if obj is not None else None
            if template is not None:
                return _format(template, [self.value(a) for a in args],
                               {k: self.value(v) for k, v in kw.items()})
        return None


# ``{}`` or ``{name}`` (the text up to the first closing brace is the field)
_FIELD = re.compile(r"\{([^}]*)\}")


def _format(template: list[Part], values: list[list[Part]],
            named: dict[str, list[Part]]) -> list[Part]:
    """``"{}/users/{id}".format(base, id=x)``: each ``{}`` replaced by the next value,
    a named field by its keyword argument's value (else kept as a parameter)."""
    rest = iter(values)

    def fill(match: re.Match[str]) -> list[Part]:
        field_name = match.group(1)
        if not field_name:
            value = next(rest, None)
            if value is not None:
                return value
        elif field_name in named:
            value = named[field_name]
            # a run-time value keeps the field's own name in the template
            return [param(field_name)] if value and value[0][0] == "param" else value
        return [param(field_name or "?")]

    return fill_template(template, _FIELD, fill)
