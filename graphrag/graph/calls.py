"""CALLS edges and ENDPOINT promotion from Registrations."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from graphrag.graph import overloads
from graphrag.graph.edges import EdgeSet
from graphrag.graph.model import GraphNode
from graphrag.graph.routes import Mounts
from graphrag.graph.scopes import Scopes
from graphrag.graph.symbols import FileScope, SymbolTable
from graphrag.graph.types import Ctx, Ent, clean_type
from graphrag.kinds import CALLABLE_KINDS, TYPE_KINDS
from graphrag.parsing import registry
from graphrag.parsing.builtins import is_builtin
from graphrag.parsing.model import Call

MAX_UNRESOLVED = 50



def resolve_calls(scopes: Scopes, edges: EdgeSet) -> dict[str, list[str]]:
    """Add CALLS edges; return unresolved call names per caller node key."""
    unresolved: dict[str, list[str]] = defaultdict(list)
    for scope in scopes.table.files.values():
        for caller_key, text, *_ in resolve_file_calls(scopes, scope, edges):
            note_unresolved(unresolved, caller_key, text)
    return unresolved


def resolve_file_calls(scopes: Scopes, scope: FileScope, edges: EdgeSet
                       ) -> list[list[Any]]:
    """Add the CALLS edges of one file; return its unresolved calls in call order, each
    ``[caller key, call text, called name, receiver as written (dotted; None for a bare
    call), line, reason]`` (:data:`REASONS`; see :func:`note_unresolved`)."""
    missed: list[list[Any]] = []
    for call in sorted(scope.result.calls, key=lambda c: c.line):
        caller = _caller(scopes, scope, call.caller, call.line)
        ctx = Ctx(scope, caller if caller.kind != "FILE" else None)
        found = _callee(scopes, ctx, call)
        targets = _targets(scopes, ctx, call, found)
        if not targets and not _instantiates_repo_class(found):
            receiver = ".".join(call.receiver) if call.receiver else None
            missed.append([caller.key, ".".join([*(call.receiver or []), call.name]),
                           call.name, receiver, call.line,
                           _reason(scopes, ctx, call, found)])
        for node, resolution in targets:
            edges.add(caller.key, node.key, "CALLS", resolution, call.line)
    return missed


# Why a call site has no edge, as stored with it (``unresolved_calls.reason``).
REASONS = {
    "external": "the name or the receiver's type is outside the repository (or built in)",
    "unknown-name": "no name in scope (a star import, a dynamic or undeclared name)",
    "untyped-receiver": "the receiver is a variable or value of no known type",
    "expression-receiver": "the receiver is an expression the resolver does not follow",
    "no-member": "the receiver's class (or its bases in the repository) has no such member",
    "not-callable": "the name is not a function, method or class",
    "overload": "the arguments fit none of the callables of that name, or several alike",
}


def _reason(scopes: Scopes, ctx: Ctx, call: Call, found: Ent | None) -> str:
    """Why ``call`` (``found``: what its callee is) gives no edge: a :data:`REASONS` key."""
    head = call.receiver[0] if call.receiver else call.name
    if (found is None or found.kind in ("unknown", "external")) and is_builtin(
            ctx.file.lang, head):
        return "external"  # `len(x)`, `Math.max(...)`, `console.log(...)`
    if found is not None and found.kind == "bound" and call.receiver \
            and len(call.receiver) == 1 and _declared(scopes, ctx, head):
        return "external"  # `items.add(x)` with `List<Item> items`: a library type
    if call.receiver and "?" in call.receiver:
        return "expression-receiver"
    if found is None:
        return "no-member" if call.receiver else "unknown-name"
    if found.kind == "external":
        return "external"
    if found.kind == "bound":
        return "untyped-receiver"
    if found.kind == "unknown":
        return "untyped-receiver" if call.receiver else "unknown-name"
    if _target(scopes, found, call.kind) is not None:
        return "overload"  # the overload choice (arguments, labels) declined it
    return "not-callable"


def _declared(scopes: Scopes, ctx: Ctx, name: str) -> bool:
    """Whether variable ``name`` seen from ``ctx`` has a type as written (not one the
    resolver infers from a call or a loop)."""
    for scope in scopes.table.chain(ctx.scope):
        text = scopes.table.var_types(scope).get(name)
        if text is not None:
            return not text.startswith("=")
    return False


def note_unresolved(unresolved: dict[str, list[str]], caller_key: str, text: str) -> None:
    """Record one unresolved call of a caller: each text once, at most MAX_UNRESOLVED."""
    names = unresolved[caller_key]
    if text not in names and len(names) < MAX_UNRESOLVED:
        names.append(text)


def _instantiates_repo_class(found: Ent | None) -> bool:
    """``new Foo()`` of a repository class without a declared constructor (``found``, what
    the call's callee is): resolved, just without an edge (so it is not reported as
    unresolved)."""
    return found is not None and found.node is not None and found.node.kind in TYPE_KINDS


def _caller(scopes: Scopes, scope: FileScope, fqn: str | None, line: int | None = None
            ) -> GraphNode:
    """The node of caller ``fqn``; of a name declared twice in the file, the declaration
    whose lines hold the call."""
    if fqn is None:
        return scope.node
    twins = scope.redeclared.get(fqn)
    if twins and line is not None:
        inside = [n for n in twins if (n.line_start or 0) <= line <= (n.line_end or 0)]
        if inside:
            return min(inside, key=lambda n: (n.line_end or 0) - (n.line_start or 0))
    node = scope.by_fqn.get(fqn) or scopes.table.by_fqn.get((scope.ns, fqn))
    return node if node is not None else scope.node


def resolve_call_targets(scopes: Scopes, ctx: Ctx, call: Call) -> list[tuple[GraphNode, str]]:
    """Every target of one call: one, or one per class a receiver declared ``A | B``
    may be (resolution ``union``, lower confidence); [] when there is no edge."""
    return _targets(scopes, ctx, call, _callee(scopes, ctx, call))


def _callee(scopes: Scopes, ctx: Ctx, call: Call) -> Ent | None:
    """What ``call`` refers to (:meth:`Scopes.callee`): a bare call in an anonymous
    class looks among its supertypes' members first; a call of a value or an object is
    one of its ``apply`` method where the language says so (:meth:`Scopes.applied`)."""
    if call.within and call.receiver is None:
        found = scopes.anonymous_member(ctx, call.within, call.name)
        if found is not None:
            return found
    found = scopes.callee(ctx, call.receiver, call.name, call.kind)
    if call.kind == "call":
        applied = scopes.applied(ctx, call.receiver, call.name, found, call.args)
        if applied is not None:
            return applied
    return found


def _targets(scopes: Scopes, ctx: Ctx, call: Call, found: Ent | None
             ) -> list[tuple[GraphNode, str]]:
    target = _resolve_found(scopes, ctx, found, call.name, call.kind, call)
    if target is None:
        return []
    targets = [target]
    for alt in found.alts if found is not None else ():
        if alt.kind in CALLABLE_KINDS and alt is not target[0]:
            targets.append((alt, found.resolution))
    return targets


def resolve_call(scopes: Scopes, ctx: Ctx, receiver: list[str] | None, name: str,
                 kind: str = "call", call: Call | None = None
                 ) -> tuple[GraphNode, str] | None:
    """Target node and resolution rule of one call, or None when there is no edge.

    With ``call`` (its argument count and types), an overloaded target is narrowed to
    the overload the arguments select."""
    found = scopes.callee(ctx, receiver, name, kind)
    return _resolve_found(scopes, ctx, found, name, kind, call)


def _resolve_found(scopes: Scopes, ctx: Ctx, found: Ent | None, name: str, kind: str,
                   call: Call | None) -> tuple[GraphNode, str] | None:
    if found is None:
        return None
    if found.kind == "unknown":
        return _unique_name(scopes, ctx, name)
    target = _target(scopes, found, kind)
    if target is None or call is None or call.args is None:
        return target
    return _overload(scopes, ctx, target, call)


def _overload(scopes: Scopes, ctx: Ctx, target: tuple[GraphNode, str], call: Call
              ) -> tuple[GraphNode, str] | None:
    node, resolution = target
    table = scopes.table
    if resolution == "extension" and node.meta.get("receiver_in_params") and call.receiver:
        # `x.f(a)` of an extension declared `f(this T x, A a)`: the receiver is its first
        # argument (its type picks between extensions of `DbConnection` and of
        # `IDbConnection`)
        recv = scopes.eval_chain(ctx, call.receiver)
        recv_type = recv.node.name if recv.kind == "instance" and recv.node is not None \
            else recv.name or None
        call = replace(call, args=(call.args or 0) + 1,
                       arg_types=[recv_type, *(call.arg_types or [None] * (call.args or 0))])
    owner = table.parent(node)
    if node.kind == "CONSTRUCTOR":
        candidates = [m for m in table.member_nodes(owner) if m.kind == "CONSTRUCTOR"] \
            if owner is not None else [node]
        own = candidates
    elif owner is None:
        scope = table.file_of.get(node.key)
        own = [n for n in table.top_callables(scope.node.key, node.name)] if scope else [node]
        candidates = own or [node]
    else:
        own = [m for m in table.members(owner, node.name) if m.kind in CALLABLE_KINDS
               and m.kind != "CONSTRUCTOR"]
        if resolution == "static" and node.meta.get("static"):
            # through the type: its static (companion) overloads, not the instance's
            own = [m for m in own if m.meta.get("static")]
        candidates = list(own)
        if owner.kind in TYPE_KINDS:
            for anc in scopes.ancestors(owner):  # inherited overloads not overridden here
                for m in table.members(anc, node.name):
                    if m.kind in CALLABLE_KINDS and m.kind != "CONSTRUCTOR" and not any(
                            overloads.same_signature(m, c) for c in candidates):
                        candidates.append(m)
    spec = registry.spec(node.lang) if node.lang else None
    strict = spec.exact_arity_first if spec is not None else False
    if strict and not any(overloads.accepts(c, call.args or 0) for c in candidates):
        return None  # no overload takes these arguments: an inherited outside one does
    # a language with its own overload rules checks a lone candidate too (its labels)
    if len(candidates) < 2 and not (spec is not None and spec.overload_choice):
        return target
    supers: dict[str, set[str]] = {}
    # argument types rank overloads; a lone candidate is only checked against the call
    arg_types = _arg_types(scopes, ctx, call, supers) if len(candidates) > 1 else None
    chosen = overloads.choose(candidates, call, arg_types, ctx.scope, supers,
                              lambda text: _type_members(scopes, ctx, text))
    if chosen is None:
        return None
    if chosen is node:
        return target
    if chosen not in own and resolution in ("self", "type"):
        resolution = "self-inherited" if resolution == "self" else "inherited"
    return chosen, resolution


def _type_members(scopes: Scopes, ctx: Ctx, text: str) -> frozenset[str] | None:
    """The member names of the repository type ``text`` names and its superclasses (of
    an interface: the interfaces it extends; a class's interfaces may constrain theirs
    to other implementers); None when it is no repository type."""
    node = scopes.type_node(ctx, text)
    if node is None:
        return None
    own = node.kind == "INTERFACE"
    return frozenset(m.name for t in (node, *scopes.ancestors(node))
                     if t is node or (t.kind == "INTERFACE") == own
                     for m in scopes.table.member_nodes(t))


def _arg_types(scopes: Scopes, ctx: Ctx, call: Call, supers: dict[str, set[str]]
               ) -> list[str | None] | None:
    """The call's argument types with ``=var:x`` looked up in the caller's locals,
    parameters and (enclosing classes') fields, and ``=call:`` evaluated; ``supers``
    gets the supertype names of every argument type that is a repository class."""
    if not call.arg_types:
        return None
    table = scopes.table
    spec = registry.spec(ctx.file.lang)
    strict = spec.exact_arity_first or spec.overload_choice is not None
    out: list[str | None] = []
    for text in call.arg_types:
        if text is not None and text.startswith("=var:"):
            name = text[len("=var:"):]
            text = None
            for scope in table.chain(ctx.scope):
                text = table.var_types(scope).get(name)
                if text is not None:
                    break
        if text is not None:
            ent = scopes.eval_type(ctx, text)
            if ent.kind == "instance" and ent.node is not None:
                text = ent.node.name
                supers[text] = {a.name for a in scopes.ancestors(ent.node)}
            elif text.startswith("="):
                # a call's result: the name of its declared outside type where the
                # language's overload choice uses it (``exact_arity_first``, its own rules)
                text = (ent.name or None) if strict else None
            else:  # a container declared with its items (`List<User>`) matches `List`
                text = clean_type(text, ctx.file.lang) or text
        out.append(text)
    return out


def _target(scopes: Scopes, found: Ent, kind: str) -> tuple[GraphNode, str] | None:
    node = found.node
    if found.kind not in ("node", "static") or node is None:
        return None
    if node.kind in CALLABLE_KINDS:
        return node, found.resolution or "local"
    if node.kind in TYPE_KINDS and kind != "ref":
        ctor = scopes.constructor(node)
        return (ctor, "constructor") if ctor is not None else None
    return None


def _unique_name(scopes: Scopes, ctx: Ctx, name: str) -> tuple[GraphNode, str] | None:
    """Last resort: the only function/method of the repository with this name."""
    if not scopes.unique_name_fallback or name.startswith("__"):
        return None
    common = registry.common_calls()  # a library's names are rarely the callee
    if name in common or name.lower() in common:  # `Get`, `Close` are common too
        return None
    candidates = scopes.table.callables_by_name.get((ctx.file.ns, name), [])
    if len(candidates) != 1:
        return None
    return candidates[0], "unique-name"


def file_routes(scopes: Scopes, scope: FileScope, mounts: Mounts) -> list[list[Any]]:
    """The routes one file registers on handlers of the repository: ``[handler key,
    handler's path, line, HTTP method, full route]`` per registration, in order. ``USE``
    registrations mount a router under a prefix (``mounts``, see
    :mod:`graphrag.graph.routes`)."""
    keep_slash = registry.spec(scope.result.lang).route_keep_slash
    out: list[list[Any]] = []
    for reg in scope.result.registrations:
        if reg.http_method.upper() == "USE":
            continue
        node = _registered(scopes, scope, reg.inline_fqn, reg.caller, reg.handler_name,
                           reg.handler_receiver)
        if node is not None:
            route = mounts.full_route(scope.result.module, reg, keep_slash)
            out.append([node.key, node.file_path, reg.line, reg.http_method, route])
    return out


def endpoint_promotions(routes: dict[str, list[list[Any]]]) -> dict[str, list[Any]]:
    """What ENDPOINT promotion sets on each registered handler (key -> ``[path,
    http_method, route, routes]``), from every file's :func:`file_routes` (path ->
    routes): the registrations of a handler in (line, path) order."""
    found: dict[str, list[tuple[int, str, str, str]]] = defaultdict(list)
    paths: dict[str, str | None] = {}
    for path, items in routes.items():
        for key, target_path, line, method, route in items:
            found[key].append((line, path, method, route))
            paths[key] = target_path
    out: dict[str, list[Any]] = {}
    for key, regs in found.items():
        regs.sort()
        methods = list(dict.fromkeys(r[2].upper() for r in regs))
        routes_ = list(dict.fromkeys(r[3] for r in regs))
        out[key] = [paths[key], ",".join(methods), routes_[0],
                    routes_ if len(routes_) > 1 else None]
    return out


def promote(table: SymbolTable, promotions: dict[str, list[Any]]) -> None:
    """Registered handlers of ``table`` become ENDPOINT nodes with ``http_method`` and
    ``route`` (``routes`` when there are several)."""
    for key, (_path, methods, route, routes) in promotions.items():
        node = table.by_key.get(key)
        if node is None:
            continue
        node.kind = "ENDPOINT"
        node.meta["http_method"] = methods
        node.meta["route"] = route
        if routes is not None:
            node.meta["routes"] = routes


def _registered(scopes: Scopes, scope: FileScope, inline_fqn: str | None,
                caller_fqn: str | None, name: str | None,
                receiver: list[str] | None) -> GraphNode | None:
    table = scopes.table
    if inline_fqn is not None:
        return scope.by_fqn.get(inline_fqn) or table.by_fqn.get((scope.ns, inline_fqn))
    if name is None:
        return None
    caller = _caller(scopes, scope, caller_fqn)
    ctx = Ctx(scope, caller if caller.kind != "FILE" else None)
    target = resolve_call(scopes, ctx, receiver, name, "ref")
    if target is None or target[0].kind not in ("FUNCTION", "METHOD", "ENDPOINT"):
        return None
    return target[0]

