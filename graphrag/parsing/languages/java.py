"""Java extractor: one ``.java`` file -> :class:`ParseResult`.

Tree-sitter queries (``queries/java-*.scm``) find declarations, imports, calls and
typed locals; Python walks parents only to decide scopes (which class owns a member,
which method a call sits in). Local and anonymous classes are not symbols: calls inside
them are attributed to the enclosing method.

The JVM helpers (doc comments, signatures, type names, overload keys) live in
``_jvm.py``, shared with the Kotlin extractor; the routes its annotations declare are
the route frameworks' (:mod:`graphrag.parsing.routes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._common import decl_starts, outermost_captures
from graphrag.parsing.languages._jvm import (
    Annotation,
    JvmFile,
    collapse,
    declared_type,
    doc_comment_before,
    dotted_call_target,
    header_text,
    literal_type,
    node_key,
    overload_fqn,
    simple_type,
    text_of,
)
from graphrag.parsing.model import Call, Heritage, ParseResult, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.routes import RouteSite, declared_endpoint

LANG = "java"

_TYPE_DECLS = {
    "class_declaration": "CLASS",
    "record_declaration": "CLASS",
    "interface_declaration": "INTERFACE",
    "annotation_type_declaration": "INTERFACE",
    "enum_declaration": "ENUM",
}
# Nodes between a member and its type declaration; anything else means "local".
_MEMBER_CONTAINERS = frozenset({
    "class_body", "interface_body", "enum_body", "enum_body_declarations",
    "annotation_type_body", "formal_parameters", "ERROR",
})
_CAPTURE_KINDS = {
    "definition.class": "CLASS", "definition.interface": "INTERFACE",
    "definition.enum": "ENUM", "definition.method": "METHOD",
    "definition.constructor": "CONSTRUCTOR", "definition.field": "FIELD",
}
_ANNOTATION_TYPES = frozenset({"annotation", "marker_annotation"})
_DECL_START = decl_starts("public private protected abstract final sealed non-sealed static "
                          "strictfp class interface enum record")
_NAME_TYPES = frozenset({"identifier", "scoped_identifier"})


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Java file (:meth:`JvmFile.extract`)."""
    return _JavaFile.extract(source, rel_path)


class _JavaFile(JvmFile):
    """Extraction state for one file."""

    lang = LANG
    decl_start = _DECL_START
    root_type = "program"
    type_decls = _TYPE_DECLS
    member_containers = _MEMBER_CONTAINERS
    callable_kinds = ("METHOD", "CONSTRUCTOR")
    constructor_kind = "CONSTRUCTOR"

    def _constants(self) -> dict[str, str]:
        return _string_constants(self.root)

    # --- header -------------------------------------------------------------

    def _import(self, node: Node) -> tuple[str, str] | None:
        names = [c for c in node.named_children if c.type in _NAME_TYPES]
        if not names:
            return None
        target = text_of(names[0]).replace(" ", "")
        wildcard = any(c.type == "asterisk" for c in node.children)
        return ("*" if wildcard else target.rsplit(".", 1)[-1]), target

    # --- declarations -------------------------------------------------------

    def _definition_matches(self) -> list[tuple[Node, Node | None, str]]:
        matches: list[tuple[Node, Node | None, str]] = [
            (caps[capture][0], caps["name"][0], _CAPTURE_KINDS[capture])
            for capture, caps in self._definition_captures()]
        return sorted(matches, key=lambda m: (m[0].start_byte, m[1].start_byte))

    def _add_symbol(self, node: Node, name_node: Node, kind: str, parent: str | None) -> None:
        name = text_of(name_node)
        if kind == "CONSTRUCTOR":
            name = "<init>"
        fqn = f"{parent}.{name}" if parent else f"{self.prefix}{name}"
        annotations = self._annotations(node)
        meta: dict = {"annotations": [collapse(text_of(a)) for a in annotations]}
        meta["static"] = self._has_modifier(node, "static")
        signature = self._signature(node, name_node, kind)
        if kind == "FIELD":
            meta["type"] = self._field_type(node)
        elif kind in ("METHOD", "CONSTRUCTOR"):
            meta["params"] = self._params(node, parent)
            ret = node.child_by_field_name("type")
            meta["return_type"] = collapse(text_of(ret)) if ret is not None else None
            kind = self._endpoint_kind(node, kind, parent, annotations, meta)
            if (self._owner_key(node), name) in self.overloaded:
                fqn = overload_fqn(fqn, meta["params"])
        sym = Symbol(
            kind=kind, name=name, fqn=fqn, parent=parent, **self.span(node),
            signature=signature, doc_comment=doc_comment_before(node), meta=meta,
        )
        self.result.symbols.append(sym)
        if kind == "FIELD":
            if meta["type"] and parent:
                self.result.var_types.setdefault(parent, {})[name] = meta["type"]
            return
        self.scopes[node_key(node)] = fqn
        if kind in ("CLASS", "INTERFACE", "ENUM"):
            self._heritage(node, fqn)
        else:
            self.callables.add(fqn)
            self._param_types(fqn, meta["params"])

    def _endpoint_kind(
        self, node: Node, kind: str, parent: str | None, annotations: list[Node], meta: dict,
    ) -> str:
        if kind != "METHOD":
            return kind
        class_node = _ancestor_of_types(node, _TYPE_DECLS)
        class_anns = self._annotations(class_node) if class_node is not None else []
        site = RouteSite([self._parse_annotation(a) for a in annotations],
                         [self._parse_annotation(a) for a in class_anns])
        found = declared_endpoint(LANG, site)
        if found is None:
            return kind
        meta["http_method"], meta["route"] = found
        return "ENDPOINT"

    def _signature(self, node: Node, name_node: Node, kind: str) -> str:
        if kind == "FIELD":
            if node.type == "enum_constant":
                return text_of(name_node)
            type_node = node.child_by_field_name("type")
            end = type_node.end_byte if type_node is not None else node.start_byte
            head = header_text(self.source, node, end, _ANNOTATION_TYPES)
            return collapse(f"{head} {text_of(name_node)}")
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        return header_text(self.source, node, end, _ANNOTATION_TYPES)

    def _annotations(self, node: Node) -> list[Node]:
        mods = next((c for c in node.children if c.type == "modifiers"), None)
        return [c for c in mods.children if c.type in _ANNOTATION_TYPES] if mods else []

    @staticmethod
    def _has_modifier(node: Node, word: str) -> bool:
        mods = next((c for c in node.children if c.type == "modifiers"), None)
        return mods is not None and any(c.type == word for c in mods.children)

    def _field_type(self, node: Node) -> str | None:
        if node.type == "enum_constant":
            return None
        type_node = node.child_by_field_name("type")
        return declared_type(text_of(type_node)) if type_node is not None else None

    def _params(self, node: Node, parent: str | None) -> list[list[str | None]]:
        if node.type == "compact_constructor_declaration":
            record = node.parent.parent if node.parent is not None else None
            params_node = record.child_by_field_name("parameters") if record else None
        else:
            params_node = node.child_by_field_name("parameters")
        if params_node is None:
            return []
        params: list[list[str | None]] = []
        for param in params_node.named_children:
            if param.type == "formal_parameter":
                name = param.child_by_field_name("name")
                type_node = param.child_by_field_name("type")
                params.append([text_of(name), collapse(text_of(type_node))])
            elif param.type == "spread_parameter":
                type_node = next((c for c in param.named_children if c.type != "modifiers"), None)
                decl = next(
                    (c for c in param.named_children if c.type == "variable_declarator"), None)
                name = decl.child_by_field_name("name") if decl is not None else None
                if type_node is not None and name is not None:
                    params.append([text_of(name), collapse(text_of(type_node)) + "..."])
        return params

    def _param_types(self, fqn: str, params: list[list[str | None]]) -> None:
        scope = self.result.var_types.setdefault(fqn, {})
        for name, type_text in params:
            simple = declared_type(type_text)
            if name and simple:
                scope[name] = simple

    def _heritage(self, node: Node, fqn: str) -> None:
        superclass = node.child_by_field_name("superclass")
        if superclass is not None:
            for type_node in superclass.named_children:
                base = simple_type(text_of(type_node))
                if base:
                    self.superclass[fqn] = base.rsplit(".", 1)[-1]
                    self.result.heritage.append(
                        Heritage(fqn, base, "extends", type_node.start_point[0] + 1))
        interfaces = node.child_by_field_name("interfaces")
        # interfaces extend interfaces: `interface A extends B` (extends_interfaces node)
        extends_ifaces = next((c for c in node.children if c.type == "extends_interfaces"), None)
        for clause, relation in ((interfaces, "implements"), (extends_ifaces, "extends")):
            if clause is None:
                continue
            for type_list in clause.named_children:
                for type_node in type_list.named_children:
                    base = simple_type(text_of(type_node))
                    if base:
                        self.result.heritage.append(
                            Heritage(fqn, base, relation, type_node.start_point[0] + 1))

    def _parse_annotation(self, node: Node) -> Annotation:
        name = text_of(node.child_by_field_name("name")).rsplit(".", 1)[-1]
        ann = Annotation(name)
        args = node.child_by_field_name("arguments")
        if args is None:
            return ann
        for arg in args.named_children:
            if arg.type == "element_value_pair":
                key = text_of(arg.child_by_field_name("key"))
                ann.args[key] = _annotation_values(arg.child_by_field_name("value"),
                                                   self.constants)
            elif arg.type not in ("line_comment", "block_comment"):
                ann.args[""] = _annotation_values(arg, self.constants)
        return ann

    # --- references ---------------------------------------------------------

    def _call_handlers(self) -> dict[str, Callable[[Node, str | None], Call | None]]:
        return {
            "reference.call": self._method_call,
            "reference.new": self._new_call,
            "reference.ref": self._method_ref,
            "reference.delegation": self._delegation_call,
        }

    def _method_call(self, node: Node, caller: str | None) -> Call | None:
        name = node.child_by_field_name("name")
        obj = node.child_by_field_name("object")
        receiver = receiver_chain(obj) if obj is not None else None
        call = Call(caller, text_of(name), receiver, name.start_point[0] + 1)
        _set_args(call, node.child_by_field_name("arguments"))
        return call

    def _new_call(self, node: Node, caller: str | None) -> Call | None:
        if node.child_by_field_name("object") is not None:
            return None  # `outer.new Inner()`: rare, receiver type unknown
        parts = _type_parts(node.child_by_field_name("type"))
        if not parts:
            return None
        receiver = parts[:-1] or None
        call = Call(caller, parts[-1], receiver, node.start_point[0] + 1, "new")
        _set_args(call, node.child_by_field_name("arguments"))
        return call

    def _method_ref(self, node: Node, caller: str | None) -> Call | None:
        target = node.named_children[0] if node.named_children else None
        last = node.children[-1]
        line = node.start_point[0] + 1
        if target is None:
            return None
        if last.type == "new":
            parts = _type_parts(target) or []
            return Call(caller, parts[-1], parts[:-1] or None, line, "new") if parts else None
        if last.type != "identifier":
            return None
        if target.type in ("type_identifier", "scoped_type_identifier", "generic_type"):
            receiver = _type_parts(target) or ["?"]
        else:
            receiver = receiver_chain(target)
        return Call(caller, text_of(last), receiver, line, "ref")

    def _delegation_call(self, node: Node, caller: str | None) -> Call | None:
        """``this(...)``/``super(...)`` in a constructor: a call to a constructor of this
        class or of the superclass, recorded like an instantiation."""
        if caller is None:
            return None
        cls = caller.split("(", 1)[0].rsplit(".", 1)[0]
        keyword = node.child_by_field_name("constructor").type
        name = cls.rsplit(".", 1)[-1] if keyword == "this" else self.superclass.get(cls)
        if not name:
            return None
        call = Call(caller, name, None, node.start_point[0] + 1, "new")
        _set_args(call, node.child_by_field_name("arguments"))
        return call

    # --- locals -------------------------------------------------------------

    def _locals(self) -> None:
        query = registry.query(LANG, "java-locals")
        for _, caps in QueryCursor(query).matches(self.root):
            param = "param" in caps
            node = caps["param" if param else "local"][0]
            scope = self._caller(node)
            if scope not in self.callables:
                if not param or scope is None:
                    continue
                # a parameter of a lambda or anonymous class in a field initializer: typed
                # for the code directly in the class, never as a field
                scope = f"{scope}#init"
            type_text = text_of(caps["type"][0])
            value = caps.get("value", [None])[0]
            inferred = self._local_type(type_text, value)
            if not inferred:
                continue
            names = self.result.var_types.setdefault(scope, {})
            if param:
                # a lambda's or an anonymous class method's parameter is typed in the
                # enclosing method, unless that already has a name like it
                names.setdefault(text_of(caps["name"][0]), inferred)
            else:
                names[text_of(caps["name"][0])] = inferred

    def _local_type(self, type_text: str, value: Node | None) -> str | None:
        if type_text != "var":
            return declared_type(type_text)
        if value is None:
            return None
        if value.type == "object_creation_expression":
            parts = _type_parts(value.child_by_field_name("type"))
            return ".".join(parts) if parts else None
        if value.type == "method_invocation":
            obj = value.child_by_field_name("object")
            receiver = receiver_chain(obj) if obj is not None else None
            return dotted_call_target(text_of(value.child_by_field_name("name")), receiver)
        return None


def _set_args(call: Call, args: Node | None) -> None:
    """Argument count and the static types we can read off the arguments: literals,
    ``new T(...)``, casts, ``=var:x`` for a plain name and ``=call:a.m`` for a call
    (both typed by the resolver)."""
    if args is None:
        return
    values = [a for a in args.named_children if a.type not in ("line_comment", "block_comment")]
    call.args = len(values)
    call.arg_types = [_arg_type(a) for a in values]


def _arg_type(node: Node) -> str | None:
    if node.type == "identifier":
        return "=var:" + text_of(node)
    if node.type == "object_creation_expression":
        parts = _type_parts(node.child_by_field_name("type"))
        return parts[-1] if parts else None
    if node.type == "cast_expression":
        return simple_type(text_of(node.child_by_field_name("type")))
    if node.type == "field_access" and text_of(node.child_by_field_name("object")) == "this":
        return "=var:" + text_of(node.child_by_field_name("field"))
    if node.type == "method_invocation":
        obj = node.child_by_field_name("object")
        receiver = receiver_chain(obj) if obj is not None else []
        if receiver != ["?"]:
            return "=call:" + ".".join([*receiver, text_of(node.child_by_field_name("name"))])
    return literal_type(node.type, text_of(node))


def receiver_chain(node: Node) -> list[str]:
    """``this`` -> ["this"], ``this.repo`` -> ["this", "repo"], ``a.b`` -> ["a", "b"];
    a call result is its call with ``()``: ``a.b().c`` -> ["a", "b()", "c"],
    ``new Foo()`` -> ["Foo()"]; an array element ``a.b[i]`` -> ["a", "b", "[]"];
    anything else (a cast) -> ["?"]."""
    if node.type in ("this", "super"):
        return [node.type]
    if node.type == "identifier":
        return [text_of(node)]
    if node.type == "field_access":
        head = receiver_chain(node.child_by_field_name("object"))
        if head == ["?"]:
            return head
        return [*head, text_of(node.child_by_field_name("field"))]
    if node.type == "method_invocation":
        obj = node.child_by_field_name("object")
        head = receiver_chain(obj) if obj is not None else []
        if head == ["?"]:
            return head
        return [*head, text_of(node.child_by_field_name("name")) + "()"]
    if node.type == "object_creation_expression" and node.child_by_field_name("object") is None:
        parts = _type_parts(node.child_by_field_name("type"))
        return [*parts[:-1], parts[-1] + "()"] if parts else ["?"]
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return receiver_chain(node.named_children[0])
    if node.type == "array_access":  # `items[i].run()`: one element
        head = receiver_chain(node.child_by_field_name("array"))
        return ["?"] if head == ["?"] else [*head, "[]"]
    return ["?"]


def _type_parts(node: Node | None) -> list[str] | None:
    """``Foo`` -> ["Foo"], ``a.Outer.Inner<T>`` -> ["a", "Outer", "Inner"]."""
    if node is None:
        return None
    if node.type in ("type_identifier", "identifier"):
        return [text_of(node)]
    if node.type == "generic_type":
        return _type_parts(node.named_children[0])
    if node.type in ("scoped_type_identifier", "scoped_identifier", "field_access"):
        parts: list[str] = []
        for child in node.named_children:
            sub = _type_parts(child)
            if sub is None:
                return None
            parts.extend(sub)
        return parts
    return None


def _annotation_values(node: Node | None, constants: dict[str, str] | None = None
                       ) -> list[str]:
    """Values of an annotation argument; a string constant of this file (``BASE``,
    ``Routes.BASE``) or a ``+`` of constants and literals is replaced by its value."""
    if node is None:
        return []
    if node.type == "element_value_array_initializer":
        return [v for child in node.named_children
                for v in _annotation_values(child, constants)]
    value = _string_value(node, constants or {})
    return [value if value is not None else collapse(text_of(node))]


def _string_value(node: Node, constants: dict[str, str]) -> str | None:
    """The compile-time string of a literal, a known constant or a ``+`` of them."""
    if node.type == "string_literal":
        return "".join(text_of(c) for c in node.named_children if c.type == "string_fragment")
    if node.type in ("identifier", "field_access"):
        return constants.get(collapse(text_of(node)))
    if node.type == "parenthesized_expression" and node.named_children:
        return _string_value(node.named_children[0], constants)
    if node.type == "binary_expression" and text_of(node.child_by_field_name("operator")) == "+":
        left = _string_value(node.child_by_field_name("left"), constants)
        right = _string_value(node.child_by_field_name("right"), constants)
        return left + right if left is not None and right is not None else None
    return None


def _string_constants(root: Node) -> dict[str, str]:
    """``static final String NAME = "..."`` fields of this file (interface fields are
    constants too), by ``NAME`` and ``Class.NAME``, in declaration order so that a
    constant built from an earlier one (``BASE + "/x"``) is known."""
    constants: dict[str, str] = {}
    # the outermost declarations (one inside another's initializer is not visited)
    for node in outermost_captures(registry.query(LANG, "java-constants"), root):
        mods = next((c for c in node.children if c.type == "modifiers"), None)
        words = {c.type for c in mods.children} if mods is not None else set()
        owner = node.parent.parent if node.parent is not None else None
        if "final" in words or node.type == "constant_declaration":
            cls = text_of(owner.child_by_field_name("name")) if owner is not None \
                and owner.child_by_field_name("name") is not None else ""
            for decl in node.children_by_field_name("declarator"):
                value = decl.child_by_field_name("value")
                text = _string_value(value, constants) if value is not None else None
                if text is not None:
                    name = text_of(decl.child_by_field_name("name"))
                    constants[name] = text
                    if cls:
                        constants[f"{cls}.{name}"] = text
    return constants


def _ancestor_of_types(node: Node, types: Iterable[str]) -> Node | None:
    wanted = set(types)
    current = node.parent
    while current is not None and current.type not in wanted:
        current = current.parent
    return current
