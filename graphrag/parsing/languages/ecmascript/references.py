"""References of a TS/JS file: imports, default exports, route registrations, calls."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tree_sitter import Node

from graphrag.parsing.languages.ecmascript.common import (
    FUNCTION_NODES,
    REFERENCE_NODES,
    FileContext,
    dotted,
    join_route,
    node_text,
    receiver_chain,
    resolve_specifier,
    string_value,
)
from graphrag.parsing.languages.ecmascript.symbols import (
    doc_comment,
    function_meta,
    record_param_types,
    signature,
)
from graphrag.parsing.model import Registration
from graphrag.parsing.routes import (
    CalledRoute,
    CallFact,
    Mount,
    RouteCall,
    Router,
    argument,
    called_route,
    route_call_names,
)

Captures = list[tuple[str, Node]]


# ---------------------------------------------------------------- imports
def collect_imports(ctx: FileContext, references: Captures) -> None:
    """ES imports, re-exports and CommonJS ``require`` bindings."""
    for name, node in references:
        if name == "reference.import":
            _import_statement(ctx, node)
        elif name == "reference.reexport":
            _reexport(ctx, node)
        elif name == "reference.require":
            _require(ctx, node)


def _target(ctx: FileContext, spec: str, name: str | None = None) -> str:
    module = resolve_specifier(spec, ctx.path, ctx.ts_configs)
    return f"{module}:{name}" if name else module


def _import_statement(ctx: FileContext, node: Node) -> None:
    spec = string_value(node.child_by_field_name("source"))
    for child in node.named_children:
        if child.type == "import_require_clause":  # TS `import x = require('./x')`
            source = string_value(child.child_by_field_name("source"))
            alias = next((c for c in child.named_children if c.type == "identifier"), None)
            if source is not None and alias is not None:
                ctx.add_import(node_text(alias), _target(ctx, source), node)
        elif child.type == "import_clause" and spec is not None:
            _import_clause(ctx, child, spec, node)


def _import_clause(ctx: FileContext, clause: Node, spec: str, statement: Node) -> None:
    for part in clause.named_children:
        if part.type == "identifier":  # default import
            ctx.add_import(node_text(part), _target(ctx, spec, "default"), statement)
        elif part.type == "namespace_import":
            alias = next((c for c in part.named_children if c.type == "identifier"), None)
            if alias is not None:
                ctx.add_import(node_text(alias), _target(ctx, spec), statement)
        elif part.type == "named_imports":
            for item in part.named_children:
                if item.type != "import_specifier":
                    continue
                name = node_text(item.child_by_field_name("name"))
                alias = node_text(item.child_by_field_name("alias")) or name
                ctx.add_import(alias, _target(ctx, spec, name), statement)


def _reexport(ctx: FileContext, node: Node) -> None:
    """``export {a as b} from './x'`` binds ``b``; ``export * from './x'`` is a wildcard."""
    spec = string_value(node.child_by_field_name("source"))
    if spec is None:
        return
    clause = next((c for c in node.named_children if c.type in
                   ("export_clause", "namespace_export")), None)
    if clause is None:
        ctx.add_import("*", _target(ctx, spec), node)
    elif clause.type == "namespace_export":
        alias = next((c for c in clause.named_children if c.type == "identifier"), None)
        ctx.add_import(node_text(alias) or "*", _target(ctx, spec), node)
    else:
        for item in (c for c in clause.named_children if c.type == "export_specifier"):
            name = node_text(item.child_by_field_name("name"))
            alias = node_text(item.child_by_field_name("alias")) or name
            ctx.add_import(alias, _target(ctx, spec, name), node)


def _require(ctx: FileContext, node: Node) -> None:
    """``const x = require('./x')``, ``const {a, b: c} = require('./x')``,
    ``const y = require('./x').y``."""
    value = node.child_by_field_name("value")
    member = None
    if value.type == "member_expression":
        member = node_text(value.child_by_field_name("property"))
        value = value.child_by_field_name("object")
    args = value.child_by_field_name("arguments")
    spec = string_value(args.named_children[0]) if args and args.named_children else None
    if spec is None:
        return
    pattern = node.child_by_field_name("name")
    if pattern.type == "identifier":
        ctx.add_import(node_text(pattern), _target(ctx, spec, member), node)
        return
    if pattern.type != "object_pattern" or member is not None:
        return
    for item in pattern.named_children:
        if item.type == "shorthand_property_identifier_pattern":
            ctx.add_import(node_text(item), _target(ctx, spec, node_text(item)), node)
        elif item.type == "pair_pattern":
            key = node_text(item.child_by_field_name("key"))
            local = item.child_by_field_name("value")
            if local is not None and local.type == "identifier":
                ctx.add_import(node_text(local), _target(ctx, spec, key), node)


def collect_export_defaults(ctx: FileContext, references: Captures) -> None:
    """``export default Foo`` / ``module.exports = Foo`` marks symbol Foo."""
    for name, node in references:
        if name != "reference.export_default":
            continue
        value = node.child_by_field_name("value") or node.child_by_field_name("right")
        symbol = ctx.by_fqn.get(ctx.child_fqn(None, node_text(value)))
        if symbol is not None:
            symbol.meta["export_default"] = True


# ---------------------------------------------------------------- registrations
@dataclass
class _RouteCall:
    node: Node
    receiver: str          # dotted receiver, e.g. "router" or "this.router"
    args: list[Node]
    fact: CallFact


def collect_registrations(ctx: FileContext, references: Captures, definitions: Captures,
                          ) -> None:
    """Routes, router mounts and the routers they mount on, as the route frameworks of
    the language recognise them in member calls (Express's ``app.get('/x', h)``,
    ``app.use('/prefix', router)``, ``express.Router()``)."""
    names = route_call_names(ctx.result.lang)
    if not names:
        return
    routers = _router_variables(ctx, definitions, names)
    calls = [c for c in (_route_call(ctx, node, names, routers) for name, node in references
                         if name == "reference.registration") if c is not None]
    receivers = {c.receiver for c in calls}
    mounts = _local_mounts(ctx, calls, receivers)
    for call in calls:
        prefix = _prefix(call.receiver, mounts)
        router = _root(call.receiver, mounts)
        if isinstance(call.fact, Mount):
            _use(ctx, call, call.fact, prefix, router)
        elif isinstance(call.fact, CalledRoute):
            _route(ctx, call, call.fact, prefix, router)


def _fact_call(node: Node) -> RouteCall | None:
    """A call as the route frameworks read it: name, receiver chain and, for a call
    on a call's result (``app.route('/x').get(h)``), the calls the receiver is built
    from; None for a call on another expression."""
    function = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if args is None or function is None:
        return None
    if function.type != "member_expression":
        name = dotted(function)
        return RouteCall(name, *_literals(args)) if name and "." not in name else None
    base: list[RouteCall] = []
    obj = function.child_by_field_name("object")
    while obj is not None and obj.type == "call_expression":
        inner = obj.child_by_field_name("function")
        inner_args = obj.child_by_field_name("arguments")
        if inner is None or inner.type != "member_expression" or inner_args is None:
            return None
        base.append(RouteCall(node_text(inner.child_by_field_name("property")),
                              (), *_literals(inner_args)))
        obj = inner.child_by_field_name("object")
    receiver = dotted(obj)
    if receiver is None:
        return None
    return RouteCall(node_text(function.child_by_field_name("property")),
                     tuple(receiver.split(".")), *_literals(args), base=tuple(base))


def _literals(args: Node) -> tuple[tuple[str | None, ...], tuple[str, ...]]:
    listed = [a for a in args.named_children if a.type != "comment"]
    return tuple(string_value(a) for a in listed), tuple(node_text(a) for a in listed)


def _router_variables(ctx: FileContext, definitions: Captures, names: frozenset[str],
                      ) -> set[str]:
    """Names assigned a router some framework makes (``express.Router()``)."""
    found = set()
    for name, node in definitions:
        value = node.child_by_field_name("value") if name == "definition.variable" else None
        if value is None or value.type != "call_expression":
            continue
        function = value.child_by_field_name("function")
        last = function.child_by_field_name("property") if function is not None and \
            function.type == "member_expression" else function
        if last is None or node_text(last) not in names:
            continue
        call = _fact_call(value)
        if call is not None and call.name in names and \
                isinstance(called_route(ctx.result.lang, call), Router):
            found.add(node_text(node.child_by_field_name("name")))
    return found


def _route_call(ctx: FileContext, node: Node, names: frozenset[str], routers: set[str],
                ) -> _RouteCall | None:
    function = node.child_by_field_name("function")
    prop = function.child_by_field_name("property") if function is not None else None
    if prop is None or node_text(prop) not in names:
        return None
    call = _fact_call(node)
    if call is None or call.name not in names or not call.receiver:
        return None
    receiver = ".".join(call.receiver)
    call = replace(call, local_router=receiver in routers)
    fact = called_route(ctx.result.lang, call)
    if not isinstance(fact, (CalledRoute, Mount)):
        return None
    args = node.child_by_field_name("arguments")
    return _RouteCall(node, receiver, [a for a in args.named_children if a.type != "comment"],
                      fact)


def _local_mounts(ctx: FileContext, calls: list[_RouteCall], receivers: set[str],
                  ) -> dict[str, tuple[str, str]]:
    """Routers of this file mounted under a prefix: child -> (parent receiver, prefix)."""
    mounts: dict[str, tuple[str, str]] = {}
    for call in calls:
        fact = call.fact
        if not isinstance(fact, Mount) or fact.prefix is None or \
                not isinstance(fact.router, int):
            continue
        for arg in call.args[fact.router:] if fact.spread else \
                [a for a in [argument(fact.router, call.args)] if a is not None]:
            name = node_text(arg) if arg.type == "identifier" else None
            if name and name not in ctx.imported and name in receivers:
                mounts[name] = (call.receiver, fact.prefix)
    return mounts


def _prefix(receiver: str, mounts: dict[str, tuple[str, str]]) -> str:
    prefix, seen = "", set()
    while receiver in mounts and receiver not in seen:
        seen.add(receiver)
        receiver, part = mounts[receiver]
        prefix = join_route(part, prefix) if prefix else part
    return prefix.rstrip("/")


def _root(receiver: str, mounts: dict[str, tuple[str, str]]) -> str:
    """The router at the top of this file's chain of mounts (the one mounted elsewhere)."""
    seen = set()
    while receiver in mounts and receiver not in seen:
        seen.add(receiver)
        receiver = mounts[receiver][0]
    return receiver


def _reference(node: Node) -> tuple[str, list[str] | None] | None:
    """(name, receiver) of a handler reference: ``h`` or ``ctrl.method``."""
    if node.type == "identifier":
        return node_text(node), None
    if node.type == "member_expression":
        return (node_text(node.child_by_field_name("property")),
                receiver_chain(node.child_by_field_name("object")))
    return None


def _use(ctx: FileContext, call: _RouteCall, fact: Mount, prefix: str, router: str,
         ) -> None:
    """Middleware and router mounts: references become ``ref`` calls; a router imported
    from another module becomes a ``USE`` registration (joined by the resolver)."""
    caller = ctx.owner_of(call.node)
    mounted = call.args[fact.router:] if fact.spread and isinstance(fact.router, int) \
        else [a for a in [argument(fact.router, call.args)] if a is not None]
    for arg in mounted:
        ref = _reference(arg)
        if ref is None:
            continue
        ctx.add_call(caller, ref[0], ref[1], arg, "ref")
        if fact.prefix is not None and arg.type == "identifier" and ref[0] in ctx.imported:
            ctx.add_registration(Registration(
                http_method="USE", route=join_route(prefix, fact.prefix),
                line=call.node.start_point[0] + 1, caller=caller, handler_name=ref[0],
                router=router))


def _unwrap_handler(node: Node) -> Node:
    """``ctrl.list.bind(ctrl)`` -> ``ctrl.list``; ``asyncHandler(h)`` -> ``h``."""
    if node.type != "call_expression":
        return node
    function = node.child_by_field_name("function")
    if function.type == "member_expression" and \
            node_text(function.child_by_field_name("property")) == "bind":
        return function.child_by_field_name("object")
    args = node.child_by_field_name("arguments")
    inner = [a for a in args.named_children if a.type != "comment"] if args else []
    if len(inner) == 1 and inner[0].type in REFERENCE_NODES | FUNCTION_NODES:
        return inner[0]
    return node


def _route(ctx: FileContext, call: _RouteCall, fact: CalledRoute, prefix: str,
           router: str) -> None:
    """A route: the handler argument the framework names; the other arguments that
    name functions (middleware) are referenced."""
    target = argument(fact.handler, call.args)
    if target is None:
        return
    method, route = fact.method, join_route(prefix, fact.route)
    caller = ctx.owner_of(call.node)
    line = call.node.start_point[0] + 1
    for middleware in call.args:
        ref = _reference(middleware) if middleware is not target else None
        if ref is not None:
            ctx.add_call(caller, ref[0], ref[1], middleware, "ref")
    handler = _unwrap_handler(target)
    ref = _reference(handler)
    if ref is not None:
        ctx.add_call(caller, ref[0], ref[1], handler, "ref")
        ctx.add_registration(Registration(method, route, line, caller, handler_name=ref[0],
                                          handler_receiver=ref[1], router=router))
    elif handler.type in FUNCTION_NODES:
        fqn = _inline_endpoint(ctx, call, handler, method, route, caller)
        ctx.add_registration(Registration(method, route, line, caller, inline_fqn=fqn,
                                          router=router))


def _inline_endpoint(ctx: FileContext, call: _RouteCall, handler: Node, method: str,
                     route: str, caller: str | None) -> str:
    """An inline handler becomes ENDPOINT ``<module>:<METHOD> <route>``."""
    name = f"{method} {route}"
    fqn = f"{ctx.module}:{name}"
    statement = call.node.parent if call.node.parent.type == "expression_statement" \
        else call.node
    doc = doc_comment(statement)
    meta = function_meta(handler, doc)
    meta.update(http_method=method, route=route)
    ctx.add_symbol("ENDPOINT", name, fqn, caller, call.node,
                   signature=signature(call.node, handler.child_by_field_name("body")),
                   doc=doc, meta=meta, owner_node=handler)
    record_param_types(ctx, fqn, meta["params"])
    return fqn


# ---------------------------------------------------------------- calls
def collect_calls(ctx: FileContext, references: Captures) -> None:
    """Calls (``f()``, ``a.b.f()``, ``super.f()``, ``super()``) and ``new`` expressions."""
    for name, node in references:
        if name == "reference.call":
            _call(ctx, node)
        elif name == "reference.new":
            target = _callee(node.child_by_field_name("constructor"))
            if target is not None:
                ctx.add_call(ctx.owner_of(node), target[0], target[1], node, "new")


def _callee(function: Node) -> tuple[str, list[str] | None] | None:
    if function.type == "super":  # `super(...)` runs the base constructor
        return "constructor", ["super"]
    if function.type == "member_expression":  # a call result in the receiver names its call
        return (node_text(function.child_by_field_name("property")),
                receiver_chain(function.child_by_field_name("object"), calls=True))
    return _reference(function)


def _call(ctx: FileContext, node: Node) -> None:
    function = node.child_by_field_name("function")
    if function.type == "import" or (function.type == "identifier"
                                     and node_text(function) == "require"):
        return  # module loading, recorded as an import
    target = _callee(function)
    if target is None:
        return
    # a chained call (`.then()` on a later line) is reported at its own line
    where = function.child_by_field_name("property") if function.type == "member_expression" \
        else node
    ctx.add_call(ctx.owner_of(node), target[0], target[1], where or node)
