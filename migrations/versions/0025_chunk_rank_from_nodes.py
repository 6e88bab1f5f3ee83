"""Chunks without a copy of their node's PageRank: search reads it from the node.

``chunks.rank_boost`` held ``1 + nodes.rank``. PageRank moves with every graph change, so
after an edit of one file chunk planning rewrote the rows of every chunk whose node's rank
had moved (700-900 of werkzeug's 4,741 chunks for one added function): each such row
version is a new tuple with its two vectors, inserted again into both HNSW graphs. Search
joins the node of each candidate anyway and now computes the boost there.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28
"""

from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE chunks DROP COLUMN IF EXISTS rank_boost")


def downgrade() -> None:
    op.execute("ALTER TABLE chunks ADD COLUMN rank_boost real NOT NULL DEFAULT 1.0")
    op.execute("UPDATE chunks c SET rank_boost = round((1 + n.rank)::numeric, 6)"
               " FROM nodes n WHERE n.id = c.node_id AND n.rank <> 0")
