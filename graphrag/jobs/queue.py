"""The procrastinate application over graphrag's database.

Jobs, locks, retries and periodic schedules live in the same PostgreSQL as the index
(procrastinate's tables, created by migration 0014): a worker needs nothing but ``--db``,
and any number of workers on any machines share the queue. The tasks themselves are in
:mod:`graphrag.jobs.tasks` (a procrastinate ``Blueprint``); this module puts them on a
connector for the configured database.
"""

from __future__ import annotations

from procrastinate import App, PsycopgConnector

from graphrag.config import Settings
from graphrag.db.engine import resolve_url
from graphrag.db.url import parse_database_url
from graphrag.jobs.settings import (
    INDEX_QUEUE,
    QUEUES,
    STAGES_QUEUE,
    QueueSettings,
    load_queue_settings,
)

__all__ = ["INDEX_QUEUE", "QUEUES", "STAGES_QUEUE", "conninfo", "queue_app"]


def conninfo(settings: Settings) -> str:
    """A libpq URL for the configured database (the embedded server's when none is set)."""
    url = parse_database_url(resolve_url(settings))
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def queue_app(settings: Settings, *, pool_size: int = 2,
              queue: QueueSettings | None = None) -> App:
    """The procrastinate ``App`` with graphrag's tasks on the configured database.

    ``pool_size``: connections procrastinate itself may hold (a worker needs one to listen
    for new jobs and one to fetch and finish them; jobs use graphrag's own engine)."""
    from graphrag.jobs.tasks import register_tasks

    connector = PsycopgConnector(conninfo=conninfo(settings), min_size=1,
                                 max_size=max(pool_size, 1), kwargs={"connect_timeout": 10})
    app = App(connector=connector)
    register_tasks(app, queue or load_queue_settings())
    return app
