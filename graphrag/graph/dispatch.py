"""Calls through dynamic dispatch, read from the stored graph (no CALLS rows are added).

A call site is stored once, bound to the method the resolver saw (``param.add_to_parser``
with ``param: Parameter`` -> ``Parameter.add_to_parser``). At run time it may reach any
override. So:

- the callers of a method include the call sites bound to every method it overrides or
  implements (OVERRIDES edges, transitively), each with ``via`` = that method's fqn;
- the callees of a function include, for each call bound to an abstract or interface
  method, the implementations of that method, each with ``via`` = the abstract method.

Calls that cannot dispatch (``super().m()``, a static or constructor call) are not
carried to overrides. A call on the caller's own instance bound to an inherited method
(resolution ``self-inherited``: ``self.m()`` or a bare ``getLeft()`` in ``Diff``, bound to
``Pair.getLeft``) reaches only the overrides in the caller's class and below, not those
of its sibling classes (``MutablePair.getLeft``); a trait's or module's override still
counts (it may be mixed into the instance), and a call on another object of the family
(a decorator's ``inner.m()``) reaches them all.

Every read of callers and callees (``graph node``, the call trees, the HTTP and MCP node
reads, ``context``, the graph export) goes through :func:`call_neighbours`;
``static_only`` gives the stored edges alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection

from graphrag.graph import store
from graphrag.graph.store import Direction, Neighbour

# Resolutions of call sites bound to exactly one method, whatever the receiver's run-time
# class: explicit base calls, static members, constructors.
STATIC_RESOLUTIONS = frozenset({"super", "static", "constructor"})
# A call on the caller's own instance bound to a method a supertype declares.
SELF_INHERITED = "self-inherited"
# Types no instance of an unrelated class can take the methods of (a trait, an interface's
# default methods or a module can be mixed into one).
SEALED_KINDS = frozenset({"CLASS", "ENUM"})


def call_neighbours(conn: Connection, node_ids: Iterable[int], *,
                    direction: Direction = "both", app_ids: Sequence[int] | None = None,
                    static_only: bool = False) -> list[Neighbour]:
    """The CALLS neighbours of the nodes (as :func:`graphrag.graph.store.neighbours`),
    with the callers and callees that dispatch adds (``via`` set) unless
    ``static_only``. A node reached both ways is listed once, by its stored edge.

    Ordered by this node, then stored edges before dispatched ones, then the far node's
    fqn and id."""
    ids = sorted(set(node_ids))
    direct = store.neighbours(conn, ids, kinds=["CALLS"], direction=direction,
                              app_ids=app_ids)
    if static_only or not ids:
        return direct
    extra: list[Neighbour] = []
    if direction in ("in", "both"):
        extra += _callers_through_bases(conn, ids, app_ids)
    if direction in ("out", "both"):
        extra += _implementations_called(conn, [n for n in direct if n.outgoing])
    seen = {(n.this_id, n.outgoing, n.node_id) for n in direct}
    added: list[Neighbour] = []
    for n in extra:
        key = (n.this_id, n.outgoing, n.node_id)
        if key not in seen:
            seen.add(key)
            added.append(n)
    return sorted(direct + added, key=lambda n: (n.this_id, n.via is not None,
                                                 n.fqn is None, n.fqn or "", n.node_id,
                                                 n.edge_id))


def _callers_through_bases(conn: Connection, ids: list[int],
                           app_ids: Sequence[int] | None) -> list[Neighbour]:
    """Call sites bound to a method each node overrides, seen from the node."""
    bases = store.override_walk(conn, ids, up=True)
    if not bases:
        return []
    callers: dict[int, list[Neighbour]] = {}
    for n in store.neighbours(conn, {b.node_id for b in bases}, kinds=["CALLS"],
                              direction="in", app_ids=app_ids):
        if n.resolution not in STATIC_RESOLUTIONS:
            callers.setdefault(n.this_id, []).append(n)
    pairs = [(b, n) for b in bases for n in callers.get(b.node_id, [])]
    reach = _reachable(conn, [(n.node_id, b.node_id, b.start_id, n.resolution)
                              for b, n in pairs])
    return [n._replace(this_id=b.start_id, via=b.fqn)
            for (b, n), ok in zip(pairs, reach, strict=True) if ok]


def _implementations_called(conn: Connection, calls: list[Neighbour]) -> list[Neighbour]:
    """For each call bound to an abstract or interface method, its implementations."""
    if not calls:
        return []
    abstract = store.abstract_ids(conn, (n.node_id for n in calls))
    if not abstract:
        return []
    impls: dict[int, list[Any]] = {}
    for r in store.override_walk(conn, abstract, up=False):
        impls.setdefault(r.start_id, []).append(r)
    pairs = [(call, r) for call in calls if call.resolution not in STATIC_RESOLUTIONS
             for r in impls.get(call.node_id, [])]
    reach = _reachable(conn, [(call.this_id, call.node_id, r.node_id, call.resolution)
                              for call, r in pairs])
    return [call._replace(node_id=r.node_id, kind=r.kind, name=r.name, fqn=r.fqn,
                          file_path=r.file_path, line_start=r.line_start,
                          line_end=r.line_end, via=call.fqn)
            for (call, r), ok in zip(pairs, reach, strict=True) if ok]


def _reachable(conn: Connection, sites: list[tuple[int, int, int, str | None]]
               ) -> list[bool]:
    """For each (caller, bound method, override, resolution): whether the call can run
    the override. Not when the call is on the caller's own instance (``self-inherited``)
    and the override is a class's (``SEALED_KINDS``) that is neither the caller's class
    nor below it. An override in a trait, interface or module may still run: a mixin
    given at instantiation (``new A with T``) or to one object adds it to any instance."""
    own = [s for s in sites if s[3] == SELF_INHERITED]
    if not own:
        return [True] * len(sites)
    owners = store.type_owners(conn, {i for s in own for i in (s[0], s[2])})
    # only the overrides' types are asked whether they lie below the caller's
    ups = store.supertypes(conn, {owners[s[2]][0] for s in own if s[2] in owners})
    out = []
    for caller, _bound, override, resolution in sites:
        k, o = owners.get(caller), owners.get(override)
        out.append(resolution != SELF_INHERITED or k is None or o is None
                   or o[1] not in SEALED_KINDS or o[0] == k[0]
                   or k[0] in ups.get(o[0], ()))
    return out


def dispatched_calls(conn: Connection, app_id: int) -> list[Neighbour]:
    """Every call the application's stored CALLS edges reach through dispatch, seen from
    the overriding method (``this_id``; ``node_id`` is the caller): the graph export's
    extra edges."""
    overriders = store.overriding_ids(conn, app_id)
    return [n for n in call_neighbours(conn, overriders, direction="in", app_ids=[app_id])
            if n.via is not None]
