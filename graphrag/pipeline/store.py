"""The runner's SQL: select work in priority order, write a batch's results in one go.

Selection is keyset-paginated on ``(priority DESC, id)`` (the ``ix_chunks_pending``
index), so one run visits each chunk at most once even when some of its stages cannot
advance. Writes are ``executemany`` UPDATEs grouped by the set of changed columns, each
guarded by the chunk's ``stage_state`` and ``plan_hash`` as loaded: if the chunk was
re-planned or finished by someone else meanwhile, the stale result is dropped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, text

from graphrag.kinds import EMBED, LINK_EDGES, SUMMARIZE
from graphrag.pipeline.model import OWNED_COLUMNS, NodeInfo, WorkItem
from graphrag.pipeline.terms import TEXT_COLUMNS, refresh_terms

_HAS_FAILED = "jsonb_path_exists(c.stage_state, '$.* ? (@.status == \"failed\")')"

# A document unit's text can be megabytes, and all its chunks may be in one batch: the
# rows carry the node's meta without it (taken out once per node, ``units``), and the text
# is fetched once per node of the batch (``_UNIT_TEXTS``) and sliced per chunk in Python,
# so a batch costs the size of its nodes, not chunks x text.
_SELECT = """
WITH picked AS MATERIALIZED (
    SELECT c.* FROM chunks c
     WHERE c.application_id = :app AND {selectable} {after}
     ORDER BY c.priority DESC, c.id
     LIMIT :size {claim}
), units AS MATERIALIZED (
    SELECT n.id, n.meta - 'text' AS meta
      FROM nodes n WHERE n.id IN (SELECT node_id FROM picked)
)
SELECT c.id, c.plan_id, c.source, c.kind, c.lang_detected, c.title, c.section_path,
       lower(c.span_lines) AS span_lo, upper(c.span_lines) - 1 AS span_hi,
       c.pipeline, c.stage_state, c.plan_hash, c.priority, c.content, c.content_raw,
       c.content_hash, c.explain_md, c.explain_quality, c.embed_input_hash,
       (c.emb IS NOT NULL) AS has_emb,
       n.id AS n_id, n.kind AS n_kind, n.name AS n_name, n.fqn AS n_fqn,
       n.file_path AS n_file_path, n.lang AS n_lang, n.line_start AS n_line_start,
       n.line_end AS n_line_end, n.signature AS n_signature, n.doc_comment AS n_doc_comment,
       n.content_hash AS n_content_hash, n.parent_id AS n_parent_id, u.meta AS n_meta,
       p.kind AS p_kind, p.fqn AS p_fqn
  FROM picked c
  JOIN nodes n ON n.id = c.node_id
  JOIN units u ON u.id = n.id
  LEFT JOIN nodes p ON p.id = n.parent_id
 ORDER BY c.priority DESC, c.id
"""
_UNIT_TEXTS = """
SELECT id, meta->>'text' AS body FROM nodes
 WHERE id = ANY(:ids) AND document_id IS NOT NULL AND meta->>'text' IS NOT NULL
"""


def _slice(body: str | None, params: dict[str, Any]) -> str | None:
    start, end = params.get("charStart"), params.get("charEnd")
    if body is None or not isinstance(start, int) or not isinstance(end, int):
        return None
    return body[start:end]


def _selectable(retry_failed: bool) -> str:
    return f"(c.pending OR {_HAS_FAILED})" if retry_failed else "c.pending"


def count_selectable(conn: Connection, app_id: int, retry_failed: bool) -> int:
    """How many chunks a run would visit."""
    sql = f"SELECT count(*) FROM chunks c WHERE c.application_id = :app AND " \
          f"{_selectable(retry_failed)}"
    return int(conn.execute(text(sql), {"app": app_id}).scalar() or 0)


def count_by_stage(conn: Connection, app_id: int, retry_failed: bool) -> dict[str, int]:
    """Per stage, how many of the chunks a run would visit still need it (not done; not
    failed unless retried): the totals of the per-stage progress bars."""
    failed = "" if retry_failed else \
        " AND coalesce(c.stage_state -> s.stage ->> 'status', '') <> 'failed'"
    sql = ("SELECT s.stage, count(*) FROM chunks c CROSS JOIN LATERAL"
           " jsonb_array_elements_text(coalesce(c.pipeline -> 'stages', '[]'::jsonb)) AS s(stage)"
           f" WHERE c.application_id = :app AND {_selectable(retry_failed)}"
           " AND coalesce(c.stage_state -> s.stage ->> 'status', '') <> 'done'"
           f"{failed} GROUP BY 1")
    return {stage: int(n) for stage, n in conn.execute(text(sql), {"app": app_id})}


def _node(r: dict[str, Any]) -> NodeInfo:
    return NodeInfo(
        id=r["n_id"], kind=r["n_kind"], name=r["n_name"], fqn=r["n_fqn"],
        file_path=r["n_file_path"], lang=r["n_lang"], line_start=r["n_line_start"],
        line_end=r["n_line_end"], signature=r["n_signature"], doc_comment=r["n_doc_comment"],
        content_hash=r["n_content_hash"], meta=r["n_meta"] or {}, parent_id=r["n_parent_id"],
        parent_kind=r["p_kind"], parent_fqn=r["p_fqn"],
    )


def fetch_batch(conn: Connection, app_id: int, after: tuple[int, int] | None, size: int,
                retry_failed: bool, *, claim: bool = False) -> list[WorkItem]:
    """The next ``size`` chunks to work on, after the keyset position ``(priority, id)``.

    ``claim`` locks the rows for the rest of ``conn``'s transaction and passes over rows
    another transaction holds (``FOR NO KEY UPDATE SKIP LOCKED``): concurrent workers
    each get chunks nobody else is working on, and a worker that dies releases its claim
    with its connection. (``NO KEY``: the stages' own writes, e.g. sentences referencing
    a chunk, take key-share locks that must not wait for the claim.)"""
    params: dict[str, Any] = {"app": app_id, "size": size}
    after_sql = ""
    if after is not None:
        after_sql = "AND (c.priority < :p OR (c.priority = :p AND c.id > :last))"
        params.update(p=after[0], last=after[1])
    sql = _SELECT.format(selectable=_selectable(retry_failed), after=after_sql,
                         claim="FOR NO KEY UPDATE OF c SKIP LOCKED" if claim else "")
    rows = conn.execute(text(sql), params).mappings().all()
    doc_nodes = list({r["n_id"] for r in rows if r["n_kind"] in ("PAGE", "SECTION")})
    bodies: dict[int, str] = {}
    if doc_nodes:
        bodies = dict(conn.execute(text(_UNIT_TEXTS), {"ids": doc_nodes}).all())
    items = []
    for r in rows:
        row = {k: v for k, v in r.items() if not k.startswith(("n_", "p_"))}
        node = _node(r)
        body = bodies.get(node.id)
        if body is not None:
            node_params = (row.get("pipeline") or {}).get("params") or {}
            node = replace(node, text_slice=_slice(body, node_params), text_length=len(body))
        items.append(WorkItem(id=r["id"], row=row, node=node))
    return items


def _param(column: str, value: Any) -> Any:
    if OWNED_COLUMNS[column] == "jsonb":
        return json.dumps(value)
    return value


def write_batch(conn: Connection, items: list[WorkItem], states: dict[int, dict[str, Any]],
                pending: dict[int, bool]) -> int:
    """Write every chunk's changed columns and new stage state; returns rows written."""
    groups: dict[tuple[str, ...], list[WorkItem]] = defaultdict(list)
    for item in items:
        groups[tuple(sorted(item.changes))].append(item)
    written = 0
    for columns, group in groups.items():
        sets = [f"{c} = CAST(:{c} AS {OWNED_COLUMNS[c]})" for c in columns]
        sql = (
            "UPDATE chunks SET " + ", ".join([*sets, "stage_state = CAST(:new_state AS jsonb)",
                                              "pending = :pending", "freshness_at = now()",
                                              "updated_at = now()"])
            + " WHERE id = :id AND stage_state = CAST(:old_state AS jsonb)"
            " AND plan_hash IS NOT DISTINCT FROM CAST(:plan_hash AS text)"
        )
        params = [
            {
                **{c: _param(c, item.changes[c]) for c in columns},
                "id": item.id, "new_state": json.dumps(states[item.id]),
                "pending": pending[item.id],
                "old_state": json.dumps(item.row.get("stage_state") or {}),
                "plan_hash": item.row.get("plan_hash"),
            }
            for item in group
        ]
        result = conn.execute(text(sql), params)
        written += max(result.rowcount, 0)
    refresh_terms(conn, [i.id for i in items if TEXT_COLUMNS.intersection(i.changes)])
    return written


# Stages whose output depends on a node's edges (callers/callees in the structural summary,
# uses/used-by lists) and the embed stage that reads the summary.
EDGE_DEPENDENT_STAGES = (SUMMARIZE, EMBED, LINK_EDGES)


def invalidate_stages(conn: Connection, app_id: int, node_ids: Sequence[int],
                      stages: Sequence[str] = EDGE_DEPENDENT_STAGES) -> int:
    """Make ``stages`` pending again for the chunks of ``node_ids`` (their graph
    neighbourhood changed while their own code did not). Returns the chunks touched.

    Only finished states are dropped; the embed stage still skips chunks whose input hash
    did not change, so this costs little when the neighbourhood change was cosmetic."""
    if not node_ids:
        return 0
    return conn.execute(text(
        """
        UPDATE chunks
           SET stage_state = stage_state - CAST(:stages AS text[]), pending = true,
               updated_at = now()
         WHERE application_id = :a AND node_id = ANY(:ids)
           AND stage_state ?| CAST(:stages AS text[])
        """), {"a": app_id, "ids": list(node_ids), "stages": list(stages)}).rowcount
