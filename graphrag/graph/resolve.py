"""Cross-file resolution: many ParseResults -> one in-memory :class:`Graph`.

``build_graph`` is pure and deterministic: the same set of ParseResults gives a
byte-identical graph whatever their order. Steps, each in its own module:

1. :mod:`graphrag.graph.symbols`  nodes (repository, packages, files, symbols) and indexes
2. CONTAINS and IMPORTS (here)
3. :mod:`graphrag.graph.heritage`  EXTENDS / IMPLEMENTS / OVERRIDES
4. :mod:`graphrag.graph.calls`     CALLS and ENDPOINT promotion from Registrations

Name lookup and type evaluation live in :mod:`graphrag.graph.scopes`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from graphrag.graph.calls import (
    endpoint_promotions,
    file_routes,
    note_unresolved,
    promote,
    resolve_file_calls,
)
from graphrag.graph.edges import EdgeSet
from graphrag.graph.heritage import resolve_heritage, resolve_overrides
from graphrag.graph.model import Graph, GraphNode, UnresolvedCall
from graphrag.graph.routes import MountRows, Mounts, mount_rows
from graphrag.graph.scopes import Scopes
from graphrag.graph.symbols import FileScope, SymbolTable
from graphrag.graph.types import Ent
from graphrag.parsing.model import Import, ParseResult


def build_graph(results: list[ParseResult], unique_name_fallback: bool = False) -> Graph:
    """Resolve ``results`` (one per file) into nodes and edges.

    ``unique_name_fallback`` links a call that no rule resolves to the only
    function/method of that name in the repository (confidence 0.5). It is off by
    default: on the sample repositories its only edge was a false one
    (``r.URL.Query().Get(...)`` linked to a repository method ``Get``)."""
    resolver = Resolver(results, unique_name_fallback)
    return resolver.finish(resolver.resolve_files(resolver.table.files))


@dataclass
class FileResolution:
    """What one file's imports and calls contributed: every edge occurrence (``[src,
    dst, kind, resolution, line, confidence]``, in order), the imports that name nothing
    in the repository, and its unresolved calls (``[caller key, text, name, receiver,
    line, reason]``, in order: :func:`resolve_file_calls`). Stored per file
    (``files.resolved``) and replayed while nothing it refers to changed."""

    edges: list[list[Any]] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    unresolved: list[list[Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"edges": self.edges, "external": self.external,
                "unresolved": self.unresolved}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileResolution:
        # stored before the sites were kept whole: ``[caller key, text]``
        unresolved = [u if len(u) == 6 else [u[0], u[1], u[1].rsplit(".", 1)[-1], None,
                                             None, "unknown-name"]
                      for u in data["unresolved"]]
        return cls(data["edges"], data["external"], unresolved)


class _Recorder(EdgeSet):
    """An EdgeSet that also lists each occurrence, for :class:`FileResolution`."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[list[Any]] = []

    def add(self, src: str, dst: str, kind: str, resolution: str | None = None,
            line: int | None = None, confidence: float | None = None) -> None:
        self.log.append([src, dst, kind, resolution, line, confidence])


class Resolver:
    """Cross-file resolution in steps, so that an incremental run resolves the imports
    and calls of a few files and replays the stored results of the others.

    The constructor does what depends on every file (symbol table, EXTENDS /
    IMPLEMENTS / OVERRIDES); :meth:`resolve_files` resolves imports and calls of some
    files; :meth:`finish` merges per-file results (fresh or stored) into the graph. A
    file's results depend only on the symbol table and the hierarchy, never on which
    other files were resolved in the same run: imports are resolved before the hierarchy
    is known (as they always were), calls after."""

    def __init__(self, results: list[ParseResult], unique_name_fallback: bool = False,
                 watch: set[str] | None = None, mounts: MountRows | None = None) -> None:
        """``watch``: record the table's lookups there (:class:`SymbolTable`);
        ``mounts``: every file's router mounts as kept by an earlier run
        (:func:`mount_rows`), for a resolver that does not hold every file."""
        self.table = SymbolTable(results, watch)
        self.scopes = Scopes(self.table)
        self.scopes.unique_name_fallback = unique_name_fallback
        self.edges = EdgeSet()
        self.nodes = self.table.all_nodes()
        resolve_heritage(self.scopes, self.edges)
        resolve_overrides(self.scopes, self.edges)
        self.mount_rows = mount_rows(self.scopes) if mounts is None else mounts
        self.mounts = Mounts(self.mount_rows)
        self._endpoints: dict[str, list[Any]] | None = None

    def resolve_files(self, paths: Iterable[str]) -> dict[str, FileResolution]:
        """Imports and calls of the files ``paths`` (paths without a parse result are
        ignored)."""
        scopes = self.scopes
        todo = [self.table.files[p] for p in sorted(paths) if p in self.table.files]
        out = {scope.result.path: FileResolution() for scope in todo}
        # Imports see no hierarchy: swap it out, then back.
        supers, scopes.supers = scopes.supers, {}
        scopes.reset_hierarchy_cache()
        try:
            for scope in todo:
                rec = _Recorder()
                out[scope.result.path].external = _file_imports(scopes, scope, rec)
                out[scope.result.path].edges = rec.log
        finally:
            scopes.supers = supers
            scopes.reset_hierarchy_cache()
        for scope in todo:
            rec = _Recorder()
            missed = resolve_file_calls(scopes, scope, rec)
            res = out[scope.result.path]
            res.edges.extend(rec.log)
            res.unresolved = [list(m) for m in missed]
        return out

    def routes(self, paths: Iterable[str]) -> dict[str, list[list[Any]]]:
        """The routes each of ``paths`` registers (:func:`file_routes`), for those that
        register any."""
        out = {}
        for path in sorted(paths):
            scope = self.table.files.get(path)
            if scope is not None and scope.result.registrations:
                out[path] = file_routes(self.scopes, scope, self.mounts)
        return out

    def endpoints(self, routes: dict[str, list[list[Any]]] | None = None
                  ) -> dict[str, list[Any]]:
        """Promote registered handlers to ENDPOINT (once, after the calls that a run
        resolves) from ``routes`` (path -> :meth:`routes`; by default every file's) and
        return what promotion sets per handler key (``[path, http_method, route,
        routes]``)."""
        if self._endpoints is None:
            if routes is None:
                routes = self.routes(self.table.files)
            self._endpoints = endpoint_promotions(routes)
            promote(self.table, self._endpoints)
        return self._endpoints

    def finish(self, resolved: dict[str, FileResolution], only: set[str] | None = None,
               heads: set[str] | None = None) -> Graph:
        """The graph from every file's :class:`FileResolution` (one per file with a parse
        result), merged in path order as a single pass over all files would.

        With ``only`` (paths), the part of that graph the rows of those files make up:
        the repository and package nodes, the nodes of those files, and the edges whose
        source is one of these nodes (``resolved`` then needs those files only). A file's
        resolution adds edges from its own nodes only (:func:`foreign_paths` lists the
        exceptions), so this part equals the same part of the whole graph.

        ``heads`` (with ``only``, for a resolver that holds only some files) narrows the
        nodes outside files to those keys (the repository and the packages of those
        files, each held with all its files)."""
        self.endpoints()
        unresolved: dict[str, list[str]] = defaultdict(list)
        sites: list[UnresolvedCall] = []
        nodes = self.nodes
        edges = self.edges
        srcs = None
        if only is not None:
            nodes = [n for n in nodes if (n.file_path in only if n.file_path is not None
                                          else heads is None or n.key in heads)]
            srcs = {n.key for n in nodes}
            edges = edges.subset(srcs)
        _contains(self.nodes, edges, srcs)
        for path, scope in sorted(self.table.files.items()):
            if only is not None and path not in only:
                continue
            res = resolved[path]
            for src, dst, kind, resolution, line, confidence in res.edges:
                edges.add(src, dst, kind, resolution, line, confidence)
            if res.external:
                scope.node.meta["external_imports"] = list(res.external)
                exports = external_exports(scope.result.imports, res.external)
                if exports:
                    scope.node.meta["external_exports"] = exports
            for caller_key, text, name, receiver, line, reason in res.unresolved:
                note_unresolved(unresolved, caller_key, text)
                sites.append(UnresolvedCall(caller_key, path, name, receiver, line, reason))
        for key, names in unresolved.items():
            self.table.by_key[key].meta["unresolved_calls"] = sorted(set(names))
        return Graph(nodes=nodes, edges=edges.sorted_edges(), unresolved=sites)

    def foreign_paths(self, path: str, res: FileResolution) -> list[str]:
        """Other files whose nodes ``res`` (the resolution of ``path``) adds edges from
        or notes unresolved calls on (normally none), sorted."""
        by_key = self.table.by_key
        srcs = {e[0] for e in res.edges} | {u[0] for u in res.unresolved}
        return sorted({p for p in (by_key[k].file_path for k in srcs if k in by_key)
                       if p is not None and p != path})


def _contains(nodes: list[GraphNode], edges: EdgeSet, srcs: set[str] | None = None
              ) -> None:
    """CONTAINS edges (parent -> node) of ``nodes``, of the parents in ``srcs`` only
    when given."""
    for node in nodes:
        if node.parent_key is not None and (srcs is None or node.parent_key in srcs):
            edges.add(node.parent_key, node.key, "CONTAINS")


def _file_imports(scopes: Scopes, scope: FileScope, edges: EdgeSet) -> list[str]:
    """IMPORTS of one file (file -> imported file/package/symbol); returns the targets
    outside the repository (kept in the file's meta)."""
    external: list[str] = []
    for imp in sorted(scope.result.imports, key=lambda i: (i.line, i.target)):
        target = _import_node(scopes, scope.ns, scopes.resolve_target(scope.ns, imp.target))
        if target is None:
            # An in-repo name that is no symbol (a variable): link its module's file.
            module = scopes.module_of_target(scope.ns, imp.target)
            if module is not None:
                target = _import_node(scopes, scope.ns, Ent("module", name=module))
        if target is None:
            if imp.target not in external:
                external.append(imp.target)
        elif target.key != scope.node.key:
            edges.add(scope.node.key, target.key, "IMPORTS", "import", imp.line)
    return sorted(external)


def external_exports(imports: Iterable[Import], external: Iterable[str]) -> dict[str, int]:
    """Name -> line of the names a file publishes (``exported`` imports) whose
    definitions are outside the repository: the file is where a user finds them."""
    outside = set(external)
    out: dict[str, int] = {}
    for imp in sorted(imports, key=lambda i: i.line):
        if imp.exported and imp.target in outside:
            out.setdefault(imp.published or imp.alias, imp.line)
    return out


def _import_node(scopes: Scopes, ns: str, ent: Ent) -> GraphNode | None:
    table = scopes.table
    if ent.kind == "node":
        return ent.node
    if ent.kind == "package":
        nodes = table.package_nodes.get((ns, ent.name), [])
        return nodes[0] if nodes else None
    if ent.kind == "module":
        files = table.module_files.get((ns, ent.name), [])
        if len(files) == 1:
            return files[0].node
        nodes = table.package_nodes.get((ns, ent.name), [])
        if nodes:
            return nodes[0]
        return files[0].node if files else None
    return None
