"""Swift extractor: one ``.swift`` file -> :class:`ParseResult`.

Covers classes, structs and actors (CLASS), enums (ENUM, cases FIELD), protocols
(INTERFACE), extensions (their members belong to the extended type, their conformances
are its IMPLEMENTS), functions (FUNCTION at file level, METHOD in a type), ``init`` (the
CONSTRUCTOR), stored and computed properties (FIELD), ``import`` (IMPORTS of a module),
calls with their receivers (``self``, ``super``, types, declared and initialised
properties and locals; ``Foo(...)`` is an initialiser call the resolver decides), and
Vapor routes: ``app.get("x", ":id") { req in ... }`` (an ENDPOINT of the closure),
``use: handler`` references, ``grouped("x")`` builders and the ``boot(routes:)`` of a
``RouteCollection``.

A Swift module is a SwiftPM target: the files of ``Sources/<Target>/`` (or
``Tests/<Target>/``) are one package named after the target (``main`` elsewhere) and see
each other's declarations without imports. fqns join the package, the type path and the
member (``App.UserController.index``).

Overloads: a callable records its parameters' argument labels and kinds
(``meta["labels"]``, ``meta["param_flags"]``), a call its arguments' labels and what is
known of their types (``Call.arg_labels``, ``arg_types``); the resolver chooses with
:mod:`graphrag.parsing.languages.swift_overloads`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tree_sitter import Node

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import count_errors, header, normalize
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.languages.swift_overloads import CLOSURE, NIL
from graphrag.parsing.model import (
    TRAILING,
    Call,
    Heritage,
    Import,
    ParseResult,
    Registration,
    Symbol,
)
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.routes import (
    CalledRoute,
    CallFact,
    RouteCall,
    Router,
    called_route,
    join_segments,
    route_call_names,
)

LANG = "swift"
_SIGNATURE_MAX = 300
_TYPE_WRAPPERS = frozenset({"optional_type", "implicitly_unwrapped_type"})
# `any P` / `some P` are a P as far as calls through them go
_TYPE_VIEWS = frozenset({"existential_type", "opaque_type"})
_STRINGS = frozenset({"line_string_literal", "multi_line_string_literal", "raw_string_literal"})
_INTEGERS = frozenset({"integer_literal", "hex_literal", "oct_literal", "bin_literal"})
# the type a literal gives a variable it initialises
_LITERAL_TYPES = {**dict.fromkeys(_STRINGS, "String"), **dict.fromkeys(_INTEGERS, "Int"),
                  "real_literal": "Double", "boolean_literal": "Bool"}


def package_of(rel_path: str) -> str:
    """The SwiftPM target a file belongs to: ``Sources/App/x.swift`` -> ``App``."""
    parts = rel_path.split("/")
    for i, part in enumerate(parts[:-2]):
        if part in ("Sources", "Tests"):
            return parts[i + 1]
    return "main"


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Swift file into symbols, imports, calls, conformances and routes."""
    tree = registry.parser(LANG).parse(source)
    package = package_of(rel_path)
    result = ParseResult(path=rel_path, lang=LANG, module=rel_path.removesuffix(".swift"),
                         package=package)
    _SwiftFile(source, tree.root_node, result).run()
    result.error_count = count_errors(tree.root_node)
    return result


def type_name(node: Node | None) -> str | None:
    """A type as written reduced to its nominal name: ``User?`` / ``[User]`` keep ``User``
    only for optionals (an array is no ``User``); ``Foo.Bar`` stays dotted; generics go;
    ``any P`` / ``some P`` and parentheses (``(any P)?``) are seen through."""
    while node is not None and (node.type in _TYPE_WRAPPERS | _TYPE_VIEWS or (
            node.type in ("tuple_type", "tuple_type_item") and len(node.named_children) == 1)):
        node = node.child_by_field_name("wrapped") or (
            node.named_children[-1] if node.named_children else None)
    if node is None or node.type != "user_type":
        return None
    names = [_text(c) for c in node.named_children if c.type == "type_identifier"]
    return ".".join(names) or None


def _name(node: Node) -> str:
    """A declared name without the backticks that let a keyword be one (`` `default` ``)."""
    return _text(node).strip("`")


def _string(node: Node | None) -> str | None:
    """The text of a plain string literal (None when it interpolates)."""
    if node is None or node.type != "line_string_literal":
        return None
    parts = node.named_children
    if any(p.type != "line_str_text" for p in parts):
        return None
    return "".join(_text(p) for p in parts)


class _SwiftFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, source: bytes, root: Node, result: ParseResult) -> None:
        super().__init__(source, root, result)
        self.package = result.package or "main"
        # route builders of a function: variable -> path prefix (`let users = r.grouped("u")`)
        self.builders: dict[tuple[str | None, str], str] = {}
        self.route_names = route_call_names(LANG)
        self.overloads = _overload_suffixes(root)
        # type parameters of the enclosing types -> their protocol (None: unbound); a
        # property or parameter of such a type is no repository type of that name
        self.generics: dict[str, str | None] = {}

    def run(self) -> ParseResult:
        for child in self.root.named_children:
            self._walk(child, type_fqn=None, caller=None)
        self.result.calls.sort(key=lambda c: c.line)
        self.result.var_types = {k: v for k, v in self.result.var_types.items() if v}
        return self.finished()

    # -- declarations --------------------------------------------------------------------

    def _walk(self, node: Node, type_fqn: str | None, caller: str | None) -> None:
        kind = node.type
        if kind in ("class_declaration", "protocol_declaration"):
            self._type(node, type_fqn, caller)
        elif kind in ("function_declaration", "protocol_function_declaration",
                      "init_declaration"):
            self._function(node, type_fqn, caller)
        elif kind == "property_declaration":
            self._property(node, type_fqn, caller)
        elif kind == "import_declaration":
            self._import(node)
        elif kind == "enum_entry" and type_fqn is not None:
            self._cases(node, type_fqn)
        elif kind == "call_expression":
            self._call(node, type_fqn, caller)
        elif kind == "constructor_expression":
            self._construct(node, type_fqn, caller)
        elif kind in ("if_statement", "guard_statement", "while_statement", "for_statement"):
            self._bindings(node, caller)
            self._children(node, type_fqn, caller)
        else:
            self._children(node, type_fqn, caller)

    def _children(self, node: Node, type_fqn: str | None, caller: str | None) -> None:
        for child in node.named_children:
            self._walk(child, type_fqn, caller)

    def _type(self, node: Node, outer: str | None, caller: str | None) -> None:
        keyword = node.child_by_field_name("declaration_kind")
        word = _text(keyword) if keyword is not None else "protocol"
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        body = node.child_by_field_name("body")
        line = node.start_point[0] + 1
        if word == "extension":
            name = type_name(name_node) or _text(name_node)
            fqn = f"{self.package}.{name}"
            for base in self._bases(node):
                self.result.heritage.append(Heritage(fqn, base, "implements", line))
            if body is not None:
                self._children(body, fqn, None)
            return
        name = _text(name_node)
        fqn = f"{outer or self.package}.{name}"
        kind = {"protocol": "INTERFACE", "enum": "ENUM"}.get(word, "CLASS")
        meta: dict = {"struct": True} if word == "struct" else {}
        self.add_once(Symbol(kind=kind, name=name, fqn=fqn, parent=outer,
                              signature=_header(node), doc_comment=doc_comment(node), meta=meta,
                              **self.span(node)))
        # a class's first supertype may be its superclass; structs, enums and actors only
        # conform; a protocol refines its protocols
        relation = {"class": "unknown", "protocol": "extends"}.get(word, "implements")
        for base in self._bases(node):
            self.result.heritage.append(Heritage(fqn, base, relation, line))
        if body is not None:
            outer_generics = self.generics
            self.generics = {**outer_generics, **_type_parameters(node)}
            self._children(body, fqn, None)
            self.generics = outer_generics

    @staticmethod
    def _bases(node: Node) -> list[str]:
        out = []
        for child in node.named_children:
            if child.type == "inheritance_specifier":
                base = type_name(child.child_by_field_name("inherits_from"))
                if base:
                    out.append(base)
        return out

    def _function(self, node: Node, type_fqn: str | None, caller: str | None) -> None:
        if node.type == "init_declaration":
            name, kind = "init", "CONSTRUCTOR"
        else:
            name_node = node.child_by_field_name("name")
            if name_node is None or name_node.type != "simple_identifier":
                self._children(node, type_fqn, caller)
                return
            name = _name(name_node)
            kind = "METHOD" if type_fqn else "FUNCTION"
        owner = type_fqn or caller
        # overloads (and a function named like a property) carry their argument labels:
        # `init(session:delegate:)`
        fqn = f"{owner or self.package}.{name}{self.overloads.get(node.id, '')}"
        scope = self.scope_vars(fqn)
        ret: str | None = None
        for i, child in enumerate(node.children):
            if node.field_name_for_child(i) == "name" and child.type != "simple_identifier" \
                    and kind != "CONSTRUCTOR":
                ret = normalize(_text(child))
        params = _parameters(node, self.generics)
        for param in params:
            if param.nominal:
                scope[param.name] = param.nominal
        meta: dict = {"params": [[p.name, p.nominal] for p in params], "return_type": ret,
                      "min_args": sum(1 for p in params
                                      if "d" not in p.flags and "v" not in p.flags),
                      "labels": [p.label for p in params],
                      "param_flags": [p.flags for p in params]}
        if any("v" in p.flags for p in params):
            meta["varargs"] = True
        generics = next((c for c in node.named_children if c.type == "type_parameters"), None)
        if generics is not None:
            meta["type_params"] = sum(1 for c in generics.named_children
                                      if c.type == "type_parameter")
        modifiers = next((c for c in node.named_children if c.type == "modifiers"), None)
        if modifiers is not None and "@_disfavoredOverload" in _text(modifiers):
            meta["disfavored"] = True
        if modifiers is not None and any(w in _text(modifiers).split()
                                         for w in ("static", "class")):
            meta["static"] = True
        if modifiers is not None and "private" in _text(modifiers).split():
            meta["private"] = True
        self.add_once(Symbol(kind=kind, name=name, fqn=fqn, parent=owner,
                              signature=_header(node), doc_comment=doc_comment(node), meta=meta,
                              **self.span(node)))
        body = node.child_by_field_name("body")
        if body is not None:
            self._children(body, None, fqn)

    def _property(self, node: Node, type_fqn: str | None, caller: str | None) -> None:
        pattern = node.child_by_field_name("name")
        bound = pattern.child_by_field_name("bound_identifier") if pattern is not None \
            else None
        value = node.child_by_field_name("value")
        if bound is None:
            self._children(node, type_fqn, caller)
            return
        name = _name(bound)
        annotation = next((c for c in node.named_children if c.type == "type_annotation"),
                          None)
        declared = type_name(annotation.child_by_field_name("name")) \
            if annotation is not None else None
        if declared in self.generics:  # `let interceptor: Interceptor` of a generic type
            declared = self.generics[declared]
        typed = declared or _init_type(value)
        if type_fqn is not None or caller is None:
            owner = type_fqn
            fqn = f"{owner or self.package}.{name}"
            self.add_once(Symbol(kind="FIELD", name=name, fqn=fqn, parent=owner,
                                  signature=_header(node), doc_comment=doc_comment(node),
                                  meta={"type": declared}, **self.span(node)))
            if typed:
                self.scope_vars(owner or self.result.module)[name] = typed
        elif typed:
            self.scope_vars(caller)[name] = typed
        if value is not None:
            prefix = self._builder_prefix(value, caller)
            if prefix is not None:
                self.builders[(caller, name)] = prefix
        # a computed property's body is the property's own code; an initialiser runs as
        # the type's (or the enclosing function's)
        body_of = f"{type_fqn or self.package}.{name}" if caller is None else caller
        for child in node.named_children:
            if child.type == "computed_property":
                self._walk(child, None, body_of)
            elif child.type not in ("pattern", "type_annotation", "modifiers"):
                self._walk(child, None, caller or type_fqn)

    def _cases(self, node: Node, type_fqn: str) -> None:
        """``case low, high`` / ``case status(Int)``: a FIELD of the enum each."""
        for i, child in enumerate(node.children):
            if node.field_name_for_child(i) == "name":
                name = _name(child)
                self.add_once(Symbol(kind="FIELD", name=name, fqn=f"{type_fqn}.{name}",
                                      parent=type_fqn, signature=normalize(_text(node)),
                                      doc_comment=doc_comment(node), meta={"case": True},
                                      **self.span(node)))

    def _bindings(self, node: Node, caller: str | None) -> None:
        """Types of ``if let x = f()`` / ``guard let`` bindings and ``for x in xs`` items."""
        if caller is None:
            return
        if node.type == "for_statement":
            item, collection = node.child_by_field_name("item"), \
                node.child_by_field_name("collection")
            bound = item.child_by_field_name("bound_identifier") if item is not None \
                else None
            chain = self._chain(collection, caller)
            if bound is not None and chain != ["?"]:
                self.scope_vars(caller).setdefault(_text(bound), "=iter:" + ".".join(chain))
            return
        name: str | None = None
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if field == "bound_identifier":
                name = _text(child)
            elif field == "condition" and name is not None and child.is_named and \
                    child.type != "value_binding_pattern":
                typed = _init_type(child)
                if typed:
                    self.scope_vars(caller).setdefault(name, typed)
                name = None

    def _import(self, node: Node) -> None:
        path = next((c for c in node.named_children if c.type == "identifier"), None)
        if path is not None:
            target = ".".join(_text(c) for c in path.named_children)
            self.result.imports.append(Import("*", target, node.start_point[0] + 1))

    # -- calls ---------------------------------------------------------------------------

    def _chain(self, node: Node | None, caller: str | None) -> list[str]:
        """Receiver chain: ``self.repo`` -> ``["self", "repo"]``, ``a.b()`` -> ``["a",
        "b()"]``, ``Foo(...)`` -> ``["Foo()"]``, ``["?"]`` for what cannot be named."""
        if node is None:
            return ["?"]
        kind = node.type
        if kind == "self_expression":
            return ["self"]
        if kind == "super_expression":
            return ["super"]
        if kind == "simple_identifier":
            return [_text(node)]
        if kind == "navigation_expression":
            suffix = node.child_by_field_name("suffix")
            name = suffix.child_by_field_name("suffix") if suffix is not None else None
            head = self._chain(node.child_by_field_name("target"), caller)
            if name is None or name.type != "simple_identifier" or head == ["?"]:
                return ["?"]
            return [*head, _text(name)]
        if kind == "call_expression" and node.named_children:
            head = self._chain(node.named_children[0], caller)
            return ["?"] if head == ["?"] else [*head[:-1], head[-1] + "()"]
        if kind in ("try_expression", "await_expression", "parenthesized_expression"):
            inner = node.named_children[-1] if node.named_children else None
            return self._chain(inner, caller)
        if kind == "postfix_expression" and node.named_children:  # `x!`, `x?`
            return self._chain(node.named_children[0], caller)
        return ["?"]

    def _call(self, node: Node, type_fqn: str | None, caller: str | None) -> None:
        callee = node.named_children[0] if node.named_children else None
        scope = caller or type_fqn
        line = node.start_point[0] + 1
        suffix = next((c for c in node.named_children if c.type == "call_suffix"), None)
        labels, types = _call_arguments(suffix)
        args = len(labels) if suffix is not None else None
        if callee is not None and callee.type == "simple_identifier":
            self.result.calls.append(Call(scope, _text(callee), None, line, args=args,
                                          arg_types=types, arg_labels=labels))
        elif callee is not None and callee.type == "navigation_expression":
            nav = callee.child_by_field_name("suffix")
            name_node = nav.child_by_field_name("suffix") if nav is not None else None
            if name_node is not None and name_node.type == "simple_identifier":
                name = _text(name_node)
                receiver = self._chain(callee.child_by_field_name("target"), scope)
                if self._route(node, receiver, name, suffix, scope, line):
                    return  # its arguments are the path and the handler, walked there
                self.result.calls.append(Call(scope, name, receiver, line, args=args,
                                              arg_types=types, arg_labels=labels))
            target = callee.child_by_field_name("target")
            if target is not None:  # calls in the receiver (`a.b().c()`)
                self._walk(target, type_fqn, caller)
        elif callee is not None:
            self._walk(callee, type_fqn, caller)
        if suffix is not None:
            self._children(suffix, type_fqn, caller)

    def _construct(self, node: Node, type_fqn: str | None, caller: str | None) -> None:
        """``Protected<String?>(nil)``: an initialiser call of a generic type."""
        name = type_name(node.child_by_field_name("constructed_type"))
        suffix = next((c for c in node.named_children if c.type == "constructor_suffix"), None)
        if name is not None:
            *receiver, last = name.split(".")
            labels, types = _call_arguments(suffix)
            self.result.calls.append(Call(caller or type_fqn, last, receiver or None,
                                          node.start_point[0] + 1, args=len(labels),
                                          arg_types=types, arg_labels=labels))
        if suffix is not None:
            self._children(suffix, type_fqn, caller)

    # -- routes --------------------------------------------------------------------------

    def _framework_call(self, call: Node, caller: str | None, local_router: bool = False,
                        ) -> CallFact | None:
        """What a route framework says of ``call`` (a method call with a name one reads),
        its arguments given as literals, texts and labels."""
        callee = call.named_children[0] if call.named_children else None
        if callee is None or callee.type != "navigation_expression":
            return None
        suffix = callee.child_by_field_name("suffix")
        name = suffix.child_by_field_name("suffix") if suffix is not None else None
        if name is None or _text(name) not in self.route_names:
            return None
        args = _arguments(call)
        positional = [v for label, v in args if label is None]
        call_suffix = next((c for c in call.named_children if c.type == "call_suffix"), None)
        receiver = self._chain(callee.child_by_field_name("target"), caller)
        return called_route(LANG, RouteCall(
            _text(name), tuple(receiver), tuple(_string(v) for v in positional),
            tuple(_text(v) for v in positional),
            block=call_suffix is not None and any(
                c.type == "lambda_literal" for c in call_suffix.named_children),
            keywords=tuple((label, _string(v), None) for label, v in args if label),
            local_router=local_router))

    def _builder_prefix(self, value: Node, caller: str | None) -> str | None:
        """The path prefix of a route builder expression: a variable bound to one, or a
        call a framework says makes a router (Vapor's ``app.grouped("api", "v1")`` ->
        ``/api/v1``) on another builder; None when it is no builder."""
        if value.type == "try_expression" and value.named_children:
            value = value.named_children[-1]
        if value.type == "simple_identifier":
            return self.builders.get((caller, _text(value)))
        if value.type != "call_expression" or not value.named_children:
            return None
        found = self._framework_call(value, caller)
        if not isinstance(found, Router):
            return None
        target = value.named_children[0].child_by_field_name("target")
        base = self._builder_prefix(target, caller) if target is not None else None
        return join_segments(base or "", found.prefix)

    def _route(self, node: Node, receiver: list[str], name: str, suffix: Node | None,
               caller: str | None, line: int) -> bool:
        """Record a route a framework recognises (Vapor's ``<builder>.get("a", ":id",
        use: h)`` / ``{ req in }``); True when it is one."""
        if name not in self.route_names or suffix is None:
            return False
        callee = node.named_children[0]
        target = callee.child_by_field_name("target")
        prefix = self._builder_prefix(target, caller) if target is not None else None
        found = self._framework_call(node, caller, local_router=prefix is not None)
        if not isinstance(found, CalledRoute):
            return False
        method = found.method
        route = join_segments(prefix or "", found.route)
        handler = dict(_arguments(node)).get(found.handler) \
            if isinstance(found.handler, str) else None
        lam = next((c for c in suffix.named_children if c.type == "lambda_literal"), None)
        if handler is not None:
            chain = self._chain(handler, caller)
            if chain == ["?"]:
                return False
            *head, hname = chain
            # a bare method name in a type's method is that type's (`use: index`)
            self.result.registrations.append(Registration(
                http_method=method, route=route, line=line, caller=caller,
                handler_name=hname, handler_receiver=head or ["self"]))
            return True
        if lam is None or found.handler is not None:
            return False
        label = f"{method} {route}"
        fqn = f"{caller or self.package}.{label}"
        if self.add_once(Symbol(kind="ENDPOINT", name=label, fqn=fqn, parent=caller,
                                 signature=label, meta={"http_method": method, "route": route},
                                 **self.span(node))):
            self.result.registrations.append(Registration(
                http_method=method, route=route, line=line, caller=caller, inline_fqn=fqn))
        self._children(lam, None, fqn)
        return True


class _Param(NamedTuple):
    """One parameter: its argument label (``_`` for none), name, nominal type and flags:
    ``d`` has a default, ``v`` variadic, ``g`` a type parameter of the function, ``t`` a
    type with one among its arguments, ``n`` no function (a protocol-bound type
    parameter, ``any P``), ``o`` optional, ``f`` and its arity a function type (``f2``;
    ``xf2`` returning nothing), ``a`` an array, ``m`` a dictionary type."""

    label: str
    name: str
    nominal: str | None
    flags: str
    text: str  # the type as written, without spaces


def _type_parameters(node: Node) -> dict[str, str | None]:
    """A declaration's type parameters -> the protocol bounding each (None: unbound):
    ``<S: Sequence, T>`` -> ``{"S": "Sequence", "T": None}``."""
    generics = next((c for c in node.named_children if c.type == "type_parameters"), None)
    own = [p for p in generics.named_children if p.type == "type_parameter"] \
        if generics is not None else []
    return {_text(p.named_children[0]): _bound(p.named_children[1])
            if len(p.named_children) > 1 else None for p in own if p.named_children}


def _bound(node: Node) -> str | None:
    """A type parameter's bound as one protocol: ``Encodable & Sendable`` -> the first."""
    if node.type == "protocol_composition_type" and node.named_children:
        node = node.named_children[0]
    return type_name(node)


def _parameters(node: Node, outer: dict[str, str | None] | None = None) -> list[_Param]:
    """The parameters of a function or initialiser declaration, in order (``outer``: the
    enclosing types' type parameters, see :func:`_type_parameters`)."""
    out: list[_Param] = []
    children = node.children
    # the function's type parameters, and those bound to a protocol (`<S: Sequence>`):
    # no closure is one, nor is an `any P` / `some P`
    own = _type_parameters(node)
    variables = set(own)
    bound = {name: base for name, base in own.items() if base}
    outer = {k: v for k, v in (outer or {}).items() if k not in own}
    for i, param in enumerate(children):
        if param.type != "parameter":
            continue
        name = param.child_by_field_name("name")
        label = param.child_by_field_name("external_name") or name
        declared = next((c for j, c in enumerate(param.children)
                         if param.field_name_for_child(j) == "name"
                         and c.type != "simple_identifier"), None)
        modifiers = " ".join(_text(c) for c in param.named_children
                             if c.type in ("parameter_modifiers", "type_modifiers"))
        if declared is not None and declared.type == "function_type" and \
                "@autoclosure" in modifiers:
            # the argument is a value of the closure's result type, wrapped by Swift
            declared = declared.child_by_field_name("name")
        flags = _type_flags(declared)
        nominal = type_name(declared)
        if nominal in bound or (declared is not None and declared.type in _TYPE_VIEWS):
            flags = "n" + flags
        text = "".join(_text(declared).split()) if declared is not None else "_"
        if nominal in variables:
            flags = "g" + flags
            # `<S: ResponseSerializer>(_: S)`: an S is a ResponseSerializer
            nominal = bound.get(nominal) or nominal
        elif nominal in outer:  # the enclosing type's: its bound, else unknown
            flags = ("n" + flags) if outer[nominal] else flags
            nominal = outer[nominal]
        elif variables & set(re.findall(r"\w+", text)):
            flags = "t" + flags  # `Response<Value>` of the function's `Value`
        if any(c.type == "..." for c in param.children):
            flags = "v" + flags
        if any(c.type == "=" for c in children[i + 1:i + 3]):
            flags = "d" + flags
        out.append(_Param(_text(label) if label is not None else "_",
                          _text(name) if name is not None else "_", nominal, flags, text))
    return out


def _type_flags(node: Node | None) -> str:
    """``o`` for an optional type, then ``f`` and its arity / ``a`` / ``m`` for a
    function, array or dictionary type (attributes and parentheses seen through)."""
    flags = ""
    while node is not None:
        kind = node.type
        if kind in _TYPE_WRAPPERS:
            flags += "o"
        elif kind == "function_type":  # with its arity: a closure must take as many
            params = node.child_by_field_name("params")
            arity = sum(1 for c in params.named_children if c.type == "tuple_type_item") \
                if params is not None and params.type == "tuple_type" else 1
            result = node.child_by_field_name("name")
            void = result is not None and "".join(_text(result).split()) in ("Void", "()")
            return f"{flags}{'x' if void else ''}f{arity}"  # `x`: returns nothing
        elif kind == "array_type":
            return flags + "a"
        elif kind == "dictionary_type":
            return flags + "m"
        elif kind not in ("tuple_type", "tuple_type_item", "type_modifiers", "attribute"):
            return flags
        if kind == "tuple_type" and len(node.named_children) != 1:
            return flags
        node = node.child_by_field_name("wrapped") or node.child_by_field_name("name") or (
            node.named_children[-1] if node.named_children else None)
    return flags


def _overload_suffixes(root: Node) -> dict[int, str]:
    """The fqn suffix of every function (by node id) that shares its name with another
    function or a property of one body: its argument labels ``(to:_:)``; with alike
    labels its parameters' nominal types ``(_:Value)``; with alike types too its return
    type ``(_:Encodable,->Data)`` (overloads by return type); else its types as written
    (``(_:Response<Value>)``)."""
    functions: dict[tuple[int, str], list[Node]] = {}
    properties: set[tuple[int, str]] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("function_declaration", "init_declaration",
                         "protocol_function_declaration") and node.parent is not None:
            name_node = node.child_by_field_name("name")
            name = "init" if node.type == "init_declaration" else (
                _name(name_node) if name_node is not None else "")
            functions.setdefault((node.parent.id, name), []).append(node)
            continue
        if node.type in ("property_declaration", "protocol_property_declaration") and \
                node.parent is not None:
            pattern = node.child_by_field_name("name")
            bound = pattern.child_by_field_name("bound_identifier") \
                if pattern is not None else None
            if bound is not None:
                properties.add((node.parent.id, _name(bound)))
            continue
        if node.type in ("source_file", "class_declaration", "protocol_declaration",
                         "class_body", "enum_class_body", "protocol_body"):
            stack.extend(node.named_children)
    out: dict[int, str] = {}
    for key, group in functions.items():
        if len(group) < 2 and key not in properties:
            continue
        forms = [_forms(f) for f in group]
        for node, form in zip(group, forms, strict=True):
            unique = next((f for level, f in enumerate(form)
                           if sum(1 for other in forms if other[level] == f) == 1), form[-1])
            out[node.id] = unique
    return out


def _forms(node: Node) -> tuple[str, str, str, str]:
    """A function's labels ``(_:to:)``, labels with nominal types ``(_:Data,to:URL)``
    (``_`` for a type without a nominal name), those with its return type, and labels
    with the types as written (``(_:Response<Value>)``: overloads by generic arguments)."""
    params = _parameters(node)
    labels = "(" + "".join(f"{p.label}:" for p in params) + ")"
    typed = [f"{p.label}:{(p.nominal or '_').rsplit('.', 1)[-1]}" for p in params]
    ret = next((c for i, c in enumerate(node.children)
                if node.field_name_for_child(i) == "name" and c.type != "simple_identifier"),
               None)
    returned = [*typed, "->" + (type_name(ret) or (normalize(_text(ret)) if ret else "()"))]
    written = [f"{p.label}:{p.text}" for p in params]
    return (labels, "(" + ",".join(typed) + ")", "(" + ",".join(returned) + ")",
            "(" + ",".join(written) + ")")


def _call_arguments(suffix: Node | None) -> tuple[list[str | None], list[str | None]]:
    """The labels (None unlabelled, ``TRAILING`` for an unlabelled trailing closure) and
    the static types (:func:`_arg_type`) of a call's arguments, trailing closures
    included."""
    labels: list[str | None] = []
    types: list[str | None] = []
    if suffix is None:
        return labels, types
    pending: str | None = None
    for child in suffix.named_children:
        if child.type == "value_arguments":
            for arg in child.named_children:
                if arg.type != "value_argument":
                    continue
                label = arg.child_by_field_name("name")
                value = arg.child_by_field_name("value")
                labels.append(_text(label).strip() if label is not None else None)
                types.append(_arg_type(value))
        elif child.type == "simple_identifier":  # `g:` of a labelled trailing closure
            pending = _text(child)
        elif child.type == "lambda_literal":
            labels.append(pending or TRAILING)
            types.append(_closure(child))
            pending = None
    return labels, types


def _closure(node: Node) -> str:
    """A closure literal's kind (``r`` when it returns a value) with its arity where it
    shows: its parameters (``{ a, b in }``), else the highest ``$n`` of its own body,
    else none (``{ }``)."""
    kind = node.child_by_field_name("type")
    params = next((c for c in kind.named_children
                   if c.type == "lambda_function_type_parameters"), None) \
        if kind is not None else None
    highest = -1
    returns = ""
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type in ("lambda_literal", "function_declaration"):
            continue  # a nested closure's `$0` and `return` are its own
        if child.type == "simple_identifier":
            name = _text(child)
            if name[:1] == "$" and name[1:].isdigit():
                highest = max(highest, int(name[1:]))
        elif child.type == "control_transfer_statement" and \
                child.child_by_field_name("result") is not None and \
                child.children and child.children[0].type == "return":
            returns = "r"  # returns a value: no `-> Void` function takes it
        stack.extend(child.named_children)
    if params is not None:
        arity = sum(1 for c in params.named_children if c.type == "lambda_parameter")
        return f"{CLOSURE}{returns}/{arity}"
    if kind is not None:
        return CLOSURE + returns  # `(a, b) in` in another form: arity unread
    return f"{CLOSURE}{returns}/{highest + 1}"


def _implicit_member(node: Node) -> str | None:
    """``=member:get`` for ``.get`` / ``.status(404)``: a member of the parameter's type
    (``.init(...)`` is any type's)."""
    if node.type != "prefix_expression" or not node.children or node.children[0].type != ".":
        return None
    target = node.child_by_field_name("target")
    if target is None or target.type != "simple_identifier" or _text(target) == "init":
        return None
    return "=member:" + _text(target)


def _arg_type(node: Node | None) -> str | None:
    """What a call argument's type is known to be: ``=lit:`` kinds of literals,
    ``=var:x`` for a plain name, ``=member:m`` for an implicit member (``.get``),
    ``=call:F`` for a call, the type of ``x as T``."""
    while node is not None and node.type in ("try_expression", "await_expression",
                                             "parenthesized_expression") \
            and node.named_children:
        node = node.named_children[-1]
    if node is None:
        return None
    kind = node.type
    if kind in _STRINGS:
        return "=lit:String"
    if kind in _INTEGERS:
        return "=lit:Int"
    if kind == "real_literal":
        return "=lit:Double"
    if kind == "boolean_literal":
        return "=lit:Bool"
    if kind == "array_literal":
        return "=lit:array"
    if kind == "dictionary_literal":
        return "=lit:dict"
    if kind == "lambda_literal":
        return _closure(node)
    if _text(node) == "nil":
        return NIL
    if kind == "simple_identifier":
        return "=var:" + _text(node)
    member = _implicit_member(node.named_children[0] if kind == "call_expression"
                              and node.named_children else node)
    if member is not None:
        return member
    if kind == "as_expression" and any(_text(c) == "as" for c in node.children):
        target = node.named_children[-1] if node.named_children else None
        return type_name(target)
    if kind in ("call_expression", "constructor_expression"):
        return _init_type(node)
    return None


def _arguments(call: Node) -> list[tuple[str | None, Node]]:
    """(label or None, value) of a call's arguments in order."""
    suffix = next((c for c in call.named_children if c.type == "call_suffix"), None)
    args = next((c for c in suffix.named_children if c.type == "value_arguments"), None) \
        if suffix is not None else None
    out: list[tuple[str | None, Node]] = []
    for arg in args.named_children if args is not None else ():
        if arg.type != "value_argument":
            continue
        label = arg.child_by_field_name("name")
        value = arg.child_by_field_name("value")
        if value is not None:
            out.append((_text(label) if label is not None else None, value))
    return out


def _init_type(value: Node | None) -> str | None:
    """``Foo`` for ``= Foo(...)``, ``=call:Foo.make`` for ``= Foo.make()`` (the resolver
    evaluates it), a literal's type (``= "x"``)."""
    if value is None:
        return None
    if value.type in ("try_expression", "await_expression") and value.named_children:
        value = value.named_children[-1]
    if value.type == "nil_coalescing_expression":  # `a ?? b`: a's type, or b's
        first = value.child_by_field_name("value")
        return _init_type(first) or _init_type(value.named_children[-1])
    literal = _LITERAL_TYPES.get(value.type)
    if literal is not None:
        return literal
    if value.type == "constructor_expression":  # `Protected<Bool>(false)`
        return type_name(value.child_by_field_name("constructed_type"))
    if value.type != "call_expression" or not value.named_children:
        return None
    callee = value.named_children[0]
    parts: list[str] = []
    while callee.type == "navigation_expression":
        suffix = callee.child_by_field_name("suffix")
        name = suffix.child_by_field_name("suffix") if suffix is not None else None
        if name is None:
            return None
        parts.append(_text(name))
        callee = callee.child_by_field_name("target")
        if callee is None:
            return None
    if callee.type != "simple_identifier":
        return None
    parts.append(_text(callee))
    if len(parts) == 1 and parts[0][:1].isupper():
        return parts[0]  # `Data(...)`: an initialiser (types are UpperCamelCase in Swift)
    return "=call:" + ".".join(reversed(parts))


def _header(node: Node) -> str:
    """The declaration up to its body (``func find(id: Int) -> User?``)."""
    return header(node, ("body", "computed_value"), _SIGNATURE_MAX)


def doc_comment(node: Node) -> str | None:
    """The ``///`` (or ``//``) comment lines right above a declaration, or a ``/** */``."""
    lines: list[str] = []
    prev = node.prev_named_sibling
    expected = node.start_point[0] - 1
    while prev is not None and prev.type in ("comment", "multiline_comment") and \
            prev.end_point[0] == expected:
        text = _text(prev)
        if prev.type == "multiline_comment":
            text = "\n".join(line.strip().lstrip("*").strip()
                             for line in text.strip("/*").splitlines())
        else:
            text = text.lstrip("/").strip()
        lines.append(text)
        expected = prev.start_point[0] - 1
        prev = prev.prev_named_sibling
    text = "\n".join(reversed(lines)).strip()
    return text or None
