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

from sqlalchemy import Connection

from graphrag.documents.model import Extracted, Unit
from graphrag.graph import store


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


def write_document_nodes(conn: Connection, app_id: int, doc: DocumentInfo,
                         extracted: Extracted) -> dict[str, int]:
    """Upsert the document's nodes and structural edges; drop units no longer produced.
    Returns the ids by stable key."""
    root = {"stable_key": f"doc:{doc.id}", "kind": "DOCUMENT", "name": doc.label,
            "fqn": doc.label, "page_number": None, "content_hash": doc.sha256,
            "meta": {"document_id": doc.id, "format": extracted.format, **extracted.meta}}
    ids = store.upsert_document_nodes(conn, app_id, doc.id, doc.label, None, [root])
    rows = [_unit_row(doc, u) for u in extracted.units]
    if rows:
        ids.update(store.upsert_document_nodes(conn, app_id, doc.id, doc.label,
                                               ids[root["stable_key"]], rows))
    store.delete_document_nodes_except(conn, app_id, doc.id, list(ids))
    by_index = {u.index: unit_key(doc.id, u) for u in extracted.units}
    links = [{"child": by_index[u.index], "parent": by_index[u.parent]}
             for u in extracted.units if u.parent is not None and u.parent in by_index]
    if links:
        store.nest_document_units(conn, app_id, links)
    _write_structure(conn, app_id, doc, extracted)
    return ids


def _write_structure(conn: Connection, app_id: int, doc: DocumentInfo,
                     extracted: Extracted) -> None:
    """CONTAINS (parent -> unit) and NEXT (unit -> following unit), rewritten as a whole."""
    store.delete_document_structure(conn, doc.id)
    keys = {u.index: unit_key(doc.id, u) for u in extracted.units}
    edges = []
    for u in extracted.units:
        parent = keys.get(u.parent) if u.parent is not None else f"doc:{doc.id}"
        edges.append({"src": parent, "dst": keys[u.index], "kind": "CONTAINS"})
    ordered = [keys[u.index] for u in extracted.units]
    edges += [{"src": a, "dst": b, "kind": "NEXT"}
              for a, b in zip(ordered, ordered[1:], strict=False)]
    if edges:
        store.insert_document_edges(conn, app_id, edges)
