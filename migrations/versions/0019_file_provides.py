"""Per file, the lookup keys its definitions answer; what a small re-index reads by index.

``files.provides``: every key of the resolver's symbol table that the file's parse result
contributes to (a fully qualified name, a module, a package, a callable name, a node key
before duplicate numbering) and whether it registers HTTP routes or mounts routers.
GIN-indexed: a run after a small edit asks which files answer the lookups its resolution
made and loads only those, instead of every file's definitions. NULL for rows written
before this revision; such an application takes the whole-table path until its files
are parsed again (a run that reads every file's definitions fills them in).

Also, for a re-index after a small edit, whose reads must not scan an application:

* ``ix_nodes_app_file``: nodes by file (the rows of the files a run rewrites);
* ``ix_files_unfinished``: the (normally no) files whose stored resolution, interface or
  lookup keys are missing;
* ``applications.graph_state``: what the graph step keeps for its next run (the routes
  each file registers, the router mounts, cross-file edge exceptions) leaves
  ``applications.meta``, which every run reads and writes: a few hundred kB there were
  rewritten by each small update of ``meta``. The next run rebuilds it.

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
    op.execute("CREATE INDEX ix_files_unfinished ON files (application_id)"
               " WHERE parse_data IS NOT NULL"
               " AND (resolved IS NULL OR iface IS NULL OR provides IS NULL)")
    op.execute("CREATE INDEX ix_nodes_app_file ON nodes (application_id, file_path)")
    op.execute("ALTER TABLE applications ADD COLUMN graph_state jsonb")
    op.execute("UPDATE applications SET meta = meta - 'graph_state'")


def downgrade() -> None:
    op.execute("ALTER TABLE applications DROP COLUMN graph_state")
    op.execute("DROP INDEX IF EXISTS ix_nodes_app_file")
    op.execute("DROP INDEX IF EXISTS ix_files_unfinished")
    op.execute("DROP INDEX IF EXISTS ix_files_provides")
    op.execute("ALTER TABLE files DROP COLUMN provides")
