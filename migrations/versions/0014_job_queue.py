"""The job queue (procrastinate's schema), repositories as sources, per-attempt job records
and the commit an application was indexed at.

procrastinate's tables, types, functions and triggers are created from the SQL the
installed procrastinate ships (``procrastinate.schema.SchemaManager.get_schema()``), so
Alembic stays the only way the schema changes. pyproject pins procrastinate to the 3.10
series: the SQL applied here must be the SQL the installed library queries. A later
procrastinate upgrade comes with its own migration that applies procrastinate's
``sql/migrations/*.sql`` files between the two versions.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-23
"""

import re

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# The procrastinate series whose schema.sql this migration applies (see pyproject.toml).
PROCRASTINATE_SERIES = "3.10."


def _procrastinate_schema() -> str:
    import procrastinate
    from procrastinate.schema import SchemaManager

    version = procrastinate.__version__
    if not version.startswith(PROCRASTINATE_SERIES):
        raise RuntimeError(
            f"migration 0014 applies procrastinate {PROCRASTINATE_SERIES}x's schema but"
            f" procrastinate {version} is installed: install graphrag's pinned version")
    return SchemaManager.get_schema()


def upgrade() -> None:
    # Several statements, PL/pgSQL bodies with '%' and ':=': run as one simple query on the
    # driver connection (inside Alembic's transaction), never through bind-parameter parsing.
    op.get_bind().connection.driver_connection.execute(_procrastinate_schema())
    op.execute("ALTER TABLE applications ADD COLUMN indexed_commit text")
    op.execute(
        """
        CREATE TABLE repositories (
            id              bigserial PRIMARY KEY,
            application_id  bigint NOT NULL UNIQUE
                            REFERENCES applications(id) ON DELETE CASCADE,
            source          text NOT NULL,
            is_local        boolean NOT NULL,
            ref             text,
            schedule        text,
            include         text[] NOT NULL DEFAULT '{}',
            exclude         text[] NOT NULL DEFAULT '{}',
            last_commit     text,
            last_run_at     timestamptz,
            last_status     text,
            last_duration_s double precision,
            last_error      text,
            last_job_id     bigint,
            created_at      timestamptz NOT NULL DEFAULT now(),
            updated_at      timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute("CREATE INDEX ix_repositories_scheduled ON repositories (id)"
               " WHERE schedule IS NOT NULL")
    # One row per attempt of a job: procrastinate keeps status and attempts, not the
    # error a job failed with, nor what it did.
    op.execute(
        """
        CREATE TABLE job_attempts (
            id           bigserial PRIMARY KEY,
            job_id       bigint NOT NULL REFERENCES procrastinate_jobs(id) ON DELETE CASCADE,
            attempt      integer NOT NULL,
            worker       text,
            status       text NOT NULL,
            error        text,
            result       jsonb,
            started_at   timestamptz NOT NULL DEFAULT now(),
            finished_at  timestamptz,
            UNIQUE (job_id, attempt)
        )
        """
    )
    op.execute("CREATE INDEX ix_procrastinate_jobs_app ON procrastinate_jobs ((args->>'app'))")


_OBJECT = re.compile(r"^CREATE (TABLE|TYPE|FUNCTION) (\w+)", re.M)


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS job_attempts")
    op.execute("DROP TABLE IF EXISTS repositories")
    op.execute("ALTER TABLE applications DROP COLUMN IF EXISTS indexed_commit")
    objects = _OBJECT.findall(_procrastinate_schema())
    for kind in ("TABLE", "FUNCTION", "TYPE"):  # triggers and indexes go with their tables
        for found, name in objects:
            if found == kind:
                op.execute(f"DROP {kind} IF EXISTS {name} CASCADE")
