"""Scala extractor: one ``.scala`` file -> :class:`ParseResult`.

Covers packages (``package a.b`` clauses, chained ones joined), classes and case classes
(CLASS, ``meta.case``), traits (INTERFACE), objects (OBJECT; a companion object's members
belong to its class in the same file, ``meta.static``), ``def`` (METHOD in a type,
FUNCTION in a package object or at top level), ``val``/``var`` and class parameters
(FIELD), type aliases (CLASS, ``meta.alias``), imports with selectors, renames and
wildcards (IMPORTS), calls with their receivers (``this``, ``super``, objects, declared
types of fields, parameters and locals, ``new X(...)``; ``X(...)`` is recorded as a call
of ``X``), ``extends``/``with`` supertypes, and the routes the route frameworks recognise
(``parsing/routes/``): in a ``case`` clause's pattern (http4s: an ENDPOINT of the case
body) or in configuration files read by :func:`repo_facts` (Play's ``conf/routes``: each
route is registered by the file declaring its controller class, linked to the action).
"""

from __future__ import annotations

from tree_sitter import Node

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import count_errors, header, normalize
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles
from graphrag.parsing.routes import RoutePattern, config_routes, matched_endpoint

LANG = "scala"
_SIGNATURE_MAX = 300
_COMMENTS = frozenset({"comment", "block_comment"})
_TYPES = {"class_definition": "CLASS", "trait_definition": "INTERFACE",
          "object_definition": "OBJECT", "enum_definition": "ENUM"}
_DECLARATIONS = frozenset({*_TYPES, "package_object", "function_definition",
                           "function_declaration", "val_definition", "var_definition"})


def repo_facts(files: RepoFiles) -> dict[str, list[list[str]]]:
    """``routes``: the routes the route frameworks' configuration files declare (Play's
    ``conf/routes``) as [method, path, controller class, action], in file order."""
    return {"routes": config_routes(LANG, files)}


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Scala file into symbols, imports, calls, supertypes and routes."""
    tree = registry.parser(LANG).parse(source)
    root = tree.root_node
    clauses = [c for c in root.named_children
               if c.type == "package_clause" and c.child_by_field_name("name") is not None
               and c.child_by_field_name("body") is None]
    names = [_text(c.child_by_field_name("name")).replace(" ", "") for c in clauses]
    package = ".".join(names)
    module = package
    only = _package_object(root)
    if only is not None:
        # `package object jawn` (package.scala) is module `<package>.jawn` (`import
        # <package>.jawn._` names its members); its code sees `<package>`'s names
        name = _text(only.child_by_field_name("name"))
        module = f"{package}.{name}" if package else name
    result = ParseResult(path=rel_path, lang=LANG, module=module or
                         rel_path.removesuffix(".scala"), package=package or None)
    # `package cats` then `package data`: the code sees the members of `cats` (its
    # package object's too, such as a type alias), as if it imported them; so does the
    # code of `package object cats` (`arrow.FunctionK` is `cats.arrow.FunctionK`)
    for n, clause in enumerate(clauses[1:], start=1):
        result.imports.append(Import("*", ".".join(names[:n]),
                                     clause.start_point[0] + 1))
    if only is not None:
        result.imports.append(Import("*", module, only.start_point[0] + 1))
    _ScalaFile(source, root, result).run()
    facts = ctx.of(LANG, {})
    _config_routes(result, facts.get("routes", []) if isinstance(facts, dict) else [])
    result.error_count = count_errors(root)
    return result


def _package_object(root: Node) -> Node | None:
    """The package object when it is all the file declares (a ``package.scala``)."""
    declared = [c for c in root.named_children if c.type in _DECLARATIONS]
    if len(declared) == 1 and declared[0].type == "package_object" and \
            declared[0].child_by_field_name("name") is not None:
        return declared[0]
    return None


def type_name(node: Node | None) -> str | None:
    """A type as written reduced to its name: ``Option[User]`` keeps ``Option``,
    ``a.B`` stays dotted."""
    if node is None:
        return None
    if node.type == "generic_type":
        return type_name(node.child_by_field_name("type"))
    if node.type in ("type_identifier", "stable_type_identifier"):
        return _text(node)
    if node.type == "infix_type":  # `F ~> G`, `A As B`: the operator is the type
        return type_name(node.child_by_field_name("operator"))
    if node.type == "operator_identifier":
        return _text(node)
    return None


def infix_operator(text: str) -> str:
    """The spec's type prepass: an infix type as written (``F ~> G``,
    ``Kleisli[F, A, *] ~> Kleisli[G, A, *]``, ``A As B``) is the type its operator names;
    a function type (``=>``), a compound one (``with``) and any other text stay as they
    are (the rest of the reduction is shared)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text + " "):  # Scala's type arguments are in [], not <>
        depth += (ch in "[({") - (ch in "])}")
        if ch == " " and depth == 0:
            parts += [text[start:i]] if text[start:i] else []
            start = i + 1
    if len(parts) == 3 and parts[1] not in ("=>", "with", "forSome", "|", "&"):
        return parts[1]
    return text


class _ScalaFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, source: bytes, root: Node, result: ParseResult) -> None:
        super().__init__(source, root, result)
        self.prefix = result.package or ""
        # classes and traits of this file: a companion object's members join them
        self.classes = {_text(c.child_by_field_name("name"))
                        for c in _all_types(root) if c.type in ("class_definition",
                                                                "trait_definition")
                        and c.child_by_field_name("name") is not None}
        self.overloaded = _overloaded(root)
        # the names declared by each enclosing block and anonymous class body, innermost
        # last, with the supertypes of an anonymous class (None for a block): a bare call
        # of such a name runs code that is no symbol
        self.frames: list[tuple[set[str], list[str] | None]] = []
        # the self alias (`self =>`) of the innermost named type: `self.f()` is `this.f()`
        self.alias: str | None = None
        # type aliases, added after the file's other declarations: an object or a val
        # of the same name (`type Reader[-A, B] = ...` with `object Reader`) keeps it
        self.type_aliases: list[Symbol] = []

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
        for alias in self.type_aliases:
            self.add_once(alias)
        self.result.calls.sort(key=lambda c: c.line)
        self.result.var_types = {k: kept for k, v in self.result.var_types.items()
                                 if (kept := {n: t for n, t in v.items() if t})}
        return self.finished()

    def _fqn(self, owner: str | None, name: str) -> str:
        base = owner or self.prefix
        return f"{base}.{name}" if base else name

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
        elif kind == "type_definition":
            self._type_alias(node, owner, caller)
        elif kind == "call_expression":
            self._call(node, owner, caller)
        elif kind == "instance_expression":
            cls = next((type_name(c) for c in node.named_children
                        if type_name(c) is not None), None)
            if cls:
                *head, last = cls.split(".")
                self.result.calls.append(Call(caller or owner, last, head or None,
                                              node.start_point[0] + 1, kind="new"))
            body = next((c for c in node.named_children if c.type == "template_body"), None)
            if body is None:
                self._children(node, owner, caller)
            else:  # `new T { ... }`: an anonymous subclass of T
                supers = [t for c in node.named_children for t in _supertypes(c)]
                self._framed(node, _declared(body), supers, owner, caller)
        elif kind == "block":
            self._framed(node, _declared(node), None, owner, caller)
        elif kind in ("typed_pattern", "binding"):
            # `case hc: HCursor =>`, `(c: HCursor) =>`: a name of that type in the function
            name, typed = node.child_by_field_name("pattern") or \
                node.child_by_field_name("name"), type_name(node.child_by_field_name("type"))
            if name is not None and name.type == "identifier" and typed:
                self._local(owner, caller, _text(name), typed)
            self._children(node, owner, caller)
        elif kind == "case_clause":
            self._route(node, owner, caller)
        elif kind == "package_object":
            self._package_object(node)
        elif kind == "package_clause" and node.child_by_field_name("body") is not None:
            self._children(node.child_by_field_name("body"), owner, caller)
        else:
            self._children(node, owner, caller, static)

    def _local(self, owner: str | None, caller: str | None, name: str, typed: str) -> None:
        """Type ``name`` in function ``caller`` unless another ``name`` there has another
        type (then it has none: which one a use means is not known). For code directly in
        a type (``caller`` is the type: a field's initializer) under ``<type>#init``, apart
        from the type's fields."""
        if caller is None:
            return
        scope = self.scope_vars(f"{caller}#init" if caller == owner else caller)
        scope[name] = typed if scope.get(name, typed) == typed else ""

    def _package_object(self, node: Node) -> None:
        """``package object p { ... }``: its members are ``<package>.p.<name>``."""
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None:
            return
        prefix = self.prefix
        self.prefix = f"{prefix}.{_text(name)}" if prefix else _text(name)
        try:
            self._children(body, None, None)
        finally:
            self.prefix = prefix

    def _framed(self, node: Node, names: set[str], supers: list[str] | None,
                owner: str | None, caller: str | None) -> None:
        self.frames.append((names, supers))
        try:
            self._children(node, owner, caller)
        finally:
            self.frames.pop()

    def _children(self, node: Node, owner: str | None, caller: str | None,
                  static: bool = False) -> None:
        for child in node.named_children:
            if child.named_child_count:  # a leaf (a name, a literal) declares and calls nothing
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
            self.add_once(Symbol(kind=kind, name=name, fqn=fqn, parent=outer,
                                  signature=_header(node), doc_comment=doc_comment(node),
                                  meta=meta, **self.span(node)))
        extend = node.child_by_field_name("extend")
        # in the linearization's order (`extends A with B` looks in B, then in A), which
        # is the order super calls and inherited members are searched in
        for base_node in reversed(extend.named_children) if extend is not None else ():
            base = type_name(base_node)
            if base:
                relation = "extends" if kind == "INTERFACE" else "unknown"
                self.result.heritage.append(Heritage(fqn, base, relation, line,
                                                     static=companion))
        params = node.child_by_field_name("class_parameters")
        for param in params.named_children if params is not None else ():
            pname, ptype = param.child_by_field_name("name"), \
                type_name(param.child_by_field_name("type"))
            if pname is None:
                continue
            if ptype:
                self.scope_vars(fqn)[_text(pname)] = ptype
            self.add_once(Symbol(kind="FIELD", name=_text(pname), fqn=f"{fqn}.{_text(pname)}",
                                  parent=fqn, signature=normalize(_text(param)),
                                  meta={"type": ptype}, **self.span(param)))
        body = node.child_by_field_name("body")
        if body is not None:
            alias, self.alias = self.alias, next(
                (_text(c.named_children[0]) for c in body.named_children
                 if c.type == "self_type" and c.named_children), None)
            frames, self.frames = self.frames, []  # a named type's body starts afresh
            try:
                self._children(body, fqn, None, static=companion)
            finally:
                self.alias, self.frames = alias, frames

    def _type_alias(self, node: Node, owner: str | None, caller: str | None) -> None:
        """``type ~>[F[_], G[_]] = arrow.FunctionK[F, G]``: a CLASS node whose
        ``meta.alias`` is the type it stands for, as written. An abstract type member
        (``type Out``, ``type B <: X``) and a local alias name no type of the graph."""
        name_node, aliased = node.child_by_field_name("name"), node.child_by_field_name("type")
        if name_node is None or aliased is None or caller is not None:
            return
        name = _text(name_node)
        self.type_aliases.append(Symbol(
            kind="CLASS", name=name, fqn=self._fqn(owner, name), parent=owner,
            signature=_header(node), doc_comment=doc_comment(node),
            meta={"keyword": "type", "alias": normalize(_text(aliased))[:200]},
            **self.span(node)))

    def _function(self, node: Node, owner: str | None, caller: str | None,
                  static: bool) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        params: list[list[str | None]] = []
        typed: dict[str, str] = {}  # implicit parameters too
        required = 0
        first = True
        for plist in node.named_children:
            if plist.type != "parameters":
                continue
            implicit = _text(plist).lstrip("(").lstrip().startswith(("implicit", "using"))
            for param in plist.named_children:
                pname = param.child_by_field_name("name")
                ptype = type_name(param.child_by_field_name("type"))
                if pname is None:
                    continue
                if ptype:
                    typed[_text(pname)] = ptype
                if not implicit:
                    params.append([_text(pname), ptype])
                    if first and param.child_by_field_name("default_value") is None:
                        required += 1
            first = False
        if caller is not None:
            # a local def (or a method of an anonymous class): its calls are the
            # enclosing function's, its parameters typed there unless another one of
            # that name has another type
            for pname, ptype in typed.items():
                self._local(owner, caller, pname, ptype)
            body = node.child_by_field_name("body")
            if body is not None:
                self._walk(body, owner, caller)
            return
        fqn = self._fqn(owner, name)
        if (owner.rsplit(".", 1)[-1] if owner else "", name) in self.overloaded:
            # overloads carry their parameter types: `Printer.print(Json,Charset)`
            fqn += "(" + ",".join(t or "_" for _, t in params) + ")"
        self.scope_vars(fqn).update(typed)
        ret = node.child_by_field_name("return_type")
        meta: dict = {"params": params, "min_args": required,
                      "return_type": normalize(_text(ret)) if ret is not None else None}
        if static:
            meta["static"] = True
        kind = "METHOD" if owner else "FUNCTION"
        self.add_once(Symbol(kind=kind, name=name, fqn=fqn, parent=owner,
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
                self.add_once(Symbol(kind="FIELD", name=name, fqn=fqn, parent=owner,
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
        path = [_text(c) for c in node.children_by_field_name("path") if c.is_named]
        line = node.start_point[0] + 1
        for child in node.children:
            if child.type == "namespace_wildcard":
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
            name = _text(node)
            return ["this"] if name == self.alias else [name]
        if kind in ("this", "super"):
            return [kind]
        if kind == "field_expression":
            field = node.child_by_field_name("field")
            head = self._chain(node.child_by_field_name("value"))
            if field is None or head == ["?"]:
                return ["?"]
            if head == ["_root_"]:  # `_root_.a.b`: the fully qualified `a.b`
                return [_text(field)]
            return [*head, _text(field)]
        if kind == "call_expression":
            head = self._chain(node.child_by_field_name("function"))
            return ["?"] if head == ["?"] else [*head[:-1], head[-1] + "()"]
        if kind == "generic_function":
            function = node.child_by_field_name("function")
            parent = [type_name(c) for c in node.named_children
                      if c.type == "type_arguments" for c in c.named_children]
            if function is not None and _text(function) == "super" and len(parent) == 1 \
                    and parent[0]:
                return [parent[0]]  # `super[B].m`: the parent `B` names whose `m` runs
            head = self._chain(function)
            called = node.parent is not None and node.parent.type == "call_expression"
            if called or head == ["?"]:
                return head
            # a value given type arguments is a call of a polymorphic method
            # (`List.empty[Int]`), or of an object's `apply` (cats' `Monoid[Int]`)
            return [*head[:-1], head[-1] + "()"]
        if kind == "instance_expression":
            cls = next((type_name(c) for c in node.named_children
                        if type_name(c) is not None), None)
            return [cls + "()"] if cls else ["?"]
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self._chain(node.named_children[0])
        return ["?"]

    def _within(self) -> list[str] | None:
        """Supertypes of the innermost anonymous class around the walk, if any."""
        return next((supers for _names, supers in reversed(self.frames)
                     if supers is not None), None)

    def _bare(self, scope: str | None, name: str, line: int, count: int | None,
              types: list[str | None] | None = None) -> None:
        """A call without receiver: none for a def of an enclosing block or anonymous
        class (its body is the enclosing function's code); in an anonymous class it
        looks among the members of the class's supertypes first."""
        if any(name in names for names, _supers in self.frames):
            return
        self.result.calls.append(Call(scope, name, None, line, args=count, arg_types=types,
                                      within=self._within()))

    def _call(self, node: Node, owner: str | None, caller: str | None) -> None:
        function = node.child_by_field_name("function")
        if function is not None and function.type == "generic_function":
            function = function.child_by_field_name("function")
        scope = caller or owner
        line = node.start_point[0] + 1
        args_node = node.child_by_field_name("arguments")
        given = [a for a in args_node.named_children if a.type != "comment"] \
            if args_node is not None and args_node.type == "arguments" else None
        count = len(given) if given is not None else None
        types = [_arg_type(a) for a in given] if given else None
        if types is not None and not any(types):
            types = None
        if function is not None and (function.type == "this" or _text(function) == "this"):
            pass  # an auxiliary constructor calling the primary one
        elif function is not None and function.type == "identifier":
            name = _text(function)
            if name == self.alias:  # `self(c)`: the instance's `apply`
                self.result.calls.append(Call(scope, "apply", ["this"], line, args=count,
                                              arg_types=types))
            else:
                self._bare(scope, name, line, count, types)
        elif function is not None and function.type == "field_expression":
            field = function.child_by_field_name("field")
            if field is not None:
                value = function.child_by_field_name("value")
                receiver = self._chain(value)
                if value is not None and _text(value) == "this" and \
                        self._within() is not None:
                    # `this` of an anonymous class is its own instance
                    self._bare(scope, _text(field), line, count, types)
                else:
                    self.result.calls.append(Call(scope, _text(field), receiver, line,
                                                  args=count, arg_types=types))
            value = function.child_by_field_name("value")
            if value is not None:
                self._walk(value, owner, caller)
        elif function is not None:
            self._walk(function, owner, caller)
        args = node.child_by_field_name("arguments")
        if args is not None:
            self._walk(args, owner, caller)

    # -- routes matched by patterns ------------------------------------------------------

    def _route(self, node: Node, owner: str | None, caller: str | None) -> None:
        """A ``case`` clause whose pattern a framework recognises as a route (http4s's
        ``case GET -> Root / "users" / IntVar(id) => body``): an ENDPOINT of the body."""
        pattern = _infix_pattern(node.child_by_field_name("pattern"))
        body = node.child_by_field_name("body")
        parsed = matched_endpoint(LANG, pattern) if pattern is not None else None
        if parsed is None:
            self._children(node, owner, caller)
            return
        method, route = parsed
        label = f"{method} {route}"
        fqn = f"{caller or owner or self.prefix}.{label}"
        if self.add_once(Symbol(kind="ENDPOINT", name=label, fqn=fqn, parent=caller or owner,
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


def _config_routes(result: ParseResult, routes: list[list[str]]) -> None:
    """Register the configured routes whose controller class this file declares."""
    classes = {s.fqn: s for s in result.symbols if s.kind in ("CLASS", "OBJECT")}
    for method, path, controller, action in routes:
        owner = classes.get(controller)
        if owner is None:
            continue
        result.registrations.append(Registration(
            http_method=method, route=path, line=owner.line_start, caller=owner.fqn,
            handler_name=action, handler_receiver=controller.split(".")))


def _infix_pattern(pattern: Node | None) -> RoutePattern | None:
    """An infix pattern read left to right along its left-nested operators (``a -> b / c``
    is ``((a -> b) / c)``); None for any other pattern."""
    operands: list[Node] = []
    operators: list[str] = []
    node = pattern
    while node is not None and node.type == "infix_pattern":
        right, left = node.child_by_field_name("right"), node.child_by_field_name("left")
        if right is None or left is None:
            return None
        operators.append(_text(node.child_by_field_name("operator")))
        operands.append(right)
        node = left
    if node is None or not operators:
        return None
    operands.append(node)
    operands.reverse()
    operators.reverse()
    return RoutePattern(tuple(_text(o) for o in operands),
                        tuple(_text(o).strip('"') if o.type == "string" else None
                              for o in operands),
                        tuple(operators))


_LITERALS = {"string": "String", "interpolated_string_expression": "String",
             "boolean_literal": "Boolean", "character_literal": "Char"}


def _arg_type(node: Node) -> str | None:
    """An argument's type where it reads off the text: a literal's, ``new Foo(...)``'s,
    ``=var:x`` for a name the resolver types, ``=call:X`` for an object or a call's
    result (``Foo(...)``, ``a.b(...)``)."""
    kind = node.type
    if kind in _LITERALS:
        return _LITERALS[kind]
    if kind == "integer_literal":
        return "Long" if _text(node).endswith(("L", "l")) else "Int"
    if kind == "floating_point_literal":
        return "Float" if _text(node).endswith(("F", "f")) else "Double"
    if kind == "identifier":
        name = _text(node)
        return f"=call:{name}" if name[:1].isupper() else f"=var:{name}"
    return _init_type(node)


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


def _supertypes(node: Node) -> list[str]:
    """Names of the types of ``new A with B``'s type as written (``A[X]`` keeps ``A``)."""
    if node.type == "compound_type":
        return [t for c in node.named_children for t in _supertypes(c)]
    name = type_name(node)
    return [name] if name else []


def _declared(body: Node) -> set[str]:
    """Names the defs directly in a block or class body declare."""
    out = set()
    for child in body.named_children:
        if child.type in ("function_definition", "function_declaration"):
            name = child.child_by_field_name("name")
            if name is not None:
                out.add(_text(name))
    return out


def _overloaded(root: Node) -> set[tuple[str, str]]:
    """(type name, def name) of methods declared more than once in a type and its
    companion, and ("", name) of top-level functions declared more than once."""
    seen: set[tuple[str, str]] = set()
    out: set[tuple[str, str]] = set()
    bodies: list[tuple[str, Node]] = [("", root)]  # top-level defs too
    bodies += [("", c.child_by_field_name("body")) for c in root.named_children
               if c.type == "package_object" and c.child_by_field_name("body") is not None]
    for definition in _all_types(root):
        body = definition.child_by_field_name("body")
        owner = definition.child_by_field_name("name")
        if body is not None and owner is not None:
            bodies.append((_text(owner), body))
    for owner_name, body in bodies:
        for child in body.named_children:
            if child.type in ("function_definition", "function_declaration"):
                name = child.child_by_field_name("name")
                if name is not None:
                    key = (owner_name, _text(name))
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
