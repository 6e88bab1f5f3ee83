"""A normalized, id-free dump of an application's graph, for equality checks."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, text


def graph_dump(engine: Engine, app_name: str) -> dict[str, Any]:
    with engine.connect() as conn:
        app_id = conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                              {"n": app_name}).scalar_one()
        nodes = sorted(
            tuple(str(v) for v in r) for r in conn.execute(text(
                """
                SELECT n.stable_key, n.kind, n.name, n.fqn, n.package_name, n.file_path,
                       n.lang, n.line_start, n.line_end, n.char_start, n.char_end,
                       n.signature, n.doc_comment, n.content_hash, n.meta::text,
                       p.stable_key, round(n.rank::numeric, 4)
                  FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id
                 WHERE n.application_id = :a
                """), {"a": app_id}))
        edges = sorted(
            tuple(str(v) for v in r) for r in conn.execute(text(
                """
                SELECT s.stable_key, d.stable_key, e.kind, e.confidence, e.resolution,
                       e.lines, e.meta::text
                  FROM edges e JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id
                 WHERE e.application_id = :a
                """), {"a": app_id}))
        files = sorted(
            tuple(str(v) for v in r) for r in conn.execute(text(
                "SELECT path, language, content_hash, parse_status, parse_error, error_count,"
                " size_bytes FROM files"
                " WHERE application_id = :a"), {"a": app_id}))
        unresolved = sorted(
            tuple(str(v) for v in r) for r in conn.execute(text(
                "SELECT c.stable_key, u.file_path, u.name, u.receiver, u.line, u.reason"
                "  FROM unresolved_calls u JOIN nodes c ON c.id = u.caller_id"
                " WHERE u.application_id = :a"), {"a": app_id}))
    return {"nodes": nodes, "edges": edges, "files": files, "unresolved": unresolved}
