"""What incremental resolution keeps per file, beside its parse result.

- ``calls_data``: the file's calls, split out of ``parse_data`` so that a run that
  re-resolves a few files does not decode every file's calls;
- ``ref_names``: the identifiers the file refers to (the reverse dependency index: which
  files must be re-resolved when a definition of that name changes), with a GIN index;
- ``iface``: one entry per name the file's nodes expose to other files (``name`` and a
  digest of what a lookup from another file can see), compared with the next run's to
  find the definitions that changed;
- ``resolved``: the edges and notes the file's own imports and calls produced last time,
  reused while nothing it refers to changed.

And per code node and edge, ``row_hash``: a digest of the values the graph sync writes,
so that a run compares the graph it resolved with the stored one in memory and writes
only the rows that differ (COPY for new rows, one UPDATE for changed ones).

Rows indexed before this revision have NULL ``resolved`` and ``row_hash``: their next
run re-resolves and rewrites them once.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-23
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE files ADD COLUMN calls_data json")
    op.execute("ALTER TABLE files ADD COLUMN ref_names text[]")
    op.execute("ALTER TABLE files ADD COLUMN iface text[]")
    op.execute("ALTER TABLE files ADD COLUMN resolved json")
    op.execute("CREATE INDEX ix_files_ref_names ON files USING gin (ref_names)")
    op.execute("ALTER TABLE nodes ADD COLUMN row_hash text")
    op.execute("ALTER TABLE edges ADD COLUMN row_hash text")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_files_ref_names")
    op.execute("ALTER TABLE edges DROP COLUMN row_hash")
    op.execute("ALTER TABLE nodes DROP COLUMN row_hash")
    # parse_data of rows written since lacks its calls: clear the hashes so that the
    # next index run re-parses every file instead of resolving without calls.
    op.execute("UPDATE files SET content_hash = NULL WHERE calls_data IS NOT NULL")
    for col in ("resolved", "iface", "ref_names", "calls_data"):
        op.execute(f"ALTER TABLE files DROP COLUMN {col}")
