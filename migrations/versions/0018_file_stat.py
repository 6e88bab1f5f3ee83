"""Per file, the modification time its row was written with.

``files.mtime_ns``: the file's ``st_mtime_ns`` when the graph step last read it. A run
reads and hashes again only the files whose size or modification time differ from the
stored ones, or whose modification time is too close to when their row was written to
tell two versions apart (git's "racily clean" rule); the content hash stays the
authority whenever the file is read. NULL for rows written before this revision: their
files are read as before, once.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE files ADD COLUMN mtime_ns bigint")


def downgrade() -> None:
    op.execute("ALTER TABLE files DROP COLUMN mtime_ns")
