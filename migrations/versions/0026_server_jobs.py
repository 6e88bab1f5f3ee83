"""Background jobs of ``graphrag serve`` in the database: any worker process answers.

A server's uploads and index runs were jobs in the memory of the process that accepted
them: with ``--workers`` greater than 1, ``GET /v1/jobs/{id}`` reached another process
half of the time and answered "no job", and a restart forgot every job. ``server_jobs``
holds each job's state; ``owner`` names the server process that runs it (the process
holds a session advisory lock on that number, so a job whose owner is gone is known).

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28
"""

from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
        CREATE TABLE server_jobs (
            id          text PRIMARY KEY,
            kind        text NOT NULL,
            application text NOT NULL,
            status      text NOT NULL DEFAULT 'queued',
            owner       integer NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now(),
            started_at  timestamptz,
            finished_at timestamptz,
            result      jsonb,
            error       text,
            meta        jsonb NOT NULL DEFAULT '{}'::jsonb
        )""")
    op.execute("CREATE INDEX ix_server_jobs_created ON server_jobs (created_at)")
    op.execute("CREATE INDEX ix_server_jobs_open ON server_jobs (owner)"
               " WHERE status IN ('queued', 'running')")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS server_jobs")
