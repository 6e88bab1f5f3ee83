"""What incremental resolution needs to know about each file.

* :func:`ref_names`: every identifier a file's parse result refers to (call names and
  receivers, import targets, base classes, declared types ...). Stored per file
  (``files.ref_names``, GIN-indexed), it is the reverse dependency index: when a
  definition called ``foo`` changes, the files that mention ``foo`` are re-resolved.
  Names, not resolved targets, so it is conservative: a file that mentions ``foo`` in
  any way is re-resolved, and no lookup path (inheritance, return types, re-exports) is
  missed because it was not recorded.
* :func:`interfaces`: per file, one ``name<TAB>digest`` entry per thing another file's
  lookup can see: each node (its key, kind, fqn, parent, signature, meta; for a type also
  its members, its ancestors and their members, its fields' types), each imported alias,
  each module-level variable; and what the types declared there resolve to (a callable's
  return type, a field's, a module variable's: another file typing an expression through
  them sees the class they name, not their text, and is resolved again when it moves).
  The difference between two runs' entries names the definitions that changed. Because
  the entries are computed from the resolved symbol table, changes caused by *other*
  files (a key renumbered by a new duplicate elsewhere, a method whose receiver type in
  another file vanished, a base class that now resolves elsewhere) show up in the entries
  of the file they affect, which is then re-resolved too.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from typing import Any

import orjson

from graphrag.graph.model import GraphNode
from graphrag.graph.names import MAX_NAME, bounded_name
from graphrag.graph.scopes import Scopes
from graphrag.graph.symbols import lookup_key, plain_fqn
from graphrag.graph.types import Ctx
from graphrag.kinds import CALLABLE_KINDS, TYPE_KINDS
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import namespace, namespace_spec

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# Parse-result fields that name nothing another file defines.
_NOT_REFERENCES = frozenset({"doc_comment", "content_hash", "path", "line_count",
                             "error_count", "lang", "line", "line_start", "line_end",
                             "char_start", "char_end"})
# An entry whose name no file can mention: its change re-resolves every file.
EVERYTHING = "*"
# ``provides`` entries of files that register routes / mount routers
ROUTES, MOUNTS = "reg", "use"


def ref_names(data: dict[str, Any]) -> list[str]:
    """The identifiers ``data`` (a parse result as stored) refers to, sorted."""
    # Gather the texts first and scan them in one pass: a regex call per string cost
    # a fifth of a file's parse. NUL separates texts (it ends an identifier).
    texts: list[str] = []
    stack: list[Any] = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in _NOT_REFERENCES:
                    # var_types keys are names too (scopes and variables)
                    if isinstance(key, str):
                        texts.append(key)
                    if isinstance(item, str):
                        texts.append(item)
                    elif item is not None and not isinstance(item, (int, float)):
                        stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)
    names = set(_IDENT.findall("\0".join(texts)))
    return sorted({name if len(name) <= MAX_NAME else bounded_name(name)
                   for name in names})


def provides(result: ParseResult) -> list[str]:
    """The lookup keys (:func:`~graphrag.graph.symbols.lookup_key`) whose answers
    ``result`` takes part in: its symbols' fqns (also without a parameter list, and their
    parents', to which they are linked as children; a symbol's key is numbered among
    those of the same fqn), its module and package, its callables' names, and whether it
    registers routes (``reg``) or mounts routers (``use``). Sorted.

    A table built from some files answers every lookup it records as the whole
    repository's would when all files providing that key are among them."""
    ns = namespace(result.lang)
    out = {lookup_key("m", ns, result.module)}
    if result.package and namespace_spec(ns).packages:
        out.add(lookup_key("p", ns, result.package))
    for sym in result.symbols:
        out.add(lookup_key("f", ns, sym.fqn))
        out.add(lookup_key("f", ns, plain_fqn(sym.fqn, ns)))
        if sym.parent is not None:
            out.add(lookup_key("f", ns, sym.parent))
        if sym.kind in CALLABLE_KINDS and sym.kind != "CONSTRUCTOR":
            out.add(lookup_key("c", ns, sym.name))
    for reg in result.registrations:
        out.add(MOUNTS if reg.http_method.upper() == "USE" else ROUTES)
    return sorted(out)


def _digest(value: Any) -> str:
    # Key order is the extractor's, kept by the stored JSON: no sorting needed (a
    # different order would only re-resolve a few files more, never fewer).
    return hashlib.blake2b(orjson.dumps(value), digest_size=8).hexdigest()


def _last(name: str) -> str:
    parts = _IDENT.findall(name)
    return parts[-1] if parts else name


def interfaces(scopes: Scopes, only: set[str] | None = None) -> dict[str, list[str]]:
    """``path -> sorted entries`` for every file of the table (after heritage), or for
    the files ``only`` of it."""
    table = scopes.table
    base: dict[str, str] = {}

    def own(node: GraphNode) -> str:
        found = base.get(node.key)
        if found is None:
            meta = node.meta
            if "content_hash" in meta:  # the symbol's own text: not what others see
                meta = dict(meta)
                del meta["content_hash"]
            found = base[node.key] = _digest(
                (node.key, node.kind, node.name, node.fqn, node.parent_key,
                 node.package_name, node.lang, node.signature, meta))
        return found

    def typed(ctx: Ctx, text: str) -> Any:
        # What the type names resolve to from where they are declared: another file's
        # expression typed through this declaration (a call's result, a field, a
        # module variable) changes with it even when its text does not.
        ent = scopes.eval_type(ctx, text)
        return (ent.kind, ent.node.key if ent.node is not None else None,
                [a.key for a in ent.alts])

    entries: dict[str, list[str]] = defaultdict(list)
    for node in table.symbol_nodes:
        scope = table.file_of[node.key]
        if only is not None and scope.result.path not in only:
            continue
        out = entries[scope.result.path]
        record: Any = own(node)
        if node.kind in TYPE_KINDS:
            var_types = scope.result.var_types
            fields = var_types.get(node.fqn) or {}
            record = (
                record,
                [own(m) for m in table.member_nodes(node)],
                [(a.key, [own(m) for m in table.member_nodes(a)])
                 for a in scopes.ancestors(node)],
                fields, var_types.get(node.fqn + "#init"),
            )
            out.append(f"{node.name}\t{_digest(record)}")
            ctx = scopes.ctx_of(node)
            for field, text in fields.items():
                out.append(f"{field}\t{_digest((node.key, typed(ctx, text)))}")
        elif node.kind in CALLABLE_KINDS and isinstance(returned := node.meta.get(
                "return_type"), str) and returned:
            out.append(f"{node.name}\t"
                       + _digest((record, typed(scopes.ctx_of(node), returned))))
        else:
            out.append(f"{node.name}\t{record}")
    for path, scope in table.files.items():
        if only is not None and path not in only:
            continue
        result = scope.result
        out = entries[path]
        node = scope.node
        out.append(f"{_last(result.module or path)}\t"
                   + _digest((node.key, node.parent_key, result.module, result.package,
                              result.lang)))
        bound: dict[str, list[str]] = defaultdict(list)
        for imp in sorted(result.imports, key=lambda i: i.line):
            bound[imp.alias].append(imp.target)
        for alias, targets in bound.items():
            # What a `*` import re-exports cannot be named: its change touches everyone.
            name = EVERYTHING if alias == "*" else alias
            out.append(f"{name}\t{_digest(targets)}")
        for sym in table.folded.get(path, ()):
            # a declaration folded into its definition elsewhere: its lines are there
            out.append(f"{sym.name}\t" + _digest((sym.fqn, sym.line_start, sym.line_end,
                                                   sym.signature, sym.meta)))
        for key in {result.module, result.path, ""}:
            for var, type_text in (result.var_types.get(key) or {}).items():
                out.append(f"{var}\t" + _digest(
                    (key, type_text, typed(Ctx(scope, None), type_text))))
    return {path: sorted(set(items)) for path, items in entries.items()}


def changed_names(old: list[str] | None, new: list[str] | None) -> set[str]:
    """Names whose entries differ between two interfaces of one file."""
    diff = set(old or ()) ^ set(new or ())
    return {bounded_name(entry.split("\t", 1)[0]) for entry in diff}
