"""Alembic environment: the connection comes from graphrag (``config.attributes``)."""

from alembic import context


def run_migrations_online() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():  # pragma: no cover - we never generate offline SQL
    raise SystemExit("offline migrations are not supported")
run_migrations_online()
