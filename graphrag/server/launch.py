"""Running the HTTP server: uvicorn, in this process or in several worker processes."""

from __future__ import annotations

from graphrag.server.http import ServeConfig, create_app


def serve_http(config: ServeConfig, workers: int = 1) -> None:
    """Serve until stopped. One worker serves the app built here; several each build it
    from the environment (:data:`graphrag.server.http.CONFIG_ENV`, which the caller sets
    to ``config``)."""
    import uvicorn

    if workers == 1:
        uvicorn.run(create_app(config), host=config.host, port=config.port,
                    log_level="warning")
    else:
        uvicorn.run("graphrag.server.http:create_app", factory=True, host=config.host,
                    port=config.port, workers=workers, log_level="warning")

