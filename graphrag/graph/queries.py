"""Read-side queries over the stored graph (`graphrag graph node`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import Connection

from graphrag.db.context import AppContext
from graphrag.graph import store
from graphrag.graph.dispatch import call_neighbours
from graphrag.graph.lookup import resolve_name
from graphrag.graph.service_links import add_node_links
from graphrag.graph.unresolved_store import counts_by_name, sites_named

# (label, edge kind, outgoing) of each relation `graphrag graph node` lists, in order.
_RELATIONS = (("callees", "CALLS", True), ("callers", "CALLS", False),
              ("children", "CONTAINS", True), ("parents", "CONTAINS", False),
              ("extends", "EXTENDS", True), ("implements", "IMPLEMENTS", True),
              ("subtypes", "EXTENDS", False), ("subtypes", "IMPLEMENTS", False),
              ("overrides", "OVERRIDES", True))


def find_nodes(conn: Connection, app_id: int, fqn: str) -> list[dict[str, Any]]:
    """The nodes ``fqn`` names (:func:`graphrag.graph.lookup.resolve_name`: the exact
    fqn, every overload of a plain fqn, a re-exported or unique short name);
    raises :class:`~graphrag.errors.UnknownSymbol` with the closest names otherwise."""
    return store.nodes_by_id(conn, resolve_name(conn, app_id, fqn))


def node_details(ctx: AppContext, fqn: str, static_only: bool = False,
                 unresolved: bool = False, visible: Collection[str] | None = None
                 ) -> list[dict[str, Any]]:
    """Each node ``fqn`` names, with its callers, callees, parents and children; the
    other overloads of an implementation (``@overload`` stubs, ``TYPE_CHECKING``
    definitions) are in ``meta["overloads"]``.

    Callers and callees include those dispatch adds (:mod:`graphrag.graph.dispatch`:
    ``via`` names the method the call site is bound to) unless ``static_only``.
    ``unresolved_callers`` counts the call sites of the node's name the resolver could
    not bind (each may be a caller; ``callers_complete`` when there is none), listed in
    ``unresolved_sites`` with ``unresolved``. An ENDPOINT has ``remote_callers`` (the
    HTTP call sites linked to it) and every node ``requests`` (the HTTP requests its code
    sends, with the endpoints they reach), among the applications ``visible`` (None:
    any)."""
    with ctx.engine.connect() as conn:
        return details(conn, ctx.app_id, fqn, static_only, unresolved, visible)


def details(conn: Connection, app_id: int, fqn: str, static_only: bool = False,
            unresolved: bool = False, visible: Collection[str] | None = None
            ) -> list[dict[str, Any]]:
    """:func:`node_details` on an open connection."""
    found = find_nodes(conn, app_id, fqn)
    ids = [n["id"] for n in found]
    kinds = sorted({kind for _, kind, _ in _RELATIONS} - {"CALLS"})
    near = store.neighbours(conn, ids, kinds=kinds) + call_neighbours(
        conn, ids, static_only=static_only)
    for node in found:
        mine = [n for n in near if n.this_id == node["id"]]
        for label, kind, outgoing in _RELATIONS:
            node.setdefault(label, []).extend(
                _related(n) for n in mine if n.edge_kind == kind and n.outgoing == outgoing)
    missed = counts_by_name(conn, app_id, [n["name"] for n in found if n["name"]])
    for node in found:
        node["unresolved_callers"] = missed.get(node["name"], 0)
        node["callers_complete"] = node["unresolved_callers"] == 0
        if unresolved:
            node["unresolved_sites"] = sites_named(conn, app_id, node["name"]) \
                if node["unresolved_callers"] else []
    add_node_links(conn, found, visible)
    return found


def _related(n: store.Neighbour) -> dict[str, Any]:
    return {"id": n.node_id, "kind": n.kind, "name": n.name, "fqn": n.fqn,
            "file_path": n.file_path, "line_start": n.line_start, "line_end": n.line_end,
            "confidence": n.confidence, "resolution": n.resolution, "lines": list(n.lines),
            "via": n.via}
