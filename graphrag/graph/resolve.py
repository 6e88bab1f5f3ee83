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

from graphrag.graph.calls import promote_endpoints, resolve_calls
from graphrag.graph.edges import EdgeSet
from graphrag.graph.heritage import resolve_heritage, resolve_overrides
from graphrag.graph.model import Graph, GraphNode
from graphrag.graph.scopes import Scopes
from graphrag.graph.symbols import SymbolTable
from graphrag.graph.types import Ent
from graphrag.parsing.model import ParseResult


def build_graph(results: list[ParseResult], unique_name_fallback: bool = False) -> Graph:
    """Resolve ``results`` (one per file) into nodes and edges.

    ``unique_name_fallback`` links a call that no rule resolves to the only
    function/method of that name in the repository (confidence 0.5). It is off by
    default: on the sample repositories its only edge was a false one (Go
    ``r.URL.Query().Get(...)`` linked to a repository method ``Get``)."""
    table = SymbolTable(results)
    scopes = Scopes(table)
    scopes.unique_name_fallback = unique_name_fallback
    edges = EdgeSet()
    nodes = table.all_nodes()
    _contains(nodes, edges)
    _imports(scopes, edges)
    resolve_heritage(scopes, edges)
    resolve_overrides(scopes, edges)
    unresolved = resolve_calls(scopes, edges)
    promote_endpoints(scopes, edges)
    for key, names in unresolved.items():
        table.by_key[key].meta["unresolved_calls"] = sorted(set(names))
    return Graph(nodes=nodes, edges=edges.sorted_edges())


def _contains(nodes: list[GraphNode], edges: EdgeSet) -> None:
    for node in nodes:
        if node.parent_key is not None:
            edges.add(node.parent_key, node.key, "CONTAINS")


def _imports(scopes: Scopes, edges: EdgeSet) -> None:
    """file -> imported file/package/symbol; external targets go to the file's meta."""
    table = scopes.table
    for scope in table.files.values():
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
        if external:
            scope.node.meta["external_imports"] = sorted(external)


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
