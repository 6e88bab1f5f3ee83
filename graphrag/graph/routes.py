"""Route prefixes of mounted routers (``app.use('/api', users)``,
``app.include_router(users.router, prefix="/v1")``, ``register_blueprint(bp, url_prefix=)``).

A mount (a ``USE`` :class:`~graphrag.parsing.model.Registration`) names the router it
mounts; the router is keyed ``(module, router variable)``, or ``(module, None)`` when
only its module is known (``require('./routes/users')``: every router of that module).
A route's final path walks up the chain of mounts: each mount puts its prefix in front,
then the router that mounted it is looked up in turn (nested routers)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from graphrag.graph.scopes import Scopes
from graphrag.graph.symbols import FileScope
from graphrag.parsing.model import Registration
from graphrag.parsing.registry import namespace_spec
from graphrag.parsing.routes import join_route

RouterKey = tuple[str, str | None]


MountRows = dict[str, list[list[Any]]]  # path -> [module, router, registration, parent]


def file_mounts(scopes: Scopes, scope: FileScope) -> list[list[Any]]:
    """The mounts one file makes, in line order: ``[mounted module, router, mount
    registration (dict), module that mounts]``."""
    out: list[list[Any]] = []
    for reg in sorted(scope.result.registrations, key=lambda r: r.line):
        if reg.http_method.upper() != "USE" or not reg.handler_name:
            continue
        key = _mounted_router(scopes, scope, reg)
        if key is not None:
            out.append([key[0], key[1], asdict(reg), scope.result.module])
    return out


def mount_rows(scopes: Scopes, paths: Iterable[str] | None = None) -> MountRows:
    """The mounts (:func:`file_mounts`) of every file, or of those of ``paths`` the table
    holds, that mounts a router."""
    files = scopes.table.files
    chosen = files.items() if paths is None else (
        (path, files[path]) for path in paths if path in files)
    return {path: file_mounts(scopes, scope) for path, scope in chosen
            if any(r.http_method.upper() == "USE" for r in scope.result.registrations)}


class Mounts:
    """Every mount of a repository, applied to routes by :meth:`full_route`."""

    def __init__(self, rows: MountRows) -> None:
        """``rows``: every file's mounts (:func:`mount_rows`); the first mount of a
        router, in path order, is the one that counts."""
        # mounted router -> (mount registration, module that mounts it)
        self._mounts: dict[RouterKey, tuple[Registration, str]] = {}
        for path in sorted(rows):
            for module, router, reg, parent in rows[path]:
                self._mounts.setdefault((module, router), (Registration(**reg), parent))

    def full_route(self, module: str, reg: Registration, keep_slash: bool) -> str:
        """Path of route ``reg`` (registered in ``module``) with every mount prefix."""
        route, base, key = reg.route, reg.base, (module, reg.router)
        seen: set[RouterKey] = set()
        while True:
            found = self._find(key)
            if found is None or found[0] in seen:
                return route
            seen.add(found[0])
            mount, parent = found[1]
            if mount.replaces_base and base and route.startswith(base):
                route = route[len(base):] or "/"
            route = join_route(mount.route, route, keep_slash)
            base, key = mount.base, (parent, mount.router)

    def _find(self, key: RouterKey) -> tuple[RouterKey, tuple[Registration, str]] | None:
        for candidate in (key, (key[0], None)):
            if candidate in self._mounts:
                return candidate, self._mounts[candidate]
        return None


def _mounted_router(scopes: Scopes, scope: FileScope, reg: Registration) -> RouterKey | None:
    """The router a mount names: a router of this module or one imported."""
    name, receiver = reg.handler_name or "", reg.handler_receiver or []
    head = receiver[0] if receiver else name
    imp = scope.imports.get(head)
    if imp is None:
        # a router variable of this module (``app.use('/v1', v1)``)
        return (scope.result.module, name) if not receiver else None
    target = imp.target
    if receiver:
        if len(receiver) != 1:
            return None
        member_style = scope.traits.target_style == "module-member"
        target = f"{target}:{name}" if member_style and ":" not in target \
            else f"{target}.{name}"
    module = scopes.module_of_target(scope.ns, target)
    if module is None or (module == scope.result.module and not receiver
                          and imp.target == module):
        return None
    return module, _router_name(scope.ns, module, target)


def _router_name(ns: str, module: str, target: str) -> str | None:
    """Variable named by an import target (``app.api.users.router`` -> ``router``);
    None for a whole module or its default export (any router of the module)."""
    if namespace_spec(ns).target_style == "module-member":
        rest = target.partition(":")[2]
    else:
        rest = target[len(module) + 1:] if target.startswith(module + ".") else ""
    return rest if rest and rest != "default" else None
