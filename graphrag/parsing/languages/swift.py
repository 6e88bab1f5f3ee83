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
"""

from __future__ import annotations

from tree_sitter import Node

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import count_errors, header, normalize
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol
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
    only for optionals (an array is no ``User``); ``Foo.Bar`` stays dotted; generics go."""
    while node is not None and node.type in _TYPE_WRAPPERS:
        node = node.child_by_field_name("wrapped") or (
            node.named_children[0] if node.named_children else None)
    if node is None or node.type != "user_type":
        return None
    names = [_text(c) for c in node.named_children if c.type == "type_identifier"]
    return ".".join(names) or None


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
        self.seen: set[str] = set()
        # route builders of a function: variable -> path prefix (`let users = r.grouped("u")`)
        self.builders: dict[tuple[str | None, str], str] = {}
        self.route_names = route_call_names(LANG)
        self.overloaded = _overloaded(root)

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
        elif kind == "call_expression":
            self._call(node, type_fqn, caller)
        elif kind in ("if_statement", "guard_statement", "while_statement", "for_statement"):
            self._bindings(node, caller)
            self._children(node, type_fqn, caller)
        else:
            self._children(node, type_fqn, caller)

    def _children(self, node: Node, type_fqn: str | None, caller: str | None) -> None:
        for child in node.named_children:
            self._walk(child, type_fqn, caller)

    def _add(self, symbol: Symbol) -> bool:
        if symbol.fqn in self.seen:
            return False
        self.seen.add(symbol.fqn)
        self.result.symbols.append(symbol)
        return True

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
        self._add(Symbol(kind=kind, name=name, fqn=fqn, parent=outer,
                         signature=_header(node), doc_comment=doc_comment(node), meta=meta,
                         **self.span(node)))
        # a class's first supertype may be its superclass; structs, enums and actors only
        # conform; a protocol refines its protocols
        relation = {"class": "unknown", "protocol": "extends"}.get(word, "implements")
        for base in self._bases(node):
            self.result.heritage.append(Heritage(fqn, base, relation, line))
        if body is not None:
            self._children(body, fqn, None)

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
            name = _text(name_node)
            kind = "METHOD" if type_fqn else "FUNCTION"
        owner = type_fqn or caller
        fqn = f"{owner or self.package}.{name}"
        if node.parent is not None and (node.parent.id, name) in self.overloaded:
            # overloads differ by their argument labels: `init(session:delegate:)`
            labels = _labels(node)
            alike = (node.parent.id, name, labels) in self.overloaded
            fqn += _labels(node, typed=True) if alike else labels
        params: list[list[str | None]] = []
        required = 0
        scope = self.scope_vars(fqn)
        ret: str | None = None
        children = node.children
        for i, child in enumerate(children):
            field = node.field_name_for_child(i)
            if child.type == "parameter":
                following = children[i + 1:i + 3]
                if not any(c.type == "=" for c in following):
                    required += 1
                pname = child.child_by_field_name("name")
                ptype = [c for c in child.named_children
                         if child.field_name_for_child(child.children.index(c)) == "name"
                         and c.type != "simple_identifier"]
                declared = type_name(ptype[0]) if ptype else None
                if pname is not None:
                    params.append([_text(pname), declared])
                    if declared:
                        scope[_text(pname)] = declared
            elif field == "name" and child.type != "simple_identifier" and kind != "CONSTRUCTOR":
                ret = normalize(_text(child))
        meta = {"params": params, "return_type": ret, "min_args": required}
        modifiers = next((c for c in node.named_children if c.type == "modifiers"), None)
        if modifiers is not None and any(w in _text(modifiers).split()
                                         for w in ("static", "class")):
            meta["static"] = True
        if modifiers is not None and "private" in _text(modifiers).split():
            meta["private"] = True
        self._add(Symbol(kind=kind, name=name, fqn=fqn, parent=owner,
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
        name = _text(bound)
        annotation = next((c for c in node.named_children if c.type == "type_annotation"),
                          None)
        declared = type_name(annotation.child_by_field_name("name")) \
            if annotation is not None else None
        typed = declared or _init_type(value)
        if type_fqn is not None or caller is None:
            owner = type_fqn
            fqn = f"{owner or self.package}.{name}"
            self._add(Symbol(kind="FIELD", name=name, fqn=fqn, parent=owner,
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
        args = _arg_count(suffix)
        if callee is not None and callee.type == "simple_identifier":
            self.result.calls.append(Call(scope, _text(callee), None, line, args=args))
        elif callee is not None and callee.type == "navigation_expression":
            nav = callee.child_by_field_name("suffix")
            name_node = nav.child_by_field_name("suffix") if nav is not None else None
            if name_node is not None and name_node.type == "simple_identifier":
                name = _text(name_node)
                receiver = self._chain(callee.child_by_field_name("target"), scope)
                if self._route(node, receiver, name, suffix, scope, line):
                    return  # its arguments are the path and the handler, walked there
                self.result.calls.append(Call(scope, name, receiver, line, args=args))
            target = callee.child_by_field_name("target")
            if target is not None:  # calls in the receiver (`a.b().c()`)
                self._walk(target, type_fqn, caller)
        elif callee is not None:
            self._walk(callee, type_fqn, caller)
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
        if self._add(Symbol(kind="ENDPOINT", name=label, fqn=fqn, parent=caller,
                            signature=label, meta={"http_method": method, "route": route},
                            **self.span(node))):
            self.result.registrations.append(Registration(
                http_method=method, route=route, line=line, caller=caller, inline_fqn=fqn))
        self._children(lam, None, fqn)
        return True


def _overloaded(root: Node) -> set[tuple]:
    """(body node id, name) of functions declared more than once in one body, and
    (body node id, name, labels) of those whose argument labels are alike too."""
    seen: set[tuple] = set()
    out: set[tuple] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("function_declaration", "init_declaration",
                         "protocol_function_declaration") and node.parent is not None:
            name_node = node.child_by_field_name("name")
            name = "init" if node.type == "init_declaration" else (
                _text(name_node) if name_node is not None else "")
            key = (node.parent.id, name)
            (out if key in seen else seen).add(key)
            labelled = (*key, _labels(node))
            (out if labelled in seen else seen).add(labelled)
            continue
        if node.type in ("source_file", "class_declaration", "protocol_declaration",
                         "class_body", "enum_class_body", "protocol_body"):
            stack.extend(node.named_children)
    return out


def _labels(node: Node, typed: bool = False) -> str:
    """``(session:delegate:)``; with ``typed`` the parameter types follow the labels:
    ``(_:Value)`` (overloads whose labels are alike)."""
    parts = []
    for param in node.named_children:
        if param.type != "parameter":
            continue
        declared = [c for i, c in enumerate(param.children)
                    if param.field_name_for_child(i) == "name" and c.type != "simple_identifier"]
        # the nominal type's last name (`Value`, `URL`), `_` for a function or tuple type
        nominal = type_name(declared[0]) if typed and declared else None
        kind = (nominal.rsplit(".", 1)[-1] if nominal else "_") if typed else ""
        parts.append(f"{_label(param)}:{kind}")
    return "(" + "".join(parts) + ")" if not typed else "(" + ",".join(parts) + ")"


def _label(param: Node) -> str:
    """The argument label of a parameter: its external name, else its name."""
    label = param.child_by_field_name("external_name") or param.child_by_field_name("name")
    return _text(label) if label is not None else "_"


def _arg_count(suffix: Node | None) -> int | None:
    """Arguments a call passes, a trailing closure included."""
    if suffix is None:
        return None
    count = 0
    for child in suffix.named_children:
        if child.type == "value_arguments":
            count += sum(1 for a in child.named_children if a.type == "value_argument")
        elif child.type == "lambda_literal":
            count += 1
    return count


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
    """``=call:Foo`` for ``= Foo(...)`` / ``= Foo.make()``: the resolver evaluates it."""
    if value is None:
        return None
    if value.type in ("try_expression", "await_expression") and value.named_children:
        value = value.named_children[-1]
    if value.type == "nil_coalescing_expression":  # `a ?? b`: a's type, or b's
        first = value.child_by_field_name("value")
        return _init_type(first) or _init_type(value.named_children[-1])
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
