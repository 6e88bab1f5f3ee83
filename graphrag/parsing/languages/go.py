"""Go extractor: one ``.go`` file -> :class:`ParseResult`.

Covers structs and other named types (CLASS), interfaces (INTERFACE, their method specs
as METHOD), functions (FUNCTION), methods (METHOD, parent = receiver type, wherever that
type is declared in the package), struct fields (FIELD), ``//`` doc comments, imports,
calls with receiver chains, embedding (structs: ``embeds``, interfaces: ``extends``),
variable types (fields, receivers, parameters, ``x := pkg.NewX()``, ``&Foo{}``,
``var x Foo``) and ``HandleFunc``/``Handle`` route registrations (an inline ``func``
literal handler becomes an ENDPOINT symbol).

The package fqn is the module path from the deepest enclosing ``go.mod`` plus the
directory below it (see :func:`package_path`).
"""

from __future__ import annotations

import posixpath
import re
import textwrap

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import (
    ScopeIndex,
    count_errors,
    keeps_items,
    node_id,
    normalize,
)
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import (
    Call,
    CharOffsets,
    Heritage,
    Import,
    ParseResult,
    Registration,
    Symbol,
)
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles
from graphrag.parsing.routes import (
    CalledRoute,
    RouteCall,
    Router,
    argument,
    called_route,
    route_call_names,
)
from graphrag.parsing.routes import join_route as _join_route

LANG = "go"
# Builtin functions and conversions: never calls into the repository.
_BUILTINS = frozenset({
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make",
    "max", "min", "new", "panic", "print", "println", "real", "recover",
    # conversions to predeclared types look like calls too
    "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
    "uint64", "uintptr", "float32", "float64", "byte", "rune", "bool", "error", "any",
    "complex64", "complex128",
})
_NON_NOMINAL = ("map[", "chan ", "chan<-", "<-chan", "func", "interface", "struct")
_DIRECTIVE = re.compile(r"^//(go:|nolint|line |export )")
_GO_MOD_MAX_BYTES = 1024 * 1024
_GO_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Go file into symbols, imports, calls, heritage, registrations and types."""
    tree = registry.parser(LANG).parse(source)
    root = tree.root_node
    package = package_path(rel_path, ctx, _package_clause(root))
    result = ParseResult(path=rel_path, lang=LANG, module=package, package=package)
    _GoFile(root, source, package, CharOffsets(source), result).run()
    result.error_count = count_errors(root)
    return result


def package_path(rel_path: str, ctx: RepoContext, clause_name: str = "") -> str:
    """Import path of the file's package: the deepest ``go.mod`` directory containing the
    file gives the module path, the rest of the directory is appended. Without a
    ``go.mod`` the directory itself (or the package clause name at the root) is used."""
    directory = posixpath.dirname(rel_path)
    best: str | None = None
    modules: dict[str, str] = ctx.of(LANG, {})
    for mod_dir in modules:
        inside = mod_dir == "" or directory == mod_dir or directory.startswith(mod_dir + "/")
        if inside and (best is None or len(mod_dir) > len(best)):
            best = mod_dir
    if best is None:
        return directory or clause_name
    rest = directory[len(best):].lstrip("/")
    module = modules[best]
    return f"{module}/{rest}" if rest else module




def repo_facts(files: RepoFiles) -> dict[str, str]:
    """The module path of every ``go.mod`` by its repo-relative directory (``""`` for
    the root); an unreadable one only loses module-qualified package names."""
    modules: dict[str, str] = {}
    for rel, parent, _name in files.named("go.mod"):
        text = files.read(rel, _GO_MOD_MAX_BYTES)
        match = _GO_MODULE_LINE.search(text) if text is not None else None
        if match:
            modules[parent] = match.group(1)
    return dict(sorted(modules.items()))


def clean_type(text: str | None) -> str | None:
    """Nominal type for the resolver: ``*store.Store`` -> ``store.Store``,
    ``[]*Product`` -> ``Product``, ``Box[T]`` -> ``Box``; None for maps, funcs, chans
    and anonymous structs/interfaces (no methods to resolve through them)."""
    if not text:
        return None
    t = text.strip()
    while True:
        stripped = re.sub(r"^(\*|&|\.\.\.|\[\d*\])", "", t).strip()
        if stripped == t:
            break
        t = stripped
    if t.startswith(_NON_NOMINAL):
        return None
    t = t.split("[", 1)[0].strip()
    return t or None


def declared_type(text: str | None) -> str | None:
    """A declared variable, parameter or field type for the resolver: :func:`clean_type`,
    except that a slice, array or map whose items have a class keeps its type as written
    (``[]Handler``, ``...Handler``, ``map[string]*Route``: ``hs[i]``, ``m[k]`` and the
    values a ``range`` loop binds are typed by the resolver from it)."""
    if not text:
        return None
    raw = re.sub(r"\s+", "", text)
    if raw.startswith("..."):  # a variadic parameter is a slice inside the function
        raw = "[]" + raw[3:]
    if raw.startswith(("[", "map[")) and keeps_items(raw):
        return raw
    return clean_type(text)


def _package_clause(root: Node) -> str:
    clause = next((c for c in root.named_children if c.type == "package_clause"), None)
    ident = clause.named_children[0] if clause is not None and clause.named_children else None
    return _text(ident)


def dotted(node: Node | None) -> str | None:
    """``a.b.c`` for identifier/selector chains, else None."""
    if node is None:
        return None
    if node.type in ("identifier", "package_identifier", "type_identifier",
                     "field_identifier"):
        return _text(node)
    if node.type == "selector_expression":
        base = dotted(node.child_by_field_name("operand"))
        return f"{base}.{_text(node.child_by_field_name('field'))}" if base else None
    if node.type == "qualified_type":
        return f"{_text(node.child_by_field_name('package'))}." \
               f"{_text(node.child_by_field_name('name'))}"
    return None


def receiver_chain(node: Node) -> list[str]:
    """``s.store`` -> ``["s", "store"]``; an index ``s.routes[k]`` -> ``["s", "routes",
    "[]"]`` (an item of a typed slice or map); ``["?"]`` for calls and the like."""
    if node.type == "identifier":
        return [_text(node)]
    if node.type == "index_expression":
        head = receiver_chain(node.child_by_field_name("operand"))
        return ["?"] if head == ["?"] else [*head, "[]"]
    if node.type == "selector_expression":
        head = receiver_chain(node.child_by_field_name("operand"))
        return ["?"] if head == ["?"] else [*head, _text(node.child_by_field_name("field"))]
    return ["?"]


def string_literal(node: Node | None) -> str | None:
    """Content of an interpreted or raw string literal."""
    if node is None or node.type not in ("interpreted_string_literal", "raw_string_literal"):
        return None
    return _text(node)[1:-1]


def doc_comment(node: Node, source: bytes) -> str | None:
    """The comment block ending on the line right above ``node``, markers stripped."""
    comments: list[Node] = []
    row = node.start_point[0]
    cur = node.prev_sibling
    while cur is not None and cur.type == "comment" and cur.end_point[0] == row - 1 \
            and _starts_line(cur, source):
        comments.insert(0, cur)
        row = cur.start_point[0]
        cur = cur.prev_sibling
    return _comment_text(comments)


def _trailing_comment(node: Node, source: bytes) -> str | None:
    """``Name string // the name``: a comment on the same line after ``node``."""
    nxt = node.next_sibling
    if nxt is not None and nxt.type == "comment" and nxt.start_point[0] == node.end_point[0]:
        return _comment_text([nxt])
    return None


def _starts_line(node: Node, source: bytes) -> bool:
    line_start = node.start_byte - node.start_point[1]
    return not source[line_start:node.start_byte].strip()


def _comment_text(comments: list[Node]) -> str | None:
    lines: list[str] = []
    for comment in comments:
        text = _text(comment)
        if text.startswith("//"):
            if _DIRECTIVE.match(text):
                continue
            body = text[2:]
            lines.append(body[1:] if body.startswith(" ") else body)
        else:
            for line in text[2:-2].splitlines():
                lines.append(re.sub(r"^\s*\* ?", "", line))
    doc = textwrap.dedent("\n".join(lines)).strip()
    return doc or None


def _params(plist: Node | None) -> list[list[str | None]]:
    """``[[name, type]]`` of a parameter list; unnamed parameters are named ``_``."""
    out: list[list[str | None]] = []
    if plist is None:
        return out
    for p in plist.named_children:
        if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        type_text = normalize(_text(p.child_by_field_name("type")))
        if p.type == "variadic_parameter_declaration":
            type_text = "..." + type_text
        names = p.children_by_field_name("name") or [None]
        out.extend([_text(n) if n is not None else "_", type_text] for n in names)
    return out


def _result_type(node: Node) -> str | None:
    result = node.child_by_field_name("result")
    return normalize(_text(result)) if result is not None else None


class _GoFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, root: Node, source: bytes, package: str, offsets: CharOffsets,
                 result: ParseResult) -> None:
        super().__init__(source, root, result, offsets)
        self.pkg = package
        # func/method/inline-handler node id -> fqn
        self.scopes: ScopeIndex[int, str] = ScopeIndex(node_id)
        self.subrouters: dict[str, str] = {}  # a router variable made with a prefix -> it
        self.route_names = route_call_names(LANG)

    def run(self) -> ParseResult:
        defs = QueryCursor(registry.query(LANG, "go-definitions")).captures(self.root)
        refs = QueryCursor(registry.query(LANG, "go-references")).captures(self.root)
        self.passes(refs, ("reference.import", self._import))
        self.passes(defs, ("definition.type", self._type),
                    (("definition.function", "definition.method"), self._function))
        # In source order a HandleFunc call precedes the calls inside its inline handler,
        # so the handler's scope exists before those calls look for their caller.
        self.passes(refs, ("reference.call", self._call))
        self.passes(defs, ("definition.local", self._local), ("definition.range", self._range))
        return self.finished()

    # -- helpers -----------------------------------------------------------------------

    def _enclosing(self, node: Node) -> str | None:
        return self.scopes.enclosing(node)

    def _doc(self, node: Node) -> str | None:
        return doc_comment(node, self.source)

    # -- imports -----------------------------------------------------------------------

    def _import(self, spec: Node) -> None:
        path = string_literal(spec.child_by_field_name("path")) or ""
        name = spec.child_by_field_name("name")
        alias = _text(name) if name is not None else path.rsplit("/", 1)[-1]
        if alias == ".":
            alias = "*"  # dot import: the package's names are used unqualified
        self.result.imports.append(Import(alias=alias, target=path,
                                          line=spec.start_point[0] + 1))

    # -- types -------------------------------------------------------------------------

    def _type(self, spec: Node) -> None:
        name = _text(spec.child_by_field_name("name"))
        body = spec.child_by_field_name("type")
        decl = spec.parent
        grouped = decl is not None and any(c.type == "(" for c in decl.children)
        outer = spec if grouped or decl is None else decl
        fqn = f"{self.pkg}.{name}"
        kind = "INTERFACE" if body is not None and body.type == "interface_type" else "CLASS"
        head = _text(spec)[: body.start_byte - spec.start_byte] if body is not None else ""
        if body is not None and body.type in ("struct_type", "interface_type"):
            signature = normalize(f"type {head}{body.type.removesuffix('_type')}")
        else:
            signature = normalize(f"type {_text(spec)}")
        doc = self._doc(spec) if grouped else self._doc(outer)
        meta = {} if body is None or body.type in ("struct_type", "interface_type") \
            else {"underlying": normalize(_text(body))}
        self.result.symbols.append(Symbol(
            kind=kind, name=name, fqn=fqn, parent=None, signature=signature,
            doc_comment=doc, meta=meta, **self.span(outer),
        ))
        if body is not None and body.type == "struct_type":
            self._struct_fields(fqn, body)
        elif body is not None and body.type == "interface_type":
            self._interface_members(fqn, body)

    def _struct_fields(self, owner: str, struct: Node) -> None:
        fields = next((c for c in struct.named_children
                       if c.type == "field_declaration_list"), None)
        for decl in fields.named_children if fields is not None else []:
            if decl.type != "field_declaration":
                continue
            type_node = decl.child_by_field_name("type")
            type_text = normalize(_text(type_node))
            names = decl.children_by_field_name("name")
            if not names:
                self._embedded(owner, type_node, decl)
                continue
            doc = self._doc(decl) or _trailing_comment(decl, self.source)
            for ident in names:
                name = _text(ident)
                self.result.symbols.append(Symbol(
                    kind="FIELD", name=name, fqn=f"{owner}.{name}", parent=owner,
                    signature=f"{name} {type_text}", doc_comment=doc,
                    meta={"type": type_text}, **self.span(decl),
                ))
                resolved = declared_type(type_text)
                if resolved:
                    self.scope_vars(owner)[name] = resolved

    def _embedded(self, owner: str, type_node: Node | None, decl: Node) -> None:
        """An embedded field: ``Base`` / ``*store.Base`` promotes the base's members."""
        base = clean_type(_text(type_node))
        if not base:
            return
        self.result.heritage.append(
            Heritage(cls=owner, base=base, relation="embeds", line=decl.start_point[0] + 1))
        # the embedded field is addressable by its type name: s.Base.Method()
        self.scope_vars(owner)[base.rsplit(".", 1)[-1]] = base

    def _interface_members(self, owner: str, iface: Node) -> None:
        for member in iface.named_children:
            if member.type == "method_elem":
                name = _text(member.child_by_field_name("name"))
                self.result.symbols.append(Symbol(
                    kind="METHOD", name=name, fqn=f"{owner}.{name}", parent=owner,
                    signature=normalize(_text(member)), doc_comment=self._doc(member),
                    meta={"params": _params(member.child_by_field_name("parameters")),
                          "return_type": _result_type(member), "abstract": True},
                    **self.span(member),
                ))
            elif member.type == "type_elem" and len(member.named_children) == 1:
                # a single named type is an embedded interface; unions are constraints
                base = dotted(member.named_children[0])
                if base:
                    self.result.heritage.append(Heritage(
                        cls=owner, base=base, relation="extends",
                        line=member.start_point[0] + 1))

    # -- functions and methods ---------------------------------------------------------

    def _function(self, node: Node) -> None:
        name = _text(node.child_by_field_name("name"))
        params = _params(node.child_by_field_name("parameters"))
        meta: dict[str, object] = {"params": params, "return_type": _result_type(node)}
        parent, kind, fqn = None, "FUNCTION", f"{self.pkg}.{name}"
        receiver = self._receiver(node)
        types: dict[str, str] = {}
        if receiver is not None:
            recv_name, recv_type, pointer = receiver
            parent, kind = f"{self.pkg}.{recv_type}", "METHOD"
            fqn = f"{parent}.{name}"
            meta.update(receiver=recv_type, pointer_receiver=pointer, static=False)
            if recv_name:
                types[recv_name] = recv_type
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        signature = normalize(node.text[: end - node.start_byte].decode("utf-8", "replace"))
        self.result.symbols.append(Symbol(
            kind=kind, name=name, fqn=fqn, parent=parent, signature=signature,
            doc_comment=self._doc(node), meta=meta, **self.span(node),
        ))
        self.scopes[node.id] = fqn
        for pname, ptype in params:
            resolved = declared_type(ptype)
            if pname and pname != "_" and resolved:
                types[pname] = resolved
        if types:
            self.scope_vars(fqn).update(types)

    @staticmethod
    def _receiver(node: Node) -> tuple[str | None, str, bool] | None:
        """``(name, type, pointer)`` of a method receiver ``(s *Server)``."""
        if node.type != "method_declaration":
            return None
        plist = node.child_by_field_name("receiver")
        decl = next((p for p in plist.named_children if p.type == "parameter_declaration"),
                    None) if plist is not None else None
        if decl is None:
            return None
        type_text = _text(decl.child_by_field_name("type"))
        name = decl.child_by_field_name("name")
        return (_text(name) if name is not None else None, clean_type(type_text) or type_text,
                type_text.lstrip().startswith("*"))

    # -- calls and registrations -------------------------------------------------------

    def _call(self, node: Node) -> None:
        func = node.child_by_field_name("function")
        caller = self._enclosing(node)
        line = node.start_point[0] + 1
        if func.type == "identifier":
            name, receiver = _text(func), None
            if name in _BUILTINS:
                return
        else:
            name = _text(func.child_by_field_name("field"))
            receiver = receiver_chain(func.child_by_field_name("operand"))
        self.result.calls.append(Call(caller=caller, name=name, receiver=receiver, line=line))
        if func.type == "selector_expression" and name in self.route_names:
            self._registration(node, caller, line, name, receiver)

    def _registration(self, call: Node, caller: str | None, line: int, name: str,
                      receiver: list[str]) -> None:
        """A call some route framework recognises (``mux.HandleFunc("GET /x", h.list)``,
        chi ``r.Get("/x", h)``, gorilla/mux ``r.HandleFunc("/x", h).Methods("GET")``):
        a route plus a handler reference, or a router made with a prefix and assigned
        (gorilla/mux ``api := r.PathPrefix("/api").Subrouter()``). The path gets the
        prefixes of the routers whose closure encloses it (chi ``r.Route("/p",
        func(r chi.Router) {...})``) and of its receiver's."""
        args = [a for a in call.child_by_field_name("arguments").named_children
                if a.type != "comment"]
        arg_calls = [_simple_call(a) for a in args]
        found = called_route(LANG, RouteCall(
            name, tuple(receiver), tuple(string_literal(a) for a in args),
            tuple(_text(a) for a in args), _chained_calls(call), base=_base_calls(call),
            arg_calls=tuple(arg_calls)))
        if isinstance(found, Router):
            self._subrouter(call, found.prefix)
            return
        target = None
        if isinstance(found, CalledRoute) and found.of is None:
            target = argument(found.handler, args)
        elif isinstance(found, CalledRoute):  # an argument of a call among the arguments
            inner = next((a for a, f in zip(args, arg_calls, strict=True) if f is found.of),
                         None)
            target = argument(found.handler, _call_args(inner)) if inner is not None else None
        if target is None:
            return
        method = found.method
        operand = call.child_by_field_name("function").child_by_field_name("operand")
        prefix = self.subrouters.get(_text(operand), "") \
            if operand is not None and operand.type == "identifier" else ""
        route = _join_route(self._enclosing_prefix(call) + prefix, found.route)
        handler = target
        reg = Registration(http_method=method, route=route, line=line, caller=caller)
        if handler.type == "func_literal":
            reg.inline_fqn = self._inline_endpoint(handler, call, method, route, caller)
        elif handler.type in ("identifier", "selector_expression"):
            if handler.type == "identifier":
                reg.handler_name, reg.handler_receiver = _text(handler), None
            else:
                reg.handler_name = _text(handler.child_by_field_name("field"))
                reg.handler_receiver = receiver_chain(handler.child_by_field_name("operand"))
            self.result.calls.append(Call(caller, reg.handler_name, reg.handler_receiver,
                                          handler.start_point[0] + 1, kind="ref"))
        self.result.registrations.append(reg)

    def _subrouter(self, call: Node, prefix: str) -> None:
        """``api := r.PathPrefix("/api").Subrouter()``: ``api`` routes get ``/api`` (after
        the prefix of the router it is made from)."""
        target = _assigned_name(call)
        if target is None:
            return
        operand = call.child_by_field_name("function").child_by_field_name("operand")
        while operand is not None and operand.type == "call_expression":
            operand = operand.child_by_field_name("function").child_by_field_name("operand")
        base = self.subrouters.get(_text(operand), "") \
            if operand is not None and operand.type == "identifier" else ""
        self.subrouters[target] = _join_route(base, prefix)

    def _enclosing_prefix(self, call: Node) -> str:
        """Joined prefixes of the routers whose closure argument holds ``call`` (chi's
        ``r.Route("/p", func(r chi.Router) {...})``), outermost first."""
        prefix, cur = "", call.parent
        while cur is not None:
            if cur.type == "func_literal" and cur.parent is not None \
                    and cur.parent.type == "argument_list":
                outer = cur.parent.parent
                found = self._router_of(outer)
                if found is not None:
                    prefix = _join_route(found, prefix) if prefix else found
            cur = cur.parent
        return prefix.rstrip("/")

    def _router_of(self, call: Node | None) -> str | None:
        """The prefix of the router a framework says ``call`` makes, else None."""
        func = call.child_by_field_name("function") if call is not None else None
        if func is None or func.type != "selector_expression":
            return None
        name = _text(func.child_by_field_name("field"))
        if name not in self.route_names:
            return None
        args = [a for a in call.child_by_field_name("arguments").named_children
                if a.type != "comment"]
        found = called_route(LANG, RouteCall(
            name, tuple(receiver_chain(func.child_by_field_name("operand"))),
            tuple(string_literal(a) for a in args), tuple(_text(a) for a in args)))
        return found.prefix if isinstance(found, Router) else None

    def _inline_endpoint(self, literal: Node, call: Node, method: str, route: str,
                         caller: str | None) -> str:
        name = f"{method} {route}"
        fqn = f"{self.pkg}.{name}"
        params = _params(literal.child_by_field_name("parameters"))
        stmt = call.parent if call.parent is not None else call
        body = literal.child_by_field_name("body")
        end = body.start_byte if body is not None else literal.end_byte
        self.result.symbols.append(Symbol(
            kind="ENDPOINT", name=name, fqn=fqn, parent=caller,
            signature=normalize(literal.text[: end - literal.start_byte].decode()),
            doc_comment=self._doc(stmt) if stmt.type == "expression_statement" else None,
            meta={"http_method": method, "route": route, "params": params,
                  "return_type": None, "inline": True},
            **self.span(literal),
        ))
        self.scopes[literal.id] = fqn
        types = {n: t for n, t in ((n, declared_type(t)) for n, t in params)
                 if n != "_" and t}
        if types:
            self.scope_vars(fqn).update(types)
        return fqn

    # -- local and package variables ---------------------------------------------------

    def _local(self, node: Node) -> None:
        scope = self._enclosing(node) or self.pkg
        if node.type == "short_var_declaration":
            names = _expr_list(node.child_by_field_name("left"))
            values = _expr_list(node.child_by_field_name("right"))
            declared = None
        else:
            names = node.children_by_field_name("name")
            values = _expr_list(node.child_by_field_name("value"))
            declared = declared_type(_text(node.child_by_field_name("type")))
        for i, ident in enumerate(names):
            name = _text(ident)
            if ident.type != "identifier" or name == "_":
                continue
            if declared:
                type_ = declared
            elif len(values) == len(names):
                type_ = _value_type(values[i])
            elif len(values) == 1 and i == 0:
                # x, err := store.Open(): the first result is the interesting one
                type_ = _value_type(values[0])
            else:
                type_ = None
            if type_:
                self.scope_vars(scope).setdefault(name, type_)


    def _range(self, node: Node) -> None:
        """``for _, v := range xs``: ``v`` is an element of slice ``xs`` or a value of
        map ``xs``: one item of it (``=item:``), typed by the resolver from the declared
        type of the variable, parameter, struct field or called function's result."""
        names = _expr_list(node.child_by_field_name("left"))
        right = node.child_by_field_name("right")
        if len(names) != 2 or names[1].type != "identifier" or right is None:
            return  # `for i := range xs` binds the index
        scope = self._enclosing(node) or self.pkg
        element = None
        if right.type == "identifier":
            known = self.result.var_types.get(scope, {}).get(_text(right))
            source = known if known is not None and known.startswith("=call:") \
                else _text(right)
            element = "=item:" + source
        elif right.type == "call_expression":
            callee = dotted(right.child_by_field_name("function"))
            element = f"=item:=call:{callee}" if callee and callee not in _BUILTINS else None
        elif right.type == "selector_expression":
            chain = dotted(right)
            element = f"=item:{chain}" if chain else None
        if element:
            self.scope_vars(scope).setdefault(_text(names[1]), element)


def _expr_list(node: Node | None) -> list[Node]:
    if node is None:
        return []
    if node.type == "expression_list":
        return [c for c in node.named_children if c.type != "comment"]
    return [node]


def _value_type(expr: Node) -> str | None:
    """Type of an initialiser: ``&Foo{}``/``Foo{}`` -> ``Foo``, ``pkg.NewX()`` ->
    ``=call:pkg.NewX``."""
    if expr.type == "unary_expression" and _text(expr.child_by_field_name("operator")) == "&":
        return _value_type(expr.child_by_field_name("operand"))
    if expr.type == "composite_literal":
        return declared_type(dotted(expr.child_by_field_name("type")) or
                             _text(expr.child_by_field_name("type")))
    if expr.type == "index_expression":  # `r := m[k]`, `h := hs[i]`: one item
        chain = receiver_chain(expr.child_by_field_name("operand"))
        return None if "?" in chain or "[]" in chain else "=item:" + ".".join(chain)
    if expr.type == "call_expression":
        callee = dotted(expr.child_by_field_name("function"))
        args = expr.child_by_field_name("arguments")
        if callee == "new" and args is not None and len(args.named_children) == 1:
            return clean_type(_text(args.named_children[0]))  # new(Foo) -> *Foo
        if callee == "make" and args is not None and args.named_children:
            return declared_type(_text(args.named_children[0]))  # make([]Foo, n)
        return f"=call:{callee}" if callee and callee not in _BUILTINS else None
    return None


def _base_calls(call: Node) -> tuple[RouteCall, ...]:
    """The calls ``call``'s receiver is built from (``r.PathPrefix("/api")`` under
    ``r.PathPrefix("/api").Subrouter()``), innermost first."""
    base: list[RouteCall] = []
    operand = call.child_by_field_name("function").child_by_field_name("operand")
    while operand is not None and operand.type == "call_expression":
        func = operand.child_by_field_name("function")
        arguments = operand.child_by_field_name("arguments")
        if func is None or func.type != "selector_expression" or arguments is None:
            break
        args = [a for a in arguments.named_children if a.type != "comment"]
        base.append(RouteCall(_text(func.child_by_field_name("field")), (),
                              tuple(string_literal(a) for a in args),
                              tuple(_text(a) for a in args)))
        operand = func.child_by_field_name("operand")
    return tuple(base)


def _chained_calls(call: Node) -> tuple[RouteCall, ...]:
    """The calls chained on ``call``'s result (``.Methods("GET")``), innermost first."""
    chained: list[RouteCall] = []
    sel = call.parent
    while sel is not None and sel.type == "selector_expression" and \
            sel.parent is not None and sel.parent.type == "call_expression":
        outer = sel.parent
        arguments = outer.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] \
            if arguments is not None else []
        chained.append(RouteCall(_text(sel.child_by_field_name("field")), (),
                                 tuple(string_literal(a) for a in args),
                                 tuple(_text(a) for a in args)))
        sel = outer.parent
    return tuple(chained)


def _assigned_name(call: Node) -> str | None:
    """``x`` in ``x := call`` / ``x = call`` / ``var x = call`` (single name)."""
    cur = call.parent
    if cur is not None and cur.type == "expression_list":
        cur = cur.parent
    if cur is None:
        return None
    if cur.type in ("short_var_declaration", "assignment_statement"):
        left = cur.child_by_field_name("left")
    elif cur.type == "var_spec":
        left = cur.child_by_field_name("name")
    else:
        return None
    names = [c for c in left.named_children] if left is not None and \
        left.type == "expression_list" else [left]
    return _text(names[0]) if len(names) == 1 and names[0] is not None \
        and names[0].type == "identifier" else None


def _call_args(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return [a for a in arguments.named_children if a.type != "comment"] \
        if arguments is not None else []


def _simple_call(node: Node) -> RouteCall | None:
    """An argument that is a call (``http.HandlerFunc(h.x)``), as the route frameworks
    read it: its name, the package or receiver naming it, its arguments; else None."""
    if node.type != "call_expression":
        return None
    callee = dotted(node.child_by_field_name("function")) or ""
    if not callee:
        return None
    *head, name = callee.split(".")
    args = _call_args(node)
    return RouteCall(name, tuple(head), tuple(string_literal(a) for a in args),
                     tuple(_text(a) for a in args))


def first_result(text: str) -> str:
    """The spec's type prepass: a result list ``(T, error)`` -> ``T`` (what a call's
    value is used as; the rest of the reduction is shared)."""
    if text.startswith("(") and text.endswith(")"):
        return text[1:-1].split(",")[0].strip()
    return text
