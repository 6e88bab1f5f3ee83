"""The nodes and edges store: every read of the stored graph outside its write path.

The graph's writes are in :mod:`graphrag.graph.sync` (the diffed sync of one run) and
:mod:`graphrag.graph.index_state`; everything that reads nodes or edges afterwards --
name lookup, ``graphrag graph``, the navigation walks, chunk planning, the stages and
context building -- asks this module. One record for an edge seen from one of its ends
(:class:`Neighbour`) and one query for "the neighbours of these nodes"
(:func:`neighbours`), batched over the whole set of nodes, never one query per node.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from sqlalchemy import Connection, text

from graphrag.kinds import TYPE_KINDS

Direction = Literal["out", "in", "both"]


@dataclass(frozen=True, slots=True)
class NodeRecord:
    """One stored node as its readers see it: chunk planning (``chunking``: package,
    parent and rank), the stages (``pipeline``: the parent's kind and fqn, and a document
    unit's text slice) read the columns they need; the rest keep their defaults."""

    id: int
    kind: str
    name: str | None
    fqn: str | None
    file_path: str | None
    lang: str | None
    line_start: int | None
    line_end: int | None
    signature: str | None
    doc_comment: str | None
    content_hash: str | None
    meta: dict[str, Any] = field(default_factory=dict)
    package_name: str | None = None
    parent_id: int | None = None
    rank: float = 0.0
    parent_kind: str | None = None
    parent_fqn: str | None = None
    # document units: the chunk's span of ``meta.text`` and the text's length (the text
    # itself is not loaded with every chunk, see ``pipeline.store``)
    text_slice: str | None = None
    text_length: int | None = None
    # character offsets of the node's source in its file's text (end exclusive): chunk
    # planning cuts a symbol out of a long line by them
    char_start: int | None = None
    char_end: int | None = None

    @property
    def span(self) -> tuple[int, int] | None:
        if self.line_start is None or self.line_end is None:
            return None
        return (self.line_start, max(self.line_start, self.line_end))


class Neighbour(NamedTuple):
    """One edge seen from one of its ends (``this_id``): the node at the other end, the
    edge's kind, direction (``outgoing``: ``this_id`` is the source), confidence,
    resolution method and call-site lines. A named tuple: batches of thousands are
    built per page of chunk planning, and a tuple costs a fraction of a dataclass."""

    this_id: int
    outgoing: bool
    edge_id: int
    edge_kind: str
    node_id: int
    kind: str | None
    name: str | None
    fqn: str | None
    file_path: str | None
    line_start: int | None
    line_end: int | None
    confidence: float
    resolution: str | None
    lines: tuple[int, ...]
    # a call seen through dynamic dispatch (graph.dispatch): the fqn of the method the
    # call site is bound to (a caller of an override through its base) or of the
    # abstract method whose implementation this is; None for the stored edge itself
    via: str | None = None

    @property
    def label(self) -> str:
        return self.fqn or self.name or f"node {self.node_id}"

    @property
    def location(self) -> str | None:
        if not self.file_path:
            return None
        return f"{self.file_path}:{self.line_start}" if self.line_start else self.file_path

    @property
    def src_id(self) -> int:
        return self.this_id if self.outgoing else self.node_id

    @property
    def dst_id(self) -> int:
        return self.node_id if self.outgoing else self.this_id


# Columns in Neighbour's order; ``lines`` last (made a tuple here).
_SIDE = """
SELECT e.{this} AS this_id, {outgoing} AS outgoing, e.id AS edge_id, e.kind AS edge_kind,
       e.{other} AS node_id, {far}, e.confidence, e.resolution, e.lines
  FROM edges e{join}
 WHERE e.{this} = ANY(:ids){kinds}{apps}
"""
_FAR = "o.kind, o.name, o.fqn, o.file_path, o.line_start, o.line_end"
_NO_FAR = ("NULL AS kind, NULL AS name, NULL AS fqn, NULL AS file_path,"
           " NULL AS line_start, NULL AS line_end")


def neighbours(conn: Connection, node_ids: Iterable[int], *,
               kinds: Iterable[str] | None = None, direction: Direction = "both",
               app_ids: Sequence[int] | None = None, far: bool = True) -> list[Neighbour]:
    """Every edge of the given kinds (None: all) leaving (``out``), entering (``in``) or
    touching (``both``) the nodes, seen from the node in ``node_ids``, with the node at
    the other end (``far=False``: its id only, the other fields None, for a caller that
    needs the edges alone); ``app_ids`` restricts the edges to those applications.

    Ordered by this node, edge kind, the other node's fqn (nulls last) and id, then edge
    id. An edge between two of the given nodes comes once from each end when
    ``direction`` is ``both``."""
    ids = sorted(set(node_ids))
    if not ids:
        return []
    kind_list = None if kinds is None else list(kinds)
    # The clauses are constants; the values are parameters.
    shape = {"kinds": "" if kind_list is None else " AND e.kind = ANY(:kinds)",
             "apps": "" if app_ids is None else " AND e.application_id = ANY(:apps)",
             "far": _FAR if far else _NO_FAR}
    sides = []
    if direction in ("out", "both"):
        sides.append(_SIDE.format(this="src_id", other="dst_id", outgoing="true",
                                  join=" JOIN nodes o ON o.id = e.dst_id" if far else "",
                                  **shape))
    if direction in ("in", "both"):
        sides.append(_SIDE.format(this="dst_id", other="src_id", outgoing="false",
                                  join=" JOIN nodes o ON o.id = e.src_id" if far else "",
                                  **shape))
    order = "fqn, node_id, edge_id" if far else "edge_id"
    sql = " UNION ALL ".join(sides) + f" ORDER BY this_id, edge_kind, {order}"
    rows = conn.execute(text(sql), {"ids": ids, "kinds": kind_list or [],
                                    "apps": list(app_ids or [])}).all()
    make = Neighbour._make
    return [make((*r[:13], tuple(r[13]) if r[13] else (), None)) for r in rows]


# The methods an overriding method reaches through OVERRIDES edges (``up``: the methods it
# overrides, transitively) or that reach it (``down``: its overrides, transitively). Depth
# bounded: a cycle (corrupt input) ends instead of looping.
_OVERRIDE_WALK = """
WITH RECURSIVE walk(start_id, node_id, depth) AS (
    SELECT e.{near}, e.{far}, 1 FROM edges e
     WHERE e.kind = 'OVERRIDES' AND e.{near} = ANY(:ids)
    UNION
    SELECT w.start_id, e.{far}, w.depth + 1 FROM walk w
      JOIN edges e ON e.kind = 'OVERRIDES' AND e.{near} = w.node_id
     WHERE w.depth < :max_depth
)
SELECT DISTINCT ON (w.start_id, w.node_id) w.start_id, w.node_id, w.depth,
       o.kind, o.name, o.fqn, o.file_path, o.line_start, o.line_end
  FROM walk w JOIN nodes o ON o.id = w.node_id
 ORDER BY w.start_id, w.node_id, w.depth
"""
MAX_OVERRIDE_DEPTH = 16


def override_walk(conn: Connection, node_ids: Iterable[int], up: bool) -> list[Any]:
    """``(start_id, node_id, depth, kind, name, fqn, file_path, line_start, line_end)``:
    for each given method, every method it overrides (``up``), directly or through
    others, or every method overriding it (not ``up``), nearest first."""
    ids = sorted(set(node_ids))
    if not ids:
        return []
    near, far = ("src_id", "dst_id") if up else ("dst_id", "src_id")
    rows = conn.execute(text(_OVERRIDE_WALK.format(near=near, far=far)),
                        {"ids": ids, "max_depth": MAX_OVERRIDE_DEPTH}).all()
    return sorted(rows, key=lambda r: (r.start_id, r.depth, r.fqn or "", r.node_id))


# The nearest type (TYPE_KINDS) enclosing each node: its class for a method, the class of
# the method for a nested function. Depth bounded like the override walk.
_TYPE_OWNERS = """
WITH RECURSIVE up(start_id, node_id, kind, depth) AS (
    SELECT n.id, p.id, p.kind, 1 FROM nodes n JOIN nodes p ON p.id = n.parent_id
     WHERE n.id = ANY(:ids)
    UNION ALL
    SELECT u.start_id, p.id, p.kind, u.depth + 1 FROM up u
      JOIN nodes n ON n.id = u.node_id JOIN nodes p ON p.id = n.parent_id
     WHERE NOT (u.kind = ANY(:types)) AND u.depth < :max_depth
)
SELECT DISTINCT ON (start_id) start_id, node_id, kind FROM up
 WHERE kind = ANY(:types) ORDER BY start_id, depth
"""
# Every supertype of each type, through EXTENDS and IMPLEMENTS edges, transitively.
_SUPERTYPES = """
WITH RECURSIVE up(start_id, node_id, depth) AS (
    SELECT e.src_id, e.dst_id, 1 FROM edges e
     WHERE e.kind IN ('EXTENDS', 'IMPLEMENTS') AND e.src_id = ANY(:ids)
    UNION
    SELECT u.start_id, e.dst_id, u.depth + 1 FROM up u
      JOIN edges e ON e.kind IN ('EXTENDS', 'IMPLEMENTS') AND e.src_id = u.node_id
     WHERE u.depth < :max_depth
)
SELECT DISTINCT start_id, node_id FROM up
"""


def type_owners(conn: Connection, node_ids: Iterable[int]) -> dict[int, tuple[int, str]]:
    """For each node, the id and kind of the nearest type (class, interface, enum,
    object) that encloses it; nodes outside any type are left out."""
    ids = sorted(set(node_ids))
    if not ids:
        return {}
    rows = conn.execute(text(_TYPE_OWNERS), {"ids": ids, "types": sorted(TYPE_KINDS),
                                             "max_depth": MAX_OVERRIDE_DEPTH}).all()
    return {int(r.start_id): (int(r.node_id), r.kind) for r in rows}


def supertypes(conn: Connection, type_ids: Iterable[int]) -> dict[int, set[int]]:
    """For each type, the ids of every type it extends or implements, transitively."""
    ids = sorted(set(type_ids))
    if not ids:
        return {}
    out: dict[int, set[int]] = {i: set() for i in ids}
    for r in conn.execute(text(_SUPERTYPES), {"ids": ids,
                                              "max_depth": MAX_OVERRIDE_DEPTH}).all():
        out[int(r.start_id)].add(int(r.node_id))
    return out


# A method callers cannot bind statically: declared abstract (`abstract` in the
# meta or the signature, an interface member, an @abstractmethod), or a member of an
# interface or of a Protocol.
_ABSTRACT = r"""
SELECT n.id FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id
 WHERE n.id = ANY(:ids)
   AND (p.kind = 'INTERFACE'
        OR n.meta->>'abstract' = 'true'
        OR n.signature ~ '\mabstract\M'
        OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(
                       CASE WHEN jsonb_typeof(n.meta->'decorators') = 'array'
                            THEN n.meta->'decorators' ELSE '[]'::jsonb END) d
                    WHERE d = 'abstractmethod' OR d LIKE '%.abstractmethod')
        OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(
                       CASE WHEN jsonb_typeof(p.meta->'bases') = 'array'
                            THEN p.meta->'bases' ELSE '[]'::jsonb END) b
                    WHERE b = 'Protocol' OR b LIKE '%.Protocol' OR b LIKE 'Protocol[%'))
"""


_INNERMOST = """
SELECT DISTINCT ON (q.path, q.line) q.path, q.line, n.id, n.kind, n.name, n.fqn,
       n.file_path, n.line_start, n.line_end
  FROM unnest(CAST(:paths AS text[]), CAST(:lines AS int[])) AS q(path, line)
  JOIN nodes n ON n.application_id = :a AND n.file_path = q.path
              AND n.line_start <= q.line AND q.line <= n.line_end AND n.kind = ANY(:kinds)
 ORDER BY q.path, q.line, n.line_end - n.line_start, n.id
"""


def innermost_at(conn: Connection, app_id: int, sites: Sequence[tuple[str, int]],
                 kinds: Sequence[str]) -> dict[tuple[str, int], Any]:
    """For each ``(file path, line)``, the innermost node of the kinds whose lines hold
    it (a decorator's line belongs to the function it decorates), by site."""
    if not sites:
        return {}
    rows = conn.execute(text(_INNERMOST), {
        "a": app_id, "paths": [p for p, _ in sites], "lines": [line for _, line in sites],
        "kinds": list(kinds)}).all()
    return {(r.path, r.line): r for r in rows}


def overriding_ids(conn: Connection, app_id: int) -> list[int]:
    """The application's methods that override another (sources of OVERRIDES edges)."""
    return _ids(conn, "SELECT DISTINCT src_id FROM edges WHERE application_id = :a"
                      " AND kind = 'OVERRIDES' ORDER BY src_id", {"a": app_id})


def abstract_ids(conn: Connection, node_ids: Iterable[int]) -> set[int]:
    """Those of the given methods that are abstract or interface members."""
    ids = sorted(set(node_ids))
    if not ids:
        return set()
    return {int(i) for i in conn.execute(text(_ABSTRACT), {"ids": ids}).scalars()}


# --- nodes ----------------------------------------------------------------------------

_BRIEF = "n.id, n.kind, n.name, n.fqn, n.file_path, n.line_start, n.line_end"
_DETAIL = (f"{_BRIEF}, n.signature, n.doc_comment, n.package_name, n.lang, n.rank, n.meta,"
           " n.parent_id")


def nodes_by_id(conn: Connection, ids: Sequence[int]) -> list[dict[str, Any]]:
    """The nodes (details for `graphrag graph node`) in source order."""
    return [dict(r) for r in conn.execute(text(
        f"SELECT {_DETAIL} FROM nodes n WHERE n.id = ANY(:ids)"
        " ORDER BY n.line_start NULLS LAST, n.id"), {"ids": list(ids)}).mappings()]


def count_nodes(conn: Connection, app_id: int, kinds: Sequence[str] | None) -> int:
    """How many nodes of the application (of the given kinds; None: all)."""
    sql = "SELECT count(*) FROM nodes WHERE application_id = :a" + _kind_clause(kinds)
    return conn.execute(text(sql), {"a": app_id, "kinds": list(kinds or ())}).scalar_one()


def _kind_clause(kinds: Sequence[str] | None) -> str:
    return "" if kinds is None else " AND kind = ANY(:kinds)"


def node_pages(conn: Connection, app_id: int, kinds: Sequence[str] | None, columns: str,
               page_size: int, limit: int | None) -> Iterator[list[Any]]:
    """Pages of node rows (``columns``, a constant list starting with ``id``) in ascending
    id order: keyset pagination, linear in the graph size."""
    sql = text(f"SELECT {columns} FROM nodes WHERE application_id = :a AND id > :last"
               f"{_kind_clause(kinds)} ORDER BY id LIMIT :n")
    last, remaining = 0, limit
    while remaining is None or remaining > 0:
        n = page_size if remaining is None else min(page_size, remaining)
        rows = conn.execute(sql, {"a": app_id, "last": last, "n": n,
                                  "kinds": list(kinds or ())}).all()
        if not rows:
            return
        last = rows[-1][0]
        if remaining is not None:
            remaining -= len(rows)
        yield list(rows)


def count_by_kind(conn: Connection, app_id: int) -> tuple[dict[str, int], dict[str, int]]:
    """The application's nodes and edges counted by kind (kinds in name order)."""
    counts = []
    for table in ("nodes", "edges"):  # constant table names
        counts.append(dict(conn.execute(text(
            f"SELECT kind, count(*) FROM {table} WHERE application_id = :a GROUP BY kind"
            " ORDER BY kind"), {"a": app_id}).all()))
    return counts[0], counts[1]


def children(conn: Connection, app_id: int, parent_ids: Sequence[int]) -> list[Any]:
    """(id, parent_id, kind, line_start, line_end) of the children of the given nodes."""
    return list(conn.execute(
        text("SELECT id, parent_id, kind, line_start, line_end FROM nodes"
             " WHERE application_id = :a AND parent_id = ANY(:ids) ORDER BY id"),
        {"a": app_id, "ids": list(parent_ids)}))


def members(conn: Connection, parent_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Child nodes (members) of the given parents, by parent, in source order."""
    return [dict(r) for r in conn.execute(
        text("SELECT parent_id, id, kind, name, fqn, signature, line_start FROM nodes"
             " WHERE parent_id = ANY(:ids) ORDER BY parent_id, line_start NULLS LAST, id"),
        {"ids": list(parent_ids)}).mappings()]


def export_rows(conn: Connection, app_id: int, node_columns: Sequence[str]
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every node (the given constant columns) and edge of the application, by id."""
    nodes = [dict(r) for r in conn.execute(text(
        f"SELECT {', '.join(node_columns)} FROM nodes WHERE application_id = :a"
        " ORDER BY id"), {"a": app_id}).mappings()]
    edges = [dict(r) for r in conn.execute(text(
        "SELECT src_id AS source, dst_id AS target, kind, confidence, resolution, lines"
        " FROM edges WHERE application_id = :a ORDER BY src_id, dst_id, kind"),
        {"a": app_id}).mappings()]
    return nodes, edges


def endpoints(conn: Connection, app_id: int, pattern: tuple[str, str] | None,
              limit: int) -> list[dict[str, Any]]:
    """ENDPOINT nodes with their HTTP method and route; ``pattern`` = (method, escaped
    ILIKE pattern) keeps those whose method equals the first or whose route or fqn
    matches the second."""
    params: dict[str, Any] = {"a": app_id, "lim": limit}
    where = ""
    if pattern is not None:
        where = (" AND (upper(n.meta->>'http_method') = upper(:m)"
                 " OR n.meta->>'route' ILIKE :p ESCAPE '\\' OR n.fqn ILIKE :p ESCAPE '\\')")
        params.update(m=pattern[0], p=pattern[1])
    return [dict(r) for r in conn.execute(text(
        f"SELECT {_BRIEF}, n.meta->>'http_method' AS http_method, n.meta->>'route' AS route"
        " FROM nodes n WHERE n.application_id = :a AND n.kind = 'ENDPOINT'" + where +
        " ORDER BY n.meta->>'route', n.meta->>'http_method', n.fqn LIMIT :lim"),
        params).mappings()]


# --- files (read side; graph/sync.py and graph/index_state.py write them) -----------

def file_hashes(conn: Connection, app_id: int, paths: Sequence[str]) -> dict[str, str | None]:
    """The recorded content hash of each of the given repository paths (known ones)."""
    return dict(conn.execute(
        text("SELECT path, content_hash FROM files"
             " WHERE application_id = :a AND path = ANY(:p)"),
        {"a": app_id, "p": list(paths)}).all())


# --- name lookup (graph.lookup composes these) --------------------------------------

def ids_by_fqn(conn: Connection, app_id: int, fqn: str) -> list[int]:
    """Nodes whose fqn is exactly ``fqn``, in source order."""
    return _ids(conn, "SELECT id FROM nodes WHERE application_id = :a AND fqn = :f"
                      " ORDER BY line_start NULLS LAST, id", {"a": app_id, "f": fqn})


def ids_by_fqn_like(conn: Connection, app_id: int, pattern: str, kinds: Sequence[str]
                    ) -> list[int]:
    """Nodes of the kinds whose fqn matches the LIKE ``pattern`` (``\\`` escapes)."""
    return _ids(conn, "SELECT id FROM nodes WHERE application_id = :a AND fqn LIKE :p"
                      " ESCAPE '\\' AND kind = ANY(:k) ORDER BY line_start NULLS LAST, id",
                {"a": app_id, "p": pattern, "k": list(kinds)})


def _ids(conn: Connection, sql: str, params: dict[str, Any]) -> list[int]:
    return [int(i) for i in conn.execute(text(sql), params).scalars().all()]


def fqns_of(conn: Connection, ids: Sequence[int]) -> list[str]:
    """The fqns of the given nodes (unordered)."""
    return list(conn.execute(text("SELECT fqn FROM nodes WHERE id = ANY(:ids)"),
                             {"ids": list(ids)}).scalars().all())


def imported_by_files(conn: Connection, app_id: int, names: Sequence[str]) -> list[Any]:
    """(id, name, lang, file_path, module) of the nodes called any of ``names`` that a
    FILE node imports, with the importing file's language, path and module."""
    return list(conn.execute(text(
        "SELECT d.id, d.name, f.lang, f.file_path, f.meta->>'module' AS module"
        "  FROM edges e JOIN nodes f ON f.id = e.src_id JOIN nodes d ON d.id = e.dst_id"
        " WHERE e.application_id = :a AND e.kind = 'IMPORTS' AND f.kind = 'FILE'"
        "   AND d.name = ANY(:n) ORDER BY d.id"), {"a": app_id, "n": list(names)}).all())


def ids_by_fqns(conn: Connection, app_id: int, fqns: Sequence[str]) -> dict[str, list[int]]:
    """fqn -> the nodes whose fqn is exactly it, in source order (one query for all)."""
    out: dict[str, list[int]] = {}
    if not fqns:
        return out
    for node_id, fqn in conn.execute(text(
            "SELECT id, fqn FROM nodes WHERE application_id = :a AND fqn = ANY(:f)"
            " ORDER BY line_start NULLS LAST, id"), {"a": app_id, "f": list(fqns)}).all():
        out.setdefault(fqn, []).append(int(node_id))
    return out


def ids_by_fqn_likes(conn: Connection, app_id: int, patterns: Sequence[str],
                     kinds: Sequence[str]) -> list[tuple[int, str]]:
    """(id, fqn) of the nodes of the kinds whose fqn matches any of the LIKE ``patterns``
    (``\\`` escapes), in source order."""
    if not patterns:
        return []
    rows = conn.execute(text(
        "SELECT id, fqn FROM nodes WHERE application_id = :a AND kind = ANY(:k)"
        " AND fqn LIKE ANY(:p) ORDER BY line_start NULLS LAST, id"),
        {"a": app_id, "k": list(kinds), "p": list(patterns)}).all()
    return [(int(r.id), r.fqn) for r in rows]


def ids_by_suffix(conn: Connection, app_id: int, kinds: Sequence[str],
                  patterns: Sequence[str], limit: int) -> list[tuple[int, str]]:
    """(id, fqn) of nodes of the kinds whose fqn matches any of four escaped LIKE
    ``patterns``, in source order, at most ``limit``."""
    s1, s2, s3, s4 = patterns
    rows = conn.execute(text(
        "SELECT id, fqn FROM nodes WHERE application_id = :a AND kind = ANY(:k)"
        " AND (fqn LIKE :s1 ESCAPE '\\' OR fqn LIKE :s2 ESCAPE '\\'"
        "      OR fqn LIKE :s3 ESCAPE '\\' OR fqn LIKE :s4 ESCAPE '\\')"
        " ORDER BY line_start NULLS LAST, id LIMIT :lim"),
        {"a": app_id, "k": list(kinds), "s1": s1, "s2": s2, "s3": s3, "s4": s4,
         "lim": limit}).all()
    return [(int(r.id), r.fqn) for r in rows]


def distinct_names(conn: Connection, app_id: int, kinds: Sequence[str]) -> list[str]:
    """The distinct simple names of the application's nodes of the kinds."""
    return list(conn.execute(text(
        "SELECT DISTINCT name FROM nodes WHERE application_id = :a AND kind = ANY(:k)"
        " AND name IS NOT NULL"), {"a": app_id, "k": list(kinds)}).scalars().all())


def fqns_named(conn: Connection, app_id: int, kinds: Sequence[str], names: Sequence[str]
               ) -> list[str]:
    """The distinct fqns of the nodes of the kinds called any of ``names``."""
    return list(conn.execute(text(
        "SELECT DISTINCT fqn FROM nodes WHERE application_id = :a AND kind = ANY(:k)"
        " AND name = ANY(:n)"), {"a": app_id, "k": list(kinds), "n": list(names)}
    ).scalars().all())


# --- MENTIONS edges from document units (documents.mentions composes these) ------------

_UNITS_SQL = """
SELECT n.id, n.meta->>'text' AS body FROM nodes n
 WHERE n.application_id = :a AND n.kind IN ('PAGE', 'SECTION') {doc_filter}
"""
_TARGETS_SQL = """
SELECT id, name, fqn FROM nodes
 WHERE application_id = :a AND document_id IS NULL AND kind = ANY(:kinds)
   AND name IS NOT NULL AND fqn IS NOT NULL
"""
_REEXPORTS_SQL = """
SELECT d.id, d.name, f.lang, f.file_path, f.meta->>'module' AS module
  FROM edges e JOIN nodes f ON f.id = e.src_id JOIN nodes d ON d.id = e.dst_id
 WHERE e.application_id = :a AND e.kind = 'IMPORTS' AND f.kind = 'FILE'
   AND d.kind = ANY(:kinds)
"""


def reset_mentions(conn: Connection, app_id: int, document_ids: Sequence[int] | None
                   ) -> list[Any]:
    """Delete the MENTIONS edges of the given documents (None: of every document of the
    application) and return their units' (id, body) to link again."""
    doc_filter = "" if document_ids is None else "AND n.document_id = ANY(:docs)"
    params = {"a": app_id, "docs": list(document_ids or [])}
    conn.execute(text(
        "DELETE FROM edges e USING nodes n WHERE n.id = e.src_id AND e.kind = 'MENTIONS'"
        f" AND n.application_id = :a AND n.document_id IS NOT NULL {doc_filter}"), params)
    return list(conn.execute(text(_UNITS_SQL.format(doc_filter=doc_filter)), params).all())


def mention_targets(conn: Connection, app_id: int, kinds: Sequence[str]) -> list[Any]:
    """(id, name, fqn) of the application's code nodes of the kinds (named, with fqn)."""
    return list(conn.execute(text(_TARGETS_SQL), {"a": app_id, "kinds": list(kinds)}).all())


def imported_by_files_of_kinds(conn: Connection, app_id: int, kinds: Sequence[str]
                               ) -> list[Any]:
    """(id, name, lang, file_path, module) of every node of the kinds a FILE node
    imports, with the importing file's language, path and module."""
    return list(conn.execute(text(_REEXPORTS_SQL), {"a": app_id, "kinds": list(kinds)}).all())


def insert_mentions(conn: Connection, app_id: int, rows: Sequence[tuple[int, int, str]],
                    batch: int) -> None:
    """Write MENTIONS edges (unit, node, resolution), ``batch`` rows per statement."""
    insert = text("INSERT INTO edges (application_id, src_id, dst_id, kind, confidence,"
                  " resolution) VALUES (:a, :s, :d, 'MENTIONS', 1.0, :r)"
                  " ON CONFLICT (src_id, dst_id, kind) DO NOTHING")
    params = [{"a": app_id, "s": s, "d": d, "r": r} for s, d, r in rows]
    for start in range(0, len(params), batch):
        conn.execute(insert, params[start:start + batch])


# --- document units (documents.nodes composes these) ----------------------------------

_UPSERT = """
INSERT INTO nodes AS n (application_id, document_id, parent_id, stable_key, kind, name, fqn,
                        file_path, page_number, content_hash, meta)
SELECT :a, :d, CAST(:parent AS bigint), r.stable_key, r.kind, r.name, r.fqn, :path,
       r.page_number, r.content_hash, r.meta
  FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(stable_key text, kind text, name text,
       fqn text, page_number int, content_hash text, meta jsonb)
ON CONFLICT (application_id, stable_key) DO UPDATE SET
    document_id = EXCLUDED.document_id, parent_id = EXCLUDED.parent_id, kind = EXCLUDED.kind,
    name = EXCLUDED.name, fqn = EXCLUDED.fqn, file_path = EXCLUDED.file_path,
    page_number = EXCLUDED.page_number, content_hash = EXCLUDED.content_hash,
    meta = EXCLUDED.meta, updated_at = now()
RETURNING n.id, n.stable_key
"""

# Nested sections point at their enclosing section (the upsert put them under the document).
_NEST = """
UPDATE nodes c SET parent_id = p.id
  FROM jsonb_to_recordset(CAST(:links AS jsonb)) AS l(child text, parent text)
  JOIN nodes p ON p.application_id = :a AND p.stable_key = l.parent
 WHERE c.application_id = :a AND c.stable_key = l.child
   AND c.parent_id IS DISTINCT FROM p.id
"""

_EDGES = """
INSERT INTO edges (application_id, src_id, dst_id, kind, confidence, resolution)
SELECT :a, s.id, t.id, e.kind, 1.0, 'document'
  FROM jsonb_to_recordset(CAST(:edges AS jsonb)) AS e(src text, dst text, kind text)
  JOIN nodes s ON s.application_id = :a AND s.stable_key = e.src
  JOIN nodes t ON t.application_id = :a AND t.stable_key = e.dst
ON CONFLICT (src_id, dst_id, kind) DO NOTHING
"""


def upsert_document_nodes(conn: Connection, app_id: int, document_id: int, path: str,
                          parent_id: int | None, rows: list[dict[str, Any]]) -> dict[str, int]:
    """Upsert a document's nodes (by ``stable_key``) under ``parent_id``; ids by key."""
    return dict((k, i) for i, k in conn.execute(text(_UPSERT), {
        "a": app_id, "d": document_id, "path": path, "parent": parent_id,
        "rows": json.dumps(rows)}).all())


def delete_document_nodes_except(conn: Connection, app_id: int, document_id: int,
                                 keys: list[str]) -> None:
    """Drop the document's nodes whose stable key is not one of ``keys``."""
    conn.execute(text("DELETE FROM nodes WHERE application_id = :a AND document_id = :d"
                      " AND NOT (stable_key = ANY(:keys))"),
                 {"a": app_id, "d": document_id, "keys": keys})


def nest_document_units(conn: Connection, app_id: int, links: list[dict[str, str]]) -> None:
    """Point each ``child`` unit (stable key) at its ``parent`` unit."""
    conn.execute(text(_NEST), {"a": app_id, "links": json.dumps(links)})


def delete_document_structure(conn: Connection, document_id: int) -> None:
    """Drop the CONTAINS and NEXT edges leaving the document's nodes."""
    conn.execute(text(
        "DELETE FROM edges e USING nodes n WHERE n.id = e.src_id AND n.document_id = :d"
        " AND e.kind IN ('CONTAINS', 'NEXT')"), {"d": document_id})


def insert_document_edges(conn: Connection, app_id: int, edges: list[dict[str, str]]) -> None:
    """Insert edges between the document's nodes given by stable keys (src, dst, kind)."""
    conn.execute(text(_EDGES), {"a": app_id, "edges": json.dumps(edges)})


def brief_nodes_in_app(conn: Connection, app_id: int, ids: Sequence[int]) -> list[dict[str, Any]]:
    """Brief rows of those of ``ids`` that belong to the application (an id of another
    application is simply absent)."""
    return [dict(r) for r in conn.execute(text(
        f"SELECT {_BRIEF} FROM nodes n WHERE n.application_id = :a AND n.id = ANY(:ids)"
        " ORDER BY n.id"), {"a": app_id, "ids": list(ids)}).mappings()]
