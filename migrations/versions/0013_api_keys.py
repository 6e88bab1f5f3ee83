"""API keys of the HTTP server (`graphrag keys create|list|revoke`).

Only a SHA-256 of each key is stored (keys are 256-bit random tokens, so a fast hash
is enough: nothing to brute-force), with its label, the first characters for people
to recognise it, the applications it may use (names, so a key can be made before its
knowledge base's first upload) and when it was used or revoked.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("name", sa.Text, nullable=True),
        sa.Column("prefix", sa.Text, nullable=False),
        sa.Column("key_hash", sa.Text, nullable=False, unique=True),
        sa.Column("apps", postgresql.ARRAY(sa.Text), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("cardinality(apps) > 0", name="api_keys_apps_not_empty"),
    )


def downgrade() -> None:
    op.drop_table("api_keys")
