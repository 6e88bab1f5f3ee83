"""A second, short vector per chunk: what the chunk is called.

``chunks.title_emb`` embeds the chunk's name rather than its body: for code, the
symbol's name and owner in words plus its signature; for documents, the title and
section path. Hybrid search uses it to re-rank its candidates (see
``graphrag.retrieval.titles``); it has no index of its own (it is only read for the few
dozen candidates of a query). Its dimension follows ``chunks.emb``. Existing chunks get
theirs at the next pipeline run: the embed stage's input hash now covers both texts.

Revision ID: 0012
Revises: 0007
Create Date: 2026-11-23
"""

from alembic import op

revision = "0012"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        DO $$
        DECLARE dim integer;
        BEGIN
            SELECT atttypmod INTO dim FROM pg_attribute
             WHERE attrelid = 'chunks'::regclass AND attname = 'emb' AND NOT attisdropped;
            EXECUTE format('ALTER TABLE chunks ADD COLUMN title_emb vector(%s)', dim);
        END $$
        """
    )


def downgrade() -> None:
    op.execute("ALTER TABLE chunks DROP COLUMN title_emb")
