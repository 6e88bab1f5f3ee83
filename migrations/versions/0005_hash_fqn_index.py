"""Hash index on nodes.fqn: a btree row cannot exceed ~2.7 kB, and a definition whose
name is thousands of characters long made the whole graph transaction fail. Lookups by
fqn are equalities (prefix searches use LIKE '%...', which no btree serves).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_nodes_fqn")
    op.execute("CREATE INDEX ix_nodes_fqn ON nodes USING hash (fqn)")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_nodes_fqn")
    op.execute("CREATE INDEX ix_nodes_fqn ON nodes (application_id, fqn)")
