"""Batch search: many queries from JSON lines in one process.

Input: one JSON object per line, ``{"id": <string or int>, "query": "<text>", ...}``
(other fields are kept for hit-test and otherwise ignored; blank lines are skipped; a
missing id becomes the 1-based line number). Output, one object per non-blank line in
input order: ``{"id": ..., "hits": [...]}``, or ``{"id": ..., "line": n, "error": ...}``
for a line that is not valid JSON, not an object, or lacks a usable ``query``.

Queries are searched in slices of ``BATCH_SIZE``: one model call embeds a slice, one
database transaction runs it, and output streams slice by slice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphrag.db.context import AppScope
from graphrag.embedding import Embedder
from graphrag.retrieval.search.engine import search_many
from graphrag.retrieval.search.model import SearchOptions

BATCH_SIZE = 256


@dataclass
class QueryLine:
    """One input line: a query to run, or the reason it cannot run."""

    line: int
    id: Any
    query: str | None = None
    error: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


def parse_line(line_no: int, raw: str) -> QueryLine:
    """A :class:`QueryLine` from one line of text (never raises on bad input)."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return QueryLine(line_no, None, error=f"invalid JSON: {exc.msg} (column {exc.colno})")
    if not isinstance(data, dict):
        return QueryLine(line_no, None, error="not a JSON object")
    qid = data.get("id", line_no)
    if isinstance(qid, bool) or not isinstance(qid, (str, int)):
        return QueryLine(line_no, None, error="id must be a string or an integer",
                         fields=data)
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        return QueryLine(line_no, qid, error="missing or empty 'query'", fields=data)
    return QueryLine(line_no, qid, query=query, fields=data)


def read_query_lines(lines: Iterable[str]) -> list[QueryLine]:
    """Parse JSON lines; blank lines are skipped, bad ones become error entries."""
    return [parse_line(n, raw) for n, raw in enumerate(lines, start=1) if raw.strip()]


def error_record(item: QueryLine) -> dict[str, Any]:
    return {"id": item.id, "line": item.line, "error": item.error}


def batch_search(scope: AppScope, items: Sequence[QueryLine], options: SearchOptions,
                 embedder: Embedder | None = None,
                 batch_size: int = BATCH_SIZE) -> Iterator[dict[str, Any]]:
    """Yield one output record per item, in input order."""
    for start in range(0, len(items), batch_size):
        part = items[start:start + batch_size]
        good = [i for i in part if i.ok]
        results = iter(search_many(scope, [i.query or "" for i in good],
                                   options, embedder)) if good else iter(())
        for item in part:
            if item.ok:
                yield {"id": item.id, "hits": next(results).hits}
            else:
                yield error_record(item)
