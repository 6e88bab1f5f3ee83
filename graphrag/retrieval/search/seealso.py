"""The files and symbols the doc comments of a query's candidates refer the reader to.

A doc comment that says "see" names where its subject is documented or done (abseil's
``absl_log.h``: "For full documentation, see comments in `log.h`"; Javadoc's ``@see``):
when that comment matches the query, so does what it names, whose own text may use other
words. The references are read by :func:`graphrag.parsing.docrefs.doc_references`; a path
is looked up among the application's files (the file named, in the referring file's
folder when several share its name), a symbol among its declarations (a qualified name
must end the fqn; the referring node's package when several share the name). The ranking
(:func:`graphrag.retrieval.search.boosts.boost`) lifts each target by a share of the
referring candidate's score when that candidate ranks among the best.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from graphrag.kinds import CALLABLE_KINDS, TYPE_KINDS
from graphrag.parsing.docrefs import DocReference, doc_references
from graphrag.retrieval.search import store
from graphrag.retrieval.search.definitions import Definition, fqn_matches
from graphrag.retrieval.search.intent import simple_name
from graphrag.retrieval.search.model import Candidate, SearchOptions
from graphrag.retrieval.search.rows import candidate_from_row

# A name or a file name shared by more nodes than this is not followed (nothing says
# which one is meant).
MAX_SAME_NAME = 8
# The chunks of a target read (a header's windows and its documentation).
CHUNKS_PER_TARGET = 40
_SYMBOL_KINDS = (*sorted(TYPE_KINDS), *sorted(CALLABLE_KINDS), "FIELD")


def see_also(conn: Connection, apps: dict[int, str], candidates: Sequence[Candidate],
             options: SearchOptions) -> dict[int, list[Definition]]:
    """Candidate chunk id -> :class:`Definition` s (each chunk of the target passing the
    search filters, up to ``CHUNKS_PER_TARGET``; ``name``: the reference as written) of
    the files and symbols of the application its node's doc comment refers to with
    *see*, other than the node."""
    chunks: dict[int, list[int]] = {}  # referring node -> its candidate chunks
    for cand in candidates:
        chunks.setdefault(cand.node_id, []).append(cand.id)
    if not chunks:
        return {}
    refs: dict[int, tuple[Any, list[DocReference]]] = {}
    for row in store.referring_rows(conn, list(chunks)):
        found = doc_references(row.doc_comment)
        if found:
            refs[int(row.id)] = (row, found)
    if not refs:
        return {}
    paths = sorted({posixpath.basename(r.text) for _, found in refs.values()
                    for r in found if r.is_path})
    names = sorted({simple_name(_dotted(r.text)) for _, found in refs.values()
                    for r in found if not r.is_path})
    app_ids = list(apps)
    files = _by_name(store.type_rows(conn, app_ids, paths, ["FILE"], MAX_SAME_NAME + 1)
                     if paths else [])
    symbols = _by_name(store.type_rows(conn, app_ids, names, list(_SYMBOL_KINDS),
                                       MAX_SAME_NAME + 1) if names else [])
    targets: dict[int, list[tuple[int, str]]] = {}  # referring node -> (node, as written)
    for node_id, (row, found) in refs.items():
        app = int(row.application_id)
        for ref in found:
            hit = (_file(files.get((app, posixpath.basename(ref.text)), []), ref.text,
                         row.file_path) if ref.is_path else
                   _symbol(symbols.get((app, simple_name(_dotted(ref.text))), []),
                           _dotted(ref.text), row))
            if hit is not None and int(hit.id) != node_id:
                targets.setdefault(node_id, []).append((int(hit.id), ref.text))
    if not targets:
        return {}
    where, params = store.filter_sql(app_ids, options)
    # every chunk of a target (up to a bound): the part of a long file that matches the
    # query takes the boost, as a candidate's best chunk does
    of_node: dict[int, list[Candidate]] = {}
    for row in store.node_chunks_rows(conn, where, params,
                                      sorted({t for ts in targets.values() for t, _ in ts}),
                                      CHUNKS_PER_TARGET):
        of_node.setdefault(int(row.node_id), []).append(candidate_from_row(row, apps))
    out: dict[int, list[Definition]] = {}
    for node_id, ts in targets.items():
        defs = [Definition(cand, text) for t, text in ts for cand in of_node.get(t, [])]
        for chunk_id in chunks[node_id] if defs else ():
            out[chunk_id] = defs
    return out


def _dotted(name: str) -> str:
    """A symbol as written (``absl::StrCat``, ``Foo#bar``) in the dotted form the
    lookups use."""
    return name.replace("::", ".").replace("#", ".")


def _by_name(rows: Sequence[Any]) -> dict[tuple[int, str], list[Any]]:
    out: dict[tuple[int, str], list[Any]] = {}
    for row in rows:
        out.setdefault((int(row.application_id), row.name), []).append(row)
    return out


def _file(rows: Sequence[Any], written: str, referrer: str | None) -> Any | None:
    """The file a path as written names: one whose path ends with it (or, written from a
    root above the indexed folder, which it ends with), the one in the referring file's
    folder when several do."""
    same = [r for r in rows if r.fqn == written or r.fqn.endswith("/" + written)
            or written.endswith("/" + r.fqn)]
    if len(same) == 1:
        return same[0]
    folder = posixpath.dirname(referrer or "")
    near = [r for r in same if posixpath.dirname(r.fqn) == folder]
    return near[0] if len(near) == 1 else None


def _symbol(rows: Sequence[Any], written: str, referrer: Any) -> Any | None:
    """The declaration a symbol as written names: the only one (a qualified name must
    end its fqn), else the only one in the referring node's package."""
    same = [r for r in rows if "." not in written or fqn_matches(r.fqn, written)]
    if len(same) == 1:
        return same[0]
    own = [r for r in same if r.package_name == referrer.package_name]
    return own[0] if len(own) == 1 and len(same) <= MAX_SAME_NAME else None
