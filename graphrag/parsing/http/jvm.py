"""Java and Kotlin syntax for HTTP call sites (``RestTemplate``, ``WebClient``, OkHttp,
Ktor, and the declared clients of OpenFeign and Retrofit)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from graphrag.parsing.http.syntax import Syntax
from graphrag.parsing.http.urls import Part, lit, merge, name, param

_SPRING_PLACEHOLDER = re.compile(r"^\$\{([^}:]+)(?::[^}]*)?\}$")
_SIMPLE_TEMPLATE = re.compile(r"^[A-Za-z_]\w*")


def _placeholder(parts: list[Part]) -> list[Part]:
    """``"${orders.url}"`` (a Spring property placeholder) is a configuration name."""
    parts = merge(parts)
    if len(parts) == 1 and parts[0][0] == "lit":
        match = _SPRING_PLACEHOLDER.match(parts[0][1].replace("\\$", "$"))
        if match:
            return [name(match.group(1))]
    return parts


class JavaSyntax(Syntax):
    call_types = frozenset({"method_invocation", "object_creation_expression"})
    string_types = frozenset({"string_literal"})
    binding_types = frozenset({"variable_declarator", "assignment_expression",
                               "field_declaration", "formal_parameter"})
    extra_types = frozenset({"local_variable_declaration", "interface_declaration"})
    name_types = frozenset({"identifier", "this"})
    member_types = {"field_access": ("object", "field")}

    def callee(self, call: Node) -> list[str] | None:
        if call.type == "object_creation_expression":
            type_node = call.child_by_field_name("type")
            return [self.text(type_node).split("<", 1)[0]] if type_node is not None else None
        obj = call.child_by_field_name("object")
        head = self.chain(obj) if obj is not None else []
        if head is None:
            return None
        return [*head, self.text(call.child_by_field_name("name"))]

    def string_parts(self, node: Node) -> list[Part] | None:
        parts = super().string_parts(node)
        return None if parts is None else _placeholder(parts)

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        if node.type == "variable_declarator":
            target, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if target is not None and value is not None:
                yield self.text(target), value
        elif node.type == "assignment_expression":
            yield from self.assigned(node)
        elif node.type in ("field_declaration", "formal_parameter"):
            # @Value("${orders.url}") String ordersUrl
            value = self._value_annotation(node)
            if value is not None:
                for decl in node.named_children:
                    target = decl.child_by_field_name("name") \
                        if decl.type == "variable_declarator" else None
                    if target is not None:
                        yield self.text(target), value
                target = node.child_by_field_name("name")
                if target is not None:
                    yield self.text(target), value

    def _value_annotation(self, node: Node) -> Node | None:
        for child in node.children:
            if child.type != "modifiers":
                continue
            for ann in child.named_children:
                if ann.type == "annotation" and self.text(
                        ann.child_by_field_name("name")) == "Value":
                    args, kw = self.annotation_args(ann.child_by_field_name("arguments"))
                    return kw.get("value") or (args[0] if args else None)
        return None

    def typed_names(self) -> Iterator[tuple[str, str]]:
        for node in self.nodes_of(("field_declaration", "local_variable_declaration",
                                   "formal_parameter")):
            if node.type in ("field_declaration", "local_variable_declaration"):
                type_text = self.text(node.child_by_field_name("type"))
                for decl in node.named_children:
                    if decl.type == "variable_declarator":
                        yield self.text(decl.child_by_field_name("name")), type_text
            elif node.type == "formal_parameter":
                yield (self.text(node.child_by_field_name("name")),
                       self.text(node.child_by_field_name("type")))

    def annotation_args(self, args: Node | None) -> tuple[list[Node], dict[str, Node]]:
        return self.split_arguments(args, "element_value_pair", "key", "value")

    def annotated_methods(self) -> Iterator[tuple[dict[str, Node | None], Node,
                                                  dict[str, Node | None], int]]:
        for node in self.nodes_of(("interface_declaration",)):
            class_anns = self._annotations(node)
            body = node.child_by_field_name("body")
            for member in body.named_children if body is not None else ():
                if member.type == "method_declaration":
                    line = member.child_by_field_name("name").start_point[0] + 1
                    yield class_anns, member, self._annotations(member), line

    def _annotations(self, node: Node) -> dict[str, Node | None]:
        out: dict[str, Node | None] = {}
        for child in node.children:
            if child.type == "modifiers":
                for ann in child.named_children:
                    if ann.type in ("annotation", "marker_annotation"):
                        key = self.text(ann.child_by_field_name("name")).rsplit(".", 1)[-1]
                        out[key] = ann.child_by_field_name("arguments")
        return out

    def special_call(self, call: Node, chain: list[str]) -> list[Part] | None:
        if chain[-2:] in (["URI", "create"], ["URI"], ["URL"], ["Uri", "parse"]):
            args, _ = self.arguments(call)
            return self.value(args[0]) if args else None
        if chain[-2:] == ["String", "format"] or chain[-1:] == ["formatted"]:
            args, _ = self.arguments(call)
            if chain[-1] == "formatted":
                obj = call.child_by_field_name("object")
                template = self.value(obj) if obj is not None else []
                values = args
            elif args:
                template, values = self.value(args[0]), args[1:]
            else:
                return None
            return printf(template, [self.value(v) for v in values])
        return None


class KotlinSyntax(JavaSyntax):
    call_types = frozenset({"call_expression"})
    string_types = frozenset({"string_literal", "multiline_string_literal"})
    concat_types = frozenset({"additive_expression", "binary_expression"})
    wrapper_types = frozenset({"parenthesized_expression"})
    binding_types = frozenset({"property_declaration", "assignment", "class_parameter",
                               "parameter"})
    extra_types = frozenset({"class_declaration"})

    def callee(self, call: Node) -> list[str] | None:
        func = call.named_children[0] if call.named_children else None
        return self.chain(func)

    def chain(self, node: Node | None) -> list[str] | None:
        if node is None:
            return None
        if node.type in ("identifier", "simple_identifier", "this_expression"):
            return [self.text(node)]
        if node.type == "navigation_expression":
            kids = node.named_children
            if len(kids) < 2:
                return None
            head = self.chain(kids[0])
            last = kids[-1]
            if last.type == "navigation_suffix":
                last = last.named_children[-1] if last.named_children else last
            return None if head is None else [*head, self.text(last)]
        if node.type == "call_expression":
            head = self.callee(node)
            return None if not head else [*head[:-1], head[-1] + "()"]
        return None

    def arguments(self, call: Node) -> tuple[list[Node], dict[str, Node]]:
        pos: list[Node] = []
        kw: dict[str, Node] = {}
        for child in call.named_children[1:]:
            args = child if child.type == "value_arguments" else next(
                (c for c in child.named_children if c.type == "value_arguments"), None)
            for arg in args.named_children if args is not None else ():
                if arg.type != "value_argument":
                    continue
                kids = [c for c in arg.named_children if c.type != "comment"]
                if len(kids) == 2 and kids[0].type in ("identifier", "simple_identifier") \
                        and "=" in self.text(arg)[len(self.text(kids[0])):].split('"')[0]:
                    kw[self.text(kids[0])] = kids[1]
                elif kids:
                    pos.append(kids[-1])
        return pos, kw

    def string_parts(self, node: Node) -> list[Part] | None:
        if node.type not in self.string_types:
            return None
        parts: list[Part] = []
        dollar = False
        for child in node.children:
            if child.type == "$" or (child.type == "string_content"
                                     and child.grammar_name == "$"):
                dollar = True
                continue
            if child.type == "string_content":
                text = self.text(child)
                if dollar:
                    match = _SIMPLE_TEMPLATE.match(text)
                    if match:
                        parts += self.reference([match.group(0)], child.start_byte, 1)
                        text = text[match.end():]
                parts.append(lit(text))
            elif child.type == "interpolation":
                inner = [c for c in child.named_children if c.type != "comment"]
                parts += self.value(inner[0]) if inner else []
            elif child.type in ("escape_sequence", "character_escape_seq"):
                parts.append(lit(self.text(child)))
            dollar = False
        return _placeholder(parts)

    def binding_of(self, node: Node) -> Iterator[tuple[str, Node]]:
        if node.type == "property_declaration":
            decl = next((c for c in node.named_children if c.type == "variable_declaration"),
                        None)
            kids = node.named_children
            value = kids[-1] if kids and kids[-1] is not decl else None
            if decl is not None and value is not None and value.type not in (
                    "modifiers", "user_type", "property_delegate"):
                ident = decl.named_children[0] if decl.named_children else decl
                yield self.text(ident), value
        elif node.type == "assignment":
            kids = node.named_children
            chain = self.chain(kids[0]) if len(kids) == 2 else None
            if chain:
                yield ".".join(c for c in chain if c != "this"), kids[1]
        elif node.type in ("class_parameter", "parameter", "property_declaration"):
            value = self._kotlin_value_annotation(node)
            ident = next((c for c in node.named_children
                          if c.type in ("identifier", "simple_identifier")), None)
            if value is not None and ident is not None:
                yield self.text(ident), value

    def _kotlin_value_annotation(self, node: Node) -> Node | None:
        for mods in node.named_children:
            if mods.type not in ("modifiers", "parameter_modifiers"):
                continue
            for ann, args in self._kotlin_annotation_nodes(mods):
                if ann == "Value" and args:
                    return args[0]
        return None

    def _kotlin_annotation_nodes(self, mods: Node) -> Iterator[tuple[str, list[Node]]]:
        for ann in mods.named_children:
            if ann.type != "annotation":
                continue
            inv = next((c for c in ann.named_children
                        if c.type in ("constructor_invocation", "user_type")), None)
            if inv is None:
                continue
            type_node = inv if inv.type == "user_type" else inv.named_children[0]
            args_node = next((c for c in inv.named_children if c.type == "value_arguments"),
                             None)
            args = [a.named_children[-1] for a in args_node.named_children
                    if a.type == "value_argument" and a.named_children] if args_node else []
            yield self.text(type_node).rsplit(".", 1)[-1], args

    def typed_names(self) -> Iterator[tuple[str, str]]:
        for node in self.nodes_of(("class_parameter", "parameter", "property_declaration")):
            if node.type in ("class_parameter", "parameter"):
                ident = next((c for c in node.named_children
                              if c.type in ("identifier", "simple_identifier")), None)
                type_node = next((c for c in node.named_children
                                  if c.type in ("user_type", "nullable_type")), None)
                if ident is not None and type_node is not None:
                    yield self.text(ident), self.text(type_node).rstrip("?")
            elif node.type == "property_declaration":
                decl = next((c for c in node.named_children
                             if c.type == "variable_declaration"), None)
                if decl is not None and len(decl.named_children) >= 2:
                    yield self.text(decl.named_children[0]), self.text(decl.named_children[1])

    def annotation_args(self, args: Node | None) -> tuple[list[Node], dict[str, Node]]:
        pos: list[Node] = []
        kw: dict[str, Node] = {}
        for arg in args.named_children if args is not None else ():
            if arg.type != "value_argument":
                continue
            kids = arg.named_children
            if len(kids) == 2:
                kw[self.text(kids[0])] = kids[1]
            elif kids:
                pos.append(kids[-1])
        return pos, kw

    def annotated_methods(self) -> Iterator[tuple[dict[str, Node | None], Node,
                                                  dict[str, Node | None], int]]:
        for node in self.nodes_of(("class_declaration",)):
            if not any(
                    c.type == "interface" for c in node.children):
                continue
            class_anns = self._kotlin_annotations(node)
            body = next((c for c in node.named_children if c.type == "class_body"), None)
            for member in body.named_children if body is not None else ():
                if member.type == "function_declaration":
                    name_node = member.child_by_field_name("name")
                    line = (name_node or member).start_point[0] + 1
                    yield class_anns, member, self._kotlin_annotations(member), line

    def _kotlin_annotations(self, node: Node) -> dict[str, Node | None]:
        out: dict[str, Node | None] = {}
        for mods in node.named_children:
            if mods.type != "modifiers":
                continue
            for ann in mods.named_children:
                inv = next((c for c in ann.named_children
                            if c.type in ("constructor_invocation", "user_type")), None)
                if ann.type != "annotation" or inv is None:
                    continue
                type_node = inv if inv.type == "user_type" else inv.named_children[0]
                out[self.text(type_node).rsplit(".", 1)[-1]] = next(
                    (c for c in inv.named_children if c.type == "value_arguments"), None)
        return out

    def special_call(self, call: Node, chain: list[str]) -> list[Part] | None:
        if chain[-1:] == ["format"] and len(chain) >= 2:
            args, _ = self.arguments(call)
            func = call.named_children[0]
            obj = func.named_children[0] if func.named_children else None
            if obj is not None and obj.type in self.string_types:
                return printf(self.value(obj), [self.value(v) for v in args])
            if chain[-2] == "String" and args:
                return printf(self.value(args[0]), [self.value(v) for v in args[1:]])
        return None


_PRINTF = re.compile(r"%[-#+ 0,(]*\d*(?:\.\d+)?[a-zA-Z%]")


def printf(template: list[Part], values: list[list[Part]]) -> list[Part]:
    """``"%s/orders/%d"`` with its arguments: each conversion replaced by the next
    value (Java ``String.format``, Kotlin ``format``, Go ``fmt.Sprintf``)."""
    out: list[Part] = []
    index = 0
    for kind, text in template:
        if kind != "lit":
            out.append((kind, text))
            continue
        pos = 0
        for match in _PRINTF.finditer(text):
            out.append(lit(text[pos:match.start()]))
            if match.group(0) == "%%":
                out.append(lit("%"))
            elif index < len(values):
                out += values[index]
                index += 1
            else:
                out.append(param("?"))
            pos = match.end()
        out.append(lit(text[pos:]))
    return out
