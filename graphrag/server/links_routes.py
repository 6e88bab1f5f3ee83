"""HTTP routes of the links between services (``/v1/links``)."""

# FastAPI reads the annotations of the route functions when they are defined, and the
# caller dependency is given to :func:`add_link_routes`: no postponed annotations here.

from typing import Annotated, Any

from fastapi import FastAPI, Query

from graphrag.server import operations as ops
from graphrag.server.limits import Name
from graphrag.server.runtime import Runtime


def add_link_routes(app: FastAPI, runtime: Runtime, caller: Any) -> None:
    """Add the routes; ``caller`` is the dependency type that gives the caller's scope."""

    @app.get("/v1/links", tags=["graph"])
    def links(scope: caller,
              group: Annotated[Name | None, Query(
                  description="Only links within this group of applications.")] = None,
              app_name: Annotated[Name | None, Query(
                  alias="app", description="Only links from or to this application.")
              ] = None) -> dict[str, Any]:
        """HTTP links between services: each call site (application, function, file,
        line, method, URL) with the ENDPOINT it reaches (application, handler, route),
        confidence and reason, and `unmatched`: the call sites that reach none of the
        indexed endpoints. Only links whose two applications the key may use."""
        return ops.links(runtime, scope, group, app_name)
