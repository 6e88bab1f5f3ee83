"""Vector columns: their dimension, and which model an application's vectors come from.

Invariant kept here: every non-null vector of an application (``chunks.emb`` and
``sentences.emb``) was made by the model recorded in ``applications.meta.embed_model``
(model, backend and hash; see ``graphrag.embedding.ModelSpec.identity``). Switching an
application to another model clears its vectors and queues its chunks for the stages
that write vectors (the caller names them: which stages do is the pipeline's knowledge)
in one transaction, so a query never compares vectors of two models.

The dimension of the vector columns is one per database (the columns and their HNSW
indexes are shared by all applications). Changing it clears every application's
vectors: they must be re-embedded with the new model anyway, since the query encoder is
one per installation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, Engine, text

from graphrag.errors import ModelMismatch, ModelUnavailable

# (table, column, HNSW index or None): ``chunks.title_emb`` is only read for a query's
# candidates, so it has no index.
VECTOR_COLUMNS = (("chunks", "emb", "ix_chunks_emb"), ("chunks", "title_emb", None),
                  ("sentences", "emb", "ix_sentences_emb"))

# Reset of the vector-writing stages (:stages) of chunks: vector gone, stages pending again.
_RESET_CHUNKS = """
UPDATE chunks SET emb = NULL, title_emb = NULL, embed_model = NULL, embed_ts = NULL,
       embed_input_hash = NULL,
       stage_state = stage_state - CAST(:stages AS text[]), pending = true,
       updated_at = now()
 WHERE {where} AND (emb IS NOT NULL OR stage_state ?| CAST(:stages AS text[]))
"""


def column_dimension(conn: Connection, table: str = "chunks", column: str = "emb") -> int | None:
    """The declared dimension of a pgvector column (its type modifier)."""
    mod = conn.execute(
        text("SELECT atttypmod FROM pg_attribute"
             " WHERE attrelid = to_regclass(:t) AND attname = :c AND NOT attisdropped"),
        {"t": table, "c": column},
    ).scalar()
    return int(mod) if mod is not None and mod > 0 else None


def apps_with_vectors(conn: Connection) -> list[str]:
    """Names of the applications that hold any vector."""
    return list(conn.execute(text(
        "SELECT a.name FROM applications a WHERE"
        " EXISTS (SELECT 1 FROM chunks c WHERE c.application_id = a.id AND c.emb IS NOT NULL)"
        " OR EXISTS (SELECT 1 FROM sentences s WHERE s.application_id = a.id"
        " AND s.emb IS NOT NULL) ORDER BY a.name")).scalars())


def set_dimension(engine: Engine, dim: int, stages: Sequence[str]) -> list[str]:
    """Make every vector column ``vector(dim)`` with its HNSW index; returns the names of
    the applications whose vectors were cleared (their ``stages``, the ones that write
    vectors, are queued again).

    One transaction: concurrent readers wait on the table locks, and a failure leaves the
    old columns and vectors as they were."""
    with engine.begin() as conn:
        for table in dict.fromkeys(t for t, _, _ in VECTOR_COLUMNS):
            conn.execute(text(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"))
        if all(column_dimension(conn, t, c) == dim for t, c, _ in VECTOR_COLUMNS):
            return []
        cleared = apps_with_vectors(conn)
        conn.execute(text(_RESET_CHUNKS.format(where="true")), {"stages": list(stages)})
        conn.execute(text("UPDATE applications SET meta = meta - 'embed_model'"))
        for table, column, index in VECTOR_COLUMNS:
            # Names come from the constant above; dim is an int.
            if index:
                conn.execute(text(f"DROP INDEX IF EXISTS {index}"))
            conn.execute(text(f"ALTER TABLE {table} ALTER COLUMN {column}"
                              f" TYPE vector({int(dim)}) USING NULL"))
            if index:
                conn.execute(text(f"CREATE INDEX {index} ON {table}"
                                  f" USING hnsw ({column} vector_cosine_ops)"))
    return cleared


def ensure_dimension(engine: Engine, model_name: str, dim: int, stages: Sequence[str]) -> None:
    """Fit the vector columns to a ``dim``-d model when that loses nothing (no vector is
    stored yet); otherwise refuse and say how to switch (``graphrag reembed``).
    ``stages``: the stages that write vectors (see :func:`set_dimension`)."""
    with engine.connect() as conn:
        current = column_dimension(conn)
        if current is None or current == dim:
            return
        holders = apps_with_vectors(conn)
    if holders:
        raise ModelUnavailable(
            f"embedding model {model_name} makes {dim}-d vectors but the database holds "
            f"{current}-d vectors ({', '.join(holders)}): run `graphrag reembed --app NAME` "
            f"to switch (every application's vectors are then cleared and re-embedded)")
    set_dimension(engine, dim, stages)


def recorded_models(conn: Connection, app_ids: Iterable[int]) -> dict[int, str | None]:
    """``applications.meta.embed_model`` of each application."""
    rows = conn.execute(text("SELECT id, meta->>'embed_model' AS m FROM applications"
                             " WHERE id = ANY(:ids)"), {"ids": list(app_ids)})
    return {int(r.id): r.m for r in rows}


def switch_model(engine: Engine, app_id: int, identity: str, stages: Sequence[str],
                 force: bool = False) -> int:
    """Record ``identity`` as the application's model. Chunks embedded by another model
    (all chunks with ``force``) lose their vector and are queued for ``stages`` (the
    stages that write vectors); sentence vectors are cleared with them. Returns the
    number of chunks queued."""
    with engine.begin() as conn:
        recorded = conn.execute(text(
            "SELECT meta->>'embed_model' FROM applications WHERE id = :a FOR UPDATE"),
            {"a": app_id}).scalar()
        if recorded == identity and not force:
            return 0
        # :force true queues every chunk; else those whose vector came from another model.
        stale = "application_id = :a AND (:force OR embed_model IS DISTINCT FROM :m)"
        params = {"a": app_id, "m": identity, "force": force}
        # The sentence vectors of those chunks first (split-sentences redoes them).
        conn.execute(text(
            "UPDATE sentences s SET emb = NULL FROM chunks c WHERE s.chunk_id = c.id"
            " AND s.emb IS NOT NULL AND c.application_id = :a"
            " AND (:force OR c.embed_model IS DISTINCT FROM :m)"), params)
        queued = conn.execute(text(_RESET_CHUNKS.format(where=stale)),
                              {**params, "stages": list(stages)}).rowcount
        conn.execute(text(
            "UPDATE applications SET meta = meta || jsonb_build_object('embed_model',"
            " CAST(:m AS text)), updated_at = now() WHERE id = :a"),
            {"a": app_id, "m": identity})
    return int(queued or 0)


def require_model(conn: Connection, apps: dict[int, str], identity: str,
                  recorded: dict[int, str | None] | None = None) -> None:
    """Refuse to compare query vectors of ``identity`` with an application's vectors made
    by another model (one line: what it was embedded with and what to do).
    ``recorded``: the applications' recorded models when the caller has read them."""
    if recorded is None:
        recorded = recorded_models(conn, apps)
    for app_id, name in apps.items():
        model = recorded.get(app_id)
        if model is None:  # never switched: look at a stored vector, if any
            model = conn.execute(text(
                "SELECT embed_model FROM chunks WHERE application_id = :a"
                " AND emb IS NOT NULL LIMIT 1"), {"a": app_id}).scalar()
        if model is not None and model != identity:
            raise ModelMismatch(
                f"application {name!r} was embedded with {model} but queries would be "
                f"embedded with {identity}: run `graphrag reembed --app {name}`, or set "
                f"GRAPHRAG_EMBED_BACKEND/GRAPHRAG_MODEL_PATH back to that model")


def vacuum_vectors(engine: Engine) -> None:
    """``VACUUM ANALYZE`` the tables with vector columns (outside any transaction)."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        for table in dict.fromkeys(t for t, _, _ in VECTOR_COLUMNS):
            conn.execute(text(f"VACUUM ANALYZE {table}"))
