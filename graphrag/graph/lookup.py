"""Name lookup: the nodes a name given by a user means, wherever an fqn is accepted
(``graphrag context``, ``graphrag graph node``, the library, the server).

In order, the first step that finds something answers:

1. the exact fqn;
2. the plain fqn of an overloaded method (``overloads_in_fqn``): every overload (``a.B.parse`` ->
   ``a.B.parse(String)``, ``a.B.parse(String,int)``);
3. a re-exported name: ``pkg.Name`` when ``pkg/__init__.py`` imports ``Name``, ``dir:Name``
   for a barrel module ``dir/index.ts`` (conventions in
   :mod:`graphrag.parsing.reexports`, facts from the IMPORTS edges);
4. a unique suffix on a name boundary: a simple class name of a dotted namespace (``OrderService``),
   ``Class.method``, a module-relative name;
5. nothing: :class:`~graphrag.errors.UnknownSymbol`, whose one-line message lists the
   closest names (or, for an ambiguous suffix, the candidates).
"""

from __future__ import annotations

import difflib

from sqlalchemy import Connection

from graphrag.errors import InvalidInput, UnknownSymbol
from graphrag.graph import store
from graphrag.kinds import CALLABLE_KINDS, SYMBOL_KINDS
from graphrag.parsing.reexports import barrel_module, reexported_name

SUGGESTIONS = 5
MAX_SUFFIX_MATCHES = 20
# Bounds of a name to look up (README "Limits"): the longest stored fqn is far shorter
# (node keys are bounded at 1,000 bytes; a longer fqn is kept, but no code has one of
# 10,000 characters), and a name of more parts than any package depth is no name.
MAX_NAME_CHARS = 10_000
MAX_NAME_PARTS = 200
# What a user looks up: symbols, not containers or document parts.


def like_escape(value: str) -> str:
    """``value`` as a literal LIKE pattern (``\\`` escapes)."""
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _exact(conn: Connection, app_id: int, fqn: str) -> list[int]:
    return store.ids_by_fqn(conn, app_id, fqn)


def _overloads(conn: Connection, app_id: int, fqn: str) -> list[int]:
    return store.ids_by_fqn_like(conn, app_id, like_escape(fqn) + "(%)",
                                 sorted(CALLABLE_KINDS))


def _reexports(conn: Connection, app_id: int, name: str) -> list[int]:
    """Symbols a package front file (``__init__.py``, ``index.ts``) publishes as
    ``name``, or members of one (``click.Context.invoke`` -> ``click.core.Context.invoke``).

    Set-based: the name and every dot-prefix of it are looked up together (two queries),
    then the longest prefix that a front file publishes answers for the rest."""
    parts = name.split(".")
    heads = [".".join(parts[:cut]) for cut in range(len(parts) - 1, 0, -1)]
    owners = _reexported(conn, app_id, [name, *heads])
    if owners.get(name):
        return owners[name]
    for head in heads:
        if not owners.get(head):
            continue
        tail = name[len(head) + 1:]
        targets = [f"{fqn}.{tail}" for fqn in sorted(set(store.fqns_of(conn, owners[head])))]
        exact = store.ids_by_fqns(conn, app_id, targets)
        rest = [t for t in targets if not exact.get(t)]
        overloads = store.ids_by_fqn_likes(conn, app_id, [like_escape(t) + "(%)" for t in rest],
                                           sorted(CALLABLE_KINDS))
        found: list[int] = []
        for t in targets:
            found += exact.get(t) or [i for i, f in overloads if f.startswith(t + "(")]
        return found
    return []


def _reexported(conn: Connection, app_id: int, names: list[str]) -> dict[str, list[int]]:
    """Each of ``names`` -> the nodes published under it: a barrel's own definition, else
    the symbols front files import under it (one query each for all the names)."""
    barrels = {n: barrel_module(None, n) for n in names}
    defined = store.ids_by_fqns(conn, app_id, sorted({f for fs in barrels.values() for f in fs}))
    last = {n: n.replace(":", ".").rsplit(".", 1)[-1] for n in names}
    wanted = set(names)
    published: dict[str, set[int]] = {}
    for r in store.imported_by_files(conn, app_id, sorted(set(last.values()))):
        public = reexported_name(r.lang, r.file_path, r.module, r.name)
        if public in wanted:
            published.setdefault(public, set()).add(r.id)
    out: dict[str, list[int]] = {}
    for n in names:
        own = [i for f in barrels[n] for i in defined.get(f, [])]
        out[n] = own or sorted(published.get(n, ()))
    return out


def _suffix(conn: Connection, app_id: int, name: str) -> list[tuple[int, str]]:
    escaped = like_escape(name)
    return store.ids_by_suffix(conn, app_id, list(SYMBOL_KINDS),
                               ["%." + escaped, "%:" + escaped, "%/" + escaped,
                                "%." + escaped + "(%)"], MAX_SUFFIX_MATCHES + 1)


def closest_names(conn: Connection, app_id: int, name: str, n: int = SUGGESTIONS
                  ) -> list[str]:
    """The fqns most like ``name``: nodes whose simple name is close to the last part of
    ``name`` (case-insensitive), ranked by similarity of the whole fqn."""
    last = name.replace(":", ".").replace("/", ".").rsplit(".", 1)[-1].split("(")[0]
    names = store.distinct_names(conn, app_id, list(SYMBOL_KINDS))
    by_lower: dict[str, list[str]] = {}
    for nm in names:
        by_lower.setdefault(nm.lower(), []).append(nm)
    close = difflib.get_close_matches(last.lower(), list(by_lower), n=10, cutoff=0.6)
    picked = [nm for low in close for nm in by_lower[low]]
    if not picked:
        return []
    fqns = store.fqns_named(conn, app_id, list(SYMBOL_KINDS), picked)
    ranked = sorted(fqns, key=lambda f: (-difflib.SequenceMatcher(None, name, f).ratio(), f))
    return ranked[:n]


def checked_name(name: str) -> str:
    """``name`` stripped; :class:`~graphrag.errors.InvalidInput` when it is longer than
    :data:`MAX_NAME_CHARS` or has more than :data:`MAX_NAME_PARTS` dot-separated parts."""
    name = name.strip()
    if len(name) > MAX_NAME_CHARS:
        raise InvalidInput(f"name too long: {len(name)} characters (at most {MAX_NAME_CHARS})")
    parts = name.count(".") + 1
    if parts > MAX_NAME_PARTS:
        raise InvalidInput(f"name has too many parts: {parts} (at most {MAX_NAME_PARTS})")
    return name


def _find(conn: Connection, app_id: int, name: str) -> tuple[list[int], list[str]]:
    """The node ids ``name`` means (steps 1-4 of the module docstring), or none and the
    fqns of an ambiguous suffix."""
    for step in (_exact, _overloads, _reexports):
        found = step(conn, app_id, name)
        if found:
            return found, []
    matches = _suffix(conn, app_id, name) if name else []
    fqns = sorted({f for _, f in matches})
    if matches and (len(fqns) == 1 or _one_overload_family(fqns)):
        return [i for i, _ in matches], []
    return [], fqns


def resolve_name(conn: Connection, app_id: int, name: str) -> list[int]:
    """Node ids that ``name`` means (see the module docstring); raises
    :class:`UnknownSymbol` with the closest matches when it means nothing, or lists the
    candidates when a suffix is ambiguous; :class:`InvalidInput` beyond the bounds
    (:func:`checked_name`)."""
    name = checked_name(name)
    found, fqns = _find(conn, app_id, name)
    if found:
        return found
    if fqns:
        shown = fqns[:SUGGESTIONS]
        more = "" if len(fqns) <= SUGGESTIONS else ", ..."
        raise UnknownSymbol(name, shown, ambiguous=True, more=more)
    raise UnknownSymbol(name, closest_names(conn, app_id, name))


def nodes_named(conn: Connection, app_id: int, name: str) -> list[int]:
    """Node ids that ``name`` means, as :func:`resolve_name` finds them, or [] when it
    means nothing or is ambiguous; never computes suggestions (search asks this for the
    names a query happens to mention); [] too for a name beyond the bounds."""
    try:
        name = checked_name(name)
    except InvalidInput:
        return []
    return _find(conn, app_id, name)[0]


def _one_overload_family(fqns: list[str]) -> bool:
    """Every match is an overload of one method (``a.B.m(int)``, ``a.B.m(String)``)."""
    return len({f.split("(", 1)[0] for f in fqns}) == 1

