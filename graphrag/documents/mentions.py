"""MENTIONS edges: from a page or section to the code symbols its text names, only where
the name is unambiguous.

A unit mentions a class, interface, enum, object, function, method or endpoint when its
text holds

- a qualified name of it (``Context.invoke``, ``click.core.Context``, a re-exported
  ``click.Context``; also inside code spans and code blocks): ``qualified-name``;
- its simple name (at least ``MIN_NAME`` characters, a whole word, case-sensitive) when
  that name belongs to one symbol of the application (the overloads of one method
  count as one): ``unique-name``.

A simple name shared by several symbols links nothing: a documentation example that
calls its own local ``invoke()`` must not point at every ``invoke`` of the code base
(``self.invoke``/``runner.invoke`` are no qualified names of a symbol either: no class
is called ``runner``). A qualified name that fits several symbols links nothing too.

Three reads (units, symbols, re-exports) and one batched insert per call; the matching
runs in Python over word sets, never a regex per name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection

from graphrag.graph import store
from graphrag.parsing.reexports import reexported_name

MIN_NAME = 4
MENTIONABLE = ("CLASS", "INTERFACE", "ENUM", "OBJECT", "FUNCTION", "METHOD", "ENDPOINT")
BATCH = 1000

# A dotted (or ``::``/``#``-joined) chain of identifiers: `a.b.C`, `Foo::bar`, `Foo#bar`.
_QUALIFIED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)+")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")

def _plain(fqn: str) -> str:
    """``a.B.m(int,String)`` -> ``a.B.m``: overloads of one method are one name."""
    return fqn.split("(", 1)[0]


class SymbolIndex:
    """The application's mentionable symbols by simple name, fqn and public alias."""

    def __init__(self, targets: Iterable[Any], reexports: Iterable[Any] = ()) -> None:
        self.by_name: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.by_fqn: dict[str, list[int]] = defaultdict(list)
        for t in targets:
            self.by_name[t.name].append((int(t.id), _plain(t.fqn)))
            self.by_fqn[_plain(t.fqn)].append(int(t.id))
        for r in reexports:
            alias = reexported_name(r.lang, r.file_path, r.module, r.name)
            if alias:  # `click.Context` names what click/__init__.py imports
                self.by_fqn.setdefault(alias, []).append(int(r.id))

    def unique(self, name: str) -> list[int]:
        """The symbol(s) of one plain fqn called ``name``; [] when the name is shared."""
        found = self.by_name.get(name, [])
        if not found or len({f for _, f in found}) != 1:
            return []
        return [i for i, _ in found]

    def qualified(self, name: str) -> list[int]:
        """The symbol a qualified name means: an fqn or alias, else a unique fqn suffix
        on a name boundary (``Context.invoke`` -> ``click.core.Context.invoke``)."""
        name = name.replace("::", ".").replace("#", ".")
        exact = self.by_fqn.get(name)
        if exact:
            return sorted(set(exact))
        last = name.rsplit(".", 1)[-1]
        fits: dict[str, list[int]] = defaultdict(list)
        for node_id, fqn in self.by_name.get(last, []):
            if fqn.endswith(("." + name, ":" + name, "/" + name)):
                fits[fqn].append(node_id)
        return next(iter(fits.values())) if len(fits) == 1 else []


def mentions_in(body: str, index: SymbolIndex) -> dict[int, str]:
    """Node id -> resolution (``qualified-name`` or ``unique-name``) for one text."""
    found: dict[int, str] = {}
    qualified = set(_QUALIFIED.findall(body))
    for name in sorted(qualified):
        for node_id in index.qualified(name):
            found.setdefault(node_id, "qualified-name")
    # simple words not part of a qualified chain (`runner.invoke` is no mention of an
    # `invoke`; a lone `invoke` may be, when unique)
    rest = _QUALIFIED.sub(" ", body)
    for word in sorted(set(_WORD.findall(rest))):
        if len(word) >= MIN_NAME:
            for node_id in index.unique(word):
                found.setdefault(node_id, "unique-name")
    return found


def link_mentions(conn: Connection, app_id: int, document_ids: list[int] | None = None,
                  ) -> int:
    """Rewrite the MENTIONS edges of the given documents (None: every document of the
    application, e.g. after the code graph changed). Returns the edges written."""
    units = store.reset_mentions(conn, app_id, document_ids)
    if not units:
        return 0
    index = SymbolIndex(store.mention_targets(conn, app_id, MENTIONABLE),
                        store.imported_by_files_of_kinds(conn, app_id, MENTIONABLE))
    rows = [(u.id, node_id, how)
            for u in units for node_id, how in sorted(mentions_in(u.body or "", index).items())]
    store.insert_mentions(conn, app_id, rows, BATCH)
    return len(rows)
