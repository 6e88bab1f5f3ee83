"""Record each application's embedding model in ``applications.meta.embed_model``.

From now on the pipeline records the model (name, backend and hash) that made an
application's vectors, and a query refuses vectors of another model
(``graphrag.db.vectors``). Existing applications get the model their chunks were
embedded with (the most common one; a later pipeline run re-embeds any other).

Revision ID: 0007
Revises: 0004
Create Date: 2026-11-23
"""

from alembic import op

revision = "0007"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        UPDATE applications a
           SET meta = a.meta || jsonb_build_object('embed_model', m.embed_model)
          FROM (SELECT DISTINCT ON (application_id) application_id, embed_model
                  FROM chunks WHERE emb IS NOT NULL AND embed_model IS NOT NULL
                 GROUP BY application_id, embed_model
                 ORDER BY application_id, count(*) DESC) m
         WHERE a.id = m.application_id AND NOT a.meta ? 'embed_model'
        """
    )


def downgrade() -> None:
    op.execute("UPDATE applications SET meta = meta - 'embed_model'")
