"""Unresolved call sites on record: every call site the resolver could not bind to a
node of the repository (caller, called name, receiver as written, line, reason), so
that a node's callers can say whether they are complete and ``apps``/``db status`` can
show the share of call sites resolved per language. Written by the graph step
(``graphrag.graph.unresolved_store``) with the nodes and edges of the same run.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "unresolved_calls",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("application_id", sa.BigInteger,
                  sa.ForeignKey("applications.id", ondelete="CASCADE"), nullable=False),
        sa.Column("caller_id", sa.BigInteger,
                  sa.ForeignKey("nodes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("file_path", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("receiver", sa.Text),
        sa.Column("line", sa.Integer),
        sa.Column("reason", sa.Text, nullable=False),
    )
    # a node's name -> the unresolved sites that call it; a file's rows (rewritten
    # with the file); a caller's rows (the cascade from nodes)
    op.create_index("ix_unresolved_calls_app_name", "unresolved_calls",
                    ["application_id", "name"])
    op.create_index("ix_unresolved_calls_app_file", "unresolved_calls",
                    ["application_id", "file_path"])
    op.create_index("ix_unresolved_calls_caller", "unresolved_calls", ["caller_id"])


def downgrade() -> None:
    op.drop_table("unresolved_calls")
