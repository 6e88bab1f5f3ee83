"""COPY with foreign keys checked per statement (graphrag.db.bulk_copy), real database:
the same rows and the same refusals as PostgreSQL's per-row checks."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import Engine

from graphrag.db.bulk_copy import bulk_path_allowed, copy_checked
from graphrag.db.copy_text import copy_rows

_TABLES = """
CREATE TEMP TABLE t_app (id bigint PRIMARY KEY) ON COMMIT DROP;
CREATE TEMP TABLE t_node (id bigint PRIMARY KEY, app_id bigint NOT NULL REFERENCES t_app(id),
                          parent_id bigint REFERENCES t_node(id), name text) ON COMMIT DROP;
CREATE TEMP TABLE t_edge (app_id bigint NOT NULL REFERENCES t_app(id),
                          src bigint NOT NULL REFERENCES t_node(id),
                          dst bigint NOT NULL REFERENCES t_node(id), kind text)
    ON COMMIT DROP;
INSERT INTO t_app VALUES (1), (2);
"""
# parents after their children: the statement is checked as a whole, as PostgreSQL does
_NODES = [(12, 1, 11, "child"), (11, 1, None, "root"), (13, 2, 11, "other app"),
          (14, 1, 12, "grandchild")]
_EDGES = [(1, 12, 11, "CALLS"), (1, 14, 11, "CALLS"), (2, 13, 13, "CALLS"),
          (1, 11, 14, "IMPORTS")]


def _cursor(conn) -> psycopg.Cursor:
    cur = conn.connection.driver_connection.cursor()
    for stmt in _TABLES.strip().split(";\n"):
        cur.execute(stmt)
    return cur


def _write(cur, bulk: bool, table: str, cols: tuple[str, ...], rows: list) -> None:
    if bulk:
        copy_checked(cur, table, cols, iter(rows))
    else:
        copy_rows(cur, f"COPY {table} ({', '.join(cols)}) FROM STDIN", iter(rows))


def test_rows_written_equal_the_per_row_path(engine: Engine) -> None:
    written = []
    for bulk in (True, False):
        with engine.connect() as conn, conn.begin():
            cur = _cursor(conn)
            assert bulk_path_allowed(cur, "t_node")  # the embedded server: a superuser
            _write(cur, bulk, "t_node", ("id", "app_id", "parent_id", "name"), _NODES)
            _write(cur, bulk, "t_edge", ("app_id", "src", "dst", "kind"), _EDGES)
            written.append((cur.execute("SELECT * FROM t_node ORDER BY id").fetchall(),
                            cur.execute("SELECT * FROM t_edge ORDER BY 1, 2, 3").fetchall()))
            # the foreign keys are on again for what follows in the transaction
            assert cur.execute("SHOW session_replication_role").fetchone()[0] == "origin"
            with pytest.raises(psycopg.errors.ForeignKeyViolation):
                cur.execute("INSERT INTO t_edge VALUES (1, 11, 999, 'CALLS')")
    assert written[0] == written[1]
    assert len(written[0][0]) == 4 and len(written[0][1]) == 4


@pytest.mark.parametrize("row", [(1, 11, 999, "CALLS"), (3, 11, 12, "CALLS")],
                         ids=["missing node", "missing application"])
def test_a_violating_row_is_refused_and_nothing_is_written(engine: Engine, row) -> None:
    with engine.connect() as conn:
        with conn.begin():
            cur = _cursor(conn)
            cur.execute("CREATE TABLE t_edge_kept (n int)")  # proof of the rollback
            copy_checked(cur, "t_node", ("id", "app_id", "parent_id", "name"), iter(_NODES))
            with pytest.raises(psycopg.errors.ForeignKeyViolation) as err:
                copy_checked(cur, "t_edge", ("app_id", "src", "dst", "kind"),
                             iter([*_EDGES, row]))
            assert "violates foreign key constraint" in str(err.value)
            conn.rollback()
        with conn.begin():
            cur = conn.connection.driver_connection.cursor()
            assert cur.execute("SELECT to_regclass('t_edge_kept')").fetchone()[0] is None


def test_a_self_reference_to_a_missing_row_is_refused(engine: Engine) -> None:
    with engine.connect() as conn, conn.begin():
        cur = _cursor(conn)
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            copy_checked(cur, "t_node", ("id", "app_id", "parent_id", "name"),
                         iter([*_NODES, (15, 1, 77, "orphan")]))


def test_a_table_with_its_own_trigger_takes_the_per_row_path(engine: Engine) -> None:
    with engine.connect() as conn, conn.begin():
        cur = _cursor(conn)
        cur.execute("CREATE TEMP TABLE t_log (name text) ON COMMIT DROP")
        cur.execute("CREATE FUNCTION pg_temp.t_log_row() RETURNS trigger LANGUAGE plpgsql"
                    " AS $$ BEGIN INSERT INTO t_log VALUES (NEW.name); RETURN NEW; END $$")
        cur.execute("CREATE TRIGGER t_node_log AFTER INSERT ON t_node FOR EACH ROW"
                    " EXECUTE FUNCTION pg_temp.t_log_row()")
        assert not bulk_path_allowed(cur, "t_node")
        assert bulk_path_allowed(cur, "t_edge")
        copy_checked(cur, "t_node", ("id", "app_id", "parent_id", "name"), iter(_NODES))
        # the user's trigger ran for every row (a replica role would have silenced it)
        assert cur.execute("SELECT count(*) FROM t_log").fetchone()[0] == len(_NODES)
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            copy_checked(cur, "t_node", ("id", "app_id", "parent_id", "name"),
                         iter([(20, 1, 999, "orphan")]))


def test_a_role_that_is_not_superuser_takes_the_per_row_path(engine: Engine) -> None:
    with engine.connect() as conn, conn.begin():
        cur = _cursor(conn)
        cur.execute("CREATE ROLE graphrag_bulk_copy_test NOLOGIN")
        cur.execute("GRANT ALL ON t_app, t_node, t_edge TO graphrag_bulk_copy_test")
        cur.execute("SET LOCAL ROLE graphrag_bulk_copy_test")
        assert not bulk_path_allowed(cur, "t_node")
        copy_checked(cur, "t_node", ("id", "app_id", "parent_id", "name"), iter(_NODES))
        assert cur.execute("SELECT count(*) FROM t_node").fetchone()[0] == len(_NODES)
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            copy_checked(cur, "t_edge", ("app_id", "src", "dst", "kind"),
                         iter([(1, 11, 999, "CALLS")]))
        conn.rollback()  # the role is dropped with the transaction
