"""An index on the nodes of each file by path.

A re-index that rebuilds and compares the graph rows of a few files reads those files'
stored nodes (``file_path = ANY(...)``, with the repository and package rows:
``file_path IS NULL``) and the edges from them; without this index each such read was a
scan of every node of every application.

Revision ID: 0020
Revises: 0018
Create Date: 2026-11-26
"""

from alembic import op

revision = "0020"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX ix_nodes_app_file_path ON nodes (application_id, file_path)")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_nodes_app_file_path")
