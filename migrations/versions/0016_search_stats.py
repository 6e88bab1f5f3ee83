"""Search statistics kept at write time, so a query does not compute them.

BM25 term statistics kept with the postings:

A BM25 query needs each query term's document frequency and the searched chunks' count
and mean length. Counting them from ``chunk_terms`` at query time cost most of a
query's time on a large application (a common word has tens of thousands of postings).

- ``term_stats``: per application and term, ``df`` (chunks holding the term); the row
  with the empty term (never a lexeme) holds the application's totals: ``df`` = chunks
  with terms, ``dl`` = sum of their lengths.
- ``term_stats_delta``: append-only changes, one row per term and statement, written by
  statement-level triggers on ``chunk_terms`` (insert: +, delete: -, including deletes
  cascaded from chunks). Appending never waits for another writer, so concurrent
  pipeline workers of one application cannot deadlock on hot terms.
- The pipeline folds the deltas into ``term_stats`` after its batches
  (``graphrag.pipeline.terms.compact_term_stats``); a reader adds both, so the figures
  are exact whether or not the deltas were folded yet.
- ``ix_chunk_terms_impact`` replaces ``ix_chunk_terms_density``: the same order, with
  ``tf`` and ``dl`` included, so reading a term's densest postings is an index-only scan.

And ``chunks.name_terms``: the node name's words as the BM25 analyser makes them, for
hybrid search's name match (analysing every candidate's name per query cost several
milliseconds). Written with the postings; NULL for chunks written before this revision.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-23
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

# Changes of one statement on chunk_terms: per term the number of postings (one per
# chunk), and per application the chunks and their lengths (a statement inserts or
# deletes all postings of a chunk). Rows of an application deleted in the same
# transaction are dropped: its statistics go with it.
_DELTA_SELECT = """
    SELECT r.application_id, r.term, {sign} count(*), 0
      FROM {rows} r GROUP BY r.application_id, r.term
    UNION ALL
    SELECT d.application_id, '', {sign} count(*), {sign} sum(d.dl)
      FROM (SELECT DISTINCT application_id, chunk_id, dl FROM {rows}) d
     GROUP BY d.application_id
"""


def _function(name: str, rows: str, sign: str) -> str:
    select = _DELTA_SELECT.format(rows=rows, sign=sign)
    return f"""
        CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO term_stats_delta (application_id, term, df, dl)
            SELECT s.* FROM ({select}) s
             WHERE EXISTS (SELECT 1 FROM applications a WHERE a.id = s.application_id);
            RETURN NULL;
        END $$
    """


def upgrade() -> None:
    # Not filled here: rewriting every chunk row also rewrites its HNSW index entries
    # (minutes on a large database). Search analyses the name of a chunk written
    # before this revision, as it did before.
    op.execute("ALTER TABLE chunks ADD COLUMN name_terms text[]")
    op.execute(
        """
        CREATE TABLE term_stats (
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            term            text NOT NULL,
            df              bigint NOT NULL,
            dl              bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (application_id, term)
        )
        """
    )
    op.execute(
        """
        CREATE TABLE term_stats_delta (
            application_id  bigint NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
            term            text NOT NULL,
            df              bigint NOT NULL,
            dl              bigint NOT NULL DEFAULT 0
        )
        """
    )
    op.execute("CREATE INDEX ix_term_stats_delta ON term_stats_delta (application_id, term)")
    # A query reads a bounded number of each term's densest postings: with tf and dl in
    # the index that is an index-only scan.
    op.execute(
        "CREATE INDEX ix_chunk_terms_impact ON chunk_terms"
        " (application_id, term, (CAST(tf AS float8) / greatest(dl, 1)) DESC, chunk_id)"
        " INCLUDE (tf, dl)"
    )
    op.execute("DROP INDEX ix_chunk_terms_density")
    op.execute(_function("graphrag_term_stats_added", "new_rows", ""))
    op.execute(_function("graphrag_term_stats_removed", "old_rows", "-"))
    op.execute(
        "CREATE TRIGGER chunk_terms_stats_added AFTER INSERT ON chunk_terms"
        " REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT"
        " EXECUTE FUNCTION graphrag_term_stats_added()"
    )
    op.execute(
        "CREATE TRIGGER chunk_terms_stats_removed AFTER DELETE ON chunk_terms"
        " REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT"
        " EXECUTE FUNCTION graphrag_term_stats_removed()"
    )
    postings = _DELTA_SELECT.format(rows="chunk_terms", sign="")
    op.execute(
        f"""
        INSERT INTO term_stats (application_id, term, df, dl)
        SELECT s.application_id, s.term, s.count, s.dl
          FROM ({postings}) s (application_id, term, count, dl)
         WHERE EXISTS (SELECT 1 FROM applications a WHERE a.id = s.application_id)
        """
    )


def downgrade() -> None:
    op.execute(
        "CREATE INDEX ix_chunk_terms_density ON chunk_terms"
        " (application_id, term, (CAST(tf AS float8) / greatest(dl, 1)) DESC, chunk_id)"
    )
    op.execute("DROP INDEX ix_chunk_terms_impact")
    op.execute("DROP TRIGGER chunk_terms_stats_removed ON chunk_terms")
    op.execute("DROP TRIGGER chunk_terms_stats_added ON chunk_terms")
    op.execute("DROP FUNCTION graphrag_term_stats_removed()")
    op.execute("DROP FUNCTION graphrag_term_stats_added()")
    op.execute("DROP TABLE term_stats_delta")
    op.execute("DROP TABLE term_stats")
    op.execute("ALTER TABLE chunks DROP COLUMN name_terms")
