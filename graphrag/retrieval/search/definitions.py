"""The nodes that define the identifiers a query names, found through the graph.

A text search finds a name wherever it is *used*; the graph knows where it is *defined*.
For each name of a :class:`~graphrag.retrieval.search.intent.QueryIntent` this reads the nodes
called that (the index of nodes by simple name), keeps those whose fqn ends with the
qualified form the query wrote (``Context.invoke`` keeps ``click.core.Context.invoke``),
and, when a qualified name matches no fqn, asks the graph's name lookup (which knows
re-exports: ``fastapi.APIRouter`` is ``fastapi.routing.APIRouter``). Each definition
comes back as its node's first chunk that passes the search filters, whether or not the
text or vector lists found it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from graphrag.graph.lookup import nodes_named
from graphrag.kinds import CALLABLE_KINDS, SYMBOL_KINDS, TYPE_KINDS
from graphrag.parsing.pathroles import path_roles
from graphrag.retrieval.search import store
from graphrag.retrieval.search.intent import QueryIntent, simple_name
from graphrag.retrieval.search.model import Candidate, SearchOptions
from graphrag.retrieval.search.priors import wanted_roles
from graphrag.retrieval.search.rows import candidate_from_row

# A name defined in more places than this says little about which one is meant (``get``,
# ``render``): the most central ones (PageRank) are kept.
MAX_DEFINITIONS = 20
MAX_NAMES = 8
# Entry points looked up for a question about where the program starts: the most central
# files' (a repository of examples has a ``main`` in each; the boost keeps the few files
# that match the question best).
MAX_ENTRY_FILES = 50


# An interface named by the query is answered by its implementations too (Go's
# ``Router`` by ``Mux``): they get this share of the definition's boost.
IMPLEMENTER_SHARE = 0.5
MAX_IMPLEMENTERS = 5
# A type named inside a question is answered in part by the types it extends in its own
# package: much of what ``Applicative`` does is inherited from ``Apply``. A bare symbol
# query asks for the declaration alone.
SUPERTYPE_SHARE = 0.5
MAX_SUPERTYPES = 3
# A class reopened in another file (Ruby's open classes: ``Sinatra::Application`` declared
# in ``base.rb``, reopened in ``main.rb``) is one node, declared in one file; the part in
# the other file defines the class as much (which file declares it is a convention: both
# of Sinatra's name the superclass), and is where a user finds the rest of it.
REOPENED_SHARE = 1.0


@dataclass(frozen=True)
class Definition:
    """A chunk of a node that defines a queried name; ``name`` as the query wrote it;
    ``share`` of the definition boost it gets (less than 1 for an implementation of the
    interface the name defines)."""

    candidate: Candidate
    name: str
    share: float = 1.0


def spellings(name: str) -> tuple[str, ...]:
    """The names a definition of ``name`` may carry: itself, and a JavaScript/TypeScript
    internal spelling with a leading ``$`` (zod's core ``$ZodType`` behind ``ZodType``)."""
    return (name,) if name.startswith("$") else (name, "$" + name)


def fqn_matches(fqn: str | None, qualified: str) -> bool:
    """Whether ``fqn`` (overload parameters dropped; C++ ``::``, ``:`` and ``/`` as dots)
    ends with the dotted ``qualified`` on a name boundary."""
    if not fqn:
        return False
    base = fqn.split("(", 1)[0].replace("::", ".").replace(":", ".").replace("/", ".")
    return base == qualified or base.endswith("." + qualified)


def _kinds(options: SearchOptions) -> list[str]:
    return [k for k in SYMBOL_KINDS if not options.kinds or k in options.kinds]


def defining_nodes(conn: Connection, apps: dict[int, str], intent: QueryIntent,
                   options: SearchOptions) -> tuple[dict[int, str], dict[int, str]]:
    """Node id -> the queried name it defines, and the kinds of those found by name."""
    names = intent.names[:MAX_NAMES]
    if not names:
        return {}, {}
    simple = {n: simple_name(n) for n in names}
    spelled = {v for name in simple.values() for v in spellings(name)}
    rows = store.defined_rows(conn, list(apps), sorted(spelled), _kinds(options),
                              MAX_DEFINITIONS)
    found: dict[int, str] = {}
    kinds = {int(row.id): row.kind for row in rows}
    per_name: dict[str, int] = {}
    for name in names:
        for row in rows:
            if row.name not in spellings(simple[name]) or row.id in found:
                continue
            if "." in name and not fqn_matches(row.fqn, name):
                continue
            if per_name.get(name, 0) >= MAX_DEFINITIONS:
                break
            found[int(row.id)] = name
            per_name[name] = per_name.get(name, 0) + 1
        if "." in name and not per_name.get(name):
            for app_id in apps:  # re-exports and other public names: the graph's lookup
                for node_id in nodes_named(conn, app_id, name)[:MAX_DEFINITIONS]:
                    found.setdefault(node_id, name)
    return found, kinds


def implementers(conn: Connection, nodes: dict[int, str], options: SearchOptions
                 ) -> dict[int, str]:
    """Implementing type id -> the queried name of the interface it implements."""
    rows = store.implementer_rows(conn, list(nodes), _kinds(options),
                                  MAX_IMPLEMENTERS * len(nodes))
    found: dict[int, str] = {}
    for row in rows:
        if int(row.id) not in nodes:
            found.setdefault(int(row.id), nodes[int(row.iface)])
    return found


def supertypes(conn: Connection, nodes: dict[int, str], options: SearchOptions
               ) -> dict[int, str]:
    """Direct supertype id (declared in the subtype's package) -> the queried name of
    the type that extends it, at most ``MAX_SUPERTYPES`` per type."""
    kinds = [k for k in _kinds(options) if k in TYPE_KINDS]
    found: dict[int, str] = {}
    per_type: dict[int, int] = {}
    for row in store.supertype_rows(conn, list(nodes), kinds):
        sub = int(row.sub)
        if int(row.id) in nodes or per_type.get(sub, 0) >= MAX_SUPERTYPES:
            continue
        per_type[sub] = per_type.get(sub, 0) + 1
        found.setdefault(int(row.id), nodes[sub])
    return found


def published(conn: Connection, apps: dict[int, str], names: list[str],
              options: SearchOptions) -> dict[int, Definition]:
    """Chunk id -> :class:`Definition` for the queried ``names`` that no node defines
    but a file publishes from outside the repository (a Rust ``pub use`` of another
    crate's trait, a C++ header's ``using std::string_view;`` in namespace ``absl``):
    the chunk holding that line is where a user finds it. A qualified name matches the
    name as published (``absl::string_view``), a simple one its last part."""
    if not names or (options.kinds and "FILE" not in options.kinds):
        return {}
    where, params = store.filter_sql(list(apps), options)
    rows = store.reexport_chunk_rows(conn, where, params,
                                     sorted({simple_name(n) for n in names}),
                                     MAX_DEFINITIONS)
    out: dict[int, Definition] = {}
    for row in rows:
        last = row.name.rsplit("::", 1)[-1]
        name = next((n for n in names if simple_name(n) == last and (
            "." not in n or fqn_matches(row.name, n))), None)
        if name is not None:
            out[int(row.id)] = Definition(candidate_from_row(row, apps), name)
    return out


def definitions(conn: Connection, apps: dict[int, str], intent: QueryIntent,
                options: SearchOptions) -> dict[int, Definition]:
    """Chunk id -> :class:`Definition`, for every node defining a queried name (and the
    implementations of an interface it names, and the parts of a class other files
    reopen) whose chunks pass the search filters, and for the names defined outside the
    repository the files that publish them."""
    nodes, kinds = defining_nodes(conn, apps, intent, options)
    found = set(nodes.values())
    out = published(conn, apps, [n for n in intent.names[:MAX_NAMES] if n not in found],
                    options)
    if not nodes:
        return out
    interfaces = {i: n for i, n in nodes.items() if kinds.get(i) == "INTERFACE"}
    impls = implementers(conn, interfaces, options) if interfaces else {}
    types = {i: n for i, n in nodes.items() if kinds.get(i) in TYPE_KINDS}
    supers = supertypes(conn, types, options) if types and not intent.symbol else {}
    related = {i: (n, SUPERTYPE_SHARE) for i, n in supers.items()}
    related.update((i, (n, IMPLEMENTER_SHARE)) for i, n in impls.items())
    where, params = store.filter_sql(list(apps), options)
    if types:
        for r in store.reopened_chunk_rows(conn, where, params, list(types),
                                           MAX_DEFINITIONS):
            out.setdefault(int(r.id), Definition(candidate_from_row(r, apps),
                                                 types[int(r.type_id)], REOPENED_SHARE))
    rows = store.node_chunk_rows(conn, where, params, [*nodes, *related])
    for r in rows:
        node_id = int(r.node_id)
        if node_id in nodes:
            out[int(r.id)] = Definition(candidate_from_row(r, apps), nodes[node_id])
        else:
            name, share = related[node_id]
            out[int(r.id)] = Definition(candidate_from_row(r, apps), name, share)
    # A bare symbol query asks for the declarations themselves: every overload is one.
    return out if intent.symbol else split_overloads(out)


def split_overloads(out: dict[int, Definition]) -> dict[int, Definition]:
    """The definitions with each function's overloads (callables of one fqn, parameter
    lists dropped) spread over k files given 1/k of their share each: a question naming
    ``fmt::print`` names the function, not one of its overloads in five headers (for a
    terminal, a stream, a colour, a wide string), and with the whole boost each they
    fill the first hits, above the code that explains the function. The overloads
    together weigh what one definition does."""
    files: dict[tuple[str, str], set[str | None]] = {}
    for d in out.values():
        if key := _function_key(d.candidate):
            files.setdefault(key, set()).add(d.candidate.file_path)
    return {i: Definition(d.candidate, d.name, d.share / len(files[key]))
            if (key := _function_key(d.candidate)) and len(files[key]) > 1 else d
            for i, d in out.items()}


def _function_key(cand: Candidate) -> tuple[str, str] | None:
    if cand.kind not in CALLABLE_KINDS or not cand.fqn:
        return None
    return cand.app, cand.fqn.split("(", 1)[0]


def entry_points(conn: Connection, apps: dict[int, str], options: SearchOptions,
                 query: str = "") -> dict[int, Candidate]:
    """Chunk id -> candidate, for the chunks holding the lines that make a file a
    program's entry point (:mod:`graphrag.parsing.entrypoints`) and pass the search
    filters, whether or not the text or vector lists found them; not those of tests,
    examples, benchmarks and the like (:mod:`graphrag.parsing.pathroles`) unless the
    ``query`` or the path filter asks for them: their ``main`` starts no program of
    the repository's own."""
    where, params = store.filter_sql(list(apps), options)
    rows = store.entry_chunk_rows(conn, where, params, MAX_ENTRY_FILES)
    wanted = wanted_roles(query, options)
    return {int(r.id): candidate_from_row(r, apps) for r in rows
            if not path_roles(r.file_path) - wanted}
