"""The template environment: templates shipped in the package, autoescaped, with the
filters the pages use (a node's URL, query words highlighted in an excerpt)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

HERE = Path(__file__).parent
STATIC = HERE / "static"
_WORD = re.compile(r"\w{2,}", re.UNICODE)


def node_url(app: str, fqn: str) -> str:
    """The symbol page of ``fqn`` in ``app`` (an fqn keeps its ``/`` and ``:``)."""
    return f"/apps/{quote(app, safe='')}/nodes/{quote(fqn, safe='/:')}"


def graph_url(app: str, fqn: str, **params: Any) -> str:
    """The graph view around ``fqn``."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")}, doseq=True)
    return f"/apps/{quote(app, safe='')}/graph/{quote(fqn, safe='/:')}" + \
        (f"?{query}" if query else "")


def query_words(query: str | None) -> list[str]:
    """The words of a query worth marking in an excerpt (two characters or more)."""
    return sorted({w.lower() for w in _WORD.findall(query or "")}, key=len, reverse=True)


def highlight(text: str | None, query: str | None) -> Markup:
    """``text`` escaped, each occurrence of a query word (case-insensitive, also inside
    a longer identifier: ``search`` in ``search_many``) wrapped in ``<mark>``."""
    words = query_words(query)
    if not text:
        return Markup("")
    if not words:
        return escape(text)
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    out: list[str] = []
    last = 0
    for m in pattern.finditer(text):
        out.append(str(escape(text[last:m.start()])))
        out.append(f"<mark>{escape(m.group(0))}</mark>")
        last = m.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


@cache
def environment() -> Environment:
    """The one Jinja2 environment of the process (templates are read once)."""
    env = Environment(loader=FileSystemLoader(HERE / "templates"),
                      autoescape=select_autoescape(["html"]), trim_blocks=True,
                      lstrip_blocks=True)
    env.filters["highlight"] = highlight
    env.globals.update(node_url=node_url, graph_url=graph_url)
    return env
