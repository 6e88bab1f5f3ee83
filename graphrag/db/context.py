"""The service context: what every service needs to know about the run it serves.

Resolved once at the entry point (a CLI command, a server request, a worker task) and
handed down, so one run looks its application up once instead of once per step. A
service of one application takes an :class:`AppContext`; a read that spans several
applications (a search of many, the links between services, a group) takes an
:class:`AppScope`, the same thing for a set of applications."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.db.apps import Application, all_apps, apps_with_ids, ensure_app, get_app, get_apps
from graphrag.db.groups_store import group_members
from graphrag.errors import InvalidInput


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

    def scope(self) -> AppScope:
        """The scope of this one application (a search of it)."""
        return AppScope(self.engine, self.settings, (self.app,))


def resolve_context(engine: Engine, settings: Settings, app_name: str, *,
                    create: bool = False, root_path: str | None = None) -> AppContext:
    """The context for application ``app_name``: looked up (``UnknownApplication`` when
    absent), or with ``create`` created on first use (the name validated, ``root_path``
    recorded when given)."""
    with engine.begin() as conn:
        app = (ensure_app(conn, app_name, root_path) if create
               else get_app(conn, app_name))
    return AppContext(engine, settings, app)


@dataclass(frozen=True)
class AppScope:
    """The database, the settings and the resolved applications of one read across
    several applications (each once, in the order asked for). ``group`` and
    ``group_ids`` name a group the read is limited to and its members' ids, when one
    was asked for."""

    engine: Engine
    settings: Settings
    apps: tuple[Application, ...]
    group: str | None = None
    group_ids: tuple[int, ...] = ()

    @property
    def app_ids(self) -> list[int]:
        return [a.id for a in self.apps]

    @property
    def app_names(self) -> list[str]:
        return [a.name for a in self.apps]

    def context(self, app: Application) -> AppContext:
        """The context of one of the scope's applications."""
        return AppContext(self.engine, self.settings, app)


def resolve_scope(engine: Engine, settings: Settings, app_names: Sequence[str] = (), *,
                  group: str | None = None, every: bool = False) -> AppScope:
    """The scope of applications ``app_names`` (read in one statement;
    :class:`UnknownApplication` names the first absent one, before any work), else of
    ``group``'s members (``NotFound`` for an unknown group), else with ``every`` of every
    application; asking for none of these is a user error. Names and a group together:
    the named applications, read within the group."""
    with engine.connect() as conn:
        members = group_members(conn, group) if group is not None else []
        if app_names:
            apps = get_apps(conn, app_names)
        elif group is not None:
            apps = apps_with_ids(conn, members)
        elif every:
            apps = all_apps(conn)
        else:
            raise InvalidInput("at least one --app is required")
    return AppScope(engine, settings, tuple(apps), group, tuple(members))
