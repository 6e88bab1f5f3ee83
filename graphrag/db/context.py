"""The service context: what every service needs to know about the run it serves.

Resolved once at the entry point (a CLI command, a server request, a worker task) and
handed down, so one run looks its application up once instead of once per step."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.db.apps import Application, ensure_app, get_app


@dataclass(frozen=True)
class AppContext:
    """The database, the settings and the resolved application of one run."""

    engine: Engine
    settings: Settings
    app: Application

    @property
    def app_id(self) -> int:
        return self.app.id

    @property
    def app_name(self) -> str:
        return self.app.name


def resolve_context(engine: Engine, settings: Settings, app_name: str, *,
                    create: bool = False, root_path: str | None = None) -> AppContext:
    """The context for application ``app_name``: looked up (``UnknownApplication`` when
    absent), or with ``create`` created on first use (the name validated, ``root_path``
    recorded when given)."""
    with engine.begin() as conn:
        app = (ensure_app(conn, app_name, root_path) if create
               else get_app(conn, app_name))
    return AppContext(engine, settings, app)
