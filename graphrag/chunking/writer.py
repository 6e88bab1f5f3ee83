"""ChunkWriter: buffered, set-based upsert of chunk plans.

Each flush is one transaction: COPY the plans into a temporary table, delete the chunks of
the flushed nodes that they no longer produce, drop the plans identical to stored rows, and
upsert the rest into ``chunks`` keyed by plan id. An unchanged plan (same ``plan_hash``)
leaves its row alone -- content, summary, embedding and stage state survive re-planning;
a changed plan resets the row's stages. A changed stage list (a stage registered or
removed) only replaces the list and queues the chunk: the states of the stages it ran
stay, so only the new stages run. When none of the flushed nodes has a chunk yet
(a first build), there is nothing stale, unchanged or to count: the plans go straight
from the staging table into ``chunks`` (half the statements, no statistics needed)."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from sqlalchemy import Engine

from graphrag.chunking.plan import ChunkPlan, StageLists
from graphrag.db.copy_text import copy_rows

FLUSH_AT = 1000

_STAGE_DDL = """
CREATE TEMP TABLE IF NOT EXISTS chunk_plan_stage (
    plan_id text, application_id bigint, node_id bigint, source text, kind text,
    lang_detected text, chunk_index integer, span_start integer, span_end integer,
    title text, section_path text[], relations jsonb, pipeline jsonb, priority integer,
    plan_hash text
) ON COMMIT DELETE ROWS
"""
_COLUMNS = ("plan_id", "application_id", "node_id", "source", "kind", "lang_detected",
            "chunk_index", "span_start", "span_end", "title", "section_path", "relations",
            "pipeline", "priority", "plan_hash")

# Plans identical to the stored row (hash, stage list): nothing to write, so they
# leave the stage before the upsert (an INSERT would still compute every generated column
# for them).
_DROP_UNCHANGED_SQL = """
DELETE FROM chunk_plan_stage s USING chunks c
WHERE c.plan_id = s.plan_id AND c.plan_hash = s.plan_hash
  AND c.pipeline->'stages' = s.pipeline->'stages'
"""

# Of the rest: new rows and rows whose plan or stage list changed.
_COUNT_SQL = """
SELECT count(*) FILTER (WHERE c.plan_id IS NULL),
       count(*) FILTER (WHERE c.plan_id IS NOT NULL AND (
           c.plan_hash IS DISTINCT FROM s.plan_hash
           OR c.pipeline->'stages' IS DISTINCT FROM s.pipeline->'stages'))
FROM chunk_plan_stage s LEFT JOIN chunks c ON c.plan_id = s.plan_id
"""

_UPSERT_SQL = """
INSERT INTO chunks AS c (plan_id, application_id, node_id, source, kind, lang_detected,
    chunk_index, span_lines, title, section_path, relations, pipeline, priority, plan_hash,
    stage_state, pending, document_id, page_number, span_chars)
SELECT s.plan_id, s.application_id, s.node_id, s.source, s.kind, s.lang_detected,
    s.chunk_index,
    CASE WHEN s.span_start IS NULL THEN NULL
         ELSE int4range(s.span_start, s.span_end, '[]') END,
    s.title, s.section_path, s.relations, s.pipeline, s.priority, s.plan_hash,
    '{}'::jsonb, true,
    -- document chunks carry their document, page and character span (page strategy)
    n.document_id, n.page_number,
    CASE WHEN s.pipeline->'params' ? 'charStart'
         THEN int8range((s.pipeline->'params'->>'charStart')::bigint,
                        (s.pipeline->'params'->>'charEnd')::bigint) END
FROM chunk_plan_stage s
-- a node deleted by a concurrent graph sync since it was read is skipped (inner join),
-- not an FK error
JOIN nodes n ON n.id = s.node_id
ON CONFLICT (plan_id) DO UPDATE SET
    document_id = EXCLUDED.document_id, page_number = EXCLUDED.page_number,
    span_chars = EXCLUDED.span_chars,
    source = EXCLUDED.source, kind = EXCLUDED.kind, lang_detected = EXCLUDED.lang_detected,
    chunk_index = EXCLUDED.chunk_index, span_lines = EXCLUDED.span_lines,
    title = EXCLUDED.title, section_path = EXCLUDED.section_path,
    relations = EXCLUDED.relations, pipeline = EXCLUDED.pipeline,
    priority = EXCLUDED.priority,
    -- a changed plan invalidates every stage; a changed stage list keeps them (the
    -- chunk is queued for the stages it has not run)
    stage_state = CASE WHEN c.plan_hash IS DISTINCT FROM EXCLUDED.plan_hash
                       THEN '{}'::jsonb ELSE c.stage_state END,
    pending = CASE WHEN c.plan_hash IS DISTINCT FROM EXCLUDED.plan_hash
                     OR c.pipeline->'stages' IS DISTINCT FROM EXCLUDED.pipeline->'stages'
                   THEN true ELSE c.pending END,
    plan_hash = EXCLUDED.plan_hash,
    updated_at = now()
WHERE c.plan_hash IS DISTINCT FROM EXCLUDED.plan_hash
   OR c.pipeline->'stages' IS DISTINCT FROM EXCLUDED.pipeline->'stages'
"""

# Chunks of the flushed nodes that this run did not plan (a split that changed, a DOC
# chunk whose comment was removed, another strategy's chunks). Only nodes this run has
# planned are touched, so limited and kind-filtered runs never remove other chunks.
_STALE_SQL = """
DELETE FROM chunks c
WHERE c.application_id = %(app)s AND c.node_id = ANY(%(nodes)s)
  AND NOT EXISTS (SELECT 1 FROM chunk_plan_stage s WHERE s.plan_id = c.plan_id)
"""


# Does any of the flushed nodes have a chunk already? (ix_chunks_node)
_ANY_CHUNK_SQL = "SELECT EXISTS (SELECT 1 FROM chunks WHERE node_id = ANY(%(nodes)s))"

# The planner's row estimate of the graph tables.
_ESTIMATE_SQL = "SELECT reltuples FROM pg_class WHERE oid = CAST('nodes' AS regclass)"


def refresh_graph_statistics(engine: Engine, app_nodes: int) -> bool:
    """ANALYZE nodes and edges when the planner believes ``nodes`` holds fewer rows than
    this application alone (``app_nodes``): a graph written just before, which
    autovacuum has not analysed yet (a fresh database says 0 rows). With such an
    estimate the build's reads by id may scan an index whose leading column is not the
    id, for every page. Returns whether it analysed."""
    with engine.begin() as conn:
        cur = conn.connection.driver_connection.cursor()
        if cur.execute(_ESTIMATE_SQL).fetchone()[0] >= app_nodes:
            return False
        cur.execute("ANALYZE nodes")
        cur.execute("ANALYZE edges")
    return True


@dataclass
class SaveResult:
    written: int = 0  # inserted or re-planned
    skipped: int = 0  # unchanged plans
    deleted: int = 0  # stale chunks removed


class ChunkWriter:
    """Buffers plans per node and flushes every ``flush_at`` plans; each plan is stored
    with its target's list of ``stages``."""

    def __init__(self, engine: Engine, application_id: int, stages: StageLists,
                 flush_at: int = FLUSH_AT) -> None:
        self.engine = engine
        self.application_id = application_id
        self.stages = {target: list(names) for target, names in stages.items()}
        self.flush_at = flush_at
        self._plans: list[ChunkPlan] = []
        self._nodes: list[int] = []

    @property
    def full(self) -> bool:
        return len(self._plans) >= self.flush_at

    def add(self, node_id: int, plans: list[ChunkPlan]) -> None:
        """Queue all plans of one node (also none: its old chunks are then removed)."""
        self._nodes.append(node_id)
        self._plans.extend(plans)

    def take(self) -> tuple[list[int], list[ChunkPlan]]:
        """Empty the buffer (the caller saves or drops what it took)."""
        nodes, plans = self._nodes, self._plans
        self._nodes, self._plans = [], []
        return nodes, plans

    def save(self, nodes: list[int], plans: list[ChunkPlan]) -> SaveResult:
        """Upsert ``plans`` and drop stale chunks of ``nodes`` in one transaction."""
        if not nodes:
            return SaveResult()
        with self.engine.begin() as conn:
            raw = conn.connection.driver_connection
            with raw.cursor() as cur:
                cur.execute(_STAGE_DDL)
                self._copy(cur, plans)
                if not cur.execute(_ANY_CHUNK_SQL, {"nodes": nodes}).fetchone()[0]:
                    cur.execute(_UPSERT_SQL)
                    return SaveResult(written=cur.rowcount, skipped=len(plans) - cur.rowcount)
                cur.execute("ANALYZE chunk_plan_stage")  # fresh counts: hash joins, not loops
                cur.execute(_STALE_SQL, {"app": self.application_id, "nodes": nodes})
                deleted = cur.rowcount
                cur.execute(_DROP_UNCHANGED_SQL)
                inserted, changed = cur.execute(_COUNT_SQL).fetchone()
                cur.execute(_UPSERT_SQL)
        written = inserted + changed
        return SaveResult(written=written, skipped=len(plans) - written, deleted=deleted)

    def _copy(self, cur, plans: list[ChunkPlan]) -> None:
        cols = ", ".join(_COLUMNS)
        copy_rows(cur, f"COPY chunk_plan_stage ({cols}) FROM STDIN", map(self._row, plans))

    def _row(self, p: ChunkPlan) -> tuple:
        start, end = p.span if p.span else (None, None)
        return (
            p.plan_id, self.application_id, p.node_id, p.source, p.kind, p.lang,
            p.chunk_index, start, end, p.title, list(p.section_path),
            _json(p.relations),
            _json({"stages": self.stages.get(p.target, []), **p.pipeline}), p.priority,
            p.plan_hash,
        )


def _json(value: object) -> str:
    # orjson: several times faster than json.dumps per plan (keys as json.dumps would)
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
