"""Engine creation, connection checks and automatic migrations."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.exc import DBAPIError, OperationalError

from graphrag.config import Settings
from graphrag.db.server import embedded_url
from graphrag.errors import DatabaseUnavailable

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
# Serialises concurrent `upgrade`s from several processes (any constant works).
_MIGRATION_LOCK = 7_341_902_117


def sqlalchemy_url(url: str) -> str:
    """Use the psycopg 3 driver whatever form of PostgreSQL URL we are given."""
    return re.sub(r"^postgres(ql)?(\+\w+)?://", "postgresql+psycopg://", url)


def hide_password(url: str) -> str:
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def resolve_url(settings: Settings) -> str:
    """The configured URL, or the embedded server's."""
    return settings.database_url or embedded_url(settings.pgdata)


@cache
def _engine_for(url: str) -> Engine:
    return create_engine(
        sqlalchemy_url(url), pool_pre_ping=True, pool_size=4, max_overflow=4,
        connect_args={"connect_timeout": 10},
    )


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()]
    return lines[0] if lines else type(orig).__name__


def get_engine(settings: Settings, *, migrate: bool = True) -> Engine:
    """Connected engine for the configured database, migrated to head unless told not to."""
    url = resolve_url(settings)
    engine = _engine_for(url)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except (OperationalError, DBAPIError) as exc:
        raise DatabaseUnavailable(
            f"database unreachable at {hide_password(url)}: {_first_line(exc)}"
        ) from exc
    if migrate and current_revision(engine) != head_revision():
        upgrade(engine)
    return engine


def _alembic_config(conn: Connection | None = None):  # -> alembic.config.Config
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
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
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        rev, down = _REVISION.search(source), _DOWN.search(source)
        if rev is None or down is None:
            return None
        revisions.add(rev.group(1))
        parents.update(re.findall(r'["\']([^"\']+)["\']', down.group(1)))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


@cache
def head_revision() -> str:
    head = _scanned_head()
    if head is not None:
        return head
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        exists = conn.execute(text("SELECT to_regclass('public.alembic_version')")).scalar()
        if not exists:
            return None
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Apply migrations; safe when several processes do it at once."""
    from alembic import command

    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _MIGRATION_LOCK})
        try:
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


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """A connection inside one transaction (commit on success, rollback on error)."""
    with engine.begin() as conn:
        yield conn
