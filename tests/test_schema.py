"""The Core tables of ``graphrag.db.schema`` match what the migrations build."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, MetaData, Table, create_engine, text
from sqlalchemy.dialects import postgresql

from graphrag.db import engine as dbengine
from graphrag.db.schema import metadata

SCRATCH = "graphrag_schema_test"


@pytest.fixture(scope="module")
def migrated(db_url: str) -> Iterator[Engine]:
    """A scratch database migrated from nothing to head (not the session's database,
    whose tables tests may have touched)."""
    admin = create_engine(dbengine.sqlalchemy_url(db_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {SCRATCH}"))
        conn.execute(text(f"CREATE DATABASE {SCRATCH}"))
    scratch = create_engine(dbengine.sqlalchemy_url(
        db_url.replace("/postgres?", f"/{SCRATCH}?")))
    try:
        dbengine.upgrade(scratch)
        yield scratch
    finally:
        scratch.dispose()
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {SCRATCH}"))
        admin.dispose()


def _type(column) -> str:
    # The PostgreSQL spelling of the type. Vectors compare without their dimension: the
    # reflected column carries the database's, the description none (set at run time).
    spelled = column.type.compile(dialect=postgresql.dialect())
    return "VECTOR" if spelled.startswith("VECTOR") else spelled


def _shape(table: Table) -> dict:
    return {
        "columns": {c.name: (_type(c), c.nullable, c.computed is not None)
                    for c in table.columns},
        "primary_key": [c.name for c in table.primary_key.columns],
        "foreign_keys": sorted((fk.parent.name, fk.target_fullname, fk.ondelete)
                               for fk in table.foreign_keys
                               if fk.target_fullname.split(".")[0] in metadata.tables),
    }


def _differences(described: MetaData, reflected: MetaData) -> list[str]:
    diffs = []
    ours = {n for n in reflected.tables if not n.startswith("procrastinate_")
            and n != "alembic_version"}
    if missing := sorted(ours - set(described.tables)):
        diffs.append(f"tables not described: {missing}")
    if extra := sorted(set(described.tables) - ours):
        diffs.append(f"tables described but not migrated: {extra}")
    for name in sorted(ours & set(described.tables)):
        want, got = _shape(described.tables[name]), _shape(reflected.tables[name])
        for key in ("primary_key", "foreign_keys"):
            if want[key] != got[key]:
                diffs.append(f"{name} {key}: described {want[key]}, migrated {got[key]}")
        for col in sorted(set(want["columns"]) | set(got["columns"])):
            if want["columns"].get(col) != got["columns"].get(col):
                diffs.append(f"{name}.{col}: described {want['columns'].get(col)},"
                             f" migrated {got['columns'].get(col)}")
    return diffs


def _reflect(engine: Engine) -> MetaData:
    import pgvector.sqlalchemy  # noqa: F401  (registers the vector type for reflection)

    reflected = MetaData()
    reflected.reflect(engine)
    return reflected


def test_described_tables_match_the_migrated_database(migrated: Engine) -> None:
    diffs = _differences(metadata, _reflect(migrated))
    assert not diffs, "graphrag/db/schema.py drifted from migrations:\n" + "\n".join(diffs)


def test_a_drift_is_found(migrated: Engine) -> None:
    # The comparison must be able to fail: a column the migrations do not have, a changed
    # nullability and a column type are each reported.
    with migrated.begin() as conn:
        conn.execute(text("ALTER TABLE summary_cache ADD COLUMN probe int"))
        conn.execute(text("ALTER TABLE summary_cache ALTER COLUMN model DROP NOT NULL"))
        conn.execute(text("ALTER TABLE api_keys ALTER COLUMN prefix TYPE varchar(20)"))
    try:
        diffs = _differences(metadata, _reflect(migrated))
    finally:
        with migrated.begin() as conn:
            conn.execute(text("ALTER TABLE summary_cache DROP COLUMN probe"))
            conn.execute(text("ALTER TABLE summary_cache ALTER COLUMN model SET NOT NULL"))
            conn.execute(text("ALTER TABLE api_keys ALTER COLUMN prefix TYPE text"))
    assert diffs == [
        "api_keys.prefix: described ('TEXT', False, False),"
        " migrated ('VARCHAR(20)', False, False)",
        "summary_cache.model: described ('TEXT', False, False), migrated ('TEXT', True, False)",
        "summary_cache.probe: described None, migrated ('INTEGER', True, False)",
    ]


def _toast_rows(conn) -> int:
    toast = conn.execute(text(
        "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'chunks'::regclass")
    ).scalar_one()
    return conn.execute(text(f"SELECT count(*) FROM {toast}")).scalar_one()


def test_chunk_rows_keep_their_vectors_inline(migrated: Engine) -> None:
    """A chunk's two vectors stay in its row: every search distance reads them, and a
    vector moved to the TOAST table costs an index lookup per row read. A text too long
    for a page still moves out."""
    vector = "[" + ",".join(["0.05"] * 384) + "]"
    with migrated.begin() as conn:
        app = conn.execute(text("INSERT INTO applications (name, root_path)"
                                " VALUES ('toast', '/t') RETURNING id")).scalar_one()
        node = conn.execute(text("INSERT INTO nodes (application_id, stable_key, kind)"
                                 " VALUES (:a, 'k', 'METHOD') RETURNING id"),
                            {"a": app}).scalar_one()

        def write(plan_id: str, content: str) -> int:
            before = _toast_rows(conn)
            conn.execute(text(
                "INSERT INTO chunks (plan_id, application_id, node_id, source, content,"
                " emb, title_emb) VALUES (:p, :a, :n, 'code', :c, CAST(:v AS vector),"
                " CAST(:v AS vector))"), {"p": plan_id, "a": app, "n": node, "c": content,
                                          "v": vector})
            return _toast_rows(conn) - before

        code = "def total(self):\n    return sum(line.amount for line in self.lines)\n" * 8
        assert write("inline", code) == 0
        # a text too long for a page (even compressed) still goes to the TOAST table
        assert write("long", "".join(f"x{i} = {i * 7919 % 104729}\n" for i in range(3000))) > 0
        # the control: with the default threshold the same row's vectors move out
        conn.execute(text("ALTER TABLE chunks RESET (toast_tuple_target)"))
        try:
            assert write("default", code) > 0
        finally:
            conn.execute(text("ALTER TABLE chunks SET (toast_tuple_target = 8160)"))
        conn.execute(text("DELETE FROM applications WHERE id = :a"), {"a": app})
