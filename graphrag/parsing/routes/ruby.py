"""Ruby's web frameworks: Rails' ``config/routes.rb`` (``get 'x' => 'c#a'``, ``to:``,
``resources``/``resource`` with their actions, ``only``/``except``, nested resources,
``member``/``collection``, ``namespace``/``scope``, ``root``), linked to the controller's
action, and Sinatra (``get '/x' do ... end``: the block is the handler)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphrag.parsing.languages.ruby import camelize
from graphrag.parsing.routes import CalledRoute, CalledRoutes, RouteCall, join_segments, singular

_VERBS = ("get", "post", "put", "patch", "delete", "head", "options")
# every word of the routes DSL: a call of one in config/routes.rb declares, never calls
_ROUTE_DSL = (*_VERBS, "match", "root", "resources", "resource", "namespace", "scope",
              "member", "collection", "concern", "concerns", "mount", "draw", "constraints",
              "defaults", "controller", "direct", "resolve", "redirect")
# Rails' resource actions: (action, method, path after the resource, on a member).
_RESOURCES = (("index", "GET", "", False), ("new", "GET", "/new", False),
              ("create", "POST", "", False), ("show", "GET", "", True),
              ("edit", "GET", "/edit", True), ("update", "PATCH,PUT", "", True),
              ("destroy", "DELETE", "", True))


def sinatra_route(call: RouteCall) -> CalledRoute | None:
    """Sinatra's ``get '/x' do ... end`` (no receiver, a path starting with "/")."""
    route = call.args[0] if call.args else None
    if call.receiver or not call.block or route is None or not route.startswith("/"):
        return None
    return CalledRoute(call.name.upper(), route, None)


def controller_class(name: str, modules: list[str] | tuple[str, ...]) -> str:
    """``admin/users`` (in ``namespace :api``) -> ``Api::Admin::UsersController``."""
    parts = [*modules, *name.split("/")]
    return "::".join([camelize(p) for p in parts[:-1]] + [camelize(parts[-1]) + "Controller"])


@dataclass
class _Scope:
    """What the blocks around a route add: path prefix, controller modules, and the
    resource whose member or collection routes the block declares."""

    prefix: str = ""
    modules: tuple[str, ...] = ()
    resource: str | None = None  # controller path of the enclosing resources block
    member_path: str = ""  # path of one member of that resource
    collection_path: str = ""
    on: str = ""  # "member" / "collection" inside such a block


def _value(call: RouteCall, key: str) -> str | None:
    found = call.keyword(key)
    return found[0] if found else None


def _listed(call: RouteCall, key: str) -> set[str]:
    found = call.keyword(key)
    if found is None:
        return set()
    return {v for v in found[1] if v} if found[1] is not None else \
        ({found[0]} if found[0] else set())


def _scope(call: RouteCall) -> _Scope:
    """The prefixes and modules the enclosing ``namespace``/``scope``/``resources``
    blocks give ``call``."""
    out = _Scope()
    for block in call.outer:
        first = block.args[0] if block.args else None
        if block.name == "namespace" and first:
            out.prefix = join_segments(out.prefix, first)
            out.modules = (*out.modules, first)
        elif block.name == "scope":
            path = first or _value(block, "path") or ""
            out.prefix = join_segments(out.prefix, path) if path else out.prefix
            module = _value(block, "module")
            if module:
                out.modules = (*out.modules, module)
        elif block.name in ("resources", "resource") and first:
            one = block.name == "resource"
            base = join_segments(out.prefix, _value(block, "path") or first)
            out.resource = _value(block, "controller") or (first + "s" if one else first)
            member_param = "" if one else f":{singular(first)}_id"
            out.collection_path = base
            out.member_path = join_segments(base, ":id") if not one else base
            out.prefix = join_segments(base, member_param) if member_param else base
            out.on = ""
        elif block.name in ("member", "collection"):
            out.on = block.name
            out.prefix = out.member_path if block.name == "member" else out.collection_path
    return out


def rails_route(call: RouteCall) -> list[CalledRoute] | None:
    """A call of the routes DSL in ``config/routes.rb``: the routes a verb, ``match``,
    ``root`` or ``resources`` declares (none for the other words of the DSL)."""
    if call.receiver:
        return None
    if call.name in _VERBS or call.name in ("match", "root"):
        return _verb_route(call)
    if call.name in ("resources", "resource"):
        return _resources(call, call.name == "resource")
    return []


def _verb_route(call: RouteCall) -> list[CalledRoute]:
    scope = _scope(call)
    target = _value(call, "to")
    path: str | None = None
    if call.name == "root":
        path = "/"
        target = target or (call.args[0] if call.args else None)
        methods = "GET"
    else:
        methods = call.name.upper()
        via = _listed(call, "via")
        if call.name == "match" or via:
            methods = "ANY" if "all" in via or not via else \
                ",".join(sorted(v.upper() for v in via))
        pair = call.items[0] if call.items and call.args and call.args[0] is None else None
        if pair is not None and len(pair) == 2:
            path, target = pair
        elif call.args:
            path = call.args[0]
    if path is None:
        return []
    on = _value(call, "on")
    if on in ("member", "collection") and scope.resource:
        scope.on = on
        scope.prefix = scope.member_path if on == "member" else scope.collection_path
    if target is None and call.keyword("to") is not None:
        return []  # `to: redirect(...)`, a Rack app: no controller action
    if target is None and scope.resource:
        # `post "upvote"` in a resources block: the resource's action (nested under
        # `:story_id` unless on a member or the collection)
        action = _value(call, "action") or path.strip("/").split("/")[-1]
        target = f"{scope.resource}#{action}"
    elif target is None and "/" in path.strip("/") and ":" not in path:
        # `get "/stories/preview"`: Rails reads controller and action from the path
        controller_path, _, action = path.strip("/").rpartition("/")
        target = f"{controller_path}#{action}"
    if target is None or "#" not in target:
        return []
    controller, _, action = target.partition("#")
    controller = _value(call, "controller") or controller
    full = scope.prefix if path == "/" and scope.prefix else join_segments(scope.prefix, path)
    return [CalledRoute(methods, full, None, action=action,
                        controller=controller_class(controller, scope.modules))]


def _resources(call: RouteCall, one: bool) -> list[CalledRoute]:
    scope = _scope(call)
    only, except_ = _listed(call, "only"), _listed(call, "except")
    out: list[CalledRoute] = []
    for name in call.args:
        if not name:
            continue
        controller = _value(call, "controller") or (name + "s" if one else name)
        base = join_segments(scope.prefix, _value(call, "path") or name)
        receiver = controller_class(controller, scope.modules)
        param = ":" + (_value(call, "param") or "id")
        for action, method, tail, member in _RESOURCES:
            if (only and action not in only) or action in except_ or \
                    (one and action == "index"):
                continue
            route = (join_segments(base, param) if member and not one else base) + tail
            out.append(CalledRoute(method, route, None, action=action, controller=receiver))
    return out


def register(register: Callable[[str, CalledRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    # before Sinatra: in config/routes.rb a verb is Rails'
    register("rails", CalledRoutes(("ruby",), _ROUTE_DSL, rails_route,
                                   paths=("config/routes.rb",)))
    register("sinatra", CalledRoutes(("ruby",), _VERBS, sinatra_route, block_only=True))
