"""Running the HTTP server: uvicorn, in this process or in several worker processes."""

from __future__ import annotations

import sys

from graphrag.server.http import ServeConfig, create_app


def serve_http(config: ServeConfig, workers: int = 1) -> None:
    """Serve until stopped. One worker serves the app built here; several each build it
    from the environment (:data:`graphrag.server.http.CONFIG_ENV`, which the caller sets
    to ``config``)."""
    import uvicorn

    if workers == 1:
        app = create_app(config)
        server = uvicorn.Server(uvicorn.Config(app, host=config.host, port=config.port,
                                               log_level="warning"))
        # a stop that abandons the model load ends the process itself (Runtime.close)
        app.state.runtime.exit_code = lambda: 0 if server.started else 1
        server.run()
        if not server.started:  # the port taken: uvicorn has said why
            sys.exit(1)
    else:
        uvicorn.run("graphrag.server.http:create_app", factory=True, host=config.host,
                    port=config.port, workers=workers, log_level="warning")

