"""Foundation: embedded database, migrations, CLI shell, exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import click
import pytest
from sqlalchemy import create_engine, text

from graphrag.cli.main import cli
from graphrag.db import engine as dbengine
from graphrag.db.apps import ensure_app
from tests.conftest import run_cli


def test_db_status_json_reports_versions_and_head(db_url: str) -> None:
    res = run_cli("db", "status", "--json")
    assert res.returncode == 0, res.stderr
    status = json.loads(res.stdout)
    assert status["server_version"].startswith("16")
    assert status["pgvector_version"]
    assert status["migration"]["current"] == dbengine.head_revision()
    assert "***" in status["url"] or "@" not in status["url"].split("?")[0]


def test_unreachable_database_exits_3_with_one_line() -> None:
    res = run_cli("db", "status", "--db", "postgresql://nobody:secret@127.0.0.1:1/x")
    assert res.returncode == 3
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: database unreachable")
    assert "secret" not in res.stderr and "Traceback" not in res.stderr


def test_unknown_app_is_user_error(db_url: str) -> None:
    res = run_cli("apps", "delete", "no-such-app", "--yes")
    assert res.returncode == 1
    assert res.stderr.strip() == "error: unknown application: 'no-such-app' (see `graphrag apps`)"


def test_usage_error_exits_2() -> None:
    res = run_cli("apps", "--no-such-flag")
    assert res.returncode == 2


def _seed_rows(conn, app_id: int) -> None:
    fid = conn.execute(text(
        "INSERT INTO files (application_id, path) VALUES (:a, 'x.py') RETURNING id"),
        {"a": app_id}).scalar()
    nid = conn.execute(text(
        "INSERT INTO nodes (application_id, file_id, stable_key, kind, name)"
        " VALUES (:a, :f, 'k', 'FUNCTION', 'f') RETURNING id"), {"a": app_id, "f": fid}).scalar()
    conn.execute(text("INSERT INTO edges (application_id, src_id, dst_id, kind)"
                      " VALUES (:a, :n, :n, 'CALLS')"), {"a": app_id, "n": nid})
    cid = conn.execute(text(
        "INSERT INTO chunks (plan_id, application_id, node_id, source, title, content)"
        " VALUES (:p, :a, :n, 'code', 'getUserName', 'def f(): pass') RETURNING id"),
        {"p": f"{nid}:code:snippet", "a": app_id, "n": nid}).scalar()
    conn.execute(text("INSERT INTO sentences (application_id, chunk_id, sentence_index, content)"
                      " VALUES (:a, :c, 0, 's')"), {"a": app_id, "c": cid})


def test_apps_delete_cascades_and_asks_first(engine, app_name: str) -> None:
    with engine.begin() as conn:
        app = ensure_app(conn, app_name, "/tmp/x")
        _seed_rows(conn, app.id)
    res = run_cli("apps", "delete", app_name, input="n\n")
    assert res.returncode == 1  # declined: nothing deleted
    listed = json.loads(run_cli("apps", "--json").stdout)
    mine = [a for a in listed if a["name"] == app_name]
    assert mine and mine[0]["counts"]["nodes"] == 1 and mine[0]["counts"]["sentences"] == 1
    res = run_cli("apps", "delete", app_name, "--yes", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["removed"]["chunks"] == 1
    with engine.connect() as conn:
        for table in ("files", "nodes", "edges", "chunks", "sentences"):
            n = conn.execute(text(f"SELECT count(*) FROM {table} t WHERE NOT EXISTS "
                                  "(SELECT 1 FROM applications a WHERE a.id = t.application_id)"
                                  )).scalar()
            assert n == 0, table


def test_schema_has_vector_indexes(engine) -> None:
    with engine.connect() as conn:
        idx = {r[0]: r[1] for r in conn.execute(text(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"))}
        dim = conn.execute(text(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute"
            " WHERE attrelid = 'chunks'::regclass AND attname = 'emb'")).scalar()
    assert "hnsw" in idx["ix_chunks_emb"] and "vector_cosine_ops" in idx["ix_chunks_emb"]
    assert dim == "vector(384)"


def test_downgrade_then_upgrade_on_scratch_database(db_url: str) -> None:
    admin = create_engine(dbengine.sqlalchemy_url(db_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("DROP DATABASE IF EXISTS graphrag_migration_test"))
        conn.execute(text("CREATE DATABASE graphrag_migration_test"))
    scratch_url = db_url.replace("/postgres?", "/graphrag_migration_test?")
    scratch = create_engine(dbengine.sqlalchemy_url(scratch_url))
    try:
        dbengine.upgrade(scratch)
        assert dbengine.current_revision(scratch) == dbengine.head_revision()
        dbengine.downgrade(scratch, "base")
        with scratch.connect() as conn:
            left = conn.execute(text(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema='public'"
                " AND table_name <> 'alembic_version'")).scalar()
        assert left == 0
        dbengine.upgrade(scratch)
        assert dbengine.current_revision(scratch) == dbengine.head_revision()
    finally:
        scratch.dispose()
        with admin.connect() as conn:
            conn.execute(text("DROP DATABASE IF EXISTS graphrag_migration_test"))
        admin.dispose()


def test_embedded_server_concurrent_start_and_restart() -> None:
    """Two CLI processes on a fresh home both work; data survives a server restart."""
    tmp_path = Path(tempfile.mkdtemp(prefix="graphrag-fresh-"))
    tmp_path.chmod(0o755)
    env = {**os.environ, "GRAPHRAG_HOME": str(tmp_path / "gh")}
    env.pop("GRAPHRAG_DATABASE_URL", None)
    cmd = [sys.executable, "-m", "graphrag", "db", "status", "--json"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    try:
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        for out, _ in outs:
            assert json.loads(out)["embedded"] is True
        url = json.loads(outs[0][0])["url"]
        assert str(tmp_path / "gh") in url
        from graphrag.config import load_settings
        settings = load_settings().with_overrides(home=tmp_path / "gh")
        eng = dbengine.get_engine(settings)
        with eng.begin() as conn:
            ensure_app(conn, "survivor", "/src")
        eng.dispose()
        stop = subprocess.run([sys.executable, "-m", "graphrag", "db", "stop"], env=env,
                              capture_output=True, text=True, timeout=60)
        assert stop.returncode == 0 and "stopped" in stop.stdout, stop.stderr
        res = subprocess.run([sys.executable, "-m", "graphrag", "apps", "--json"], env=env,
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        assert [a["name"] for a in json.loads(res.stdout)] == ["survivor"]
    finally:
        subprocess.run([sys.executable, "-m", "graphrag", "db", "stop"], env=env,
                       capture_output=True, timeout=60)
        shutil.rmtree(tmp_path, ignore_errors=True)


def _walk(group: click.Group, prefix: str = ""):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield f"{prefix}{name}", cmd
        if isinstance(cmd, click.Group):
            yield from _walk(cmd, f"{prefix}{name} ")


def test_lazy_command_map_matches_what_modules_register() -> None:
    from graphrag.cli.main import COMMAND_MODULES, load_module_commands

    for module in set(COMMAND_MODULES.values()):
        registered = set(load_module_commands(module))
        mapped = {name for name, mod in COMMAND_MODULES.items() if mod == module}
        assert registered == mapped, module


def test_help_table_matches_each_commands_own_help() -> None:
    # `graphrag --help` prints COMMAND_HELP instead of importing every command: it must
    # say what the commands themselves say.
    from graphrag.cli.main import COMMAND_HELP, COMMAND_MODULES, load_module_commands

    missing = sorted(set(COMMAND_MODULES) ^ set(COMMAND_HELP))
    assert not missing, f"add (or drop) {missing} in COMMAND_HELP of graphrag/cli/main.py"
    for name, module in COMMAND_MODULES.items():
        cmd = load_module_commands(module)[name]
        assert COMMAND_HELP[name] == cmd.get_short_help_str(limit=10_000), name


# What the commands need and `--help` must not load: the database driver layer, numbers
# and graphs, the model, the web and MCP servers, the services and the command modules.
HEAVY_FOR_HELP = ("sqlalchemy", "numpy", "networkx", "torch", "onnxruntime", "fastapi",
                  "uvicorn", "mcp", "procrastinate", "graphrag.retrieval", "graphrag.indexing",
                  "graphrag.graph", "graphrag.pipeline", "graphrag.db", "graphrag.cli.search",
                  "graphrag.cli.index")


def test_help_lists_every_command_without_importing_them() -> None:
    probe = ("import sys\nfrom graphrag.cli.main import cli\n"
             "try:\n    cli.main(['--help'], prog_name='graphrag')\nexcept SystemExit:\n    pass\n"
             "print('MODULES', ' '.join(sorted(sys.modules)))\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0, res.stderr
    usage, _, modules = res.stdout.partition("MODULES ")
    from graphrag.cli.main import COMMAND_MODULES

    listed = {line.split()[0] for line in usage.split("Commands:")[1].splitlines()
              if line.strip()}
    assert listed == set(COMMAND_MODULES)
    loaded = [m for m in modules.split()
              if any(m == h or m.startswith(h + ".") for h in HEAVY_FOR_HELP)]
    assert not loaded, f"`graphrag --help` imports {loaded}"


@pytest.mark.parametrize("name,cmd", list(_walk(cli)))
def test_every_command_has_help_and_shared_options(name: str, cmd: click.Command) -> None:
    assert (cmd.help or "").strip(), f"{name} has no help text"
    if not isinstance(cmd, click.Group) or getattr(cmd, "invoke_without_command", False):
        opts = {o for p in cmd.params for o in getattr(p, "opts", [])}
        assert {"--db", "--json"} <= opts, f"{name} lacks --db/--json"
