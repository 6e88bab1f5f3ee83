"""The linking part of an index run: the HTTP call sites of the files the run parsed
(:mod:`graphrag.graph.http_sites_store`) and the links of the application's sites, and of
the applications linked with it when its endpoints changed
(:mod:`graphrag.graph.links_store`), in the run's transaction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection

from graphrag.graph.http_sites_store import write_sites
from graphrag.graph.links_store import endpoint_signature, relink
from graphrag.parsing.model import ParseResult


def endpoints_before(conn: Connection, app_id: int) -> list[tuple[Any, ...]]:
    """The application's endpoints as linking reads them, before the run writes."""
    return endpoint_signature(conn, app_id)


def link_run(conn: Connection, app_id: int, results: Mapping[str, ParseResult | None],
             deleted: Iterable[str], before: list[tuple[Any, ...]]) -> None:
    """Write the sites of the files ``results`` (parsed by the run; None: not parsed)
    and ``deleted``, then re-link what the change can reach."""
    deleted = list(deleted)
    sites_changed = write_sites(conn, app_id, results, deleted)
    # the endpoints of deleted files went before ``before`` was read: anything may match
    # differently then
    relink(conn, app_id, sites_changed, None if deleted else before,
           endpoint_signature(conn, app_id))
