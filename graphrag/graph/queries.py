"""Read-side queries over the stored graph (`graphrag graph node`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text

from graphrag.graph.lookup import resolve_name

_BRIEF = "n.id, n.kind, n.name, n.fqn, n.file_path, n.line_start, n.line_end"


_COLUMNS = (f"{_BRIEF}, n.signature, n.doc_comment, n.package_name, n.lang, n.rank, n.meta,"
            " n.parent_id")


def find_nodes(conn: Connection, app_id: int, fqn: str) -> list[dict[str, Any]]:
    """The nodes ``fqn`` names (:func:`graphrag.graph.lookup.resolve_name`: the exact
    fqn, every overload of a plain Java/Kotlin fqn, a re-exported or unique short name);
    raises :class:`~graphrag.errors.UnknownSymbol` with the closest names otherwise."""
    ids = resolve_name(conn, app_id, fqn)
    rows = conn.execute(text(
        f"SELECT {_COLUMNS} FROM nodes n WHERE n.id = ANY(:ids)"
        " ORDER BY n.line_start NULLS LAST, n.id"), {"ids": ids}).mappings().all()
    return [dict(r) for r in rows]


def node_details(conn: Connection, app_id: int, fqn: str) -> list[dict[str, Any]]:
    """Each node ``fqn`` names, with its callers, callees, parents and children; the
    other overloads of a Python implementation (``@overload`` stubs, ``TYPE_CHECKING``
    definitions) are in ``meta["overloads"]``."""
    found = find_nodes(conn, app_id, fqn)
    for node in found:
        nid = node["id"]
        node["callees"] = _related(conn, nid, "CALLS", outgoing=True)
        node["callers"] = _related(conn, nid, "CALLS", outgoing=False)
        node["children"] = _related(conn, nid, "CONTAINS", outgoing=True)
        node["parents"] = _related(conn, nid, "CONTAINS", outgoing=False)
        node["extends"] = _related(conn, nid, "EXTENDS", outgoing=True)
        node["implements"] = _related(conn, nid, "IMPLEMENTS", outgoing=True)
        node["subtypes"] = (_related(conn, nid, "EXTENDS", outgoing=False)
                            + _related(conn, nid, "IMPLEMENTS", outgoing=False))
        node["overrides"] = _related(conn, nid, "OVERRIDES", outgoing=True)
    return found


def _related(conn: Connection, node_id: int, kind: str, *, outgoing: bool) -> list[dict]:
    near, far = ("src_id", "dst_id") if outgoing else ("dst_id", "src_id")
    return [dict(r) for r in conn.execute(text(
        f"SELECT {_BRIEF}, e.confidence, e.resolution, e.lines FROM edges e"
        f" JOIN nodes n ON n.id = e.{far} WHERE e.{near} = :id AND e.kind = :k"
        " ORDER BY n.fqn, n.id"), {"id": node_id, "k": kind}).mappings()]
