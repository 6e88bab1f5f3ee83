"""Python extractor: one ``.py`` file -> :class:`ParseResult`.

Covers classes (CLASS, ENUM for ``Enum`` subclasses), module functions and nested
functions (FUNCTION), methods (METHOD; ``__init__`` is the CONSTRUCTOR), fields
(class-level assignments and ``self.x`` assigned in ``__init__``), docstrings,
decorators, imports (relative ones resolved against the module path), calls with their
receiver chains, base classes, variable types for the resolver and decorator-based HTTP
endpoints (FastAPI ``@app.get``/``@router.post``..., Flask ``@app.route``/blueprints).

Queries in ``queries/python-*.scm`` find the nodes; scoping is worked out here by walking
up the tree from each node to its enclosing class or function.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import (
    ScopeIndex,
    count_errors,
    element_type,
    has_ancestor,
    in_order,
    item_type,
    keeps_items,
    node_id,
    normalize,
)
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles
from graphrag.parsing.routes import (
    CalledRoute,
    Injected,
    Mount,
    RouteCall,
    Router,
    argument,
    called_route,
    route_call_names,
)
from graphrag.parsing.typetext import split_top_level

LANG = "python"
_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "enum.Enum", "enum.IntEnum",
               "enum.StrEnum"}
_CALLABLE_KINDS = {"FUNCTION", "METHOD", "CONSTRUCTOR", "ENDPOINT"}
_SIGNATURE_MAX = 300


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Python file into symbols, imports, calls, heritage and variable types."""
    tree = registry.parser(LANG).parse(source)
    module = module_name(rel_path, ctx.of(LANG, frozenset()))
    result = ParseResult(path=rel_path, lang=LANG, module=module, package=None)
    _PythonFile(source, tree.root_node, rel_path, module, result).run()
    result.error_count = count_errors(tree.root_node)
    return result


def repo_facts(files: RepoFiles) -> frozenset[str]:
    """The directories holding an ``__init__.py`` (regular packages)."""
    return frozenset(parent for _rel, parent, _name in files.named("__init__.py"))


def module_name(rel_path: str, packages: frozenset[str] = frozenset()) -> str:
    """``app/api/users.py`` -> ``app.api.users``; ``app/__init__.py`` -> ``app``.

    When the file's directory is a regular package (has ``__init__.py``), the module
    path starts at the top of that package chain, as Python's import system sees it:
    ``src/app/api/users.py`` with packages ``src/app`` and ``src/app/api`` is
    ``app.api.users`` (src layouts, several projects under one indexed root). Outside
    packages the whole relative path is used."""
    parts = rel_path.removesuffix(".py").split("/")
    dirs = parts[:-1]
    start = len(dirs)
    while start > 0 and "/".join(dirs[:start]) in packages:
        start -= 1
    if start < len(dirs):
        parts = parts[start:]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)




def clean_type(text: str | None) -> str | None:
    """Annotation as the resolver wants it: ``Optional[User]`` -> ``User``,
    ``"User"`` -> ``User``, ``list[User]`` -> ``list``, ``X | None`` -> ``X``."""
    if not text:
        return None
    t = text.strip().strip("'\"").strip()
    for wrapper in ("Optional", "Annotated", "Union", "typing.Optional", "typing.Annotated",
                    "typing.Union"):
        if t.startswith(wrapper + "[") and t.endswith("]"):
            t = _first_non_none(_split_stripped(t[len(wrapper) + 1:-1], ","))
            break
    if "|" in t:
        t = _first_non_none(_split_stripped(t, "|"))
    t = t.split("[", 1)[0].strip().strip("'\"")
    return t or None


def _call_text(call: Node) -> str | None:
    """``a.b`` for ``a.b(...)``, ``a.b().c`` for ``a.b().c(...)`` (see receiver_chain)."""
    func = call.child_by_field_name("function")
    if func is None:
        return None
    if func.type == "identifier":
        return _text(func)
    if func.type != "attribute":
        return None
    head = receiver_chain(func.child_by_field_name("object"), calls=True)
    if head == ["?"]:
        return None
    return ".".join([*head, _text(func.child_by_field_name("attribute"))])


_UNION = re.compile(r"^(?:typing\.|t\.)?Union\[(.*)\]$")


def annotation_type(text: str | None) -> str | None:
    """:func:`clean_type`, except that a union of two or more classes stays one
    (``EmailNotifier | LogNotifier``, ``Union[A, B, None]`` -> ``A | B``): the resolver
    links a call on such a value to each (resolution ``union``)."""
    if not text:
        return None
    t = text.strip().strip("'\"").strip()
    match = _UNION.match(t)
    parts = _split_stripped(match.group(1), ",") if match else _split_stripped(t, "|")
    members = [clean_type(p) for p in parts if p.strip().strip("'\"") not in ("None", "")]
    unique = list(dict.fromkeys(m for m in members if m))
    if len(unique) >= 2:
        return " | ".join(unique)
    return clean_type(text)


def _param_type(text: str | None) -> str | None:
    """A parameter's type for the resolver: :func:`annotation_type`, except that a
    container keeps its item type (``Dict[str, Option]``: ``opts.get(k)`` is an Option)."""
    if text and keeps_items(text) and annotation_type(text) != item_type(text):
        return text.strip()
    return annotation_type(text)


def _first_non_none(parts: list[str]) -> str:
    return next((p for p in parts if p not in ("None", "")), "")



def string_value(node: Node | None) -> str | None:
    """Content of a string literal node (None for anything else)."""
    if node is None or node.type not in ("string", "concatenated_string"):
        return None
    return "".join(_text(c) for c in _descendants_of_type(node, "string_content"))


def _descendants_of_type(node: Node, type_: str) -> list[Node]:
    found, stack = [], [node]
    while stack:
        cur = stack.pop()
        if cur.type == type_:
            found.append(cur)
        stack.extend(reversed(cur.children))
    return found


def dotted(node: Node | None) -> str | None:
    """``a.b.c`` for identifier/attribute chains, else None."""
    if node is None:
        return None
    if node.type == "identifier":
        return _text(node)
    if node.type == "attribute":
        base = dotted(node.child_by_field_name("object"))
        attr = node.child_by_field_name("attribute")
        return f"{base}.{_text(attr)}" if base and attr is not None else None
    return None


def receiver_chain(node: Node, calls: bool = False) -> list[str]:
    """Receiver chain of a call's object: ``self.repo`` -> ``["self", "repo"]``,
    ``super()`` -> ``["super"]``; with ``calls`` a call result names its call
    (``self.store().find`` -> ``["self", "store()", "find"]``) and an item read by key or
    index is ``[]`` (``self.opts[k]`` -> ``["self", "opts", "[]"]``); ``["?"]`` for
    expressions we cannot name."""
    if node.type == "identifier":
        return [_text(node)]
    if node.type == "attribute":
        head = receiver_chain(node.child_by_field_name("object"), calls)
        return ["?"] if head == ["?"] else [*head, _text(node.child_by_field_name("attribute"))]
    if node.type == "call":
        func = node.child_by_field_name("function")
        if _text(func) == "super":
            return ["super"]
        if calls and func.type == "identifier":
            return [_text(func) + "()"]
        if calls and func.type == "attribute":
            head = receiver_chain(func.child_by_field_name("object"), calls)
            if head != ["?"]:
                return [*head, _text(func.child_by_field_name("attribute")) + "()"]
    if calls and node.type == "parenthesized_expression" and node.named_child_count == 1:
        return receiver_chain(node.named_children[0], calls)
    if calls and node.type == "subscript":  # `self.opts[k].process()`: one item
        head = receiver_chain(node.child_by_field_name("value"), calls)
        return ["?"] if head == ["?"] else [*head, "[]"]
    return ["?"]


def keyword_args(args: Node | None) -> dict[str, Node]:
    """Keyword arguments of an argument_list by name."""
    if args is None:
        return {}
    return {
        _text(kw.child_by_field_name("name")): kw.child_by_field_name("value")
        for kw in args.named_children if kw.type == "keyword_argument"
    }


def positional_args(args: Node | None) -> list[Node]:
    if args is None:
        return []
    return [a for a in args.named_children
            if a.type not in ("keyword_argument", "comment", "list_splat",
                              "dictionary_splat")]


def join_route(prefix: str, route: str) -> str:
    """Join a router prefix and a route the way FastAPI/Flask do."""
    if not prefix:
        return route if route.startswith("/") else "/" + route
    if not route:
        return prefix
    return prefix.rstrip("/") + "/" + route.lstrip("/") if route != "/" else prefix + "/"


@dataclass
class _Scope:
    """A class or function symbol plus facts needed while walking its body."""

    symbol: Symbol
    node: Node
    param_types: dict[str, str] = field(default_factory=dict)
    self_name: str | None = None  # first parameter of a method (``self``)
    annotations: dict[str, str] = field(default_factory=dict)  # name -> annotation as written


class _PythonFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, source: bytes, root: Node, rel_path: str, module: str,
                 result: ParseResult) -> None:
        super().__init__(source, root, result)
        self.rel_path = rel_path
        self.module = module
        self.scopes: ScopeIndex[int, _Scope] = ScopeIndex(node_id)  # def node id -> scope
        self.router_prefixes: dict[str, str] = {}
        self.route_names = route_call_names(LANG)
        self.plain_route_names = route_call_names(LANG, block=False)
        self.field_names: set[str] = set()

    def run(self) -> ParseResult:
        defs = QueryCursor(registry.query(LANG, "python-definitions")).captures(self.root)
        refs = QueryCursor(registry.query(LANG, "python-references")).captures(self.root)
        assignments = in_order(defs.get("definition.assignment", []))
        self._collect_router_prefixes(assignments)
        def_nodes = in_order(defs.get("definition.class", []) +
                              defs.get("definition.function", []))
        for node in def_nodes:
            if node.type == "class_definition":
                self._class(node)
            else:
                self._function(node)
        self._merge_overload_stubs()
        for node in assignments:
            self._assignment(node)
        self.passes(defs, ("definition.with", self._with_item), ("definition.for", self._for))
        self.passes(refs, ("reference.call", self._call), ("reference.import", self._import))
        self._explicit_self()
        return self.finished()

    def _explicit_self(self) -> None:
        """A method whose instance parameter has another name (click's ``__self``): its
        calls and types read through that name are recorded as through ``self``, the
        receiver the resolver knows (a classmethod's first parameter is the class)."""
        renames: dict[str, str] = {}
        for scope in self.scopes.values():
            name, sym = scope.self_name, scope.symbol
            if name and name != "self" and sym.kind != "FUNCTION" and not any(
                    d.rsplit(".", 1)[-1] == "classmethod" for d in sym.meta.get("decorators", [])):
                renames[sym.fqn] = name
        if not renames:
            return

        def self_name(fqn: str | None) -> str | None:
            while fqn:  # a nested function sees the method's parameter
                if fqn in renames:
                    return renames[fqn]
                fqn = fqn.rpartition(".")[0]
            return None

        for call in self.result.calls:
            name = self_name(call.caller)
            if name and call.receiver and call.receiver[0] == name:
                call.receiver = ["self", *call.receiver[1:]]
        for scope_fqn, types in self.result.var_types.items():
            name = self_name(scope_fqn)
            if not name:
                continue
            for var, text in types.items():
                types[var] = re.sub(rf"^((?:=\w+:)*){re.escape(name)}(?=\.|$)", r"\1self", text)

    # -- scoping -----------------------------------------------------------------------

    def _enclosing(self, node: Node) -> _Scope | None:
        """Innermost class/function scope strictly containing ``node``."""
        return self.scopes.enclosing(node)

    # -- declarations ------------------------------------------------------------------

    def _class(self, node: Node) -> None:
        outer = self._enclosing(node)
        name = _text(node.child_by_field_name("name"))
        fqn = f"{outer.symbol.fqn if outer else self.module}.{name}"
        bases = self._bases(node)
        outer_node = _decorated(node)
        symbol = Symbol(
            kind="ENUM" if any(b in _ENUM_BASES for b in bases) else "CLASS",
            name=name, fqn=fqn, parent=outer.symbol.fqn if outer else None,
            signature=_header(node), doc_comment=docstring(node),
            meta={"decorators": _decorators(node), "bases": bases},
            **self.span(outer_node),
        )
        if _under_type_checking(node):
            symbol.meta["type_checking"] = True
        self.result.symbols.append(symbol)
        self.scopes[node.id] = _Scope(symbol, node)
        for base in bases:
            self.result.heritage.append(
                Heritage(cls=fqn, base=base, relation="extends", line=node.start_point[0] + 1))

    def _bases(self, node: Node) -> list[str]:
        supers = node.child_by_field_name("superclasses")
        bases = []
        for arg in positional_args(supers):
            target = arg.child_by_field_name("value") if arg.type == "subscript" else arg
            name = dotted(target)
            if name:
                bases.append(name)
        return bases

    def _function(self, node: Node) -> None:
        outer = self._enclosing(node)
        name = _text(node.child_by_field_name("name"))
        decorators = _decorators(node)
        in_class = outer is not None and outer.node.type == "class_definition"
        static = in_class and any(d in ("staticmethod", "classmethod") for d in decorators)
        params = _params(node.child_by_field_name("parameters"))
        self_name = params[0][0] if in_class and params and "staticmethod" not in decorators \
            else None
        visible_params = params[1:] if self_name else params
        kind = "FUNCTION"
        if in_class:
            kind = "CONSTRUCTOR" if name == "__init__" else "METHOD"
        meta: dict[str, object] = {
            "params": [list(p) for p in visible_params],
            "return_type": _opt_text(node.child_by_field_name("return_type")),
            "decorators": decorators,
            "static": static,
        }
        if any(c.type == "async" for c in node.children):
            meta["async"] = True
        if _under_type_checking(node):
            meta["type_checking"] = True  # a typing-only definition, not the runtime one
        endpoint = self._endpoint(node)
        fqn = f"{outer.symbol.fqn if outer else self.module}.{name}"
        if endpoint:
            kind = "ENDPOINT"
            meta.update(http_method=endpoint.http_method, route=endpoint.route)
            # also a registration, so that a router mounted in another module
            # (``include_router(prefix=)``/``register_blueprint(url_prefix=)``) prefixes it
            endpoint.inline_fqn = fqn
            self.result.registrations.append(endpoint)
        symbol = Symbol(
            kind=kind, name=name, fqn=fqn, parent=outer.symbol.fqn if outer else None,
            signature=_header(node), doc_comment=docstring(node), meta=meta,
            **self.span(_decorated(node)),
        )
        self.result.symbols.append(symbol)
        types = {n: t for n, t in ((n, _param_type(t)) for n, t in visible_params) if t}
        self.scopes[node.id] = _Scope(symbol, node, types, self_name,
                                      {n: t for n, t in visible_params if t})
        if types:
            self.scope_vars(fqn).update(types)

    def _merge_overload_stubs(self) -> None:
        """``@overload`` stubs and ``if TYPE_CHECKING:`` definitions attach to their
        implementation: the runtime definition (neither ``@overload`` nor under
        ``TYPE_CHECKING``) is the one symbol of that fqn and lists the other signatures
        in ``meta["overloads"]``; with no runtime definition (a Protocol, a stub file)
        the first definition stands for all. Members of a dropped class go with it."""
        groups: dict[str, list[Symbol]] = {}
        for sym in self.result.symbols:
            if sym.kind in _CALLABLE_KINDS or sym.kind in ("CLASS", "ENUM"):
                groups.setdefault(sym.fqn, []).append(sym)
        dropped: set[int] = set()
        spans: list[tuple[int, int]] = []
        for syms in groups.values():
            others = [s for s in syms if _is_overload_stub(s) or s.meta.get("type_checking")]
            if not others:
                continue
            runtime = [s for s in syms if s not in others]
            if not runtime and not any(_is_overload_stub(s) for s in others):
                continue  # only TYPE_CHECKING definitions: nothing to prefer
            impl = runtime[0] if runtime else next(
                (s for s in syms if not _is_overload_stub(s)), others[0])
            if impl.kind in _CALLABLE_KINDS:
                impl.meta["overloads"] = [s.signature for s in others if s is not impl]
            for s in others:
                if s is not impl:
                    dropped.add(id(s))
                    spans.append((s.char_start, s.char_end))
        if not dropped:
            return
        for sym in self.result.symbols:  # members of a dropped (TYPE_CHECKING) class
            if any(a <= sym.char_start and sym.char_end <= b and (a, b) != (
                    sym.char_start, sym.char_end) for a, b in spans):
                dropped.add(id(sym))
        kept = {sym.fqn: sym for sym in self.result.symbols if id(sym) not in dropped}
        self.result.symbols = [s for s in self.result.symbols if id(s) not in dropped]
        for scope in self.scopes.values():
            if id(scope.symbol) in dropped:  # calls in a stub belong to the implementation
                scope.symbol = kept.get(scope.symbol.fqn, scope.symbol)

    def _endpoint(self, node: Node) -> Registration | None:
        """The route when a decorator registers the function as one."""
        decorated = _decorated(node)
        for dec in decorated.named_children if decorated is not node else []:
            call = dec.named_children[0] if dec.type == "decorator" and dec.named_children \
                else None
            route = self._decorator_route(call) if call is not None else None
            if route:
                return route
        return None

    def _decorator_route(self, call: Node) -> Registration | None:
        """Route of ``@app.get("/x")`` / ``@bp.route("/x", methods=[...])``, else None."""
        func = call.child_by_field_name("function") if call.type == "call" else None
        if func is None or func.type != "attribute":
            return None
        verb = _text(func.child_by_field_name("attribute"))
        if verb not in self.route_names:
            return None
        receiver = dotted(func.child_by_field_name("object")) or ""
        found = called_route(LANG, self._route_call(
            verb, tuple(receiver.split(".")) if receiver else (),
            call.child_by_field_name("arguments"), block=True))
        if not isinstance(found, CalledRoute) or found.handler is not None:
            return None
        method, route = found.method, found.route
        prefix = self.router_prefixes.get(receiver, "")
        return Registration(http_method=method, route=join_route(prefix, route),
                            line=call.start_point[0] + 1, caller=None, router=receiver,
                            base=prefix)

    def _route_call(self, name: str, receiver: tuple[str, ...], args: Node | None,
                    block: bool = False) -> RouteCall:
        """A call reduced to what the route frameworks read (``block``: the call
        decorates a function)."""
        pos, kws = positional_args(args), keyword_args(args)
        return RouteCall(
            name, receiver, tuple(string_value(p) for p in pos), tuple(_text(p) for p in pos),
            block=block,
            keywords=tuple((key, string_value(value),
                            tuple(string_value(m) for m in value.named_children)
                            if value.type in ("list", "tuple", "set") else None)
                           for key, value in kws.items() if value is not None),
            local_router=".".join(receiver) in self.router_prefixes)

    def _framework_call(self, node: Node, name: str, receiver: list[str] | None,
                        caller: str | None, line: int) -> None:
        """A call some route framework looks at: a route added with its handler, a
        router mounted, a function handed to the framework."""
        args = node.child_by_field_name("arguments")
        found = called_route(LANG, self._route_call(name, tuple(receiver or ()), args))
        pos, kws = positional_args(args), keyword_args(args)
        if isinstance(found, Injected):
            self._handler_ref(argument(found.argument, pos), caller, line)
        elif not receiver or "?" in receiver:
            return
        elif isinstance(found, Mount):
            self._mount(found, argument(found.router, pos, kws), receiver, caller, line)
        elif isinstance(found, CalledRoute) and found.handler is not None:
            ref = self._handler_ref(argument(found.handler, pos, kws), caller, line)
            if ref is None:
                return
            router = ".".join(receiver)
            prefix = self.router_prefixes.get(router, "")
            self.result.registrations.append(Registration(
                http_method=found.method, route=join_route(prefix, found.route), line=line,
                caller=caller, handler_name=ref[0], handler_receiver=ref[1], router=router,
                base=prefix))

    def _mount(self, found: Mount, mounted: Node | None, receiver: list[str],
               caller: str | None, line: int) -> None:
        """``app.include_router(users.router, prefix="/v1")`` /
        ``app.register_blueprint(admin_bp, url_prefix="/admin")``: a router mount."""
        path = dotted(mounted)
        if not path:
            return
        prefix = found.prefix
        parent = ".".join(receiver)
        own = self.router_prefixes.get(parent, "")  # the mounting router's own prefix
        *head, name = path.split(".")
        self.result.registrations.append(Registration(
            http_method="USE", route=join_route(own, prefix or "") if own else prefix or "",
            line=line, caller=caller, handler_name=name, handler_receiver=head or None,
            router=parent, base=own, replaces_base=found.replaces_base))

    def _collect_router_prefixes(self, assignments: list[Node]) -> None:
        """Module-level ``router = APIRouter(prefix="/p")``: a router some framework
        makes, with its own prefix."""
        for node in assignments:
            if has_ancestor(node, ("class_definition", "function_definition")):
                continue
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or left.type != "identifier" or right is None \
                    or right.type != "call":
                continue
            factory = (dotted(right.child_by_field_name("function")) or "").rsplit(".", 1)[-1]
            if factory not in self.route_names:
                continue
            found = called_route(LANG, self._route_call(
                factory, (), right.child_by_field_name("arguments")))
            if isinstance(found, Router):
                self.router_prefixes[_text(left)] = found.prefix

    # -- assignments: fields and variable types ---------------------------------------

    def _assignment(self, node: Node) -> None:
        scope = self._enclosing(node)
        left = node.child_by_field_name("left")
        annotation = annotation_type(_opt_text(node.child_by_field_name("type")))
        if scope is None:
            if left.type == "identifier":
                self._record_type(self.module, _text(left), annotation, node, None)
            return
        if scope.node.type == "class_definition":
            if left.type == "identifier":
                self._field(scope.symbol, _text(left), node)
                self._record_type(scope.symbol.fqn, _text(left), annotation, node, None)
            return
        if left.type == "identifier":
            self._record_type(scope.symbol.fqn, _text(left), annotation, node, scope)
            raw = _opt_text(node.child_by_field_name("type"))
            if raw:
                scope.annotations.setdefault(_text(left), raw)
            return
        self._self_attribute(scope, left, annotation, node)

    def _self_attribute(self, scope: _Scope, left: Node, annotation: str | None,
                        node: Node) -> None:
        """``self.x = ...`` inside a method: a field type (and a FIELD in ``__init__``)."""
        obj = left.child_by_field_name("object")
        if scope.self_name is None or obj is None or _text(obj) != scope.self_name:
            return
        cls = self._enclosing(scope.node)
        if cls is None or cls.node.type != "class_definition":
            return
        name = _text(left.child_by_field_name("attribute"))
        if scope.symbol.kind == "CONSTRUCTOR":
            self._field(cls.symbol, name, node)
        self._record_type(cls.symbol.fqn, name, annotation, node, scope)

    def _field(self, cls: Symbol, name: str, node: Node) -> None:
        key = f"{cls.fqn}.{name}"
        if key in self.field_names:
            return
        self.field_names.add(key)
        stmt = node.parent if node.parent and node.parent.type == "expression_statement" \
            else node
        self.result.symbols.append(Symbol(
            kind="FIELD", name=name, fqn=key, parent=cls.fqn,
            signature=normalize(_text(node))[:_SIGNATURE_MAX],
            doc_comment=_attribute_docstring(stmt),
            meta={"type": _opt_text(node.child_by_field_name("type"))},
            **self.span(stmt),
        ))

    def _record_type(self, scope_fqn: str, name: str, annotation: str | None, node: Node,
                     scope: _Scope | None) -> None:
        """Remember the type of ``name`` in ``scope_fqn`` (first assignment wins, an
        annotation always wins)."""
        value_type = annotation or self._value_type(node.child_by_field_name("right"), scope)
        if not value_type:
            return
        types = self.scope_vars(scope_fqn)
        if annotation or name not in types:
            types[name] = value_type

    def _with_item(self, node: Node) -> None:
        """``with X(...) as y``: ``y`` is what the call gives (a class: its instance)."""
        scope = self._enclosing(node)
        pattern = node.child_by_field_name("value")
        value = pattern.named_children[0] if pattern.named_children else None
        target = pattern.child_by_field_name("alias")
        name = target.named_children[0] if target is not None and target.named_children \
            else None
        if scope is None or scope.node.type != "function_definition" or value is None \
                or name is None or name.type != "identifier":
            return
        value_type = self._value_type(value, scope)
        if value_type:
            self.scope_vars(scope.symbol.fqn).setdefault(_text(name), value_type)

    def _for(self, node: Node) -> None:
        """``for y in xs`` where ``xs`` is annotated ``list[T]``/``Iterable[T]``/...: ``y``
        is a ``T``: ``xs`` a parameter or annotated local of the enclosing function, or
        (``=iter:``, typed by the resolver) a call's declared result or a field."""
        scope = self._enclosing(node)
        right = node.child_by_field_name("right")
        if scope is None or scope.node.type != "function_definition" or right is None:
            return
        element = None
        if right.type == "identifier":
            element = element_type(scope.annotations.get(_text(right)))
        elif right.type == "call":  # `for p in self.get_params()`: its declared result
            callee = _call_text(right)
            element = f"=iter:=call:{callee}" if callee else None
        elif right.type == "attribute":  # `for p in self.params`: the field's annotation
            chain = receiver_chain(right, calls=True)
            element = "=iter:" + ".".join(chain) if chain != ["?"] else None
        if element:
            name = _text(node.child_by_field_name("left"))
            self.scope_vars(scope.symbol.fqn).setdefault(name, element)

    @staticmethod
    def _value_type(right: Node | None, scope: _Scope | None) -> str | None:
        if right is None:
            return None
        if right.type == "call":
            callee = _call_text(right)
            if callee in ("cast", "typing.cast", "t.cast"):  # `cast(T, x)` is a T
                args = positional_args(right.child_by_field_name("arguments"))
                return clean_type(_text(args[0])) if args else None
            return f"=call:{callee}" if callee else None
        if right.type == "identifier" and scope is not None:
            # self.repo = repo where the parameter is typed ``repo: UserRepository``
            return scope.param_types.get(_text(right))
        if right.type == "subscript":  # `opt = self.opts[k]`: an item of a typed container
            value = right.child_by_field_name("value")
            if value is not None and value.type == "identifier" and scope is not None:
                return item_type(scope.annotations.get(_text(value)))
            chain = receiver_chain(value, calls=True) if value is not None else ["?"]
            if chain != ["?"]:
                head = chain[-1]
                return f"=item:=call:{'.'.join(chain)[:-2]}" if head.endswith("()") \
                    else "=item:" + ".".join(chain)
        if right.type == "conditional_expression":  # `a if cond else b`: the first typed
            branches = [c for c in right.named_children if c.type != "comment"]
            for branch in (branches[0], branches[-1]) if len(branches) == 3 else ():
                found = _PythonFile._value_type(branch, scope)
                if found:
                    return found
        return None

    # -- references --------------------------------------------------------------------

    def _caller(self, node: Node) -> str | None:
        scope = self._enclosing(node)
        return scope.symbol.fqn if scope else None

    def _call(self, node: Node) -> None:
        func = node.child_by_field_name("function")
        line = node.start_point[0] + 1
        caller = self._caller(node)
        if func.type == "call":
            self._decorator_call(node, func, caller, line)
            return
        if func.type == "identifier":
            name, receiver = _text(func), None
            if name == "super":  # only the receiver of ``super().x()``, never a target
                return
        else:
            name = _text(func.child_by_field_name("attribute"))
            receiver = receiver_chain(func.child_by_field_name("object"), calls=True)
        self.result.calls.append(Call(caller=caller, name=name, receiver=receiver, line=line))
        if name in self.plain_route_names:
            self._framework_call(node, name, receiver, caller, line)

    def _handler_ref(self, target: Node | None, caller: str | None, line: int
                     ) -> tuple[str, list[str] | None] | None:
        """A function passed by name (``f``, ``views.f``): recorded as a reference."""
        if target is None or target.type not in ("identifier", "attribute"):
            return None
        path = dotted(target)
        if not path:
            return None
        *head, name = path.split(".")
        self.result.calls.append(Call(caller=caller, name=name, receiver=head or None,
                                      line=line, kind="ref"))
        return name, head or None

    def _decorator_call(self, node: Node, func: Node, caller: str | None, line: int) -> None:
        """A decorator applied as a call, ``app.get("/x")(list_items)`` or
        ``cache(maxsize=1)(load)``: the function is referenced; a route decorator also
        registers it."""
        pos = positional_args(node.child_by_field_name("arguments"))
        ref = self._handler_ref(pos[0], caller, line) if len(pos) == 1 else None
        reg = self._decorator_route(func) if ref is not None else None
        if reg is not None:
            reg.handler_name, reg.handler_receiver = ref
            reg.line, reg.caller = line, caller
            self.result.registrations.append(reg)

    def _import(self, node: Node) -> None:
        line = node.start_point[0] + 1
        if node.type == "import_statement":
            for item in node.children_by_field_name("name"):
                self._add_import(item, "", line)
            return
        base = self._from_module(node.child_by_field_name("module_name"))
        if any(c.type == "wildcard_import" for c in node.children):
            self.result.imports.append(Import(alias="*", target=base, line=line))
        for item in node.children_by_field_name("name"):
            self._add_import(item, base + "." if base else "", line)

    def _add_import(self, item: Node, prefix: str, line: int) -> None:
        if item.type == "aliased_import":
            target = _text(item.child_by_field_name("name"))
            alias = _text(item.child_by_field_name("alias"))
        else:
            # ``import a.b`` binds ``a`` but code names it ``a.b``; the full dotted name
            # keeps the IMPORTS edge pointing at the module actually imported.
            target = alias = _text(item)
        self.result.imports.append(Import(alias=alias, target=prefix + target, line=line))

    def _from_module(self, node: Node | None) -> str:
        """Absolute dotted module of a ``from X import`` clause."""
        if node is None:
            return ""
        if node.type != "relative_import":
            return _text(node)
        prefix = next((c for c in node.children if c.type == "import_prefix"), None)
        level = len(_text(prefix).strip())
        name = next((c for c in node.children if c.type == "dotted_name"), None)
        package = self.module.split(".")
        if not self.rel_path.endswith("__init__.py"):
            package = package[:-1]
        package = package[: len(package) - (level - 1)] if level > 1 else package
        return ".".join([*package, _text(name)] if name is not None else package)


# -- small tree helpers ----------------------------------------------------------------


def _under_type_checking(node: Node) -> bool:
    """Whether ``node`` is defined in the body of an ``if TYPE_CHECKING:`` (or
    ``if typing.TYPE_CHECKING:``) of its own scope: seen by type checkers only."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("function_definition",
                                                     "class_definition", "module"):
        if parent.type == "if_statement" and child == parent.child_by_field_name(
                "consequence"):
            cond_node = parent.child_by_field_name("condition")
            cond = _text(cond_node).strip() if cond_node is not None else ""
            if cond.rsplit(".", 1)[-1] == "TYPE_CHECKING":
                return True
        child, parent = parent, parent.parent
    return False


def _is_overload_stub(sym: Symbol) -> bool:
    return any(d.rsplit(".", 1)[-1] == "overload" for d in sym.meta.get("decorators", []))


def _opt_text(node: Node | None) -> str | None:
    return normalize(_text(node)) if node is not None else None


def _decorated(node: Node) -> Node:
    """The decorated_definition around ``node`` (so the span covers decorators)."""
    parent = node.parent
    return parent if parent is not None and parent.type == "decorated_definition" else node


def _decorators(node: Node) -> list[str]:
    outer = _decorated(node)
    if outer is node:
        return []
    return [normalize(_text(d))[1:].strip() for d in outer.named_children
            if d.type == "decorator"]


def _header(node: Node) -> str:
    """Declaration header without body: ``def f(a: int) -> str`` / ``class A(B)``;
    comments in it (``# noqa: E501`` after the colon, one per parameter) are left out."""
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    raw = node.text[: end - node.start_byte]
    comments, stack = [], [node]
    while stack:
        current = stack.pop()
        for child in current.children:
            if child.start_byte >= end:
                break
            if child.type == "comment":
                comments.append(child)
            elif child is not body:
                stack.append(child)
    for comment in sorted(comments, key=lambda c: c.start_byte, reverse=True):
        raw = raw[:comment.start_byte - node.start_byte] + raw[comment.end_byte
                                                               - node.start_byte:]
    text = raw.decode("utf-8", errors="replace")
    return normalize(text).rstrip(":").rstrip()[:_SIGNATURE_MAX]


def _params(params: Node | None) -> list[tuple[str, str | None]]:
    """``[(name, annotation-or-None)]`` of a parameters node (``*args`` kept as written)."""
    out: list[tuple[str, str | None]] = []
    if params is None:
        return out
    for p in params.named_children:
        if p.type == "identifier":
            out.append((_text(p), None))
        elif p.type in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name = p.child_by_field_name("name") or next(
                (c for c in p.named_children if c.type in ("identifier", "list_splat_pattern",
                                                           "dictionary_splat_pattern")), None)
            out.append((_text(name), _opt_text(p.child_by_field_name("type"))))
        elif p.type in ("list_splat_pattern", "dictionary_splat_pattern"):
            out.append((_text(p), None))
    return out


def docstring(node: Node) -> str | None:
    """Docstring of a class/function body, quotes stripped and dedented."""
    body = node.child_by_field_name("body")
    first = body.named_children[0] if body is not None and body.named_children else None
    if first is None or first.type != "expression_statement" or not first.named_children:
        return None
    value = string_value(first.named_children[0])
    return (inspect.cleandoc(value) or None) if value is not None else None


def _attribute_docstring(stmt: Node) -> str | None:
    """A string literal statement right after an attribute assignment (Sphinx style)."""
    nxt = stmt.next_named_sibling
    if nxt is None or nxt.type != "expression_statement" or not nxt.named_children:
        return None
    value = string_value(nxt.named_children[0])
    return (inspect.cleandoc(value) or None) if value is not None else None


def _split_stripped(text: str, sep: str) -> list[str]:
    return [p.strip() for p in split_top_level(text, sep)]


_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\[(.*)\]$")


def unwrap_optional(text: str) -> str:
    """The spec's type prepass: ``Optional[X]`` -> ``X`` (the rest of the reduction is
    shared, :func:`graphrag.parsing.typetext.nominal_name`)."""
    match = _OPTIONAL.match(text)
    return match.group(1) if match else text


