"""COPY into a table with its foreign keys checked once per statement, not once per row.

PostgreSQL checks a foreign key with an after-row trigger: one ``SELECT ... FOR KEY
SHARE`` on the referenced table per written row and key, planned once per session. On
the graph's writes (three keys per edge, three per node) those checks were most of the
server's work, and with the statistics of an emptied table (``reltuples = 0`` after the
rows of a deleted application were vacuumed) the cached check plan can pick an index
whose leading column is not the key and read all of it for every row: a first build
into a fresh database then spent a minute in them instead of a second.

:func:`copy_checked` writes the rows with the foreign-key triggers off
(``SET LOCAL session_replication_role = replica``, for this statement only) and then
does what those triggers do, set-based: for each key it locks the distinct referenced
rows ``FOR KEY SHARE`` (as the triggers would: a concurrent delete of a referenced row
waits for this transaction) and counts them; a referenced value that is missing makes
the server raise its own ``ForeignKeyViolation`` (the checks of the offending rows are
fired, see :func:`_raise_violation`), so the caller sees exactly the error and the
rolled-back transaction of the per-row path. The bulk path is taken only when the role
may set ``session_replication_role`` (a superuser, as in the embedded server), the
setting is at its default, and the table has no trigger of its own (the setting would
silence user triggers too); otherwise the rows go through the normal path.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from psycopg import errors, sql

from graphrag.db.copy_text import copy_rows


@dataclass(frozen=True)
class ForeignKey:
    """One single-column foreign key of a table."""

    name: str
    column: str
    ref_table: str
    ref_column: str
    ref_type: str  # the referenced column's SQL type (for the array of values)
    has_default: bool  # the referencing column has a default (a COPY may fill it)


_FKS_SQL = """
SELECT c.conname, a.attname, c.confrelid::regclass::text, ra.attname,
       format_type(ra.atttypid, ra.atttypmod), a.atthasdef, cardinality(c.conkey)
  FROM pg_constraint c
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = c.confkey[1]
 WHERE c.conrelid = %(t)s::regclass AND c.contype = 'f'
 ORDER BY c.conname
"""

_ALLOWED_SQL = """
SELECT current_setting('is_superuser') = 'on'
   AND current_setting('session_replication_role') = 'origin'
   AND NOT EXISTS (SELECT 1 FROM pg_trigger
                    WHERE tgrelid = %(t)s::regclass AND NOT tgisinternal)
"""


def foreign_keys(cur: Any, table: str) -> list[ForeignKey] | None:
    """The table's foreign keys; None when one spans several columns (not handled)."""
    keys = []
    for name, column, ref_table, ref_column, ref_type, has_default, width in cur.execute(
            _FKS_SQL, {"t": table}).fetchall():
        if width != 1:
            return None
        keys.append(ForeignKey(name, column, ref_table, ref_column, ref_type, has_default))
    return keys


def bulk_path_allowed(cur: Any, table: str) -> bool:
    """May a COPY into ``table`` run with its foreign-key triggers off?"""
    return bool(cur.execute(_ALLOWED_SQL, {"t": table}).fetchone()[0])


@contextmanager
def foreign_key_triggers_off(cur: Any, table: str) -> Iterator[bool]:
    """Within the block, statements on ``table`` fire none of its triggers when that is
    allowed (yields True; the caller then does the foreign-key checks itself, set-based)
    and it has no trigger of its own; otherwise nothing changes and it yields False. Any
    exception inside aborts the caller's transaction, which resets the setting too."""
    if not bulk_path_allowed(cur, table):
        yield False
        return
    cur.execute("SET LOCAL session_replication_role = replica")
    yield True
    cur.execute("SET LOCAL session_replication_role = origin")


def copy_checked(cur: Any, table: str, columns: Sequence[str],
                 rows: Iterable[Sequence[Any]]) -> None:
    """``COPY table (columns) FROM STDIN`` of ``rows`` on psycopg cursor ``cur``, inside
    the caller's transaction, with the table's foreign keys verified once for the whole
    statement (see the module's docstring); the normal per-row path when that is not
    allowed. ``table`` and ``columns`` are identifiers of our schema, never user input.
    A row violating a foreign key raises ``psycopg.errors.ForeignKeyViolation``; the
    transaction is then aborted, so nothing of the statement is kept."""
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    keys = foreign_keys(cur, table)
    if keys is None or any(k.has_default and k.column not in columns for k in keys):
        copy_rows(cur, statement, rows)
        return
    # Keys whose column this COPY leaves NULL need no check.
    checked = [(k, columns.index(k.column)) for k in keys if k.column in columns]
    values: list[set[Any]] = [set() for _ in checked]

    def collect(source: Iterable[Sequence[Any]]) -> Iterator[Sequence[Any]]:
        if len(checked) == 3:  # the common shapes, unrolled (one set add per key)
            (_, i), (_, j), (_, k) = checked
            a, b, c = (s.add for s in values)
            for row in source:
                a(row[i])
                b(row[j])
                c(row[k])
                yield row
            return
        pairs = [(s.add, i) for s, (_, i) in zip(values, checked, strict=True)]
        for row in source:
            for add, i in pairs:
                add(row[i])
            yield row

    with foreign_key_triggers_off(cur, table) as off:
        copy_rows(cur, statement, collect(rows) if off else rows)
    if not off:
        return
    for (key, _), found in zip(checked, values, strict=True):
        found.discard(None)
        if found:
            _check(cur, table, key, found)


def _check(cur: Any, table: str, key: ForeignKey, values: set[Any]) -> None:
    """Lock the referenced rows as the per-row checks would and verify they all exist.

    ``= ANY(array)``, not a join with the array: planned on the estimate of a table
    just emptied (0 rows), a join may loop over the whole array for every row of the
    table; this form reads the table or an index at most once whatever the plan."""
    locked = cur.execute(sql.SQL(
        "SELECT count(*) FROM (SELECT 1 FROM {ref} r"
        " WHERE r.{col} = ANY(CAST(%(v)s AS {typ}[])) FOR KEY SHARE OF r) AS s").format(
            ref=sql.Identifier(*key.ref_table.split(".")), col=sql.Identifier(key.ref_column),
            typ=sql.SQL(key.ref_type)), {"v": list(values)}).fetchone()[0]
    if locked != len(values):
        _raise_violation(cur, table, key, values)


def _raise_violation(cur: Any, table: str, key: ForeignKey, values: set[Any]) -> None:
    """Have the server check the rows that reference a missing value, so that it raises
    its own error (an update that keeps the key of a row inserted by this transaction
    still fires the row's foreign-key check)."""
    missing = [v[0] for v in cur.execute(sql.SQL(
        "SELECT v.k FROM unnest(CAST(%(v)s AS {typ}[])) AS v(k)"
        " WHERE NOT EXISTS (SELECT 1 FROM {ref} r WHERE r.{col} = v.k)").format(
            ref=sql.Identifier(*key.ref_table.split(".")), col=sql.Identifier(key.ref_column),
            typ=sql.SQL(key.ref_type)), {"v": list(values)}).fetchall()]
    cur.execute(sql.SQL("UPDATE {t} SET {c} = {c} WHERE {c} = ANY(%(m)s)").format(
        t=sql.Identifier(table), c=sql.Identifier(key.column)), {"m": missing})
    raise errors.ForeignKeyViolation(
        f'insert or update on table "{table}" violates foreign key constraint'
        f' "{key.name}"')
