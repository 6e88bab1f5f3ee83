"""The chunks' stage state, sentences and the summary cache: the runner's SQL (select work
in priority order, write a batch's results in one go), the status counts, and the rows
the stages keep beside chunks.

Selection is keyset-paginated on ``(priority DESC, id)`` (the ``ix_chunks_pending``
index), so one run visits each chunk at most once even when some of its stages cannot
advance. Writes are set-based UPDATEs, one per set of changed columns, of the chunks
whose ``stage_state`` and ``plan_hash`` are still as loaded (locked first): if the chunk
was re-planned or finished by someone else meanwhile, the stale result is dropped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, text

from graphrag.pipeline.model import OWNED_COLUMNS, NodeInfo, WorkItem
from graphrag.pipeline.terms import TEXT_COLUMNS, drop_postings, update_with_postings

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


# The batch's rows still as loaded (stage state and plan), locked until the transaction
# ends: only they are written, and nobody can change them between this check and the
# write (a re-planned or otherwise finished chunk's stale result is dropped).
_LOCK_UNCHANGED = """
SELECT c.id FROM chunks c
  JOIN unnest(CAST(:ids AS bigint[]), CAST(:states AS jsonb[]), CAST(:hashes AS text[]))
       AS v(id, stage_state, plan_hash) ON c.id = v.id
 WHERE c.stage_state = v.stage_state AND c.plan_hash IS NOT DISTINCT FROM v.plan_hash
 ORDER BY c.id
   FOR NO KEY UPDATE OF c
"""


def _lock_unchanged(conn: Connection, items: list[WorkItem]) -> set[int]:
    rows = conn.execute(text(_LOCK_UNCHANGED), {
        "ids": [i.id for i in items],
        "states": [json.dumps(i.row.get("stage_state") or {}) for i in items],
        "hashes": [i.row.get("plan_hash") for i in items]})
    return {int(r.id) for r in rows}


def _rows_sql(columns: tuple[str, ...]) -> str:
    """A FROM item ``v`` of one row per chunk: id, new stage state, pending, and the
    changed ``columns`` (bind parameters of the same names, one array each)."""
    arrays = ["CAST(:id AS bigint[])", "CAST(:new_state AS jsonb[])",
              "CAST(:pending AS boolean[])"]
    arrays += [f"CAST(:{c} AS {OWNED_COLUMNS[c]}[])" for c in columns]
    return f"unnest({', '.join(arrays)}) AS v(id, new_state, pending, {', '.join(columns)})" \
        if columns else f"unnest({', '.join(arrays)}) AS v(id, new_state, pending)"


def write_batch(conn: Connection, items: list[WorkItem], states: dict[int, dict[str, Any]],
                pending: dict[int, bool]) -> int:
    """Write every chunk's changed columns and new stage state; returns rows written.

    One statement per set of changed columns (usually one per batch), each row written
    once: a chunk row's new version costs an entry in every index of ``chunks`` (its
    vector's HNSW graph included), so the text, its BM25 term count and the vectors go
    in the same version, and the postings are written by the same statement
    (:func:`graphrag.pipeline.terms.update_with_postings`, the text analysed once)."""
    fresh = _lock_unchanged(conn, items) if items else set()
    groups: dict[tuple[str, ...], list[WorkItem]] = defaultdict(list)
    for item in items:
        if item.id in fresh:
            groups[tuple(sorted(item.changes))].append(item)
    drop_postings(conn, [i.id for i in items
                         if i.id in fresh and TEXT_COLUMNS.intersection(i.changes)])
    for columns, group in groups.items():
        params: dict[str, Any] = {
            "id": [i.id for i in group],
            "new_state": [json.dumps(states[i.id]) for i in group],
            "pending": [pending[i.id] for i in group],
            **{c: [_param(c, i.changes[c]) for i in group] for c in columns}}
        sets = [f"{c} = v.{c}" for c in columns] + [
            "stage_state = v.new_state", "pending = v.pending", "freshness_at = now()",
            "updated_at = now()"]
        if TEXT_COLUMNS.intersection(columns):
            update_with_postings(conn, _rows_sql(columns), sets, params)
        else:
            conn.execute(text(f"UPDATE chunks c SET {', '.join(sets)}"
                              f" FROM {_rows_sql(columns)} WHERE c.id = v.id"), params)
    return len(fresh)


def invalidate_stages(conn: Connection, app_id: int, node_ids: Sequence[int],
                      stages: Sequence[str]) -> int:
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


# --- status (``graphrag pipeline status``) ------------------------------------------

# A stage counts as pending until it is done or failed (stages blocked by an earlier
# failure stay pending: `--retry-failed` may still run them).
_STATUS_COUNTS = """
SELECT s.stage, coalesce(c.stage_state -> s.stage ->> 'status', 'pending') AS status,
       count(*) AS n
  FROM chunks c
 CROSS JOIN LATERAL jsonb_array_elements_text(
           coalesce(c.pipeline -> 'stages', '[]'::jsonb)) AS s(stage)
 WHERE c.application_id = :app
 GROUP BY 1, 2
"""

_STATUS_ERRORS = """
SELECT s.key AS stage, s.value ->> 'error' AS error, count(*) AS n
  FROM chunks c CROSS JOIN LATERAL jsonb_each(c.stage_state) AS s
 WHERE c.application_id = :app AND s.value ->> 'status' = 'failed'
 GROUP BY 1, 2
 ORDER BY n DESC, stage, error
 LIMIT :limit
"""


def stage_status_counts(conn: Connection, app_id: int) -> list[Any]:
    """(stage, status, count) over the application's chunks and their planned stages."""
    return list(conn.execute(text(_STATUS_COUNTS), {"app": app_id}).all())


def stage_errors(conn: Connection, app_id: int, limit: int) -> list[Any]:
    """(stage, error, count) of the most common failures, most frequent first."""
    return list(conn.execute(text(_STATUS_ERRORS), {"app": app_id, "limit": limit}).all())


# --- sentences (split-sentences) ----------------------------------------------------

_EXISTING_SENTENCES = """
SELECT chunk_id, sentence_index, content FROM sentences
 WHERE chunk_id = ANY(:ids) AND emb IS NOT NULL
"""
_TRIM_SENTENCES = """
DELETE FROM sentences s USING jsonb_to_recordset(CAST(:counts AS jsonb)) AS k(id bigint, n int)
 WHERE s.chunk_id = k.id AND s.sentence_index >= k.n
"""
_UPSERT_SENTENCES = """
INSERT INTO sentences (application_id, chunk_id, sentence_index, content, emb)
VALUES (:a, :c, :i, :t, CAST(:e AS vector))
ON CONFLICT (chunk_id, sentence_index) DO UPDATE SET content = EXCLUDED.content,
    emb = EXCLUDED.emb
"""


def embedded_sentences(conn: Connection, chunk_ids: Sequence[int]) -> dict[tuple[int, int], str]:
    """Text of the embedded sentences of the chunks by (chunk id, sentence index)."""
    return {(r.chunk_id, r.sentence_index): r.content
            for r in conn.execute(text(_EXISTING_SENTENCES), {"ids": list(chunk_ids)})}


def write_sentences(conn: Connection, app_id: int, counts: dict[int, int],
                    rows: Sequence[tuple[int, int, str, str]]) -> None:
    """Keep the first ``counts[chunk]`` sentences of each chunk and upsert ``rows``
    (chunk id, sentence index, text, vector literal)."""
    conn.execute(text(_TRIM_SENTENCES),
                 {"counts": json.dumps([{"id": c, "n": n} for c, n in counts.items()])})
    if rows:
        conn.execute(text(_UPSERT_SENTENCES), [
            {"a": app_id, "c": c, "i": i, "t": t, "e": e} for c, i, t, e in rows])


# --- summary cache (summarize) ------------------------------------------------------

def cached_summaries(conn: Connection, keys: Sequence[str]) -> dict[str, str]:
    """Cached summaries by cache key."""
    return dict(conn.execute(
        text("SELECT cache_key, summary FROM summary_cache WHERE cache_key = ANY(:k)"),
        {"k": list(keys)}).all())


def cache_summaries(conn: Connection, model: str, entries: dict[str, str]) -> None:
    """Remember summaries by cache key (the first one written for a key stays)."""
    conn.execute(
        text("INSERT INTO summary_cache (cache_key, model, summary) VALUES (:k, :m, :s)"
             " ON CONFLICT (cache_key) DO NOTHING"),
        [{"k": k, "m": model, "s": s} for k, s in entries.items()])
