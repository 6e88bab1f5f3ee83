"""Chunk rows keep their vectors in the row (``toast_tuple_target`` of a whole page).

A chunk row holds its text and two 384-float vectors (1.5 kB each): past PostgreSQL's
default threshold of about 2 kB, the vectors were moved to the TOAST table, so every
distance the search computed from a row (the score of each HNSW hit, every row of an
exact scan) first fetched its vector through the TOAST index: an exact scan of 2,000
chunks took 10-12 ms instead of 3.5-4.5 ms. With the threshold at a page, a row is
stored whole up to ~8 kB, and a longer one has its text (the largest value) moved out
first.

The option applies to rows written from now on; existing rows keep their layout until
they are written again (re-indexing, ``graphrag reembed``).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE chunks SET (toast_tuple_target = 8160)")


def downgrade() -> None:
    op.execute("ALTER TABLE chunks RESET (toast_tuple_target)")
