"""Initial schema: applications, files, nodes, edges, chunks, runs, documents, sentences.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# camelCase and snake_case identifiers are split into words beside the originals so that
# a query for "user service" finds `UserService` and `user_service` (immutable
# expression, so PostgreSQL can keep it as a generated column).
_IDENT_SPLIT = (
    "regexp_replace(regexp_replace({col}, '([a-z0-9])([A-Z])', '\\1 \\2', 'g'),"
    " '[_./:#-]+', ' ', 'g')"
)


def _tsv(*cols: str) -> str:
    parts = []
    for col in cols:
        c = f"coalesce({col}, '')"
        parts.append(c)
        parts.append(_IDENT_SPLIT.format(col=c))
    return "to_tsvector('english'::regconfig, " + " || ' ' || ".join(parts) + ")"


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.execute(
        """
        CREATE TABLE applications (
            id          bigserial PRIMARY KEY,
            name        text NOT NULL UNIQUE,
            root_path   text,
            meta        jsonb NOT NULL DEFAULT '{}'::jsonb,
            indexed_at  timestamptz,
            created_at  timestamptz NOT NULL DEFAULT now(),
            updated_at  timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute(
        """
        CREATE TABLE files (
            id              bigserial PRIMARY KEY,
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            path            text NOT NULL,
            language        text,
            content_hash    text,
            size_bytes      bigint,
            line_count      integer,
            parse_status    text NOT NULL DEFAULT 'pending',
            parse_error     text,
            error_count     integer NOT NULL DEFAULT 0,
            parse_data      json,  -- json, not jsonb: key order must survive a round trip
            parser_version  text,
            indexed_at      timestamptz,
            UNIQUE (application_id, path)
        )
        """
    )
    op.execute("CREATE INDEX ix_files_status ON files (application_id, parse_status)")
    op.execute(
        """
        CREATE TABLE documents (
            id              bigserial PRIMARY KEY,
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            filename        text NOT NULL,
            source_path     text,
            stored_path     text,
            sha256          text NOT NULL,
            mime_type       text,
            size_bytes      bigint,
            status          text NOT NULL DEFAULT 'processing',
            error_message   text,
            metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
            category        text,
            tags            text[] NOT NULL DEFAULT '{}',
            page_count      integer,
            chunk_count     integer,
            created_at      timestamptz NOT NULL DEFAULT now(),
            updated_at      timestamptz NOT NULL DEFAULT now(),
            UNIQUE (application_id, sha256)
        )
        """
    )
    op.execute("CREATE INDEX ix_documents_status ON documents (application_id, status)")
    op.execute(
        """
        CREATE TABLE nodes (
            id              bigserial PRIMARY KEY,
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            file_id         bigint REFERENCES files(id) ON DELETE CASCADE,
            document_id     bigint REFERENCES documents(id) ON DELETE CASCADE,
            parent_id       bigint REFERENCES nodes(id) ON DELETE SET NULL,
            stable_key      text NOT NULL,
            kind            text NOT NULL,
            name            text,
            fqn             text,
            package_name    text,
            file_path       text,
            lang            text,
            line_start      integer,
            line_end        integer,
            char_start      bigint,
            char_end        bigint,
            page_number     integer,
            signature       text,
            doc_comment     text,
            content_hash    text,
            rank            double precision NOT NULL DEFAULT 0,
            meta            jsonb NOT NULL DEFAULT '{}'::jsonb,
            created_at      timestamptz NOT NULL DEFAULT now(),
            updated_at      timestamptz NOT NULL DEFAULT now(),
            UNIQUE (application_id, stable_key)
        )
        """
    )
    op.execute("CREATE INDEX ix_nodes_app_id ON nodes (application_id, id)")
    op.execute("CREATE INDEX ix_nodes_app_kind ON nodes (application_id, kind, id)")
    op.execute("CREATE INDEX ix_nodes_fqn ON nodes (application_id, fqn)")
    op.execute("CREATE INDEX ix_nodes_file ON nodes (file_id)")
    op.execute("CREATE INDEX ix_nodes_document ON nodes (document_id)")
    op.execute("CREATE INDEX ix_nodes_parent ON nodes (parent_id)")
    op.execute(
        """
        CREATE TABLE edges (
            id              bigserial PRIMARY KEY,
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            src_id          bigint NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
            dst_id          bigint NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
            kind            text NOT NULL,
            confidence      real NOT NULL DEFAULT 1.0,
            resolution      text,
            lines           integer[] NOT NULL DEFAULT '{}',
            meta            jsonb NOT NULL DEFAULT '{}'::jsonb,
            UNIQUE (src_id, dst_id, kind)
        )
        """
    )
    op.execute("CREATE INDEX ix_edges_app_kind ON edges (application_id, kind)")
    op.execute("CREATE INDEX ix_edges_dst ON edges (dst_id, kind)")
    op.execute(
        f"""
        CREATE TABLE chunks (
            id              bigserial PRIMARY KEY,
            plan_id         text NOT NULL UNIQUE,
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            node_id         bigint NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
            document_id     bigint REFERENCES documents(id) ON DELETE CASCADE,
            source          text NOT NULL,
            kind            text,
            lang_detected   text,
            content_raw     text,
            content         text NOT NULL DEFAULT '',
            content_tsv     tsvector GENERATED ALWAYS AS (
                {_tsv("title", "content", "explain_md")}
            ) STORED,
            content_hash    text,
            token_count     integer,
            chunk_index     integer NOT NULL DEFAULT 0,
            page_number     integer,
            span_lines      int4range,
            span_chars      int8range,
            title           text,
            section_path    text[] NOT NULL DEFAULT '{{}}',
            uses_md         text,
            used_by_md      text,
            emb             vector(384),
            embed_model     text,
            embed_ts        timestamptz,
            embed_input_hash text,
            explain_md      text,
            explain_quality jsonb NOT NULL DEFAULT '{{}}'::jsonb,
            relations       jsonb NOT NULL DEFAULT '[]'::jsonb,
            used_objects    jsonb NOT NULL DEFAULT '[]'::jsonb,
            pipeline        jsonb NOT NULL DEFAULT '{{}}'::jsonb,
            plan_hash       text,
            priority        integer NOT NULL DEFAULT 0,
            stage_state     jsonb NOT NULL DEFAULT '{{}}'::jsonb,
            pending         boolean NOT NULL DEFAULT true,
            freshness_at    timestamptz,
            rank_boost      real NOT NULL DEFAULT 1.0,
            created_at      timestamptz NOT NULL DEFAULT now(),
            updated_at      timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute("CREATE INDEX ix_chunks_app ON chunks (application_id)")
    op.execute("CREATE INDEX ix_chunks_node ON chunks (node_id)")
    op.execute("CREATE INDEX ix_chunks_document ON chunks (document_id)")
    op.execute(
        "CREATE INDEX ix_chunks_pending ON chunks (application_id, priority DESC, id)"
        " WHERE pending"
    )
    op.execute("CREATE INDEX ix_chunks_tsv ON chunks USING gin (content_tsv)")
    op.execute("CREATE INDEX ix_chunks_emb ON chunks USING hnsw (emb vector_cosine_ops)")
    op.execute(
        """
        CREATE TABLE sentences (
            id              bigserial PRIMARY KEY,
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            chunk_id        bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            sentence_index  integer NOT NULL,
            content         text NOT NULL,
            emb             vector(384),
            created_at      timestamptz NOT NULL DEFAULT now(),
            UNIQUE (chunk_id, sentence_index)
        )
        """
    )
    op.execute("CREATE INDEX ix_sentences_app ON sentences (application_id)")
    op.execute("CREATE INDEX ix_sentences_emb ON sentences USING hnsw (emb vector_cosine_ops)")
    op.execute(
        """
        CREATE TABLE chunk_runs (
            id              bigserial PRIMARY KEY,
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            kind            text NOT NULL DEFAULT 'chunk',
            strategy        text,
            request         jsonb NOT NULL DEFAULT '{}'::jsonb,
            status          text NOT NULL DEFAULT 'running',
            processed_nodes bigint NOT NULL DEFAULT 0,
            written_chunks  bigint NOT NULL DEFAULT 0,
            skipped_chunks  bigint NOT NULL DEFAULT 0,
            failed_nodes    bigint NOT NULL DEFAULT 0,
            failed_batches  bigint NOT NULL DEFAULT 0,
            pages           integer NOT NULL DEFAULT 0,
            duration_s      double precision,
            rate            double precision,
            errors          jsonb NOT NULL DEFAULT '[]'::jsonb,
            started_at      timestamptz NOT NULL DEFAULT now(),
            finished_at     timestamptz
        )
        """
    )
    op.execute("CREATE INDEX ix_chunk_runs_app ON chunk_runs (application_id, id)")
    op.execute(
        """
        CREATE TABLE summary_cache (
            cache_key   text PRIMARY KEY,
            model       text NOT NULL,
            summary     text NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now()
        )
        """
    )


def downgrade() -> None:
    for table in (
        "summary_cache", "chunk_runs", "sentences", "chunks", "edges", "nodes",
        "documents", "files", "applications",
    ):
        op.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
