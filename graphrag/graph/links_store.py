"""Links from HTTP call sites to ENDPOINTs (table ``http_links``): computed by
:func:`graphrag.graph.links.match_site` over the applications each site's application
is linked with (:func:`graphrag.db.groups_store.peers`), written as a diff, and read for the
surfaces (``graph links``, a node's remote callers, the endpoints a function calls).

Re-linking is incremental: after an index run of one application only its sites are
matched again, and when its endpoints changed the sites of the applications linked
with it too; a site's stored links are compared with the new ones and only the
difference is written."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, text

from graphrag.db.groups_store import peers
from graphrag.graph.links import Endpoint, EndpointIndex, Link, Site, match_site


def endpoint_signature(conn: Connection, app_id: int) -> list[tuple[Any, ...]]:
    """What linking reads of an application's endpoints (compare before and after a
    run to know whether the sites of other applications must be matched again)."""
    return [tuple(r) for r in conn.execute(text(
        "SELECT id, meta->>'http_method', meta->>'route' FROM nodes"
        " WHERE application_id = :a AND kind = 'ENDPOINT' ORDER BY id"), {"a": app_id})]


def relink(conn: Connection, app_id: int, sites_changed: bool,
           before: Sequence[tuple[Any, ...]] | None,
           after: Sequence[tuple[Any, ...]]) -> int:
    """Match again what a change of application ``app_id`` can reach: its own sites
    when they changed, and the sites (of every application linked with it) whose path
    may match an endpoint that appeared, changed or went (``before`` and ``after`` are
    :func:`endpoint_signature`; ``before`` None: anything may have changed). Returns the
    number of link rows written or deleted."""
    changed = None if before is None else set(before) ^ set(after)
    if changed is not None and not changed and not sites_changed:
        return 0
    site_apps = [app_id] if changed is not None and not changed else sorted(
        peers(conn, [app_id])[app_id])
    sites = _sites(conn, site_apps)
    if changed is not None:
        probe = EndpointIndex(_probe(app_id, changed))
        sites = [s for s in sites if (s.app_id == app_id and sites_changed)
                 or probe.may_match(s)]
    return _match(conn, sites)


def relink_apps(conn: Connection, app_ids: Sequence[int]) -> int:
    """Match every site of the applications ``app_ids`` again; the number of link rows
    written or deleted."""
    return _match(conn, _sites(conn, app_ids)) if app_ids else 0


def _match(conn: Connection, sites: list[Site]) -> int:
    if not sites:
        return 0
    linked = peers(conn, sorted({s.app_id for s in sites}))
    index = EndpointIndex(_endpoints(conn, sorted({p for ps in linked.values() for p in ps})))
    desired = {}
    for site in sites:
        for link in match_site(site, index, linked[site.app_id]):
            desired[(link.call_id, link.endpoint_id)] = link
    return _write(conn, [s.id for s in sites], desired)


def _probe(app_id: int, rows: Iterable[tuple[Any, ...]]) -> Iterable[Endpoint]:
    for node_id, _methods, route in rows:
        if route is not None:
            yield Endpoint(int(node_id), app_id, "", frozenset(), route, None)


def _endpoints(conn: Connection, app_ids: Sequence[int]) -> Iterable[Endpoint]:
    for r in conn.execute(text(
            "SELECT n.id, n.application_id, a.name, n.meta->>'http_method' AS methods,"
            " n.meta->>'route' AS route, n.file_path, n.fqn FROM nodes n"
            "  JOIN applications a ON a.id = n.application_id"
            " WHERE n.application_id = ANY(:a) AND n.kind = 'ENDPOINT'"
            "   AND n.meta->>'route' IS NOT NULL"), {"a": list(app_ids)}):
        methods = frozenset(m.strip().upper() for m in (r.methods or "ANY").split(","))
        yield Endpoint(int(r.id), int(r.application_id), r.name, methods, r.route,
                       r.file_path, r.fqn or "")


def _sites(conn: Connection, app_ids: Sequence[int]) -> list[Site]:
    return [Site(int(r.id), int(r.application_id), r.method, r.path, r.base, r.service)
            for r in conn.execute(text(
                "SELECT id, application_id, method, path, base, service FROM http_calls"
                " WHERE application_id = ANY(:a)"), {"a": list(app_ids)})]


def _write(conn: Connection, call_ids: list[int],
           desired: dict[tuple[int, int], Link]) -> int:
    """Make the stored links of the sites ``call_ids`` those of ``desired``."""
    stored = {(int(r.call_id), int(r.endpoint_id)): (int(r.id), float(r.confidence), r.reason)
              for r in conn.execute(text(
                  "SELECT id, call_id, endpoint_id, confidence, reason FROM http_links"
                  " WHERE call_id = ANY(:c)"), {"c": call_ids})}
    gone = [row[0] for key, row in stored.items() if key not in desired]
    changed = [(row[0], desired[key]) for key, row in stored.items() if key in desired
               and (abs(row[1] - desired[key].confidence) > 1e-6
                    or row[2] != desired[key].reason)]
    new = [link for key, link in desired.items() if key not in stored]
    if gone:
        conn.execute(text("DELETE FROM http_links WHERE id = ANY(:ids)"), {"ids": gone})
    if changed:
        conn.execute(text(
            "UPDATE http_links l SET confidence = c.conf, reason = c.reason"
            "  FROM unnest(CAST(:i AS bigint[]), CAST(:c AS real[]), CAST(:r AS text[]))"
            "    AS c(id, conf, reason) WHERE l.id = c.id"),
            {"i": [i for i, _ in changed], "c": [link.confidence for _, link in changed],
             "r": [link.reason for _, link in changed]})
    if new:
        # one statement for the batch (executemany sends one per row)
        conn.execute(text(
            "INSERT INTO http_links (call_id, endpoint_id, application_id, endpoint_app_id,"
            " confidence, reason) SELECT * FROM unnest(CAST(:c AS bigint[]),"
            " CAST(:e AS bigint[]), CAST(:a AS bigint[]), CAST(:ea AS bigint[]),"
            " CAST(:conf AS real[]), CAST(:r AS text[]))"),
            {"c": [k.call_id for k in new], "e": [k.endpoint_id for k in new],
             "a": [k.app_id for k in new], "ea": [k.endpoint_app_id for k in new],
             "conf": [k.confidence for k in new], "r": [k.reason for k in new]})
    return len(gone) + len(changed) + len(new)


_LINK_COLUMNS = (
    "ca.name AS caller_app, c.id AS caller_id, c.kind AS caller_kind, c.fqn AS caller,"
    " h.file_path, h.line, h.client, h.path,"
    " h.method, h.url, ea.name AS endpoint_app, e.fqn AS endpoint,"
    " e.meta->>'http_method' AS endpoint_method, e.meta->>'route' AS route,"
    " l.confidence, l.reason")
_LINK_FROM = (
    "  FROM http_links l JOIN http_calls h ON h.id = l.call_id"
    "  JOIN nodes c ON c.id = h.caller_id JOIN nodes e ON e.id = l.endpoint_id"
    "  JOIN applications ca ON ca.id = l.application_id"
    "  JOIN applications ea ON ea.id = l.endpoint_app_id")


def list_links(conn: Connection, visible: Collection[int] | None = None,
               apps: Collection[int] | None = None, both: Collection[int] | None = None,
               ) -> list[dict[str, Any]]:
    """Every link (caller app and function, method, URL, endpoint app and function,
    route, confidence, reason) whose two applications are ``visible`` (None: all), with
    one side in ``apps`` and both in ``both`` when given."""
    where, params = _scope("l.application_id", "l.endpoint_app_id", visible, apps, both)
    return [dict(r) for r in conn.execute(text(
        f"SELECT {_LINK_COLUMNS}{_LINK_FROM} WHERE true{where}"
        " ORDER BY ca.name, h.file_path, h.line, ea.name, e.fqn"), params).mappings()]


def unmatched_sites(conn: Connection, visible: Collection[int] | None = None,
                    apps: Collection[int] | None = None) -> list[dict[str, Any]]:
    """The call sites linked to no endpoint (a request to a host outside the indexed
    applications, or to a route none of them serves)."""
    where, params = _scope("h.application_id", "h.application_id", visible, apps, None)
    return [dict(r) for r in conn.execute(text(
        "SELECT a.name AS caller_app, c.fqn AS caller, h.file_path, h.line, h.client,"
        " h.method, h.url FROM http_calls h JOIN nodes c ON c.id = h.caller_id"
        "  JOIN applications a ON a.id = h.application_id"
        " WHERE NOT EXISTS (SELECT 1 FROM http_links l WHERE l.call_id = h.id)"
        f"{where} ORDER BY a.name, h.file_path, h.line"), params).mappings()]


def remote_callers(conn: Connection, endpoint_ids: Sequence[int],
                   visible: Collection[int] | None = None) -> dict[int, list[dict[str, Any]]]:
    """Per ENDPOINT node id: the call sites linked to it (caller app and function,
    file, line, method, URL, confidence, reason)."""
    where, params = _scope("l.application_id", "l.endpoint_app_id", visible, None, None)
    params["ids"] = list(endpoint_ids)
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in conn.execute(text(
            f"SELECT l.endpoint_id, {_LINK_COLUMNS}{_LINK_FROM}"
            f" WHERE l.endpoint_id = ANY(:ids){where}"
            " ORDER BY ca.name, h.file_path, h.line"), params).mappings():
        row = dict(r)
        out[int(row.pop("endpoint_id"))].append(row)
    return dict(out)


def endpoints_called(conn: Connection, caller_ids: Sequence[int],
                     visible: Collection[int] | None = None
                     ) -> dict[int, list[dict[str, Any]]]:
    """Per calling node id: the requests it sends, each with the endpoint it reaches
    (None fields when it reaches none of the indexed ones)."""
    where, params = _scope("h.application_id", "coalesce(l.endpoint_app_id,"
                           " h.application_id)", visible, None, None)
    params["ids"] = list(caller_ids)
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in conn.execute(text(
            "SELECT h.caller_id, h.line, h.client, h.method, h.url, ea.name AS endpoint_app,"
            " e.id AS endpoint_id, e.fqn AS endpoint, e.meta->>'http_method' AS"
            " endpoint_method, e.meta->>'route' AS route, e.file_path AS endpoint_file,"
            " e.line_start AS endpoint_line, l.confidence, l.reason"
            "  FROM http_calls h LEFT JOIN http_links l ON l.call_id = h.id"
            "  LEFT JOIN nodes e ON e.id = l.endpoint_id"
            "  LEFT JOIN applications ea ON ea.id = l.endpoint_app_id"
            f" WHERE h.caller_id = ANY(:ids){where} ORDER BY h.line, e.fqn"),
            params).mappings():
        row = dict(r)
        out[int(row.pop("caller_id"))].append(row)
    return dict(out)


def _scope(src: str, dst: str, visible: Collection[int] | None,
           apps: Collection[int] | None, both: Collection[int] | None
           ) -> tuple[str, dict[str, Any]]:
    where, params = "", {}
    if visible is not None:
        where += f" AND {src} = ANY(:vis) AND {dst} = ANY(:vis)"
        params["vis"] = sorted(visible)
    if apps is not None:
        where += f" AND ({src} = ANY(:apps) OR {dst} = ANY(:apps))"
        params["apps"] = sorted(apps)
    if both is not None:
        where += f" AND {src} = ANY(:both) AND {dst} = ANY(:both)"
        params["both"] = sorted(both)
    return where, params


def relink_every(conn: Connection) -> int:
    """Match the sites of every application again (after a change of the groups)."""
    return relink_apps(conn, [int(r[0]) for r in conn.execute(text(
        "SELECT id FROM applications ORDER BY id"))])

