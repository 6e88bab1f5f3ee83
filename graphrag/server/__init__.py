"""The HTTP API (FastAPI, ``graphrag serve``), its web pages and the MCP server
(``graphrag mcp``, and mounted at ``/mcp`` by ``serve``): shells over the same service
functions as the CLI.

    runtime.py     settings, the sized engine, the model loaded once per process
    background.py  asynchronous work (uploads, index runs) behind submit/get
    operations.py  each endpoint/tool's call into the services, with the key's scope
    errors.py      the error hierarchy -> HTTP status and JSON body
    http.py        the FastAPI application (``/v1``, ``/healthz``, ``/readyz``, ``/mcp``)
    mcp.py         the MCP tools and their compact text output
    web/           the pages for people at ``/`` (templates, scripts, vendored Cytoscape.js)
"""
