"""HTTP routes: joining a router's prefix and a route (shared by the extractors and the
graph step's mount resolution, :mod:`graphrag.graph.routes`), and the one registry of web
frameworks. Each built-in framework lives in a module of this package (one per language's
frameworks, listed in :data:`BUILTIN_MODULES`) whose ``register(register)`` hook is the
one a plugin's ``graphrag.route_frameworks`` entry point names. The extractors name no
framework: they hand over facts of the syntax and apply the answers. Four kinds:

* routes declared by annotations (attributes) on a controller class and its methods
  (Spring, JAX-RS, ASP.NET Core, Symfony, actix-web): an extractor reads a method's and
  its class's annotations into :class:`Annotation` values and asks
  :func:`declared_endpoint`;
* routes, routers and mounts made by calls (Express, FastAPI, Flask, Laravel, Rails,
  Sinatra, net/http, gorilla/mux, chi, minimal APIs, Vapor, axum): an extractor reduces a
  call whose name some framework of its language looks at (:func:`route_call_names`) to
  a :class:`RouteCall` and asks :func:`call_facts`; it keeps what only it can know
  (which prefixes apply where, the handler's symbol);
* routes matched by a ``case`` pattern (http4s): :class:`RoutePattern`,
  :func:`matched_endpoint`;
* routes listed in configuration files (Play's ``conf/routes``): :func:`config_routes`.

A framework is then one module and one registry entry, no extractor edit."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from graphrag.parsing import registry
from graphrag.plugins import ROUTE_FRAMEWORKS_GROUP, Registry

if TYPE_CHECKING:
    from graphrag.parsing.repofacts import RepoFiles


def join_route(prefix: str, route: str, keep_slash: bool = False) -> str:
    """``/api/users`` + ``/:id`` -> ``/api/users/:id``; ``/api`` + ``/`` -> ``/api``
    (Express, chi, gorilla/mux), or ``/api/`` with ``keep_slash`` (FastAPI and Flask
    concatenate; a language's spec says which via ``route_keep_slash``)."""
    if not prefix:
        return route
    head = prefix.rstrip("/")
    tail = route if route.startswith("/") else f"/{route}"
    if tail == "/" and not keep_slash:
        return head or "/"
    return head + tail


def join_segments(*parts: str | None) -> str:
    """Join route pieces with single slashes; always starts with ``/``."""
    pieces = [p.strip("/") for p in parts if p and p.strip("/")]
    return "/" + "/".join(pieces)


def singular(word: str) -> str:
    """The member name of a resource collection (``photos`` -> ``photo``, ``categories``
    -> ``category``): Rails' and Laravel's resource routes name the id parameter by it."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


@dataclass
class Annotation:
    """An annotation (attribute) reduced to what routing needs: simple name and argument
    values. Positional arguments are stored under ``""``; each value is a list (arrays
    keep every element) of strings: string literal contents or expressions as written."""

    name: str
    args: dict[str, list[str]] = field(default_factory=dict)

    def first(self, *keys: str) -> str | None:
        for key in keys:
            values = self.args.get(key)
            if values:
                return values[0]
        return None


@dataclass(frozen=True)
class RouteSite:
    """A method that may be a handler: its annotations, its class's (outermost first
    where a language nests controllers), and the names a route template may refer to
    (ASP.NET's ``[controller]``, ``[action]``)."""

    method: list[Annotation]
    cls: list[Annotation]
    class_name: str = ""
    method_name: str = ""


# (http_method, route) of a handler; several methods joined by ",", "ANY" unrestricted
Endpoint = tuple[str, str]


@dataclass(frozen=True)
class DeclaredRoutes:
    """A framework declaring routes by annotations: the ``languages`` whose extractors
    ask it, and ``recognise`` ("module:function", a module under
    ``graphrag.parsing.languages`` or a full dotted path) taking a :class:`RouteSite`
    and returning an :data:`Endpoint` or None."""

    languages: tuple[str, ...]
    recognise: str | Callable[[RouteSite], Endpoint | None]


@dataclass(frozen=True)
class RouteCall:
    """A call that may register a route, reduced to what recognising it needs: the
    callee's ``name``, its ``receiver`` chain (``("r",)`` for ``r.Get``), its arguments
    (``args``: string literal contents, None for any other expression; ``texts``: each
    as written) and the calls ``chained`` on its result (gorilla/mux's
    ``.Methods("GET")``), innermost first; ``block`` whether a block is given."""

    name: str
    receiver: tuple[str, ...] = ()
    args: tuple[str | None, ...] = ()
    texts: tuple[str, ...] = ()
    chained: tuple[RouteCall, ...] = ()
    block: bool = False  # a block or trailing closure is given (Ruby's ``do ... end``)
    # per argument: the items of an array or list literal (as ``args``), or the key and
    # value of a positional hash pair (Ruby's ``get 'x' => 'c#a'``), else None
    items: tuple[tuple[str | None, ...] | None, ...] = ()
    # keyword arguments (and the keys of an associative array argument, PHP's
    # ``['prefix' => 'x']``): (name, string literal contents or None, list items or None)
    keywords: tuple[tuple[str, str | None, tuple[str | None, ...] | None], ...] = ()
    local_router: bool = False  # the receiver is a router this file creates
    # the calls the receiver is built from, innermost first, down to the named
    # ``receiver`` (Express's ``app.route("/x")`` under ``app.route("/x").get(h)``)
    base: tuple[RouteCall, ...] = ()
    # the calls whose block or closure argument holds this call, outermost first (Rails'
    # ``namespace :api do ... end``)
    outer: tuple[RouteCall, ...] = ()
    path: str = ""  # the file's repository-relative path
    # per argument: the call it is (with its own receiver chain), else None (axum's
    # ``get(h).post(p)`` in ``.route("/x", get(h).post(p))``)
    arg_calls: tuple[RouteCall | None, ...] = ()
    function: bool = False  # a function named by a path (``web::get()``), no method

    def arg_call(self, index: int) -> RouteCall | None:
        """The call argument ``index`` is, None when it is none or when the extractor
        read no argument calls (a call looked at only for its prefix)."""
        return self.arg_calls[index] if index < len(self.arg_calls) else None

    def keyword(self, name: str) -> tuple[str | None, tuple[str | None, ...] | None] | None:
        """(literal contents, list items) of keyword argument ``name``, None if absent."""
        return next(((value, items) for key, value, items in self.keywords if key == name),
                    None)


@dataclass(frozen=True)
class CalledRoute:
    """What a call registers: the HTTP ``method`` (several joined by ",", ``ANY``
    unrestricted), the ``route`` as written in the call, and the ``handler``: the index
    of the handler argument among the call's positional arguments (negative from the
    end), the name of a keyword argument, or None (the call's block, or the function a
    decorator call decorates)."""

    method: str
    route: str
    handler: int | str | None
    # the handler is method ``action`` of the class the handler argument names (Laravel's
    # ``Route::resource('photos', PhotoController::class)``), or of ``controller``: a
    # class as the language writes it, when the route names it in a string (``'C@m'``)
    action: str | None = None
    controller: str | None = None
    # the call whose argument ``handler`` is, when not the call itself: one in its
    # receiver chain or in its arguments (axum's ``get(h)`` in ``.route("/", get(h))``)
    of: RouteCall | None = None


@dataclass(frozen=True)
class Router:
    """A call that makes a router (``APIRouter(prefix="/p")``, ``express.Router()``):
    routes registered on the variable it is assigned to get its own ``prefix``."""

    prefix: str = ""
    # the argument (as written) naming the class whose methods the routes registered
    # inside name by their name alone (Laravel's ``Route::controller(C::class)``)
    controller: str | None = None


@dataclass(frozen=True)
class Mount:
    """A call that mounts a router (``app.include_router(users.router, prefix="/v1")``):
    the ``router`` argument (positional index or keyword name) names it, ``prefix`` is
    joined before its routes (None: none given); with ``replaces_base`` the prefix
    replaces the router's own (Flask's ``register_blueprint(url_prefix=)``)."""

    router: int | str
    prefix: str | None = None
    replaces_base: bool = False
    # every argument from ``router`` on may be mounted: middleware and routers alike
    # (Express's ``app.use("/api", auth, users)``)
    spread: bool = False


@dataclass(frozen=True)
class Injected:
    """A call handing the framework a function it calls for each request (FastAPI's
    ``Depends(get_db)``): the ``argument`` (positional index) is referenced by the
    function the call is in."""

    argument: int = 0


# What a call-registering framework may answer about a call.
CallFact = CalledRoute | Router | Mount | Injected

T = TypeVar("T")


def argument(slot: int | str | None, positional: Sequence[T],
             keywords: Mapping[str, T] | None = None) -> T | None:
    """The argument a fact names (:attr:`CalledRoute.handler`, :attr:`Mount.router`):
    a positional index (negative from the end) or a keyword name; None when absent."""
    if isinstance(slot, str):
        return (keywords or {}).get(slot)
    if slot is None or not -len(positional) <= slot < len(positional):
        return None
    return positional[slot]

@dataclass(frozen=True)
class CalledRoutes:
    """A framework registering routes by calls: the ``languages`` whose extractors ask
    it, the callee ``names`` it looks at (other calls are never shown to it), and
    ``recognise`` (the function, or "module:function" as for :class:`DeclaredRoutes`)
    taking a :class:`RouteCall` and returning a :data:`CallFact` (a route, a router
    made, a router mounted, a function injected) or None."""

    languages: tuple[str, ...]
    names: tuple[str, ...]
    recognise: str | Callable[[RouteCall], CallFact | list[CallFact] | None]
    # files whose routes the framework serves under a prefix of their own, by path
    # suffix (Laravel's ``routes/api.php`` under ``/api``)
    file_prefixes: tuple[tuple[str, str], ...] = ()
    # the only files (by path suffix) whose calls it reads (Rails' ``config/routes.rb``);
    # empty: every file
    paths: tuple[str, ...] = ()
    # it reads only calls given a block or decorating a function (Sinatra's ``get '/x'
    # do``, FastAPI's ``@app.get``): extractors skip the others cheaply
    block_only: bool = False

    def reads(self, lang: str, call: RouteCall) -> bool:
        """Whether this framework looks at ``call`` in a file of ``lang``."""
        return lang in self.languages and call.name in self.names and (
            call.block or not self.block_only) and (
            not self.paths or any(_ends_with(call.path, p) for p in self.paths))


def _ends_with(path: str, suffix: str) -> bool:
    return path == suffix or path.endswith("/" + suffix)


@dataclass(frozen=True)
class RoutePattern:
    """A pattern of a ``case`` clause built with infix operators, read left to right
    (``GET -> Root / "users" / IntVar(id)``): its ``operands`` as written, their string
    literal contents (``literals``, None for any other operand) and the ``operators``
    between them."""

    operands: tuple[str, ...]
    literals: tuple[str | None, ...]
    operators: tuple[str, ...]


@dataclass(frozen=True)
class MatchedRoutes:
    """A framework declaring routes by pattern matches on requests (http4s): the
    ``languages`` whose extractors ask it and ``recognise`` taking a
    :class:`RoutePattern` and returning an :data:`Endpoint` (the clause's body is the
    handler) or None."""

    languages: tuple[str, ...]
    recognise: str | Callable[[RoutePattern], Endpoint | None]


@dataclass(frozen=True)
class ConfigRoutes:
    """A framework declaring routes in configuration files (Play's ``conf/routes``): the
    ``languages`` whose controllers serve them, the file ``names`` it reads (the
    language's spec lists them in ``config_files`` too, so that an edit re-indexes), the
    ``folder`` such a file must be in (how its directory ends; "" any) and ``parse``
    taking the file's text and returning ``[method, path, controller class fqn,
    action]`` per route. The file declaring the controller class registers its routes."""

    languages: tuple[str, ...]
    names: tuple[str, ...]
    parse: str | Callable[[str], list[list[str]]]
    folder: str = ""


RouteFramework = DeclaredRoutes | CalledRoutes | MatchedRoutes | ConfigRoutes

_CONFIG_MAX_BYTES = 512 * 1024


# The built-in frameworks, one module each under ``graphrag.parsing.routes`` whose
# ``register(register)`` hook is the same one a plugin's entry point names.
BUILTIN_MODULES = ("jvm", "csharp", "php", "go", "ruby", "python", "express", "swift",
                   "scala", "rust")


def _register_builtins(register: Callable[[str, RouteFramework], RouteFramework]) -> None:
    for name in BUILTIN_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(register)


# per language: the call-registering frameworks by the callee names they read, in
# registration order (built on first use, dropped whenever a registration changes)
_BY_NAME: dict[str, dict[str, list[CalledRoutes]]] = {}


def _registered(_name: str, _item: RouteFramework | None) -> None:
    _BY_NAME.clear()


_FRAMEWORKS: Registry[RouteFramework] = Registry(
    "route framework", ROUTE_FRAMEWORKS_GROUP, _register_builtins, _registered)


def _called(lang: str) -> dict[str, list[CalledRoutes]]:
    found = _BY_NAME.get(lang)
    if found is None:
        found = {}
        for framework in _FRAMEWORKS:
            if isinstance(framework, CalledRoutes) and lang in framework.languages:
                for name in framework.names:
                    found.setdefault(name, []).append(framework)
        _BY_NAME[lang] = found
    return found


def frameworks() -> Registry[RouteFramework]:
    """The registry of route frameworks: declared by annotations, registered by calls,
    matched by patterns, listed in configuration files (plugins add theirs through the
    ``graphrag.route_frameworks`` entry point group)."""
    return _FRAMEWORKS


def declared_endpoint(lang: str, site: RouteSite) -> Endpoint | None:
    """The endpoint the first framework of ``lang`` (registration order) recognises in
    ``site``, or None when the method is no handler."""
    return _first_endpoint(DeclaredRoutes, lang, site)


def matched_endpoint(lang: str, pattern: RoutePattern) -> Endpoint | None:
    """The endpoint the first pattern-matching framework of ``lang`` recognises in the
    pattern of a ``case`` clause, or None."""
    return _first_endpoint(MatchedRoutes, lang, pattern)


def _first_endpoint(kind: type[DeclaredRoutes] | type[MatchedRoutes], lang: str,
                    facts: RouteSite | RoutePattern) -> Endpoint | None:
    for framework in _FRAMEWORKS:
        if isinstance(framework, kind) and lang in framework.languages:
            found = _recogniser(framework.recognise)(facts)
            if found is not None:
                return found
    return None


def config_routes(lang: str, files: RepoFiles) -> list[list[str]]:
    """The routes the configuration files of ``lang``'s frameworks declare, in file order
    (an unreadable file only loses its routes): a language's ``repo_facts`` hook reads
    them once per run."""
    found: list[list[str]] = []
    for framework in _FRAMEWORKS:
        if not isinstance(framework, ConfigRoutes) or lang not in framework.languages:
            continue
        for rel, parent, _name in files.named(*framework.names):
            if not parent.endswith(framework.folder):
                continue
            text = files.read(rel, _CONFIG_MAX_BYTES) or ""
            found += _recogniser(framework.parse)(text)
    return found


def _recogniser(recognise: str | Callable[..., Any]) -> Callable[..., Any]:
    return registry.hook(recognise) if isinstance(recognise, str) else recognise


def route_call_names(lang: str, block: bool = True) -> frozenset[str]:
    """The callee names some call-registering framework of ``lang`` looks at: an
    extractor builds a :class:`RouteCall` only for these (with ``block`` False, only
    those read in calls given no block nor decorating a function)."""
    return frozenset(name for name, found in _called(lang).items()
                     if block or any(not f.block_only for f in found))


def call_facts(lang: str, call: RouteCall) -> list[CallFact] | None:
    """What the first call-registering framework of ``lang`` (registration order) that
    looks at ``call`` recognises in it: a route (several for a resource), a router, a
    mount, an injected function; an empty list for a call of the framework's that
    registers nothing (Rails' ``draw``), None when no framework recognises it."""
    for framework in _called(lang).get(call.name, ()):
        if framework.reads(lang, call):
            found = _recogniser(framework.recognise)(call)
            if found is not None:
                return list(found) if isinstance(found, list) else [found]
    return None


def called_route(lang: str, call: RouteCall) -> CallFact | None:
    """The first of :func:`call_facts`, or None."""
    found = call_facts(lang, call)
    return found[0] if found else None


def file_prefix(lang: str, path: str) -> str:
    """The prefix some framework of ``lang`` serves the routes of file ``path`` under
    (joined before every other), or ""."""
    for framework in _FRAMEWORKS:
        if isinstance(framework, CalledRoutes) and lang in framework.languages:
            for suffix, prefix in framework.file_prefixes:
                if _ends_with(path, suffix):
                    return prefix
    return ""

