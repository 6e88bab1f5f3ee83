"""HTTP call sites, their links to the ENDPOINTs they reach, and groups of applications.

``http_calls``: one row per request the code sends (caller node, file, line, client,
method, URL template, base, path template, named service), written by the graph step
with the nodes of the same run (``graphrag.graph.http_sites_store``). ``http_links``: a call
site matched to an ENDPOINT of the same or another application, with a confidence and
the reason (``graphrag.graph.links_store``). ``app_groups`` and ``app_group_members``:
named sets of applications whose call sites and endpoints are linked with one another
(``graphrag.db.groups_store``); without any group, every application is linked with every
other.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "http_calls",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("application_id", sa.BigInteger,
                  sa.ForeignKey("applications.id", ondelete="CASCADE"), nullable=False),
        sa.Column("caller_id", sa.BigInteger,
                  sa.ForeignKey("nodes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("file_path", sa.Text, nullable=False),
        sa.Column("line", sa.Integer, nullable=False),
        sa.Column("client", sa.Text, nullable=False),
        sa.Column("method", sa.Text),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("base", sa.Text),
        sa.Column("path", sa.Text),
        sa.Column("service", sa.Text),
    )
    # a file's sites (rewritten with the file); a caller's sites (the cascade from nodes)
    op.create_index("ix_http_calls_app_file", "http_calls", ["application_id", "file_path"])
    op.create_index("ix_http_calls_caller", "http_calls", ["caller_id"])
    op.create_table(
        "http_links",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("call_id", sa.BigInteger,
                  sa.ForeignKey("http_calls.id", ondelete="CASCADE"), nullable=False),
        sa.Column("endpoint_id", sa.BigInteger,
                  sa.ForeignKey("nodes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("application_id", sa.BigInteger,
                  sa.ForeignKey("applications.id", ondelete="CASCADE"), nullable=False),
        sa.Column("endpoint_app_id", sa.BigInteger,
                  sa.ForeignKey("applications.id", ondelete="CASCADE"), nullable=False),
        sa.Column("confidence", sa.REAL, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
    )
    op.create_index("ix_http_links_call", "http_links", ["call_id"])
    op.create_index("ix_http_links_endpoint", "http_links", ["endpoint_id"])
    op.create_index("ix_http_links_app", "http_links", ["application_id"])
    op.create_index("ix_http_links_endpoint_app", "http_links", ["endpoint_app_id"])
    op.create_table(
        "app_groups",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, unique=True),
        sa.Column("created_at", sa.TIMESTAMP(timezone=True), nullable=False,
                  server_default=sa.func.now()),
    )
    op.create_table(
        "app_group_members",
        sa.Column("group_id", sa.BigInteger,
                  sa.ForeignKey("app_groups.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("application_id", sa.BigInteger,
                  sa.ForeignKey("applications.id", ondelete="CASCADE"), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("app_group_members")
    op.drop_table("app_groups")
    op.drop_table("http_links")
    op.drop_table("http_calls")
