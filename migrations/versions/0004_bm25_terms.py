"""BM25 term statistics: one posting per (application, term, chunk), and each chunk's
length in terms.

Terms are the lexemes ``graphrag_terms(text)`` makes of a chunk's title and content:
snake_case and dotted names split into words, camelCase identifiers kept whole (an exact
name is the rarest, strongest term) and also split into their words (``HTTPServer`` ->
httpserver, http, server), then PostgreSQL's ``english`` configuration (stop words
dropped, words stemmed); plain words are counted once. Queries go
through the same function, so both sides always agree. The pipeline keeps the postings
of a chunk in step with its text (``pipeline/terms.py``); existing chunks are filled here.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


TERMS_FUNCTION = r"""
CREATE OR REPLACE FUNCTION graphrag_terms(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('english'::regconfig,
        regexp_replace(coalesce(t, ''), '[_./:#-]+', ' ', 'g') || ' ' ||
        coalesce((SELECT string_agg(regexp_replace(regexp_replace(m[1],
                                        '([a-z0-9])([A-Z])', '\1 \2', 'g'),
                                        '([A-Z])([A-Z][a-z])', '\1 \2', 'g'), ' ')
                    FROM regexp_matches(coalesce(t, ''),
                         '([A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*)', 'g')
                         AS m), ''))
$$
"""

CHUNK_TERMS = "graphrag_terms(concat_ws(' ', c.title, c.content))"
IMPACT_INDEX = (
    "CREATE INDEX ix_chunk_terms_density ON chunk_terms"
    " (application_id, term, (CAST(tf AS float8) / greatest(dl, 1)) DESC, chunk_id)"
)


def upgrade() -> None:
    op.execute(TERMS_FUNCTION)
    op.execute("ALTER TABLE chunks ADD COLUMN term_count integer NOT NULL DEFAULT 0")
    op.execute(
        """
        CREATE TABLE chunk_terms (
            application_id  bigint NOT NULL,
            term            text NOT NULL,
            chunk_id        bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            tf              integer NOT NULL,
            dl              integer NOT NULL,
            PRIMARY KEY (application_id, term, chunk_id)
        )
        """
    )
    op.execute("CREATE INDEX ix_chunk_terms_chunk ON chunk_terms (chunk_id)")
    # The densest postings of a term first: a query scores a bounded number per term.
    op.execute(IMPACT_INDEX)
    op.execute(
        "CREATE INDEX ix_chunks_app_terms ON chunks (application_id) INCLUDE (term_count)"
    )
    op.execute(
        f"""
        UPDATE chunks c SET term_count = s.n
          FROM (SELECT c.id, sum(coalesce(array_length(t.positions, 1), 1)) AS n
                  FROM chunks c, unnest({CHUNK_TERMS}) t GROUP BY c.id) s
         WHERE s.id = c.id
        """
    )
    op.execute(
        f"""
        INSERT INTO chunk_terms (application_id, term, chunk_id, tf, dl)
        SELECT c.application_id, t.lexeme, c.id, coalesce(array_length(t.positions, 1), 1),
               c.term_count
          FROM chunks c, unnest({CHUNK_TERMS}) t
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE chunk_terms")
    op.execute("DROP INDEX IF EXISTS ix_chunks_app_terms")
    op.execute("ALTER TABLE chunks DROP COLUMN term_count")
    op.execute("DROP FUNCTION graphrag_terms(text)")
