"""Documents: processing timestamps and counts, lookup by source path, and document chunks
that know their document, page and character span.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE documents ADD COLUMN processed_at timestamptz")
    op.execute("ALTER TABLE documents ADD COLUMN sentence_count integer")
    op.execute("ALTER TABLE documents ADD COLUMN section_count integer")
    op.execute("CREATE INDEX ix_documents_source ON documents (application_id, source_path)")
    # A page chunk is written by the generic chunk writer, which knows nothing of documents:
    # the row takes its document, page number and character span from its node and plan
    # here, wherever it is created (ingest, `graphrag index`, `graphrag chunk`).
    op.execute(
        """
        CREATE FUNCTION graphrag_page_chunk_fill() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            SELECT n.document_id, n.page_number INTO NEW.document_id, NEW.page_number
              FROM nodes n WHERE n.id = NEW.node_id;
            IF NEW.pipeline->'params' ? 'charStart' THEN
                NEW.span_chars := int8range((NEW.pipeline->'params'->>'charStart')::bigint,
                                            (NEW.pipeline->'params'->>'charEnd')::bigint);
            END IF;
            RETURN NEW;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER chunks_page_fill BEFORE INSERT OR UPDATE OF pipeline ON chunks
        FOR EACH ROW WHEN (NEW.source = 'doc' AND NEW.kind = 'page')
        EXECUTE FUNCTION graphrag_page_chunk_fill()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS chunks_page_fill ON chunks")
    op.execute("DROP FUNCTION IF EXISTS graphrag_page_chunk_fill()")
    op.execute("DROP INDEX IF EXISTS ix_documents_source")
    for col in ("section_count", "sentence_count", "processed_at"):
        op.execute(f"ALTER TABLE documents DROP COLUMN IF EXISTS {col}")
