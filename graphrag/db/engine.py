"""Engine creation, connection checks and automatic migrations."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path

import orjson
from psycopg.types.json import set_json_loads
from sqlalchemy import URL, Connection, Engine, create_engine, text
from sqlalchemy.exc import DBAPIError, OperationalError

from graphrag.config import Settings
from graphrag.db.server import embedded_url
from graphrag.db.url import mask_url, parse_database_url, scrub
from graphrag.errors import DatabaseUnavailable


def _json_loads(data: bytes | str) -> object:
    """json/jsonb values as read from the database: orjson (several times faster than the
    standard library, which psycopg uses by default; node metadata and chunk plans are
    read in the hundreds of thousands), and the standard library for what orjson refuses
    (integers beyond 64 bits, lone surrogate escapes)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


set_json_loads(_json_loads)

# Serialises concurrent `upgrade`s from several processes (any constant works).
_MIGRATION_LOCK = 7_341_902_117


def sqlalchemy_url(url: str) -> URL:
    """The validated SQLAlchemy URL (psycopg 3 driver) for any accepted form of URL."""
    return parse_database_url(url)


def hide_password(url: str) -> str:
    """The URL as shown to people (see :func:`graphrag.db.url.mask_url`)."""
    return mask_url(url)


def resolve_url(settings: Settings) -> str:
    """The configured URL, or the embedded server's."""
    return settings.database_url or embedded_url(settings.pgdata, settings.db_buffers_mb)


DEFAULT_POOL_SIZE = 4


@cache
def _engine_for(url: str, pool_size: int = DEFAULT_POOL_SIZE) -> Engine:
    return create_engine(
        parse_database_url(url), pool_pre_ping=True, pool_size=pool_size,
        max_overflow=pool_size, connect_args={"connect_timeout": 10},
    )


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()]
    return lines[0] if lines else type(orig).__name__


def get_engine(settings: Settings, *, migrate: bool = True,
               pool_size: int = DEFAULT_POOL_SIZE) -> Engine:
    """Connected engine for the configured database, migrated to head unless told not to.
    ``pool_size`` connections are kept (as many more may open under load): a server sizes
    it to its concurrent requests.

    Refuses (exit 3, before any write) a database whose schema revision this version of
    graphrag does not know (a newer graphrag migrated it), and one without pgvector that
    the user may not create."""
    url = resolve_url(settings)
    parsed = parse_database_url(url)
    engine = _engine_for(url, pool_size)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except (OperationalError, DBAPIError) as exc:
        raise DatabaseUnavailable(
            f"database unreachable at {mask_url(parsed)}: {scrub(_first_line(exc), parsed)}"
        ) from exc
    current = check_revision(engine)
    if migrate and current != head_revision():
        upgrade(engine)
    return engine


def ping(engine: Engine) -> None:
    """Run the cheapest query on a new connection; raises when the database does not
    answer."""
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))


def check_revision(engine: Engine) -> str | None:
    """The database's schema revision; :class:`DatabaseUnavailable` when this graphrag
    does not know it (refused before anything is written)."""
    current = current_revision(engine)
    if current is not None and current != head_revision() and current not in known_revisions():
        raise DatabaseUnavailable(
            f"the database schema is at revision {current!r}, unknown to this graphrag"
            f" (its newest is {head_revision()!r}): a newer graphrag migrated it;"
            " upgrade graphrag or use another database")
    return current


def migrations_dir() -> Path:
    """The Alembic scripts: the repository's top-level ``migrations/`` in a source
    checkout, else the copy the wheel ships as ``graphrag/_migrations`` (found with
    :mod:`importlib.resources`, so any installation can create its schema)."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "migrations" / "env.py").is_file():
        return checkout / "migrations"
    packaged = resources.files("graphrag") / "_migrations"
    if not packaged.is_dir():
        raise DatabaseUnavailable("graphrag is installed without its migrations"
                                  " (graphrag/_migrations): reinstall graphrag")
    return Path(str(packaged))


def _alembic_config(conn: Connection | None = None):  # -> alembic.config.Config
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if conn is not None:
        cfg.attributes["connection"] = conn
    return cfg


_REVISION = re.compile(r'^revision\s*=\s*["\']([^"\']+)["\']', re.M)
_DOWN = re.compile(r'^down_revision\s*=\s*(.+)$', re.M)


def _scanned_head() -> str | None:
    """The head read straight from the migration files (``revision``/``down_revision``
    lines): importing alembic costs 0.4 s, most of a one-shot CLI search. None when the
    files do not give exactly one head (alembic then decides)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (migrations_dir() / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        rev, down = _REVISION.search(source), _DOWN.search(source)
        if rev is None or down is None:
            return None
        revisions.add(rev.group(1))
        parents.update(re.findall(r'["\']([^"\']+)["\']', down.group(1)))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


@cache
def _scripts():  # -> alembic.script.ScriptDirectory, read once per process
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config())


@cache
def known_revisions() -> frozenset[str]:
    """Every revision of the migrations shipped with this graphrag."""
    return frozenset(r.revision for r in _scripts().walk_revisions())


@cache
def head_revision() -> str:
    head = _scanned_head() or _scripts().get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        exists = conn.execute(text("SELECT to_regclass('public.alembic_version')")).scalar()
        if not exists:
            return None
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def ensure_vector_extension(conn: Connection) -> None:
    """Create pgvector when missing; a one-line :class:`DatabaseUnavailable` when the
    server lacks it or the user may not create it (instead of a failed migration)."""
    if conn.execute(text("SELECT 1 FROM pg_extension WHERE extname = 'vector'")).first():
        return
    available = conn.execute(text(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).first()
    if not available:
        raise DatabaseUnavailable(
            "the PostgreSQL server has no pgvector extension: install pgvector (>= 0.5)"
            " on the server, or use the embedded database (no --db)")
    try:
        with conn.begin_nested():
            conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    except DBAPIError as exc:
        user = conn.execute(text("SELECT current_user")).scalar()
        raise DatabaseUnavailable(
            f"the pgvector extension is not installed in this database and user {user!r}"
            f" may not create it ({_first_line(exc)}): ask an administrator to run"
            " CREATE EXTENSION vector; in it") from exc


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Apply migrations; safe when several processes do it at once."""
    from alembic import command

    check_revision(engine)
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _MIGRATION_LOCK})
        try:
            ensure_vector_extension(conn)
            conn.commit()
            command.upgrade(_alembic_config(conn), revision)
            conn.commit()
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _MIGRATION_LOCK})
            conn.commit()


def downgrade(engine: Engine, revision: str = "base") -> None:
    """Revert migrations (used by tests and by `graphrag db downgrade`)."""
    from alembic import command

    with engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision)
        conn.commit()


def lost_database(exc: BaseException) -> str | None:
    """The one-line message for a database that went away mid-command (server stopped or
    killed, network cut), else None. Every write is an idempotent upsert, so running the
    command again resumes where it stopped."""
    from sqlalchemy.exc import InterfaceError

    lost = isinstance(exc, OperationalError | InterfaceError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated)
    if not lost:
        try:
            import psycopg
        except ImportError:  # pragma: no cover - a dependency
            return None
        lost = isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)
    if not lost:
        return None
    orig = getattr(exc, "orig", None) or exc
    lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()]
    reason = scrub(lines[0] if lines else type(orig).__name__)
    return (f"lost the database connection: {reason[:300]}"
            " (nothing is lost: run the command again to resume)")
