"""Scala extractor: one ``.scala`` file -> :class:`ParseResult`.

Covers packages (``package a.b`` clauses, chained ones joined), classes and case classes
(CLASS, ``meta.case``), traits (INTERFACE), objects (OBJECT; a companion object's members
belong to its class in the same file, ``meta.static``), ``def`` (METHOD in a type,
FUNCTION in a package object or at top level), ``val``/``var`` and class parameters
(FIELD), imports with selectors, renames and wildcards (IMPORTS), calls with their
receivers (``this``, ``super``, objects, declared types of fields, parameters and locals,
``new X(...)``; ``X(...)`` is recorded as a call of ``X``), ``extends``/``with``
supertypes, and routes: http4s (``case GET -> Root / "x" / IntVar(id) => ...``: an
ENDPOINT of the case body) and Play's ``conf/routes`` (read by :func:`repo_facts`; each
route is registered by the file declaring its controller class, linked to the action).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import count_errors, header, normalize
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles
from graphrag.parsing.routes import join_segments

LANG = "scala"
_SIGNATURE_MAX = 300
_HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
_ROUTES_MAX_BYTES = 512 * 1024
# `GET  /books/:id  controllers.Books.show(id: Long)` (`@` marks an injected controller)
_PLAY_ROUTE = re.compile(r"^\s*([A-Z]+)\s+(/\S*)\s+@?([\w.$]+)\.(\w+)\s*(?:\(|$)")
_COMMENTS = frozenset({"comment", "block_comment"})
_TYPES = {"class_definition": "CLASS", "trait_definition": "INTERFACE",
          "object_definition": "OBJECT", "enum_definition": "ENUM"}


def repo_facts(files: RepoFiles) -> dict[str, list[list[str]]]:
    """``routes``: Play's ``conf/routes`` lines as (method, path, controller class,
    action), in file order (an unreadable file only loses its routes)."""
    routes: list[list[str]] = []
    for rel, parent, _name in files.named("routes"):
        if not parent.endswith("conf"):
            continue
        text = files.read(rel, _ROUTES_MAX_BYTES) or ""
        for line in text.splitlines():
            match = _PLAY_ROUTE.match(line)
            if match and not line.lstrip().startswith("#"):
                routes.append(list(match.groups()))
    return {"routes": routes}


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Scala file into symbols, imports, calls, supertypes and routes."""
    tree = registry.parser(LANG).parse(source)
    root = tree.root_node
    package = ".".join(_text(c.child_by_field_name("name")).replace(" ", "")
                       for c in root.named_children
                       if c.type == "package_clause" and c.child_by_field_name("name")
                       is not None and c.child_by_field_name("body") is None)
    result = ParseResult(path=rel_path, lang=LANG, module=package or
                         rel_path.removesuffix(".scala"), package=package or None)
    _ScalaFile(source, root, result).run()
    facts = ctx.of(LANG, {})
    _play_routes(result, facts.get("routes", []) if isinstance(facts, dict) else [])
    result.error_count = count_errors(root)
    return result


def type_name(node: Node | None) -> str | None:
    """A type as written reduced to its name: ``Option[User]`` keeps ``Option``,
    ``a.B`` stays dotted."""
    if node is None:
        return None
    if node.type == "generic_type":
        return type_name(node.child_by_field_name("type"))
    if node.type in ("type_identifier", "stable_type_identifier"):
        return _text(node)
    return None


class _ScalaFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, source: bytes, root: Node, result: ParseResult) -> None:
        super().__init__(source, root, result)
        self.prefix = result.package or ""
        self.seen: set[str] = set()
        # classes and traits of this file: a companion object's members join them
        self.classes = {_text(c.child_by_field_name("name"))
                        for c in _all_types(root) if c.type in ("class_definition",
                                                                "trait_definition")
                        and c.child_by_field_name("name") is not None}
        self.overloaded = _overloaded(root)

    def span(self, node: Node) -> dict[str, int]:
        """Lines and characters of ``node`` up to its last token that is not a comment:
        a body written on the lines after ``=`` is an indented block that runs on to the
        next declaration, over the comments between them (the next one's doc)."""
        out = super().span(node)
        last = _last_token(node)
        if last.end_byte < node.end_byte:
            out["line_end"] = last.end_point[0] + 1
            out["char_end"] = self.offsets(last.end_byte)
        return out

    def run(self) -> ParseResult:
        self._children(self.root, None, None)
        self.result.calls.sort(key=lambda c: c.line)
        self.result.var_types = {k: v for k, v in self.result.var_types.items() if v}
        return self.finished()

    def _fqn(self, owner: str | None, name: str) -> str:
        base = owner or self.prefix
        return f"{base}.{name}" if base else name

    def _add(self, symbol: Symbol) -> bool:
        if symbol.fqn in self.seen:
            return False
        self.seen.add(symbol.fqn)
        self.result.symbols.append(symbol)
        return True

    def _walk(self, node: Node, owner: str | None, caller: str | None,
              static: bool = False) -> None:
        kind = node.type
        if kind in _TYPES:
            self._type(node, owner)
        elif kind in ("function_definition", "function_declaration"):
            self._function(node, owner, caller, static)
        elif kind in ("val_definition", "var_definition", "val_declaration",
                      "var_declaration"):
            self._value(node, owner, caller, static)
        elif kind == "import_declaration":
            self._import(node)
        elif kind == "call_expression":
            self._call(node, owner, caller)
        elif kind == "instance_expression":
            cls = next((type_name(c) for c in node.named_children
                        if type_name(c) is not None), None)
            if cls:
                *head, last = cls.split(".")
                self.result.calls.append(Call(caller or owner, last, head or None,
                                              node.start_point[0] + 1, kind="new"))
            self._children(node, owner, caller)
        elif kind == "case_clause":
            self._route(node, owner, caller)
        elif kind == "package_clause" and node.child_by_field_name("body") is not None:
            self._children(node.child_by_field_name("body"), owner, caller)
        else:
            self._children(node, owner, caller, static)

    def _children(self, node: Node, owner: str | None, caller: str | None,
                  static: bool = False) -> None:
        for child in node.named_children:
            self._walk(child, owner, caller, static)

    def _type(self, node: Node, outer: str | None) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        kind = _TYPES[node.type]
        fqn = self._fqn(outer, name)
        line = node.start_point[0] + 1
        companion = kind == "OBJECT" and name in self.classes
        if not companion:
            meta: dict = {}
            modifiers = next((c for c in node.named_children if c.type == "modifiers"), None)
            if modifiers is not None and "case" in _text(modifiers).split() or \
                    _text(node).startswith("case "):
                meta["case"] = True
            self._add(Symbol(kind=kind, name=name, fqn=fqn, parent=outer,
                             signature=_header(node), doc_comment=doc_comment(node),
                             meta=meta, **self.span(node)))
        extend = node.child_by_field_name("extend")
        for base_node in extend.named_children if extend is not None else ():
            base = type_name(base_node)
            if base:
                relation = "extends" if kind == "INTERFACE" else "unknown"
                self.result.heritage.append(Heritage(fqn, base, relation, line))
        params = node.child_by_field_name("class_parameters")
        for param in params.named_children if params is not None else ():
            pname, ptype = param.child_by_field_name("name"), \
                type_name(param.child_by_field_name("type"))
            if pname is None:
                continue
            if ptype:
                self.scope_vars(fqn)[_text(pname)] = ptype
            self._add(Symbol(kind="FIELD", name=_text(pname), fqn=f"{fqn}.{_text(pname)}",
                             parent=fqn, signature=normalize(_text(param)),
                             meta={"type": ptype}, **self.span(param)))
        body = node.child_by_field_name("body")
        if body is not None:
            self._children(body, fqn, None, static=companion)

    def _function(self, node: Node, owner: str | None, caller: str | None,
                  static: bool) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        if caller is not None:  # a local def: its calls are the enclosing function's
            body = node.child_by_field_name("body")
            if body is not None:
                self._walk(body, owner, caller)
            return
        fqn = self._fqn(owner, name)
        params: list[list[str | None]] = []
        required = 0
        first = True
        for plist in node.named_children:
            if plist.type != "parameters":
                continue
            implicit = _text(plist).lstrip("(").lstrip().startswith(("implicit", "using"))
            for param in plist.named_children:
                pname = param.child_by_field_name("name")
                ptype = type_name(param.child_by_field_name("type"))
                if pname is not None and not implicit:
                    params.append([_text(pname), ptype])
                    if first and param.child_by_field_name("default_value") is None:
                        required += 1
            first = False
        if (_owner_name(node), name) in self.overloaded:
            # overloads carry their parameter types: `Printer.print(Json,Charset)`
            fqn += "(" + ",".join(t or "_" for _, t in params) + ")"
        scope = self.scope_vars(fqn)
        for pname, ptype in params:
            if pname and ptype:
                scope[pname] = ptype
        ret = node.child_by_field_name("return_type")
        meta: dict = {"params": params, "min_args": required,
                      "return_type": normalize(_text(ret)) if ret is not None else None}
        if static:
            meta["static"] = True
        kind = "METHOD" if owner else "FUNCTION"
        self._add(Symbol(kind=kind, name=name, fqn=fqn, parent=owner,
                         signature=_header(node), doc_comment=doc_comment(node), meta=meta,
                         **self.span(node)))
        body = node.child_by_field_name("body")
        if body is not None:
            self._walk(body, owner, fqn)

    def _value(self, node: Node, owner: str | None, caller: str | None,
               static: bool) -> None:
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        declared = type_name(node.child_by_field_name("type"))
        typed = declared or _init_type(value)
        if pattern is not None and pattern.type == "identifier":
            name = _text(pattern)
            if caller is None:
                fqn = self._fqn(owner, name)
                self._add(Symbol(kind="FIELD", name=name, fqn=fqn, parent=owner,
                                 signature=_header(node), doc_comment=doc_comment(node),
                                 meta={"type": declared, **({"static": True} if static
                                                            else {})},
                                 **self.span(node)))
                if typed:
                    self.scope_vars(owner or self.result.module)[name] = typed
            elif typed:
                self.scope_vars(caller)[name] = typed
        if value is not None:
            self._walk(value, owner, caller or owner)

    def _import(self, node: Node) -> None:
        path: list[str] = []
        line = node.start_point[0] + 1
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if field == "path" and child.is_named:
                path.append(_text(child))
            elif child.type == "namespace_wildcard":
                self.result.imports.append(Import("*", ".".join(path), line))
            elif child.type == "namespace_selectors":
                for sel in child.named_children:
                    if sel.type == "identifier":
                        self.result.imports.append(Import(
                            _text(sel), ".".join([*path, _text(sel)]), line))
                    elif sel.type == "arrow_renamed_identifier":
                        name, alias = sel.child_by_field_name("name"), \
                            sel.child_by_field_name("alias")
                        if name is not None and alias is not None and _text(alias) != "_":
                            self.result.imports.append(Import(
                                _text(alias), ".".join([*path, _text(name)]), line))
                    elif sel.type == "namespace_wildcard":
                        self.result.imports.append(Import("*", ".".join(path), line))
        if path and not any(c.type in ("namespace_wildcard", "namespace_selectors")
                            for c in node.named_children):
            self.result.imports.append(Import(path[-1], ".".join(path), line))

    # -- calls ---------------------------------------------------------------------------

    def _chain(self, node: Node | None) -> list[str]:
        """Receiver chain: ``this.repo`` -> ``["this", "repo"]``, ``a.b()`` -> ``["a",
        "b()"]``, ``new Foo()`` -> ``["Foo()"]``, ``["?"]`` for what cannot be named."""
        if node is None:
            return ["?"]
        kind = node.type
        if kind == "identifier":
            return [_text(node)]
        if kind in ("this", "super"):
            return [kind]
        if kind == "field_expression":
            field = node.child_by_field_name("field")
            head = self._chain(node.child_by_field_name("value"))
            if field is None or head == ["?"]:
                return ["?"]
            return [*head, _text(field)]
        if kind == "call_expression":
            head = self._chain(node.child_by_field_name("function"))
            return ["?"] if head == ["?"] else [*head[:-1], head[-1] + "()"]
        if kind == "generic_function":
            return self._chain(node.child_by_field_name("function"))
        if kind == "instance_expression":
            cls = next((type_name(c) for c in node.named_children
                        if type_name(c) is not None), None)
            return [cls + "()"] if cls else ["?"]
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self._chain(node.named_children[0])
        return ["?"]

    def _call(self, node: Node, owner: str | None, caller: str | None) -> None:
        function = node.child_by_field_name("function")
        if function is not None and function.type == "generic_function":
            function = function.child_by_field_name("function")
        scope = caller or owner
        line = node.start_point[0] + 1
        args_node = node.child_by_field_name("arguments")
        count = sum(1 for a in args_node.named_children if a.type != "comment") \
            if args_node is not None and args_node.type == "arguments" else None
        if function is not None and (function.type == "this" or _text(function) == "this"):
            pass  # an auxiliary constructor calling the primary one
        elif function is not None and function.type == "identifier":
            self.result.calls.append(Call(scope, _text(function), None, line, args=count))
        elif function is not None and function.type == "field_expression":
            field = function.child_by_field_name("field")
            if field is not None:
                receiver = self._chain(function.child_by_field_name("value"))
                self.result.calls.append(Call(scope, _text(field), receiver, line,
                                              args=count))
            value = function.child_by_field_name("value")
            if value is not None:
                self._walk(value, owner, caller)
        elif function is not None:
            self._walk(function, owner, caller)
        args = node.child_by_field_name("arguments")
        if args is not None:
            self._walk(args, owner, caller)

    # -- http4s routes -------------------------------------------------------------------

    def _route(self, node: Node, owner: str | None, caller: str | None) -> None:
        """``case GET -> Root / "users" / IntVar(id) => body``: an ENDPOINT of the body."""
        pattern = node.child_by_field_name("pattern")
        body = node.child_by_field_name("body")
        parsed = _route_pattern(pattern)
        if parsed is None:
            self._children(node, owner, caller)
            return
        method, route = parsed
        label = f"{method} {route}"
        fqn = f"{caller or owner or self.prefix}.{label}"
        if self._add(Symbol(kind="ENDPOINT", name=label, fqn=fqn, parent=caller or owner,
                            signature=label, meta={"http_method": method, "route": route},
                            **self.span(node))):
            self.result.registrations.append(Registration(
                http_method=method, route=route, line=node.start_point[0] + 1,
                caller=caller or owner, inline_fqn=fqn))
        if body is not None:
            self._walk(body, owner, fqn)


def _last_token(node: Node) -> Node:
    """The last descendant of ``node`` that is not a comment and not empty (``node``
    itself when it has none)."""
    while True:
        kids = [c for c in node.children
                if c.end_byte > c.start_byte and c.type not in _COMMENTS]
        if not kids:
            return node
        node = kids[-1]


def _play_routes(result: ParseResult, routes: list[list[str]]) -> None:
    """Register the ``conf/routes`` entries whose controller class this file declares."""
    classes = {s.fqn: s for s in result.symbols if s.kind in ("CLASS", "OBJECT")}
    for method, path, controller, action in routes:
        owner = classes.get(controller)
        if owner is None:
            continue
        methods = "ANY" if method == "*" else method
        result.registrations.append(Registration(
            http_method=methods, route=path, line=owner.line_start, caller=owner.fqn,
            handler_name=action, handler_receiver=controller.split(".")))


def _route_pattern(pattern: Node | None) -> tuple[str, str] | None:
    """(method, path template) of ``GET -> Root / "a" / IntVar(id)`` (``req @ GET ->``
    too): literal segments as written, extractor segments as ``{name}``."""
    segments: list[str] = []
    node = pattern
    while node is not None and node.type == "infix_pattern":
        op = _text(node.child_by_field_name("operator"))
        right, left = node.child_by_field_name("right"), node.child_by_field_name("left")
        if op == "/":
            segments.append(_segment(right))
            node = left
        elif op == "->":
            if right is None or _text(right) != "Root" or left is None:
                return None
            if left.type == "capture_pattern":
                left = left.child_by_field_name("pattern")
            method = _text(left) if left is not None else ""
            if method not in _HTTP_METHODS:
                return None
            return method, join_segments(*reversed(segments))
        else:
            return None
    return None


def _segment(node: Node | None) -> str:
    if node is None:
        return "{?}"
    if node.type == "string":
        return _text(node).strip('"')
    if node.type == "case_class_pattern":
        inner = node.child_by_field_name("pattern")
        return "{" + (_text(inner) if inner is not None else "?") + "}"
    return "{" + _text(node) + "}"


def _init_type(value: Node | None) -> str | None:
    """``new Foo(...)`` -> ``Foo``; ``Foo(...)``/``a.b(...)`` -> ``=call:Foo``/``=call:a.b``."""
    if value is None:
        return None
    if value.type == "instance_expression":
        return next((type_name(c) for c in value.named_children
                     if type_name(c) is not None), None)
    if value.type != "call_expression":
        return None
    function = value.child_by_field_name("function")
    parts: list[str] = []
    while function is not None and function.type == "field_expression":
        field = function.child_by_field_name("field")
        if field is None:
            return None
        parts.append(_text(field))
        function = function.child_by_field_name("value")
    if function is None or function.type != "identifier":
        return None
    parts.append(_text(function))
    return "=call:" + ".".join(reversed(parts))


def _owner_name(node: Node) -> str:
    """Name of the type whose body holds ``node`` (a class and its companion share it)."""
    body = node.parent
    owner = body.parent if body is not None else None
    name = owner.child_by_field_name("name") if owner is not None else None
    return _text(name) if name is not None else ""


def _overloaded(root: Node) -> set[tuple[str, str]]:
    """(type name, def name) of methods declared more than once in a type and its
    companion."""
    seen: set[tuple[str, str]] = set()
    out: set[tuple[str, str]] = set()
    for definition in _all_types(root):
        body = definition.child_by_field_name("body")
        for child in body.named_children if body is not None else ():
            if child.type in ("function_definition", "function_declaration"):
                name = child.child_by_field_name("name")
                if name is not None:
                    key = (_owner_name(child), _text(name))
                    (out if key in seen else seen).add(key)
    return out


def _all_types(root: Node) -> list[Node]:
    """Every type definition of the file (nested ones too), without recursion."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.type in _TYPES:
            out.append(node)
        if node.type in ("compilation_unit", "template_body", "package_clause",
                         "class_definition", "object_definition", "trait_definition") or \
                node.type in _TYPES:
            stack.extend(node.named_children)
    return out


def _header(node: Node) -> str:
    """The declaration up to its body (``def find(id: Int): Option[Item]``)."""
    return header(node, ("body", "value"), _SIGNATURE_MAX)


def doc_comment(node: Node) -> str | None:
    """The Scaladoc ``/** ... */`` (or ``//`` lines) right above a declaration."""
    prev = node.prev_named_sibling
    if prev is None or prev.end_point[0] < node.start_point[0] - 1:
        return None
    if prev.type == "block_comment" and _text(prev).startswith("/**"):
        lines = _text(prev).removeprefix("/**").removesuffix("*/").splitlines()
        text = "\n".join(line.strip().lstrip("*").strip() for line in lines).strip()
        return text or None
    if prev.type == "comment":
        return _text(prev).lstrip("/").strip() or None
    return None
