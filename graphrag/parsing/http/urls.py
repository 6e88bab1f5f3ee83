"""URL templates of HTTP call sites and routes of endpoints, language-neutral.

A call site's URL is rebuilt as a list of parts: literal text, a *name* (a value from
configuration or the environment, kept by its name: ``BASE_URL``, ``settings.orders_url``)
and a *param* (a value known only at run time: ``user_id``). :func:`render` writes it as
one string (``${ORDERS_URL}/orders/{id}``), :func:`split_url` separates the base (scheme
and host, or the leading name) from the path template, and :func:`segments` reduces a
path template or an endpoint route (``/users/{id}``, ``/users/:id``, ``/users/<int:id>``)
to the segments the linker compares, a parameter being ``*``."""

from __future__ import annotations

import re
from typing import Literal

PartKind = Literal["lit", "name", "param"]
Part = tuple[PartKind, str]

PARAM = "*"
_SCHEME_HOST = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*")
_ROUTE_PARAM = re.compile(r"^(\{[^}]*\}|:[A-Za-z_]\w*\??|<[^>]*>|\*\w*|\[[^\]]+\])$")


def lit(text: str) -> Part:
    return ("lit", text)


def name(text: str) -> Part:
    return ("name", _label(text))


def param(text: str) -> Part:
    return ("param", _label(text))


def _label(text: str) -> str:
    """A name or parameter as it may stand in a template (no ``/``, ``?``, braces)."""
    return re.sub(r"[^\w.$()-]+", "_", text).strip("_") or "_"


def merge(parts: list[Part]) -> list[Part]:
    """Adjacent literals joined, empty ones dropped."""
    out: list[Part] = []
    for kind, text in parts:
        if kind == "lit":
            if not text:
                continue
            if out and out[-1][0] == "lit":
                out[-1] = ("lit", out[-1][1] + text)
                continue
        out.append((kind, text))
    return out


def render(parts: list[Part]) -> str:
    """``[lit http://x, lit /users/, param id]`` -> ``http://x/users/{id}``; a name is
    ``${NAME}``."""
    return "".join(t if k == "lit" else ("${" + t + "}" if k == "name" else "{" + t + "}")
                   for k, t in parts)


def split_url(parts: list[Part]) -> tuple[str | None, str | None]:
    """(base, path template) of a URL: the base is ``scheme://host[:port]`` or the name
    the URL starts with (``${ORDERS_URL}``); the path has its parameters as ``{name}``
    and no query string. A URL made of a name alone has no path (None)."""
    parts = merge(parts)
    base: str | None = None
    if parts and parts[0][0] == "lit":
        match = _SCHEME_HOST.match(parts[0][1])
        if match:
            base = match.group(0)
            parts = [("lit", parts[0][1][match.end():]), *parts[1:]]
            # a host from a value (``"http://" + host + ":8080/x"``): up to the first "/"
            while len(parts) > 1 and (parts[0][0] != "lit" or "/" not in parts[0][1]):
                base += render(parts[:1])
                parts = parts[1:]
            # ... and the port after it (``":8080/x"``)
            if parts and parts[0][0] == "lit" and not base.endswith("://") \
                    and not parts[0][1].startswith("/") and "/" in parts[0][1]:
                head, _, rest = parts[0][1].partition("/")
                base += head
                parts = [("lit", "/" + rest), *parts[1:]]
    elif parts and parts[0][0] in ("name", "param") and (
            len(parts) == 1 or (parts[1][0] == "lit" and parts[1][1][:1] in "/?")):
        # a leading value followed by a path is the base URL (from configuration)
        base = render(parts[:1])
        parts = parts[1:]
        if not parts:
            return base, None
    path = render(merge(parts)).split("?", 1)[0].split("#", 1)[0]
    if base is None and parts and parts[0][0] != "lit":
        return None, None  # a whole URL from a value: nothing of its path is known
    if not path.startswith("/"):
        path = "/" + path
    return base, path


def segments(path: str) -> tuple[str, ...]:
    """Comparable segments of a path template or route: parameters (``{id}``, ``:id``,
    ``<int:id>``, ``*``, a segment mixing text and a parameter) are ``*``; literal
    segments in lower case (ASP.NET routes ignore case: ``/api/Users`` is ``/api/users``)."""
    out = []
    for seg in path.split("?", 1)[0].strip("/").split("/"):
        if not seg:
            continue
        if _ROUTE_PARAM.match(seg) or "{" in seg or "<" in seg:
            out.append(PARAM)
        else:
            out.append(seg.lower())
    return tuple(out)


def service_words(text: str) -> set[str]:
    """Words of a base URL, an environment variable or a service name that may name a
    service (``ORDERS_SERVICE_URL`` -> ``orders``; ``http://user-svc:8080`` ->
    ``user``), without the words every such name carries."""
    words = {w for w in re.split(r"[^a-z0-9]+", _decamel(text).lower()) if w}
    return {w.removesuffix("s") for w in words - _NOISE if not w.isdigit() and len(w) > 1}


def _decamel(text: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)


_NOISE = {"http", "https", "url", "uri", "base", "host", "endpoint", "api", "service",
          "svc", "server", "client", "localhost", "www", "com", "org", "net", "local",
          "internal", "env", "process", "os", "settings", "config", "app", "root",
          "address", "addr", "port", "the", "getenv", "environ", "get", "system", "and",
          "default", "prefix", "path", "v1", "v2", "v3", "self", "this", "properties",
          "value", "ms", "micro", "microservice", "rest", "web", "io", "example",
          "controller", "src", "main", "java", "kotlin", "lib", "handler", "pkg", "cmd",
          "route", "router", "resource", "boundary", "application", "module", "feature",
          "common", "shared", "core", "util", "model", "dto", "impl", "samples",
          "sample"}
