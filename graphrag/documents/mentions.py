"""MENTIONS edges: from a page or section to the code symbols whose names its text uses.

A class, interface, enum, object, function, method or endpoint name of at least
``MIN_NAME`` characters that appears in the text as a whole word (case-sensitive) links
the unit to every code node of that name; the confidence is 1/number of such nodes, so
an ambiguous name weighs less. One set-based statement: the text is split into words
once and joined to the names by equality (no per-name regex scan)."""

from __future__ import annotations

from sqlalchemy import Connection, text

MIN_NAME = 4
MENTIONABLE = ("CLASS", "INTERFACE", "ENUM", "OBJECT", "FUNCTION", "METHOD", "ENDPOINT")

_LINK = """
WITH units AS (
    SELECT n.id, n.meta->>'text' AS body FROM nodes n
     WHERE n.application_id = :a AND n.kind IN ('PAGE', 'SECTION') {doc_filter}
), words AS (
    SELECT DISTINCT u.id, w.word
      FROM units u, regexp_split_to_table(u.body, '[^A-Za-z0-9_$]+') AS w(word)
     WHERE length(w.word) >= :min
), targets AS (
    SELECT c.id, c.name, count(*) OVER (PARTITION BY c.name) AS same_name
      FROM nodes c
     WHERE c.application_id = :a AND c.document_id IS NULL AND c.kind = ANY(:kinds)
       AND length(c.name) >= :min
)
INSERT INTO edges (application_id, src_id, dst_id, kind, confidence, resolution)
SELECT :a, w.id, t.id, 'MENTIONS', 1.0 / t.same_name, 'name-match'
  FROM words w JOIN targets t ON t.name = w.word
ON CONFLICT (src_id, dst_id, kind) DO NOTHING
"""


def link_mentions(conn: Connection, app_id: int, document_ids: list[int] | None = None,
                  ) -> int:
    """Rewrite the MENTIONS edges of the given documents (None: every document of the
    application, e.g. after the code graph changed). Returns the edges written."""
    doc_filter = "" if document_ids is None else "AND n.document_id = ANY(:docs)"
    params = {"a": app_id, "docs": list(document_ids or []), "min": MIN_NAME,
              "kinds": list(MENTIONABLE)}
    conn.execute(text(
        "DELETE FROM edges e USING nodes n WHERE n.id = e.src_id AND e.kind = 'MENTIONS'"
        f" AND n.application_id = :a AND n.document_id IS NOT NULL {doc_filter}"), params)
    result = conn.execute(text(_LINK.format(doc_filter=doc_filter)), params)
    return max(result.rowcount, 0)
