"""Hostile and careless configuration: database URLs parsed by the drivers'
own parsers and never printed with a secret; one-line errors with the documented exit
codes for bad URLs, bad settings, a database without pgvector rights, a schema
from a newer graphrag and a database that goes away mid-run; validation of names and
search options."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import run_cli
from db_proxy import CuttingProxy, socket_path
from sqlalchemy import create_engine, text

from graphrag.cli.main import main
from graphrag.db import engine as dbengine
from graphrag.db.apps import validate_app_name
from graphrag.db.url import mask_text, mask_url, parse_database_url, scrub
from graphrag.errors import ConfigurationError, InvalidInput, UnknownName
from graphrag.retrieval.search.filters import validate
from graphrag.retrieval.search.model import SearchOptions

SECRET = "Sup3rSecretPW"


def _main(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    """Run the console script in-process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["graphrag", *args])
    with pytest.raises(SystemExit) as done:
        main()
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# -- URLs ------------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [
    f"postgresql://:{SECRET}@db.example.com/app",                 # no user
    f"postgresql://u@db.example.com/app?password={SECRET}",       # password parameter
    f"postgresql://u@db.example.com/app?sslmode=require&password={SECRET}",
    f"postgresql://u:{SECRET}@db.example.com:5432/app",
    f"postgresql://u@db.example.com/app?passfile=/home/u/{SECRET}",
    f"host=db.example.com dbname=app user=u password={SECRET}",   # libpq keywords
    f"host=db.example.com dbname=app password='{SECRET} x'",
])
def test_every_secret_form_is_masked(raw: str) -> None:
    url = parse_database_url(raw)
    assert url.drivername == "postgresql+psycopg"
    assert SECRET not in mask_url(url) and SECRET not in mask_url(raw)
    assert SECRET not in mask_text(raw)
    value = f"/home/u/{SECRET}" if "passfile" in raw else SECRET + (" x" if "'" in raw else "")
    assert SECRET not in scrub(f"connection to {raw} failed: {value!r} rejected", url)


@pytest.mark.parametrize(("raw", "message"), [
    (f"postgresql://u:p@{SECRET}@db.example.com/app", "must be percent-encoded as %40"),
    (f"postgresql://u:{SECRET}@db.example.com:abc/app", "bad port 'abc'"),
    (f"postgresql://u:{SECRET}@db.example.com:70000/app", "bad port '70000'"),
    (f"mysql://u:{SECRET}@db.example.com/app", "unsupported database 'mysql'"),
    ("not a url", "malformed database URL"),
    (f"host=x dbname=y password={SECRET} port=abc", "bad port 'abc'"),
    (f"host=x 'dbname password={SECRET}", "malformed connection string"),
    ("  ", "empty database URL"),
])
def test_malformed_urls_are_configuration_errors(raw: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as info:
        parse_database_url(raw)
    assert SECRET not in str(info.value) and "\n" not in str(info.value)


def test_encoded_at_sign_in_password_is_fine() -> None:
    url = parse_database_url("postgresql://u:p%40ss@db.example.com/app")
    assert url.password == "p@ss" and url.host == "db.example.com"
    assert mask_url(url) == "postgresql://u:***@db.example.com/app"


@pytest.mark.parametrize("raw", [
    f"postgresql://u:{SECRET}@db.example.com:abc/app",
    f"mysql://u:{SECRET}@db.example.com/app",
    "host=x dbname=y port=99999",
    f"postgresql://u:p@{SECRET}@db.example.com/app",
    "://nonsense",
])
def test_bad_db_option_is_one_line_exit_3(raw: str, monkeypatch, capsys) -> None:
    code, _, err = _main(["apps", "--db", raw], monkeypatch, capsys)
    assert code == 3 and SECRET not in err
    assert _one_line(err).startswith("error: ")


def test_unreachable_database_masks_user_less_password(monkeypatch, capsys) -> None:
    code, _, err = _main(["db", "status", "--db", f"postgresql://:{SECRET}@127.0.0.1:1/x"],
                         monkeypatch, capsys)
    assert code == 3 and SECRET not in err
    assert "postgresql://:***@127.0.0.1:1/x" in _one_line(err)


def test_db_status_masks_password_parameter(db_url: str, monkeypatch, capsys) -> None:
    url = f"{db_url}&password={SECRET}"
    for args in (["db", "status", "--db", url], ["db", "status", "--db", url, "--json"]):
        code, out, err = _main(args, monkeypatch, capsys)
        assert code == 0, err
        assert SECRET not in out + err and "password=***" in out


def test_keyword_connection_string_is_supported(db_url: str, monkeypatch, capsys) -> None:
    sock = parse_qs(urlsplit(db_url).query)["host"][0]
    code, out, err = _main(["db", "status", "--db", f"host={sock} dbname=postgres"
                            f" user=postgres password={SECRET}"], monkeypatch, capsys)
    assert code == 0, err
    assert "database:" in out and SECRET not in out


# -- settings --------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "value", "message"), [
    ("GRAPHRAG_MAX_FILE_BYTES", "abc", "GRAPHRAG_MAX_FILE_BYTES='abc' is not a whole number"),
    ("GRAPHRAG_WORKERS", "abc", "GRAPHRAG_WORKERS='abc' is not a whole number"),
    ("GRAPHRAG_WORKERS", "-2", "must be at least 0"),
    ("GRAPHRAG_MAX_UPLOAD_BYTES", "0", "must be at least 1"),
    ("GRAPHRAG_MAX_UNZIPPED_BYTES", "1e9", "not a whole number"),
    ("GRAPHRAG_LLM_TIMEOUT", "soon", "GRAPHRAG_LLM_TIMEOUT='soon' is not a number"),
    # these once gave a traceback or were accepted
    ("GRAPHRAG_FILE_TIMEOUT", "abc", "GRAPHRAG_FILE_TIMEOUT='abc' is not a number"),
    ("GRAPHRAG_FILE_TIMEOUT", "inf", "GRAPHRAG_FILE_TIMEOUT='inf' must be a finite number >= 0"),
    ("GRAPHRAG_FILE_TIMEOUT", "nan", "GRAPHRAG_FILE_TIMEOUT='nan' must be a finite number >= 0"),
    ("GRAPHRAG_FILE_TIMEOUT", "-1", "GRAPHRAG_FILE_TIMEOUT='-1' must be a finite number >= 0"),
    ("GRAPHRAG_MAX_DELETE_SHARE", "abc", "GRAPHRAG_MAX_DELETE_SHARE='abc' is not a number"),
    ("GRAPHRAG_MAX_DELETE_SHARE", "2", "GRAPHRAG_MAX_DELETE_SHARE='2' must be a number from 0"
     " to 1"),
    ("GRAPHRAG_MAX_DELETE_SHARE", "inf", "must be a number from 0 to 1"),
    ("GRAPHRAG_MAX_DELETE_SHARE", "nan", "must be a number from 0 to 1"),
    ("GRAPHRAG_MAX_DELETE_SHARE", "-1", "must be a number from 0 to 1"),
])
def test_malformed_setting_is_one_line_exit_3(name, value, message, monkeypatch, capsys):
    monkeypatch.setenv(name, value)
    code, _, err = _main(["apps"], monkeypatch, capsys)
    assert code == 3 and message in _one_line(err)


def test_home_pointing_at_a_file_is_one_line_exit_3(tmp_path, monkeypatch, capsys):
    afile = tmp_path / "home-is-a-file"
    afile.write_text("x")
    monkeypatch.setenv("GRAPHRAG_HOME", str(afile))
    code, _, err = _main(["db", "status"], monkeypatch, capsys)
    assert code == 3 and "is not a folder" in _one_line(err)


# -- the database itself ---------------------------------------------------------------

@pytest.fixture
def scratch_db(db_url: str):
    """A fresh database on the test server: (admin engine, its name, its URL)."""
    admin = create_engine(dbengine.sqlalchemy_url(db_url), isolation_level="AUTOCOMMIT")
    name = "graphrag_hostile_scratch"
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        conn.execute(text(f"CREATE DATABASE {name}"))
    yield admin, name, db_url.replace("/postgres?", f"/{name}?")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        conn.execute(text("DROP ROLE IF EXISTS graphrag_noext"))
    admin.dispose()


def test_user_who_cannot_create_vector_is_told_so(scratch_db, monkeypatch, capsys) -> None:
    admin, name, url = scratch_db
    with admin.connect() as conn:
        conn.execute(text("DROP ROLE IF EXISTS graphrag_noext"))
        conn.execute(text("CREATE ROLE graphrag_noext LOGIN"))
        conn.execute(text(f"GRANT CONNECT ON DATABASE {name} TO graphrag_noext"))
    weak = url.replace("postgresql://postgres:@", "postgresql://graphrag_noext@")
    assert weak != url
    code, _, err = _main(["db", "status", "--db", weak], monkeypatch, capsys)
    line = _one_line(err)
    assert code == 3
    assert "pgvector extension is not installed" in line and "graphrag_noext" in line


def test_schema_from_a_newer_graphrag_is_refused_before_any_write(scratch_db, tmp_path,
                                                                   monkeypatch, capsys):
    admin, _, url = scratch_db
    scratch = create_engine(dbengine.sqlalchemy_url(url))
    try:
        dbengine.upgrade(scratch)
        with scratch.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
        doc = tmp_path / "a.md"
        doc.write_text("# A\n\ntext\n")
        for args in (["ingest", str(doc), "--app", "fresh", "--db", url],
                     ["db", "upgrade", "--db", url], ["db", "status", "--db", url]):
            code, _, err = _main(args, monkeypatch, capsys)
            assert code == 3 and "unknown to this graphrag" in _one_line(err)
        with scratch.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM applications")).scalar() == 0
            assert conn.execute(text("SELECT version_num FROM alembic_version")
                                ).scalar() == "9999_future"
    finally:
        scratch.dispose()


def test_database_lost_mid_run_exits_3_and_the_rerun_resumes(db_url, app_name, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for n in range(6):
        (repo / f"mod{n}.py").write_text(
            f"class Service{n}:\n    def run(self, x):\n        return helper{n}(x)\n\n\n"
            f"def helper{n}(x):\n    return x + {n}\n")
    proxy = CuttingProxy(socket_path(db_url), cut_after=100_000)
    try:
        proc = run_cli("index", str(repo), "--app", app_name, "--db", proxy.url(),
                       "--json", timeout=300)
    finally:
        proxy.kill()
    assert proxy.forwarded >= 100_000  # the server really went away mid-run
    assert proc.returncode == 3, proc.stderr
    assert "lost the database connection" in _one_line(proc.stderr)
    again = run_cli("index", str(repo), "--app", app_name, "--json", timeout=300)
    assert again.returncode == 0, again.stderr
    engine = create_engine(dbengine.sqlalchemy_url(db_url))
    try:
        with engine.connect() as conn:
            app = conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                               {"n": app_name}).scalar()
            files = conn.execute(text("SELECT count(*) FROM files WHERE application_id = :a"),
                                 {"a": app}).scalar()
            pending = conn.execute(text(
                "SELECT count(*) FROM chunks WHERE application_id = :a AND pending"),
                {"a": app}).scalar()
            classes = conn.execute(text(
                "SELECT count(*) FROM nodes WHERE application_id = :a AND kind = 'CLASS'"),
                {"a": app}).scalar()
    finally:
        engine.dispose()
    assert files == 6 and classes == 6 and pending == 0


# -- validation ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["", "   ", "\t", "tab\there", "bell\x07", "a\nb", " lead",
                                  "x" * 201])
def test_bad_application_names_are_rejected(name: str) -> None:
    with pytest.raises(InvalidInput, match="application name"):
        validate_app_name(name)


def test_bad_application_name_rejected_by_every_creating_command(tmp_path, db_url):
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\ntext\n")
    for args in (["ingest", str(doc), "--app", " "], ["index", str(tmp_path), "--app", "a\x01b"]):
        proc = run_cli(*args)
        assert proc.returncode == 1 and "application name" in _one_line(proc.stderr)


@pytest.mark.parametrize("value", [1.5, -1.01, float("nan")])
def test_min_similarity_outside_cosine_range_rejected(value: float) -> None:
    with pytest.raises(InvalidInput, match="between -1 and 1"):
        validate(SearchOptions(min_similarity=value))


def test_unknown_language_lists_the_known_ones() -> None:
    with pytest.raises(UnknownName, match=r"unknown language: 'cobol' \(valid: .*\bgo, java,"):
        validate(SearchOptions(lang="cobol"))


def test_search_input_errors_on_the_command_line(engine, app_name, tmp_path) -> None:
    from graphrag.config import load_settings
    from graphrag.db.apps import ensure_app
    from graphrag.ingesting import ingest_files

    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nsome words\n")
    other = f"{app_name}_other"
    settings = load_settings().with_overrides(database_url=str(engine.url))
    try:
        (ingested,) = ingest_files(engine, settings, other, [doc])["documents"]
        doc_id = str(ingested["document_id"])
        proc = run_cli("search", "x", "--app", other, "--min-similarity", "2")
        assert proc.returncode == 2 and "--min-similarity" in proc.stderr
        proc = run_cli("search", "   ", "--app", other)
        assert proc.returncode == 1 and "empty query" in _one_line(proc.stderr)
        proc = run_cli("search", "words", "--app", other, "--lang", "cobol", "--mode", "text")
        assert proc.returncode == 1 and "unknown language" in _one_line(proc.stderr)
        proc = run_cli("search", "words", "--app", other, "--lang", "py", "--mode", "text")
        assert proc.returncode == 0, proc.stderr
        with engine.begin() as conn:
            ensure_app(conn, app_name)
        for command in ("segments", "delete"):
            proc = run_cli("documents", command, doc_id, "--app", app_name)
            assert proc.returncode == 1 and f"no document {doc_id}" in _one_line(proc.stderr)
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": other})


def test_migrations_are_found_from_a_checkout() -> None:
    found = dbengine.migrations_dir()
    assert found == Path(__file__).resolve().parents[1] / "migrations"
    assert (found / "env.py").is_file()
