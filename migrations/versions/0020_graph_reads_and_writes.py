"""Cheaper writes of a re-index that changes a few files (the index of nodes by file is
0019's ``ix_nodes_app_file``).

- ``files`` rows keep their large values (parse result, calls, resolution, reverse
  dependency index, interface) out of line (``toast_tuple_target``) and pages keep half
  their room (``fillfactor``): a run that records the modification times of files it
  read again (every file, the first run after a fresh build) then updates each row of a
  few hundred bytes in place (a heap-only update: no index entry), instead of copying a
  row of several kilobytes and adding its entries to every index, the reverse
  dependency index's GIN included (0.12-0.14 s for 4,104 files with room for a fifth of
  the rows, 0.03 s with room for all); and the scans of ``files`` that read the narrow
  columns (the stored state a run compares against) read a few pages. Rows written
  before keep their layout until rewritten.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26
"""

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE files SET (toast_tuple_target = 512, fillfactor = 50)")


def downgrade() -> None:
    op.execute("ALTER TABLE files RESET (toast_tuple_target, fillfactor)")
