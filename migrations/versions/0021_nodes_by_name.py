"""Nodes by simple name: search looks up the definitions of the identifiers a query
names (``APIRouter``, ``safeParse``) in the searched applications, one index probe per
name instead of a scan of every node. A hash index, as for fqns (0005): a name can be
longer than a btree entry allows (a generated or hostile file's identifiers).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX IF NOT EXISTS ix_nodes_name ON nodes USING hash (name)")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_nodes_name")
