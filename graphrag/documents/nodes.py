"""A document in the graph: a DOCUMENT node, its PAGE/SECTION nodes (text in ``meta``),
CONTAINS edges from each parent and NEXT edges between consecutive units.

Node ids are stable: nodes are upserted by ``stable_key`` (``doc:{id}``,
``doc:{id}:page:{n}``, ``doc:{id}:section:{i}``), so an unchanged page keeps its node and
therefore its chunks, vectors and segment ids. Each step is one set-based statement."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from graphrag.documents.model import Extracted, Unit


@dataclass(frozen=True)
class DocumentInfo:
    id: int
    label: str  # file path shown for the document (repo-relative path or file name)
    sha256: str
    format: str


def unit_key(document_id: int, unit: Unit) -> str:
    if unit.kind == "PAGE":
        return f"doc:{document_id}:page:{unit.page_number}"
    return f"doc:{document_id}:section:{unit.index}"


def unit_fqn(label: str, unit: Unit) -> str:
    if unit.kind == "PAGE":
        return f"{label}#page={unit.page_number}"
    return f"{label}#" + " > ".join(unit.heading_path or (unit.title,))


def _hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


def _unit_row(doc: DocumentInfo, unit: Unit) -> dict[str, Any]:
    meta = {"text": unit.text, "index": unit.index, "level": unit.level,
            "page_number": unit.page_number,
            "heading_path": list(unit.heading_path), "document_id": doc.id}
    return {
        "stable_key": unit_key(doc.id, unit), "kind": unit.kind,
        "name": unit.title[:500], "fqn": unit_fqn(doc.label, unit)[:1000],
        "page_number": unit.page_number, "line_start": None, "line_end": None,
        # the hash covers everything a chunk plan derives from the node
        "content_hash": _hash(unit.kind, unit.heading_path, unit.index, unit.text),
        "meta": meta,
    }


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


def write_document_nodes(conn: Connection, app_id: int, doc: DocumentInfo,
                         extracted: Extracted) -> dict[str, int]:
    """Upsert the document's nodes and structural edges; drop units no longer produced.
    Returns the ids by stable key."""
    root = {"stable_key": f"doc:{doc.id}", "kind": "DOCUMENT", "name": doc.label,
            "fqn": doc.label, "page_number": None, "content_hash": doc.sha256,
            "meta": {"document_id": doc.id, "format": extracted.format, **extracted.meta}}
    params = {"a": app_id, "d": doc.id, "path": doc.label}
    ids = dict((k, i) for i, k in conn.execute(
        text(_UPSERT), {**params, "parent": None, "rows": json.dumps([root])}).all())
    rows = [_unit_row(doc, u) for u in extracted.units]
    if rows:
        ids.update((k, i) for i, k in conn.execute(
            text(_UPSERT), {**params, "parent": ids[root["stable_key"]],
                            "rows": json.dumps(rows)}).all())
    conn.execute(text("DELETE FROM nodes WHERE application_id = :a AND document_id = :d"
                      " AND NOT (stable_key = ANY(:keys))"), {**params, "keys": list(ids)})
    by_index = {u.index: unit_key(doc.id, u) for u in extracted.units}
    links = [{"child": by_index[u.index], "parent": by_index[u.parent]}
             for u in extracted.units if u.parent is not None and u.parent in by_index]
    if links:
        conn.execute(text(_NEST), {"a": app_id, "links": json.dumps(links)})
    _write_structure(conn, app_id, doc, extracted)
    return ids


def _write_structure(conn: Connection, app_id: int, doc: DocumentInfo,
                     extracted: Extracted) -> None:
    """CONTAINS (parent -> unit) and NEXT (unit -> following unit), rewritten as a whole."""
    conn.execute(text(
        "DELETE FROM edges e USING nodes n WHERE n.id = e.src_id AND n.document_id = :d"
        " AND e.kind IN ('CONTAINS', 'NEXT')"), {"d": doc.id})
    keys = {u.index: unit_key(doc.id, u) for u in extracted.units}
    edges = []
    for u in extracted.units:
        parent = keys.get(u.parent) if u.parent is not None else f"doc:{doc.id}"
        edges.append({"src": parent, "dst": keys[u.index], "kind": "CONTAINS"})
    ordered = [keys[u.index] for u in extracted.units]
    edges += [{"src": a, "dst": b, "kind": "NEXT"}
              for a, b in zip(ordered, ordered[1:], strict=False)]
    if edges:
        conn.execute(text(_EDGES), {"a": app_id, "edges": json.dumps(edges)})
