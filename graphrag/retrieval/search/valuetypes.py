"""The types of the documented values among a question's candidates, found through the graph.

A doc comment on a value (a field, or a method called without arguments: an accessor, a
Scala ``def sequential: F ~> M``) describes a value of its declared type: "Natural
Transformation from the parallel Apply F[_] to the sequential FlatMap M[_]" says what a
``F ~> M`` is, and ``~>`` is a type alias of ``FunctionK``. A question whose words match
such docs asks, in part, about the type itself, whose own doc may use other words
("a functor transformation from F to G"). For each documented value among the candidates
this reads the type it is declared with (reduced to a name by its language's rules,
:func:`graphrag.graph.types.clean_type`), looks the name up among the application's
types (a qualified name, ``arrow.FunctionK``, must end the type's fqn, so ``http.Handler``
is no type of the repository; the value's own package is preferred when the name is
defined in several), follows a type alias to the type it names, and returns that type's
first chunk (a value named after its type is left out: the name signal already joins
them); the ranking
(:func:`graphrag.retrieval.search.boosts.boost`) lifts it by a share of the value's score
when the value ranks among the best.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from graphrag.graph.types import clean_type
from graphrag.kinds import TYPE_KINDS
from graphrag.retrieval.search import store
from graphrag.retrieval.search.definitions import Definition, fqn_matches
from graphrag.retrieval.search.intent import simple_name
from graphrag.retrieval.search.model import Candidate, SearchOptions
from graphrag.retrieval.search.rows import candidate_from_row

# Values that say which type they are: fields, and callables called without arguments.
VALUE_KINDS = ("FIELD", "METHOD", "FUNCTION")
# A name defined by more types than this is not followed (nothing says which one).
MAX_SAME_NAME = 8
# A type alias naming another alias is followed this many times.
MAX_ALIAS_STEPS = 2


def _declared(row: Any) -> str | None:
    """The type a value row (``kind``, ``meta``) is declared with, as written: a
    field's type, or the return type of a callable without parameters; else None."""
    meta = row.meta or {}
    if row.kind == "FIELD":
        declared = meta.get("type")
    elif meta.get("params") == []:
        declared = meta.get("return_type")
    else:
        return None
    return declared if isinstance(declared, str) and declared else None


def _type_name(declared: Any, lang: str | None) -> str:
    """A type as written reduced to the (possibly dotted) name its language looks up."""
    return clean_type(declared, lang) if isinstance(declared, str) and declared else ""


def _pick(rows: Sequence[Any], package: str | None) -> Any | None:
    """The type among ``rows`` of one name a value of ``package`` means: the only one,
    else the only one of its package."""
    if len(rows) == 1:
        return rows[0]
    own = [r for r in rows if r.package_name == package]
    return own[0] if len(own) == 1 else None


def value_types(conn: Connection, apps: dict[int, str], candidates: Sequence[Candidate],
                options: SearchOptions) -> dict[int, Definition]:
    """Candidate chunk id -> :class:`Definition` holding the first chunk of the type its
    documented value is declared with (``name``: the type's name), for the candidates
    (the value's code or its doc comment) that are such values and whose type the
    application defines."""
    nodes: dict[int, list[int]] = {}  # value node -> its candidate chunks (code, doc)
    for cand in candidates:
        if cand.kind in VALUE_KINDS:
            nodes.setdefault(cand.node_id, []).append(cand.id)
    if not nodes:
        return {}
    # value node -> (its type's name, reduced as its language does, its package, its
    # application: in a search of several applications a value's type is its own's)
    pending: dict[int, tuple[str, str | None, int]] = {}
    for row in store.documented_value_rows(conn, list(nodes), list(VALUE_KINDS)):
        name = _type_name(_declared(row), row.lang)
        # A value named after its type (`Middlewares() Middlewares`, `val engine:
        # Engine`) shares the type's name, which the name signal already matches; its doc
        # tells which instance it holds.
        if name and simple_name(name).lower() != row.name.lower():
            pending[int(row.id)] = (name, row.package_name, int(row.application_id))
    kinds = [k for k in TYPE_KINDS if not options.kinds or k in options.kinds]
    found: dict[int, Any] = {}  # value node -> its type's row
    for _ in range(MAX_ALIAS_STEPS + 1):
        if not pending:
            break
        rows = store.type_rows(conn, list(apps),
                               sorted({simple_name(n) for n, _, _ in pending.values()}),
                               list(TYPE_KINDS), MAX_SAME_NAME + 1)
        by_name: dict[tuple[int, str], list[Any]] = {}
        for row in rows:
            by_name.setdefault((int(row.application_id), row.name), []).append(row)
        following: dict[int, tuple[str, str | None, int]] = {}
        for node_id, (name, package, app) in pending.items():
            same = by_name.get((app, simple_name(name)), [])
            if "." in name:  # written qualified: `arrow.FunctionK`, not `http.Handler`
                same = [r for r in same if fqn_matches(r.fqn, name)]
            hit = _pick(same, package) if len(same) <= MAX_SAME_NAME else None
            if hit is None:
                continue
            aliased = _type_name((hit.meta or {}).get("alias"), hit.lang)
            if aliased and simple_name(aliased) != hit.name:
                # an alias: the type it names, looked up from the alias's package
                following[node_id] = (aliased, hit.package_name, app)
            else:
                found[node_id] = hit
        pending = following
    found = {v: t for v, t in found.items() if t.kind in kinds}
    if not found:
        return {}
    where, params = store.filter_sql(list(apps), options)
    chunks = {int(r.node_id): r for r in
              store.node_chunk_rows(conn, where, params, sorted({int(t.id)
                                                                 for t in found.values()}))}
    out: dict[int, Definition] = {}
    for value_node, type_row in found.items():
        row = chunks.get(int(type_row.id))
        if row is not None:
            for chunk_id in nodes[value_node]:
                out[chunk_id] = Definition(candidate_from_row(row, apps), type_row.name)
    return out
