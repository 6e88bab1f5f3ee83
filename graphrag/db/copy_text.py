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

from collections.abc import Iterable, Sequence
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
