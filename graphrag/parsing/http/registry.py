"""The registry of HTTP client sets, one per language name (:class:`HttpClients`).

A language added by another module or a plugin registers its own set (its clients as
data, and the :class:`~graphrag.parsing.http.syntax.Syntax` that reads its trees)::

    from graphrag.parsing.http.registry import CLIENTS
    CLIENTS.register("csharp", HttpClients(syntax="my_pkg.http:CSharpSyntax", ...))

or through the ``graphrag.http_clients`` entry point group."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.http.clients import HttpClients
from graphrag.plugins import HTTP_CLIENTS_GROUP, Registry


def _builtins(register: Callable[[str, HttpClients], HttpClients]) -> None:
    from graphrag.parsing.http.builtin import BUILTIN_CLIENTS

    for lang, clients in BUILTIN_CLIENTS.items():
        register(lang, clients)


CLIENTS: Registry[HttpClients] = Registry("HTTP client set", HTTP_CLIENTS_GROUP,
                                          builtins=_builtins)
