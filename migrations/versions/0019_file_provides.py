"""Per file, the lookup keys its definitions answer.

``files.provides``: every key of the resolver's symbol table that the file's parse result
contributes to (a fully qualified name, a module, a package, a callable name, a node key
before duplicate numbering) and whether it registers HTTP routes or mounts routers.
GIN-indexed: a run after a small edit asks which files answer the lookups its resolution
made and loads only those, instead of every file's definitions. NULL for rows written
before this revision; such an application takes the whole-table path until its files
are parsed again.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE files ADD COLUMN provides text[]")
    op.execute("CREATE INDEX ix_files_provides ON files USING gin (provides)")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_files_provides")
    op.execute("ALTER TABLE files DROP COLUMN provides")
