"""Groups of applications (tables ``app_groups``, ``app_group_members``): the
applications whose HTTP call sites and endpoints are linked with one another. Without
any group every application is linked with every other; once groups exist, an
application is linked with the members of its groups (and with itself)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from graphrag.errors import InvalidInput, NotFound


def add_group(conn: Connection, name: str, app_ids: Sequence[int]) -> list[int]:
    """Create group ``name`` or add the applications ``app_ids`` to it; the ids of its
    members."""
    name = name.strip()
    if not name:
        raise InvalidInput("a group needs a name")
    if not app_ids:
        raise InvalidInput("name at least one application to add to the group")
    group_id = conn.execute(text(
        "INSERT INTO app_groups (name) VALUES (:n) ON CONFLICT (name) DO UPDATE"
        " SET name = EXCLUDED.name RETURNING id"), {"n": name}).scalar_one()
    conn.execute(text(
        "INSERT INTO app_group_members (group_id, application_id)"
        " SELECT :g, unnest(CAST(:a AS bigint[])) ON CONFLICT DO NOTHING"),
        {"g": group_id, "a": sorted(set(app_ids))})
    return group_members(conn, name)


def remove_group(conn: Connection, name: str) -> list[int]:
    """Delete group ``name``; the ids of its former members."""
    members = group_members(conn, name)
    conn.execute(text("DELETE FROM app_groups WHERE name = :n"), {"n": name})
    return members


def group_members(conn: Connection, name: str) -> list[int]:
    """Ids of the applications of group ``name``; :class:`NotFound` when absent."""
    row = conn.execute(text("SELECT id FROM app_groups WHERE name = :n"), {"n": name}).first()
    if row is None:
        raise NotFound(f"unknown group: {name!r} (see `graphrag groups list`)")
    return [int(r[0]) for r in conn.execute(text(
        "SELECT application_id FROM app_group_members WHERE group_id = :g"
        " ORDER BY application_id"), {"g": row.id})]


def list_groups(conn: Connection) -> list[dict[str, Any]]:
    """Every group with the names of its applications."""
    return [{"name": r.name, "apps": list(r.apps or [])} for r in conn.execute(text(
        "SELECT g.name, array_remove(array_agg(a.name ORDER BY a.name), NULL) AS apps"
        "  FROM app_groups g LEFT JOIN app_group_members m ON m.group_id = g.id"
        "  LEFT JOIN applications a ON a.id = m.application_id"
        " GROUP BY g.name ORDER BY g.name"))]


def peers(conn: Connection, app_ids: Sequence[int]) -> dict[int, set[int]]:
    """Per application of ``app_ids``: the applications it is linked with (itself
    included): the members of its groups, or every application when there is no group."""
    if not app_ids:
        return {}
    every = conn.execute(text(
        "SELECT array_agg(id) FROM applications WHERE NOT EXISTS"
        " (SELECT 1 FROM app_groups)")).scalar_one()
    if every is not None:
        return {a: {int(i) for i in every} for a in app_ids}
    out: dict[int, set[int]] = {a: {a} for a in app_ids}
    for app, peer in conn.execute(text(
            "SELECT m.application_id, o.application_id FROM app_group_members m"
            "  JOIN app_group_members o ON o.group_id = m.group_id"
            " WHERE m.application_id = ANY(:a)"), {"a": list(app_ids)}):
        out[int(app)].add(int(peer))
    return out
