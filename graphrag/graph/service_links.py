"""Services of the links between applications: `graphrag graph links`, `graphrag groups`,
the remote callers of an ENDPOINT and the requests a function sends (``graph node``,
``context``, the servers). ``visible`` is the set of application names a caller may use
(None: any): a link is shown only when both of its applications are visible."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Connection, Engine

from graphrag.db.apps import app_ids
from graphrag.db.context import AppScope
from graphrag.db.groups_store import add_group, list_groups, remove_group
from graphrag.graph.links_store import (
    endpoints_called,
    list_links,
    relink_every,
    remote_callers,
    unmatched_sites,
)
from graphrag.graph.store import Neighbour


def links_report(scope: AppScope, *, visible: Collection[str] | None = None
                 ) -> dict[str, Any]:
    """The links (one row each: caller application and function, method, URL, endpoint
    application and function, route, confidence, reason) from or to the scope's
    applications, both ends within its group when it has one, and their call sites that
    reach no indexed endpoint."""
    with scope.engine.connect() as conn:
        vis = _visible_ids(conn, visible)
        both = list(scope.group_ids) if scope.group is not None else None
        return {"links": list_links(conn, vis, scope.app_ids, both),
                "unmatched": unmatched_sites(conn, vis, scope.app_ids)}


def add_to_group(scope: AppScope, name: str) -> dict[str, Any]:
    """Add the scope's applications to group ``name`` (created when new) and link again
    what the group changes; the group with its members."""
    with scope.engine.begin() as conn:
        add_group(conn, name, scope.app_ids)
        relink_every(conn)
    return next(g for g in groups(scope.engine) if g["name"] == name)


def drop_group(engine: Engine, name: str) -> dict[str, Any]:
    """Delete group ``name`` and link again without it."""
    with engine.begin() as conn:
        remove_group(conn, name)
        relink_every(conn)
    return {"deleted": name}


def groups(engine: Engine) -> list[dict[str, Any]]:
    """Every group with its applications."""
    with engine.connect() as conn:
        return list_groups(conn)


def add_node_links(conn: Connection, nodes: list[dict[str, Any]],
                   visible: Collection[str] | None = None) -> None:
    """Each node (dicts with ``id`` and ``kind``) with ``remote_callers`` (an ENDPOINT:
    the call sites linked to it, in any visible application) and ``requests`` (the HTTP
    requests its code sends, each with the endpoint it reaches, if any)."""
    if not nodes:
        return
    vis = _visible_ids(conn, visible)
    ids = [int(n["id"]) for n in nodes]
    callers = remote_callers(conn, [i for i, n in zip(ids, nodes, strict=True)
                                    if n.get("kind") == "ENDPOINT"], vis)
    sent = endpoints_called(conn, ids, vis)
    for node_id, node in zip(ids, nodes, strict=True):
        if node.get("kind") == "ENDPOINT":
            node["remote_callers"] = callers.get(node_id, [])
        node["requests"] = sent.get(node_id, [])


def _visible_ids(conn: Connection, visible: Collection[str] | None) -> list[int] | None:
    return None if visible is None else app_ids(conn, visible)


def add_service_hops(conn: Connection, tree: dict[str, Any],
                     visible: Collection[str] | None = None) -> None:
    """Nodes of a call tree (:func:`graphrag.graph.navigation.call_tree`) with
    ``requests`` (callees: the HTTP requests each sends and the endpoint each reaches,
    in whichever application) or ``remote_callers`` (callers: the call sites of other
    services that reach each ENDPOINT): the tree goes on across services."""
    nodes: list[dict[str, Any]] = []
    stack = list(tree.get("roots", []))
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.get("children", []))
    if not nodes:
        return
    vis = _visible_ids(conn, visible)
    ids = sorted({int(n["id"]) for n in nodes})
    if tree.get("direction") == "callers":
        found = remote_callers(conn, ids, vis)
        for node in nodes:
            if found.get(int(node["id"])):
                node["remote_callers"] = found[int(node["id"])]
    else:
        found = endpoints_called(conn, ids, vis)
        for node in nodes:
            if found.get(int(node["id"])):
                node["requests"] = found[int(node["id"])]


def http_neighbours(conn: Connection, node_ids: Sequence[int],
                    visible: Collection[str] | None = None) -> list[Neighbour]:
    """The HTTP links of the nodes as relations (edge kind ``HTTP``, not stored as an
    edge): outgoing to the endpoints their requests reach, incoming from the code of
    other services whose requests reach them; the label names the application, the
    method and the URL (a context lists them beside calls and callers)."""
    if not node_ids:
        return []
    vis = _visible_ids(conn, visible)
    out: list[Neighbour] = []
    for this_id, rows in endpoints_called(conn, node_ids, vis).items():
        for r in rows:
            if r["endpoint_id"] is None:
                continue
            label = (f"{r['endpoint_app']}: {r['endpoint']}"
                     f" ({r['method'] or '?'} {r['url']})")
            out.append(Neighbour(this_id, True, 0, "HTTP", int(r["endpoint_id"]), "ENDPOINT",
                                 None, label, r["endpoint_file"], r["endpoint_line"],
                                 r["endpoint_line"], float(r["confidence"]), r["reason"],
                                 (r["line"],)))
    for this_id, rows in remote_callers(conn, node_ids, vis).items():
        for r in rows:
            label = f"{r['caller_app']}: {r['caller']} ({r['method'] or '?'} {r['url']})"
            out.append(Neighbour(this_id, False, 0, "HTTP", int(r["caller_id"]),
                                 r["caller_kind"], None, label, r["file_path"], r["line"],
                                 r["line"], float(r["confidence"]), r["reason"],
                                 (r["line"],)))
    return out
