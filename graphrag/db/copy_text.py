"""Rows for ``COPY ... FROM STDIN`` in PostgreSQL's text format, encoded in one pass.

psycopg's ``Copy.write_row`` adapts every value through its dumper machinery, and arrays
(``int[]`` edge lines, ``text[]`` names) through a pure-Python dumper: on the graph's
100k-row writes that cost more than the server's own work. Here each row becomes one
text line with the few formatting rules COPY needs (``\\N`` for NULL, backslash, tab,
newline and carriage return escaped; arrays as array literals), and a whole batch is
written at once with ``Copy.write``. The server parses every field in its column's type,
exactly as it does for psycopg's text-format COPY.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

_NULL = "\\N"


def _escape(text: str) -> str:
    # str.replace scans at C speed; most texts contain none of these characters.
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if "\t" in text:
        text = text.replace("\t", "\\t")
    if "\n" in text:
        text = text.replace("\n", "\\n")
    if "\r" in text:
        text = text.replace("\r", "\\r")
    return text


def _array_item(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    text = str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _array(items: list[Any] | tuple[Any, ...]) -> str:
    """An array literal, escaped for COPY. Elements are quoted (a name ``NULL`` or one
    with a comma stays a string); lists of plain strings or of ints take a fast path."""
    if not items:
        return "{}"
    first = items[0]
    if type(first) is str:
        try:
            # NUL cannot occur in a PostgreSQL text, so it safely marks element borders
            joined = "\0".join(items)
        except TypeError:  # not all strings (a NULL element)
            joined = '"'
        if '"' not in joined and "\\" not in joined:
            return _escape('{"' + joined.replace("\0", '","') + '"}')
    elif type(first) is int and all(type(i) is int for i in items):
        return "{" + ",".join(map(str, items)) + "}"
    return _escape("{" + ",".join(map(_array_item, items)) + "}")


def _field(value: Any) -> str:
    if value is None:
        return _NULL
    kind = type(value)
    if kind is str:
        if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
            return _escape(value)
        return value
    if kind is int or kind is float:
        return repr(value)
    if kind is bool:
        return "t" if value else "f"
    if kind is list or kind is tuple:
        return _array(value)
    return _escape(str(value))


def encode_rows(rows: Iterable[Sequence[Any]]) -> bytes:
    """``rows`` as COPY text-format lines (UTF-8). Values: None, str, bool, int, float,
    or a list/tuple of those (an array)."""
    return "".join("\t".join(map(_field, row)) + "\n" for row in rows).encode("utf-8")


def copy_rows(cur: Any, statement: str, rows: Iterable[Sequence[Any]],
              batch: int = 2000) -> None:
    """Run ``statement`` (a ``COPY <table> (<cols>) FROM STDIN``) on psycopg cursor ``cur``
    and send ``rows`` in batches of ``batch`` rows."""
    with cur.copy(statement) as copy:
        buffer: list[Sequence[Any]] = []
        for row in rows:
            buffer.append(row)
            if len(buffer) >= batch:
                copy.write(encode_rows(buffer))
                buffer.clear()
        if buffer:
            copy.write(encode_rows(buffer))


_END = object()


class RowStream:
    """Rows handed to ``write`` (e.g. a :func:`copy_rows` call) on a background thread
    while the caller is still producing them: ``put`` queues a row (the first one starts
    the thread), ``close`` ends the rows, waits, and raises what ``write`` raised. The
    caller must not use ``write``'s connection between the first ``put`` and ``close``;
    the server then works on the rows while this process computes the next ones."""

    def __init__(self, write: Callable[[Iterable[Sequence[Any]]], None]) -> None:
        self._write = write
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def put(self, row: Sequence[Any]) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="copy-rows", daemon=True)
            self._thread.start()
        self._queue.put(row)

    def _run(self) -> None:
        try:
            self._write(iter(self._queue.get, _END))
        except BaseException as exc:  # noqa: BLE001 - handed to close()'s caller
            self._error = exc

    def close(self) -> None:
        """Wait for the rows put so far to be written; raise ``write``'s error."""
        if self._thread is None:
            return
        self._queue.put(_END)
        self._thread.join()
        self._thread = None
        if self._error is not None:
            raise self._error
