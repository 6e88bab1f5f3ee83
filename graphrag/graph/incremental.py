"""Incremental resolution: resolve again only what a change can reach.

The symbol table and the type hierarchy are rebuilt from every file's stored
definitions (or, for a small change, from the files it reaches: :func:`resolve_part`);
the rest is scoped to what the change can reach:

* interfaces (what each file exposes, :mod:`graphrag.graph.deps`) are computed for the
  changed files and, outwards, for the files that name an entry that changed;
* imports and calls are resolved again only for the changed files, the files whose
  interface changed and the files that refer to such a name; every other file's stored
  result (``files.resolved``) stands;
* only the graph rows of those files (plus ENDPOINT promotions that moved, and the
  repository and package rows) are rebuilt and compared with the stored ones.

A file's result depends only on its own parse result and on the definitions it can
see, so the graph equals that of a clean full index of the same tree (a tested
invariant).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection

from graphrag.graph.calls import endpoint_promotions
from graphrag.graph.changes import structural_langs
from graphrag.graph.deps import EVERYTHING, changed_names, interfaces, provides
from graphrag.graph.index_state import (
    Providers,
    edge_target_files,
    interfaces_missing,
    provides_missing,
    read_again_inputs,
    read_definitions,
    read_definitions_of,
    read_interfaces,
    read_resolution_inputs,
    read_resolutions,
    referring_files,
    write_provides,
)
from graphrag.graph.model import REPO_KEY
from graphrag.graph.parse_worker import FileOutcome
from graphrag.graph.resolve import FileResolution, Resolver
from graphrag.graph.routes import mount_rows
from graphrag.graph.symbols import lookup_key
from graphrag.parsing.model import Call, ParseResult
from graphrag.parsing.registry import namespace


@dataclass
class Loaded:
    """The stored state a run resolves against, read before its parse results arrive."""

    old_iface: dict[str, list[str]]  # interfaces the changed files stored
    parents: set[str]                # other files holding their stored nodes' parents
    results: list[ParseResult] | None  # every other file's stored definitions (None: not read)
    heads: set[tuple[str, str, str]] = field(default_factory=set)  # changed files' packages
    files: int = 0                   # stored files
    memo: dict[str, Any] = field(default_factory=dict)  # what each try computes alike


def decode_results(rows: Iterable[str | bytes]) -> list[ParseResult]:
    return [ParseResult.from_dict(orjson.loads(data)) for data in rows]


@dataclass
class Resolution:
    """What resolution left for the writes: see :func:`_resolve`."""

    resolver: Resolver
    resolved: dict[str, FileResolution]
    iface: Interfaces
    again: set[str]
    scope: set[str] | None           # files whose rows may have changed (None: any)
    state: dict[str, Any]            # graph_state for the next run
    heads: set[str] | None = None    # with a partial table: the rows outside files to sync
    files_loaded: int = 0            # files whose definitions the resolution's table held


def resolve_every(conn: Connection, app_id: int,
                   fresh_results: dict[str, ParseResult], fresh: set[str],
                   deleted: set[str], loaded: Loaded, full: bool, every_iface: bool,
                   state: dict[str, Any]) -> Resolution:
    """Resolution against a table of every file's definitions."""
    if loaded.results is None:
        loaded.results = decode_results(read_definitions(conn, app_id, fresh))
    results = [*fresh_results.values(), *loaded.results]
    resolver = Resolver(results)
    if provides_missing(conn, app_id):  # rows written before provides were kept
        write_provides(conn, app_id, {r.path: provides(r) for r in loaded.results})
    res = _resolve(conn, app_id, resolver, fresh, deleted, loaded, full, every_iface, state)
    res.files_loaded = len(results)
    return res


class _Reach(Exception):
    """A partial table lacks files the change reaches (``paths``)."""

    def __init__(self, paths: set[str]) -> None:
        super().__init__(len(paths))
        self.paths = paths


class _Wide(Exception):
    """The change reaches too far for a partial table."""


# A partial table holding more files than this share (and this count) is not worth it.
_PART_SHARE, _PART_MIN = 0.4, 64


def resolve_part(conn: Connection, app_id: int,
                  fresh_results: dict[str, ParseResult], fresh: set[str],
                  deleted: set[str], loaded: Loaded, outcomes: list[FileOutcome],
                  state: dict[str, Any]) -> Resolution | None:
    """Resolution against a table of only the files the change reaches, or None when
    the whole table is needed.

    Which files those are is found by trying: a table built from some files records
    every lookup it answers (:class:`SymbolTable` ``watch``), and the files that provide
    any recorded key (``files.provides``), the files whose interfaces, resolutions or
    rows the run needs, the files sharing a symbol's fqn with one held (duplicate keys
    are numbered across files) and every file of a package whose rows are rewritten are
    added until nothing is missing. Each lookup then has the answer the whole
    repository's table gives, so the resolutions, interfaces and rows computed equal
    those of a run with every file."""
    if not all(isinstance(state.get(k), dict) for k in ("routes", "mounts", "foreign")) \
            or not isinstance(state.get("shared"), list) \
            or interfaces_missing(conn, app_id) or provides_missing(conn, app_id) \
            or any(o.parse_data and any(r.get("http_method", "").upper() == "USE"
                                         for r in o.parse_data.get("registrations", ()))
                   for o in outcomes):
        return None
    total = loaded.files
    providers = Providers(conn, app_id)
    checked: set[str] = set()  # keys whose providers are all held
    part = set(fresh) | loaded.parents
    held: dict[str, ParseResult] = {}
    shared = set(state["shared"])
    fresh_keys = {key for r in fresh_results.values() for key in _fqn_keys(r)}
    for _attempt in range(32):
        todo = part - set(held) - fresh
        for path, data in read_definitions_of(conn, app_id, todo):
            held[path] = ParseResult.from_dict(orjson.loads(data))
        results = [*fresh_results.values(), *(held[p] for p in sorted(part & set(held))
                                              if p not in fresh)]
        watch: set[str] = set()

        def ensure(watch: set[str] = watch, held_: set[str] = part,
                   checked_: set[str] = checked) -> None:
            missing = providers(watch - checked_) - held_ - deleted
            if missing:
                raise _Reach(missing)

        try:
            resolver = Resolver(results, watch=watch, mounts=state["mounts"])
            res = _resolve(conn, app_id, resolver, fresh, deleted, loaded, False, False,
                           state, part, ensure)
            # the lookups made, the files sharing a symbol's fqn (duplicate keys are
            # numbered across them: the fqns of more than one file, kept, and those of
            # the files parsed now) and every file of a package whose rows are rewritten
            keys = watch | fresh_keys | {key for r in results for key in _fqn_keys(r)
                                         if key in shared}
            keys |= _head_keys(resolver, res.scope or set(), loaded.heads)
            missing = providers(keys - checked) - part - deleted
            checked |= keys
            if not missing:
                res.files_loaded = len(results)
                res.state["shared"] = sorted(shared | _now_shared(providers,
                                                                  fresh_results))
                return res
        except _Reach as reach:
            missing = reach.paths | (providers(watch - checked) - part - deleted)
            checked |= watch
            # What the files reached looked up last time is likely to be looked up again:
            # holding it now saves a try (holding more is never wrong).
            missing |= edge_target_files(conn, app_id, reach.paths) - part - deleted
        except _Wide:
            return None
        part |= missing
        if len(part) > max(_PART_SHARE * total, _PART_MIN):
            return None
    return None


def _fqn_keys(result: ParseResult) -> set[str]:
    """The fqn lookup keys of a file's symbols."""
    ns = namespace(result.lang)
    return {lookup_key("f", ns, sym.fqn) for sym in result.symbols}


def _shared_keys(results: Iterable[ParseResult]) -> set[str]:
    """The fqn lookup keys of symbols of more than one file (whose duplicate keys are
    numbered across files)."""
    seen: set[str] = set()
    shared: set[str] = set()
    for result in results:
        keys = _fqn_keys(result)
        shared |= keys & seen
        seen |= keys
    return shared


def _now_shared(providers: Callable[[Iterable[str]], set[str]],
                fresh: dict[str, ParseResult]) -> set[str]:
    """The fqn keys of the files parsed now that another file provides too (all of
    such a file's keys: one more kept key costs a lookup, one missing a wrong key)."""
    out = _shared_keys(fresh.values())  # among themselves (their rows are not stored yet)
    for path, result in fresh.items():
        keys = _fqn_keys(result)
        if keys and providers(keys) - {path}:
            out |= keys
    return out


def _head_keys(resolver: Resolver, scope: set[str], old: set[tuple[str, str, str]]
               ) -> set[str]:
    """The lookup keys of the packages whose rows a partial sync rewrites (every file of
    each must be held)."""
    keys = set()
    for path in scope:
        held = resolver.table.files.get(path)
        if held is not None and held.result.package and held.traits.packages:
            keys.add(lookup_key("p", held.ns, held.result.package))
    for _key, lang, name in old:
        keys.add(lookup_key("p", namespace(lang), name))
    return keys


def _heads(resolver: Resolver, scope: set[str], old: set[tuple[str, str, str]]
           ) -> set[str]:
    """The repository and the packages of ``scope`` (now, and as stored: ``old``)."""
    heads = {REPO_KEY} | {key for key, _lang, _name in old}
    for path in scope:
        held = resolver.table.files.get(path)
        if held is not None and held.node.parent_key is not None:
            heads.add(held.node.parent_key)
    return heads


class Interfaces(dict[str, list[str]]):
    """Interfaces (path -> entries) of the files in ``computed``; those of the other
    files did not change (see :func:`_interfaces`)."""

    computed: set[str]


def _interfaces(conn: Connection, app_id: int, resolver: Resolver, changed: set[str],
                old_iface: dict[str, list[str]], parents: set[str], every: bool,
                part: set[str] | None = None, ensure: Callable[[], None] | None = None
                ) -> Interfaces:
    """The interfaces that may differ from the stored ones, and those stored ones (added
    to ``old_iface``). With ``every``, or when a stored file lacks one, every file's.

    Otherwise from the changed files outwards: a file's interface (its nodes' keys,
    parents, members, ancestors and their members) changes only through a definition
    whose name it mentions (its own definitions, its bases, its parents' names are in its
    ``ref_names``) or through a node of a changed file whose parent it holds. So the files
    that mention a name whose entries changed are computed next, until no entry changes
    (a base's base changes its subclasses' entries, which names them in turn).

    ``part``: the files a partial table holds (:class:`_Reach` when others are needed;
    ``ensure`` first, so that no entry computed from missing answers widens the search)."""
    scopes = resolver.scopes
    table = resolver.table
    out = Interfaces()
    if every or (part is None and interfaces_missing(conn, app_id)):
        if part is not None:
            raise _Wide
        old_iface.update(read_interfaces(conn, app_id))
        out.update(interfaces(scopes))
        out.computed = set(out) | set(old_iface)
        return out
    # parents in other files, of the changed files' nodes now (and stored: ``parents``)
    frontier = set(changed) | parents | {
        parent.file_path for node in table.symbol_nodes if node.file_path in changed
        and node.parent_key is not None
        and (parent := table.by_key.get(node.parent_key)) is not None
        and parent.file_path is not None}
    out.computed = set()
    seen_names: set[str] = set()
    while frontier:
        todo = frontier - out.computed
        if part is not None and (todo - part - changed):
            raise _Reach(todo - part - changed)
        old_iface.update(read_interfaces(conn, app_id, todo - changed))
        out.update(interfaces(scopes, only=todo))
        out.computed |= todo
        names: set[str] = set()
        for path in todo:
            names |= changed_names(old_iface.get(path), out.get(path))
        names -= seen_names
        if names and ensure is not None:
            ensure()
        seen_names |= names
        frontier = referring_files(conn, app_id, names) - out.computed if names else set()
    return out


def _resolve(conn: Connection, app_id: int, resolver: Resolver, fresh: set[str],
             deleted: set[str], loaded: Loaded, full: bool, every_iface: bool,
             state: dict[str, Any], part: set[str] | None = None,
             ensure: Callable[[], None] | None = None) -> Resolution:
    """Resolve again only the imports and calls of the files that need it; returns the
    resolver, the fresh resolutions (path -> result), the interfaces that may have
    changed (:func:`_interfaces`), the paths resolved again that were not parsed in this
    run, the files whose graph rows may have changed (None: any may have) and the state
    the next run scopes its work with. ``part``: the files the resolver's table holds,
    when not every file (:class:`_Reach` when others are needed, :class:`_Wide` when the
    change needs every file); ``ensure`` then raises :class:`_Reach` while the lookups
    made so far lack answers, before anything is concluded from them.

    A file is resolved again when it changed (parsed or deleted in this run), when what
    it exposes to other files changed (its interface, e.g. a key renumbered or a base
    class resolved elsewhere because of another file), when it refers to a name whose
    definition changed anywhere, or when it has no stored result. The rows of every other
    file stay as they are (what they are made of did not change), but for ENDPOINT
    promotion, which a registration in one file makes on a handler in another (hence
    the files of the promoted nodes, when promotion changed), and for a resolution that
    adds edges from another file's nodes (its ``foreign`` files go with it)."""
    changed = fresh | deleted
    # With no stored file (a first index) no other file can refer to a changed name.
    iface = _interfaces(conn, app_id, resolver, changed, loaded.old_iface, loaded.parents,
                        every_iface or (not loaded.files and part is None), part, ensure)
    names: set[str] = set()
    redo = set(changed)
    for path in iface.computed:
        diff = changed_names(loaded.old_iface.get(path), iface.get(path))
        if diff:
            names |= diff
            redo.add(path)
    wide = full or EVERYTHING in names or not isinstance(state.get("routes"), dict)
    if part is not None and wide:
        raise _Wide
    again = _read_again(conn, app_id, resolver, redo, names, fresh, wide, part)
    if part is not None and (redo - part - deleted):
        raise _Reach(redo - part - deleted)
    redo &= set(resolver.table.files)
    resolved = resolver.resolve_files(redo)
    routes, moved = _promotions(resolver, state, loaded, changed, redo, part, ensure)
    foreign = _foreign(resolver, state, resolved, changed | redo)
    scope_paths = None if wide else _with_foreign(changed | redo | moved, foreign)
    heads = None
    if part is not None:
        assert scope_paths is not None
        heads = _part_heads(resolver, scope_paths, iface, loaded, part, deleted, ensure)
    new_state = {"routes": routes, "mounts": resolver.mount_rows, "foreign": foreign,
                 "shared": sorted(_shared_keys(s.result for s in resolver.table.files.values()))
                 if part is None else state["shared"]}
    return Resolution(resolver, resolved, iface, again, scope_paths, new_state, heads)


def _read_again(conn: Connection, app_id: int, resolver: Resolver, redo: set[str],
                names: set[str], fresh: set[str], wide: bool, part: set[str] | None
                ) -> set[str]:
    """Add to ``redo`` the files that refer to a changed name or have no stored result
    (their stored calls loaded into the table); returns those not parsed in this run.
    With a partial table, a file it does not hold is added too (the caller reports it
    as missing)."""
    again: set[str] = set()
    inputs = read_resolution_inputs(conn, app_id, wide=wide, redo=redo, names=names,
                                    skip=fresh, stored=False) if part is None else [
        (path, True, data) for path, data in read_again_inputs(conn, app_id, redo, names,
                                                                fresh)]
    for path, again_, data in inputs:
        if not again_:
            continue
        scope = resolver.table.files.get(path)
        if scope is None:
            if part is not None and path not in part:
                redo.add(path)
            continue
        redo.add(path)
        again.add(path)
        if data is not None:
            scope.result.calls = [Call(**c) for c in orjson.loads(data)]
    return again


def _promotions(resolver: Resolver, state: dict[str, Any], loaded: Loaded, changed: set[str],
                redo: set[str], part: set[str] | None, ensure: Callable[[], None] | None
                ) -> tuple[dict[str, Any], set[str]]:
    """ENDPOINT promotion: the routes each file registers, kept per file (those of files
    not resolved again stand: what they resolve through did not change), and the files
    of the nodes whose promotion moved."""
    old_routes: dict[str, list[list[Any]]] = state.get("routes") or {}
    mounts = resolver.mount_rows
    if part is None:
        routes = resolver.routes(resolver.table.files)
    else:
        again_mounts = {p for p in changed | redo if p in mounts}
        if mount_rows(resolver.scopes, again_mounts) != {p: mounts[p] for p in again_mounts}:
            # a mount moved (every route below it may move), unless the table still
            # lacks files the lookups need
            assert ensure is not None
            ensure()
            raise _Wide
        routes = {p: v for p, v in old_routes.items() if p not in changed and p not in redo}
        routes.update(resolver.routes(redo))
    promoted = resolver.endpoints(routes)
    if "promoted" not in loaded.memo:  # the same for every try of a partial table
        loaded.memo["promoted"] = endpoint_promotions(old_routes)
    before = loaded.memo["promoted"]
    moved = {value[0] for key in set(promoted) | set(before)
             if promoted.get(key) != before.get(key)
             for value in (promoted.get(key), before.get(key))
             if value is not None and value[0] is not None}
    return routes, moved


def _foreign(resolver: Resolver, state: dict[str, Any], resolved: dict[str, FileResolution],
             again: set[str]) -> dict[str, list[str]]:
    """Per file whose resolution adds edges from other files' nodes, those files (the
    stored ones, but for the files resolved again, ``again``)."""
    foreign: dict[str, list[str]] = dict(state.get("foreign") or {})
    for path in again:
        foreign.pop(path, None)
    for path, res in resolved.items():
        if (others := resolver.foreign_paths(path, res)):
            foreign[path] = others
    return foreign


def _with_foreign(paths: set[str], foreign: dict[str, list[str]]) -> set[str]:
    """``paths`` with every foreign resolution touching them and the files it adds edges
    from (they go together), until nothing more is added."""
    scope_paths = set(paths)
    grown = True
    while grown:
        grown = False
        for path, others in foreign.items():
            if (path in scope_paths or scope_paths.intersection(others)) \
                    and not scope_paths.issuperset([path, *others]):
                scope_paths |= {path, *others}
                grown = True
    return scope_paths


def _part_heads(resolver: Resolver, scope_paths: set[str], iface: Interfaces,
                loaded: Loaded, part: set[str], deleted: set[str],
                ensure: Callable[[], None] | None) -> set[str]:
    """With a partial table: the rows outside files to sync, once the table is known to
    hold every file the rows need (:class:`_Reach`, :class:`_Wide` otherwise)."""
    if scope_paths - part - deleted:
        assert ensure is not None
        ensure()  # files reached through lookups answered in part are no evidence
        raise _Reach(scope_paths - part - deleted)
    # Method sets (which struct implements which interface, ``structural_typing``) are
    # matched over every file: such a file resolved, rebuilt or exposing anything needs
    # them all.
    files = resolver.table.files
    if structural_langs((files[p].lang for p in scope_paths | iface.computed
                         if p in files), ()):
        raise _Wide
    return _heads(resolver, scope_paths, loaded.heads)


def stored_resolutions(conn: Connection, app_id: int, resolver: Resolver,
                        paths: Iterable[str]) -> dict[str, FileResolution]:
    return {path: FileResolution.from_dict(orjson.loads(data))
            for path, data in read_resolutions(conn, app_id, paths)
            if path in resolver.table.files}
