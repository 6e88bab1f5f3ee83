"""Chunk rows without the columns and indexes no query reads: cheaper writes.

Every write of a chunk's text computed ``content_tsv`` (a generated tsvector of title,
content and summary, identifiers split by regular expressions) and added its words to
the GIN index ``ix_chunks_tsv``: about a fifth of the pipeline's batch writes, for a
column nothing reads since full-text search moved to the BM25 postings (``chunk_terms``,
migration 0004). ``ix_chunks_app`` duplicates ``ix_chunks_app_terms`` (same key,
``application_id``), so every row version paid for a second entry of the same key.

The BM25 postings (``chunk_terms``, ~20 per chunk) were keyed by (application, term,
chunk), each new posting landing on a random page of that index, plus a second index on
the chunk for deletes: keyed by (chunk, term) instead, one index serves both the deletes
by chunk and the searches' probes of a candidate's term (which name both), and a batch's
postings append to it in chunk order. (The searches' scans by term read
``ix_chunk_terms_impact``.)

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28
"""

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

# The downgrade restores the column of migration 0001 exactly: its expression, copied
# (a migration keeps the schema of its time; it does not import another's code).
_IDENT_SPLIT = ("regexp_replace(regexp_replace({col}, '([a-z0-9])([A-Z])', '\\1 \\2', 'g'),"
                " '[_./:#-]+', ' ', 'g')")


def _tsv(*cols: str) -> str:
    parts = []
    for col in cols:
        c = f"coalesce({col}, '')"
        parts.append(c)
        parts.append(_IDENT_SPLIT.format(col=c))
    return "to_tsvector('english'::regconfig, " + " || ' ' || ".join(parts) + ")"


def upgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_chunks_tsv")
    op.execute("ALTER TABLE chunks DROP COLUMN IF EXISTS content_tsv")
    op.execute("DROP INDEX IF EXISTS ix_chunks_app")
    op.execute("ALTER TABLE chunk_terms DROP CONSTRAINT chunk_terms_pkey")
    op.execute("DROP INDEX ix_chunk_terms_chunk")
    op.execute("ALTER TABLE chunk_terms ADD PRIMARY KEY (chunk_id, term)")


def downgrade() -> None:
    op.execute("ALTER TABLE chunk_terms DROP CONSTRAINT chunk_terms_pkey")
    op.execute("ALTER TABLE chunk_terms ADD PRIMARY KEY (application_id, term, chunk_id)")
    op.execute("CREATE INDEX ix_chunk_terms_chunk ON chunk_terms (chunk_id)")
    op.execute("CREATE INDEX IF NOT EXISTS ix_chunks_app ON chunks (application_id)")
    op.execute(
        "ALTER TABLE chunks ADD COLUMN content_tsv tsvector GENERATED ALWAYS AS ("
        f"{_tsv('title', 'content', 'explain_md')}) STORED"
    )
    op.execute("CREATE INDEX ix_chunks_tsv ON chunks USING gin (content_tsv)")
