"""Drop the page-chunk trigger: the chunk writer now fills document_id, page_number and
span_chars itself in its set-based upsert (no per-row PL/pgSQL on every chunk insert).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS chunks_page_fill ON chunks")
    op.execute("DROP FUNCTION IF EXISTS graphrag_page_chunk_fill()")


def downgrade() -> None:
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
