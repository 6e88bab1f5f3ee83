"""The migrated schema: every table has the owner the architecture notes name (and no
other module writes it unlisted); chunk rows keep their vectors inline."""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text

from graphrag.db import engine as dbengine
from tests.test_layers import PACKAGE, _docstrings, _sources, _text

SCRATCH = "graphrag_schema_test"


@contextlib.contextmanager
def scratch_database(db_url: str, name: str) -> Iterator[Engine]:
    """An empty database of its own (not the session's, whose tables tests may have
    touched), dropped afterwards."""
    admin = create_engine(dbengine.sqlalchemy_url(db_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))
        conn.execute(text(f"CREATE DATABASE {name}"))
    scratch = create_engine(dbengine.sqlalchemy_url(db_url.replace("/postgres?", f"/{name}?")))
    try:
        yield scratch
    finally:
        scratch.dispose()
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))
        admin.dispose()


@pytest.fixture(scope="module")
def migrated(db_url: str) -> Iterator[Engine]:
    """A scratch database migrated from nothing to head."""
    with scratch_database(db_url, SCRATCH) as scratch:
        dbengine.upgrade(scratch)
        yield scratch


ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "ARCHITECTURE.md"
# Statements that write a table (uppercase: the spelling of every statement in the stores).
_WRITES = re.compile(r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY|TRUNCATE)\s+([a-z_]+)\b")


def documented_tables(markdown: str) -> dict[str, tuple[str, set[str]]]:
    """table -> (owner module, the other modules that write it), from the storage table
    of the architecture notes (rows ``| `table` | `owner.py` | `a.py`, `b.py` | ... |``)."""
    section = markdown.split("\n## Storage", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            owner = re.findall(r"`([^`]+)`", cells[1])
            out[cells[0].strip("`")] = (owner[0] if owner else "",
                                         set(re.findall(r"`([^`]+)`", cells[2])))
    return out


def _sql_texts(root: Path) -> dict[str, list[str]]:
    """module (relative to the package) -> the text of every string it builds."""
    out = {}
    for path in _sources(root):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        out[path.relative_to(root).as_posix()] = [
            t for node in ast.walk(tree) if id(node) not in docs and (t := _text(node))]
    return out


def ownership_problems(tables: set[str], documented: dict[str, tuple[str, set[str]]],
                       root: Path) -> list[str]:
    """Where the documented owners and writers differ from the migrated tables and from
    what the package's SQL writes."""
    texts = _sql_texts(root)
    writers: dict[str, set[str]] = {t: set() for t in tables}
    for module, strings in texts.items():
        for sql in strings:
            for table in _WRITES.findall(sql):
                if table in writers:
                    writers[table].add(module)
    problems = [f"{t}: not in the storage table" for t in sorted(tables - set(documented))]
    problems += [f"{t}: documented but not migrated" for t in sorted(set(documented) - tables)]
    for table in sorted(tables & set(documented)):
        owner, others = documented[table]
        if not any(re.search(rf"\b{table}\b", t) for t in texts.get(owner, [])):
            problems.append(f"{table}: owner {owner or '(none)'} has no SQL on it")
        if unlisted := sorted(writers[table] - {owner} - others):
            problems.append(f"{table}: written by {', '.join(unlisted)}, not listed")
        if stale := sorted(others - writers[table]):
            problems.append(f"{table}: {', '.join(stale)} listed but writes nothing to it")
    return problems


def _tables(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        names = conn.execute(text(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars()
        return {n for n in names if not n.startswith("procrastinate_")
                and n != "alembic_version"}


def test_every_table_has_its_documented_owner(migrated: Engine) -> None:
    problems = ownership_problems(_tables(migrated),
                                  documented_tables(ARCHITECTURE.read_text(encoding="utf-8")),
                                  PACKAGE)
    assert not problems, "docs/ARCHITECTURE.md's storage table is wrong:\n" + "\n".join(
        problems)


def test_an_ownership_error_is_found(migrated: Engine, tmp_path: Path) -> None:
    # The check must be able to fail: a migrated table left out, a table that no longer
    # exists, an owner without SQL on its table, a writer not listed and a listed module
    # that writes nothing are each reported.
    root = tmp_path / "graphrag"
    (root / "db").mkdir(parents=True)
    (root / "graph").mkdir()
    (root / "db" / "keys.py").write_text("Q = 'SELECT 1'\n")
    (root / "db" / "apps.py").write_text(
        "Q = 'UPDATE applications SET name = :n'\nR = 'DELETE FROM api_keys WHERE id = 1'\n")
    (root / "graph" / "sync.py").write_text("Q = 'SELECT id FROM applications'\n")
    documented = {"api_keys": ("db/keys.py", set()),
                  "applications": ("db/apps.py", {"graph/sync.py"}),
                  "gone": ("db/apps.py", set())}
    assert ownership_problems({"api_keys", "applications", "nodes"}, documented, root) == [
        "nodes: not in the storage table",
        "gone: documented but not migrated",
        "api_keys: owner db/keys.py has no SQL on it",
        "api_keys: written by db/apps.py, not listed",
        "applications: graph/sync.py listed but writes nothing to it",
    ]
    assert set(documented_tables(ARCHITECTURE.read_text(encoding="utf-8"))) >= {
        "applications", "chunks", "nodes"}


def _toast_rows(conn) -> int:
    toast = conn.execute(text(
        "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'chunks'::regclass")
    ).scalar_one()
    return conn.execute(text(f"SELECT count(*) FROM {toast}")).scalar_one()


def _app_with_node(conn, name: str) -> tuple[int, int]:
    """An application with one METHOD node: (application id, node id)."""
    app = conn.execute(text("INSERT INTO applications (name, root_path)"
                            " VALUES (:n, '/t') RETURNING id"), {"n": name}).scalar_one()
    node = conn.execute(text("INSERT INTO nodes (application_id, stable_key, kind)"
                             " VALUES (:a, 'k', 'METHOD') RETURNING id"), {"a": app}).scalar_one()
    return app, node


def test_chunk_rows_keep_their_vectors_inline(migrated: Engine) -> None:
    """A chunk's two vectors stay in its row: every search distance reads them, and a
    vector moved to the TOAST table costs an index lookup per row read. A text too long
    for a page still moves out."""
    vector = "[" + ",".join(["0.05"] * 384) + "]"
    with migrated.begin() as conn:
        app, node = _app_with_node(conn, "toast")

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


def _chunk_schema(conn) -> tuple[set[str], set[str]]:
    columns = set(conn.execute(text(
        "SELECT attname FROM pg_attribute WHERE attrelid = 'chunks'::regclass"
        " AND attnum > 0 AND NOT attisdropped")).scalars())
    indexes = set(conn.execute(text(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'chunks'")).scalars())
    return columns, indexes


def test_an_existing_database_upgrades_to_lean_chunk_rows(db_url: str) -> None:
    """A database of the previous schema upgrades with its chunks intact and without the
    generated text-search column and the duplicate application index (written with every
    chunk row version, read by no query), its postings keyed by chunk; a downgrade brings
    them back, computed."""
    with scratch_database(db_url, "graphrag_lean_rows_test") as scratch:
        dbengine.upgrade(scratch, "0023")
        with scratch.begin() as conn:
            app, node = _app_with_node(conn, "old")
            chunk = conn.execute(text(
                "INSERT INTO chunks (plan_id, application_id, node_id, source, title, content,"
                " emb) VALUES ('p', :a, :n, 'code', 'getUserName', 'def f(): pass',"
                " CAST(:v AS vector)) RETURNING id"), {"a": app, "n": node, "v": "[" + ",".join(
                    ["0.05"] * 384) + "]"}).scalar_one()
            conn.execute(text("INSERT INTO chunk_terms (application_id, term, chunk_id, tf, dl)"
                              " VALUES (:a, 'user', :c, 1, 4)"), {"a": app, "c": chunk})
            columns, indexes = _chunk_schema(conn)
        assert "content_tsv" in columns and {"ix_chunks_tsv", "ix_chunks_app"} <= indexes
        dbengine.upgrade(scratch)
        with scratch.connect() as conn:
            columns, indexes = _chunk_schema(conn)
            row = conn.execute(text("SELECT title, content, emb IS NOT NULL FROM chunks"
                                    " WHERE application_id = :a"), {"a": app}).one()
            postings = [tuple(r) for r in conn.execute(text(
                "SELECT chunk_id, term FROM chunk_terms"))]
            key = list(conn.execute(text(
                "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid ="
                " i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid ="
                " 'chunk_terms'::regclass AND i.indisprimary"
                " ORDER BY array_position(i.indkey, a.attnum)")).scalars())
            conn.execute(text("SET LOCAL enable_seqscan = off"))
            plan = conn.execute(text("EXPLAIN SELECT count(*) FROM chunks WHERE"
                                     " application_id = :a"), {"a": app}).scalars().all()
        assert "content_tsv" not in columns
        assert not {"ix_chunks_tsv", "ix_chunks_app"} & indexes
        assert {"ix_chunks_app_terms", "ix_chunks_emb", "ix_chunks_pending"} <= indexes
        assert tuple(row) == ("getUserName", "def f(): pass", True)
        assert "ix_chunks_app_terms" in " ".join(plan)  # an application's rows: one index
        assert postings == [(chunk, "user")] and key == ["chunk_id", "term"]
        dbengine.downgrade(scratch, "0023")
        with scratch.connect() as conn:
            hit = conn.execute(text("SELECT count(*) FROM chunks WHERE content_tsv @@"
                                    " plainto_tsquery('english', 'user name')")).scalar_one()
        assert hit == 1


def test_an_existing_database_upgrades_to_chunks_ranked_by_their_node(db_url: str) -> None:
    """A database whose chunks carried a copy of their node's PageRank upgrades with its
    chunks intact and without the copy (search reads the node's rank); a downgrade
    computes the copy again from the nodes."""
    with scratch_database(db_url, "graphrag_chunk_rank_test") as scratch:
        dbengine.upgrade(scratch, "0024")
        with scratch.begin() as conn:
            app, node = _app_with_node(conn, "ranked")
            conn.execute(text("UPDATE nodes SET rank = 0.25 WHERE id = :n"), {"n": node})
            conn.execute(text(
                "INSERT INTO chunks (plan_id, application_id, node_id, source, content,"
                " rank_boost) VALUES ('p', :a, :n, 'code', 'def f(): pass', 1.25)"),
                {"a": app, "n": node})
        dbengine.upgrade(scratch)
        with scratch.connect() as conn:
            columns, _indexes = _chunk_schema(conn)
            content = conn.execute(text("SELECT content FROM chunks")).scalar_one()
        assert "rank_boost" not in columns and content == "def f(): pass"
        dbengine.downgrade(scratch, "0024")
        with scratch.connect() as conn:
            boost = conn.execute(text("SELECT rank_boost FROM chunks")).scalar_one()
        assert boost == pytest.approx(1.25)
