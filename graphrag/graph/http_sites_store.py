"""The HTTP call sites on record (table ``http_calls``): the requests each file's code
sends (:class:`graphrag.parsing.model.HttpCall`), written with the nodes of the run that
parsed the file, each attached to its calling node (the file's node for code at file
level).

A run rewrites the sites of the files it parsed or deleted: the stored rows of those
files are read and only what differs is deleted or inserted, so a run that changes
nothing writes nothing and the ids of the sites that stay (and their links) stay."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any

from sqlalchemy import Connection, text

from graphrag.db.row_diff import diff_rows
from graphrag.parsing.model import HttpCall, ParseResult

# the stored columns of a site: every field of HttpCall but the caller (a node id here)
_FIELDS = tuple(f.name for f in fields(HttpCall) if f.name != "caller")


def write_sites(conn: Connection, app_id: int, results: Mapping[str, ParseResult | None],
                deleted: Iterable[str] = ()) -> bool:
    """Make the stored sites of the files ``results`` (path -> parse result, None for a
    file that is no longer parsed) and ``deleted`` those the parse results hold. The
    nodes of those files are written already. True when a site was added or removed."""
    paths = sorted(set(results) | set(deleted))
    if not paths:
        return False
    stored: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for r in conn.execute(text(
            "SELECT h.id, h.file_path, c.fqn, c.kind = 'FILE' AS at_file, h.line, h.client,"
            " h.method, h.url, h.base, h.path, h.service"
            "  FROM http_calls h JOIN nodes c ON c.id = h.caller_id"
            " WHERE h.application_id = :a AND h.file_path = ANY(:p)"),
            {"a": app_id, "p": paths}).all():
        caller = None if r.at_file else r.fqn
        stored[(r.file_path, caller, *r[4:])].append(int(r.id))
    new, gone = diff_rows(stored, (
        (path, site.caller, *(getattr(site, f) for f in _FIELDS))
        for path, result in results.items()
        for site in (result.http_calls if result is not None else ())))
    if gone:
        conn.execute(text("DELETE FROM http_calls WHERE id = ANY(:ids)"), {"ids": gone})
    if not new:
        return bool(gone)
    callers = _callers(conn, app_id, new)
    rows = [{"a": app_id, "c": callers.get((k[0], k[1])) or callers.get((k[0], None)),
             "p": k[0], **dict(zip(_FIELDS, k[2:], strict=True))} for k in new]
    rows = [r for r in rows if r["c"] is not None]
    if rows:
        # one statement for the batch (executemany sends one per row)
        conn.execute(text(
            "INSERT INTO http_calls (application_id, caller_id, file_path, line, client,"
            " method, url, base, path, service) SELECT :a, * FROM unnest("
            " CAST(:c AS bigint[]), CAST(:p AS text[]), CAST(:line AS int[]),"
            " CAST(:client AS text[]), CAST(:method AS text[]), CAST(:url AS text[]),"
            " CAST(:base AS text[]), CAST(:path AS text[]), CAST(:service AS text[]))"),
            {"a": app_id, **{k: [r[k] for r in rows]
                             for k in ("c", "p", *_FIELDS)}})
    return True


def _callers(conn: Connection, app_id: int, sites: list[tuple[Any, ...]]
             ) -> dict[tuple[str, str | None], int]:
    """(file, caller fqn) -> node id, and (file, None) -> the file's node."""
    paths = sorted({s[0] for s in sites})
    out: dict[tuple[str, str | None], int] = {}
    for r in conn.execute(text(
            "SELECT id, file_path, fqn, kind FROM nodes WHERE application_id = :a"
            " AND file_path = ANY(:p) AND (kind = 'FILE' OR fqn = ANY(:f))"),
            {"a": app_id, "p": paths, "f": sorted({s[1] for s in sites if s[1]})}).all():
        key = (r.file_path, None if r.kind == "FILE" else r.fqn)
        out.setdefault(key, int(r.id))
    return out
