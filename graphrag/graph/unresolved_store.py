"""The call sites the resolver could not bind (table ``unresolved_calls``): written with
the nodes and edges of each run, read to say whether a node's callers are complete and
how many call sites each language's code resolves.

One row per site: caller node, file, called name, receiver as written, line and reason
(:data:`graphrag.graph.calls.REASONS`). A run diffs the rows of the files whose graph
rows it rebuilt (all of them for a whole-graph sync) against the sites the same per-file
resolutions as the edges give, so an incremental run leaves what a full run writes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, text

from graphrag.db.copy_text import copy_rows
from graphrag.db.row_diff import diff_rows
from graphrag.graph.model import UnresolvedCall

_COPY = ("COPY unresolved_calls (application_id, caller_id, file_path, name, receiver,"
         " line, reason) FROM STDIN")


def write_unresolved(conn: Connection, app_id: int, sites: Iterable[UnresolvedCall],
                     paths: set[str] | None) -> None:
    """Make the stored sites of the files ``paths`` (None: of the whole application)
    those of ``sites`` (those files' sites; callers are nodes already written): the
    stored rows are read and only what differs is deleted or inserted, so a run that
    changes nothing writes nothing."""
    where, params = " AND u.file_path = ANY(:p)", {"a": app_id, "p": sorted(paths or ())}
    if paths is None:
        where = ""
    elif not paths:
        return
    stored: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for r in conn.execute(text(
            "SELECT u.id, c.stable_key, u.file_path, u.name, u.receiver, u.line, u.reason"
            "  FROM unresolved_calls u JOIN nodes c ON c.id = u.caller_id"
            f" WHERE u.application_id = :a{where}"), params).all():
        stored[tuple(r[1:])].append(int(r[0]))
    new, gone = diff_rows(stored, sites, key=tuple)
    if gone:
        conn.execute(text("DELETE FROM unresolved_calls WHERE id = ANY(:ids)"), {"ids": gone})
    if not new:
        return
    keys = dict(conn.execute(text(
        "SELECT stable_key, id FROM nodes WHERE application_id = :a"
        " AND stable_key = ANY(:k)"),
        {"a": app_id, "k": sorted({s.caller_key for s in new})}).all())
    cur = conn.connection.driver_connection.cursor()
    copy_rows(cur, _COPY, ((app_id, keys[s.caller_key], s.file_path, s.name, s.receiver,
                            s.line, s.reason) for s in new if s.caller_key in keys))


# A site whose name or receiver the resolver found outside the repository calls none of
# its nodes: it does not make a node's callers incomplete.
_MAY_CALL = "reason <> 'external'"


def counts_by_name(conn: Connection, app_id: int, names: Sequence[str]) -> dict[str, int]:
    """How many unresolved call sites of the application may call each of ``names``
    (sites found to call something outside the repository are not counted)."""
    if not names:
        return {}
    return {r.name: int(r.n) for r in conn.execute(text(
        "SELECT name, count(*) AS n FROM unresolved_calls WHERE application_id = :a"
        f" AND name = ANY(:n) AND {_MAY_CALL} GROUP BY name"),
        {"a": app_id, "n": sorted(set(names))})}


def sites_named(conn: Connection, app_id: int, name: str, limit: int = 50
                ) -> list[dict[str, Any]]:
    """The unresolved call sites that may call ``name``: caller, file, line, receiver,
    reason (in file and line order, at most ``limit``)."""
    return [dict(r) for r in conn.execute(text(
        "SELECT c.fqn AS caller, u.file_path, u.line, u.receiver, u.reason"
        "  FROM unresolved_calls u JOIN nodes c ON c.id = u.caller_id"
        f" WHERE u.application_id = :a AND u.name = :n AND u.{_MAY_CALL}"
        " ORDER BY u.file_path, u.line NULLS LAST, c.fqn LIMIT :lim"),
        {"a": app_id, "n": name, "lim": limit}).mappings()]


def resolved_share(conn: Connection, app_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Per application and caller language: call sites resolved (distinct caller and
    line of the CALLS edges), unresolved ones (by reason) and the resolved share of the
    sites that name something in scope (``external`` ones are outside the repository and
    not counted against it)."""
    out: dict[int, dict[str, Any]] = {}
    if not app_ids:
        return out
    params = {"a": list(app_ids)}
    resolved = conn.execute(text(
        "SELECT e.application_id AS app, n.lang, count(DISTINCT (e.src_id, l.line)) AS n"
        "  FROM edges e JOIN nodes n ON n.id = e.src_id"
        " CROSS JOIN LATERAL unnest(e.lines) AS l(line)"
        " WHERE e.application_id = ANY(:a) AND e.kind = 'CALLS' AND n.lang IS NOT NULL"
        " GROUP BY e.application_id, n.lang"), params).all()
    missed = conn.execute(text(
        "SELECT u.application_id AS app, n.lang, u.reason, count(*) AS n"
        "  FROM unresolved_calls u JOIN nodes n ON n.id = u.caller_id"
        " WHERE u.application_id = ANY(:a) AND n.lang IS NOT NULL"
        " GROUP BY u.application_id, n.lang, u.reason"), params).all()
    langs: dict[int, dict[str, dict[str, Any]]] = {}
    for r in resolved:
        langs.setdefault(r.app, {}).setdefault(r.lang, {"resolved": 0, "unresolved": {}})
        langs[r.app][r.lang]["resolved"] = int(r.n)
    for r in missed:
        entry = langs.setdefault(r.app, {}).setdefault(
            r.lang, {"resolved": 0, "unresolved": {}})
        entry["unresolved"][r.reason] = int(r.n)
    for app, by_lang in langs.items():
        for entry in by_lang.values():
            inside = sum(n for reason, n in entry["unresolved"].items() if reason != "external")
            total = entry["resolved"] + inside
            entry["share"] = round(entry["resolved"] / total, 3) if total else None
        out[app] = dict(sorted(by_lang.items()))
    return out


def add_call_shares(engine: Engine, apps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``apps`` (dicts with ``id``, as ``apps``/``db status`` list them) each with
    ``calls``: :func:`resolved_share` of its code, by language."""
    with engine.connect() as conn:
        shares = resolved_share(conn, [int(a["id"]) for a in apps if a.get("id") is not None])
    for app in apps:
        app["calls"] = shares.get(app.get("id"), {})
    return apps

