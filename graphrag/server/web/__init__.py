"""Pages for people, served by ``graphrag serve`` at ``/``: search, symbol pages, the
graph around a node, applications and documents.

Server-rendered HTML (Jinja2 templates in ``templates/``) with a little JavaScript
(``static/``), and Cytoscape.js vendored from npm in ``static/vendor/`` (nothing is
fetched from outside at run time). Every page reads the same service calls as the HTTP
API (:mod:`graphrag.server.operations`) behind the same API keys: a key entered once in
the login form is kept in an HttpOnly session cookie, never in a URL.

    session.py  the login form's cookie -> the caller's scope
    render.py   the template environment and its filters (highlighting, links)
    pages.py    the routes
"""

from __future__ import annotations

from graphrag.server.web.pages import mount

__all__ = ["mount"]
