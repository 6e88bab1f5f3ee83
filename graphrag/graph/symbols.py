"""Symbol table: nodes for files, packages and symbols plus the lookup indexes the
resolver needs (by fqn, by module/package member name, by parent).

Everything is a dict lookup so that resolving a repository of ~20k files stays
linear in its size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from graphrag.graph.model import REPO_KEY, GraphNode, file_key, package_key, symbol_key
from graphrag.graph.names import bounded_name
from graphrag.kinds import CALLABLE_KINDS, TYPE_KINDS
from graphrag.parsing.model import Import, ParseResult, Symbol
from graphrag.parsing.registry import LanguageSpec, namespace, namespace_spec


@dataclass
class FileScope:
    """One parsed file with its name bindings."""

    result: ParseResult
    ns: str
    node: GraphNode
    imports: dict[str, Import] = field(default_factory=dict)   # alias -> import
    wildcards: list[str] = field(default_factory=list)         # targets of `*` imports
    by_fqn: dict[str, GraphNode] = field(default_factory=dict)  # this file's symbols
    top: dict[str, GraphNode] = field(default_factory=dict)     # top-level by name
    # fqns declared more than once in this file (`if WIN: def f` / `else: def f`)
    redeclared: dict[str, list[GraphNode]] = field(default_factory=dict)

    @property
    def lang(self) -> str:
        return self.result.lang

    @cached_property
    def traits(self) -> LanguageSpec:
        """The resolution traits of this file's namespace (asked at every lookup)."""
        return namespace_spec(self.ns)


def lookup_key(tag: str, ns: str, name: str) -> str:
    """The key under which a lookup of ``name`` in index ``tag`` (``f`` fqn, ``m`` module,
    ``p`` package, ``c`` callable name) of namespace ``ns`` is recorded and provided."""
    return bounded_name(f"{tag}\t{ns}\t{name}")


class _Watched(defaultdict):
    """An index that records the keys it is asked about (``get`` and ``in``, the reads;
    building goes through ``[]`` and ``setdefault`` and is not recorded)."""

    def __init__(self, factory: Callable[[], object] | None, tag: str, log: set[str]
                 ) -> None:
        super().__init__(factory)
        self._tag, self._log = tag, log

    def get(self, key: tuple[str, str], default: object = None) -> object:
        self._log.add(lookup_key(self._tag, *key))
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._log.add(lookup_key(self._tag, *key))  # type: ignore[misc]
        return super().__contains__(key)


class SymbolTable:
    """Nodes of the repository and the indexes to find them by name.

    With ``watch`` (a set), every name lookup made through the table is recorded there
    as a :func:`lookup_key`: a table built from some of the files answers a lookup as the
    whole repository's table would when every file providing that key is among them."""

    def __init__(self, results: list[ParseResult], watch: set[str] | None = None) -> None:
        self.results = sorted(results, key=lambda r: r.path)
        self.watch = watch
        self.repo = GraphNode(key=REPO_KEY, kind="REPOSITORY", name="repository", fqn="",
                              parent_key=None, file_path=None, lang=None)
        self.packages: dict[str, GraphNode] = {}
        self.files: dict[str, FileScope] = {}
        self.symbol_nodes: list[GraphNode] = []
        self.by_key: dict[str, GraphNode] = {}
        self.file_of: dict[str, FileScope] = {}

        def index(factory: Callable[[], object] | None, tag: str) -> Any:
            if watch is None:
                return {} if factory is None else defaultdict(factory)
            return _Watched(factory, tag, watch)

        self.by_fqn: dict[tuple[str, str], GraphNode] = index(None, "f")
        self.children: dict[str, dict[str, list[GraphNode]]] = defaultdict(dict)
        self.module_members: dict[tuple[str, str], dict[str, GraphNode]] = index(dict, "m")
        self.module_files: dict[tuple[str, str], list[FileScope]] = index(list, "m")
        self.package_members: dict[tuple[str, str], dict[str, GraphNode]] = index(dict, "p")
        self.package_nodes: dict[tuple[str, str], list[GraphNode]] = index(list, "p")
        self.callables_by_name: dict[tuple[str, str], list[GraphNode]] = index(list, "c")
        # top-level callables per (file key, name): top-level overloads
        self._top_callables: dict[tuple[str, str], list[GraphNode]] = defaultdict(list)
        self._pending: list[tuple[GraphNode, Symbol, FileScope]] = []
        # a type declared in parts (`meta.partial`) -> the files of its later parts
        self._parts: dict[str, list[FileScope]] = {}
        self._part_vars: dict[str, dict[str, str]] = {}
        self._chains: dict[str, tuple[GraphNode, ...]] = {}
        # per file, its declarations folded into another symbol's node (see _fold_plan)
        self.folded: dict[str, list[Symbol]] = {}
        # all children of a node, flattened on first use (``children`` is final after
        # ``_build``; resolution asks for a type's members thousands of times)
        self._member_nodes: dict[str, list[GraphNode]] = {}
        self._build()

    # ----------------------------------------------------------------- building
    def _build(self) -> None:
        folded, definitions = _fold_plan(self.results)
        keys = _symbol_keys(self.results, folded)
        for result in self.results:
            self._add_file(result)
        for result in self.results:
            scope = self.files[result.path]
            for index, sym in enumerate(result.symbols):
                if (result.path, index) in folded:
                    self.folded.setdefault(result.path, []).append(sym)
                    continue
                node = self._add_symbol(scope, sym, keys[(result.path, index)])
                if sym.meta.get("declaration") and sym.kind in CALLABLE_KINDS:
                    node.meta["definitions"] = definitions.get((result.path, index), 0)
        for node, sym, scope in self._pending:
            self._link_parent(node, sym, scope)
        self._pending.clear()
        for (path, index), target in sorted(folded.items()):
            sym = self.files[path].result.symbols[index]
            self.by_key[keys[target]].meta.setdefault("declarations", []).append(
                [path, sym.line_start, sym.line_end])

    def _add_file(self, result: ParseResult) -> None:
        parent = REPO_KEY
        ns = namespace(result.lang)
        if result.package and namespace_spec(ns).packages:
            pkg = self._package_node(result.lang, result.package)
            parent = pkg.key
            if pkg not in self.package_nodes[(ns, result.package)]:
                self.package_nodes[(ns, result.package)].append(pkg)
        last_line = max((s.line_end for s in result.symbols), default=1)
        meta: dict = {"module": result.module}
        if result.content_hash:
            # Any edit of the file re-plans its FILE chunk (module-level code, imports).
            meta["content_hash"] = result.content_hash
        node = GraphNode(
            key=file_key(result.path), kind="FILE", name=result.path.rsplit("/", 1)[-1],
            fqn=result.path, parent_key=parent, file_path=result.path, lang=result.lang,
            package_name=result.package, line_start=1,
            line_end=max(last_line, result.line_count), doc_comment=result.doc, meta=meta,
        )
        if result.error_count:
            node.meta["error_count"] = result.error_count
        if result.entry_points:
            node.meta["entry_points"] = result.entry_points
        if result.reopens:
            node.meta["reopens"] = result.reopens
        scope = FileScope(result=result, ns=ns, node=node)
        for imp in sorted(result.imports, key=lambda i: i.line):
            if imp.alias == "*":
                scope.wildcards.append(imp.target)
            else:
                scope.imports[imp.alias] = imp  # a later import rebinds the name
        self.files[result.path] = scope
        self.by_key[node.key] = node
        self.module_files[(ns, result.module)].append(scope)

    def _package_node(self, lang: str, name: str) -> GraphNode:
        key = package_key(lang, name)
        node = self.packages.get(key)
        if node is None:
            node = GraphNode(key=key, kind="PACKAGE", name=name, fqn=name,
                             parent_key=REPO_KEY, file_path=None, lang=lang,
                             package_name=name)
            self.packages[key] = node
            self.by_key[key] = node
        return node

    def _add_symbol(self, scope: FileScope, sym: Symbol, key: str) -> GraphNode:
        result = scope.result
        if sym.meta.get("partial") and self._joins_part(scope, sym):
            return
        node = GraphNode(
            key=key, kind=sym.kind, name=sym.name, fqn=sym.fqn, parent_key=None,
            file_path=result.path, lang=result.lang, package_name=result.package,
            line_start=sym.line_start, line_end=sym.line_end, char_start=sym.char_start,
            char_end=sym.char_end, signature=sym.signature, doc_comment=sym.doc_comment,
            meta=dict(sym.meta),
        )
        self.symbol_nodes.append(node)
        self.by_key[key] = node
        self.file_of[key] = scope
        first = scope.by_fqn.setdefault(sym.fqn, node)
        if first is not node:
            scope.redeclared.setdefault(sym.fqn, [first]).append(node)
        self.by_fqn.setdefault((scope.ns, sym.fqn), node)
        plain = plain_fqn(sym.fqn, scope.ns)
        if plain != sym.fqn:  # an overload is also found by its plain fqn (the first one)
            scope.by_fqn.setdefault(plain, node)
            self.by_fqn.setdefault((scope.ns, plain), node)
        if sym.kind in CALLABLE_KINDS and sym.kind != "CONSTRUCTOR":
            self.callables_by_name[(scope.ns, sym.name)].append(node)
        self._pending.append((node, sym, scope))
        return node

    def _joins_part(self, scope: FileScope, sym: Symbol) -> bool:
        """A further part of a type declared in parts (``meta.partial``) in another file:
        no node of its own, its members join the first part's node (paths in order)."""
        first = self.by_fqn.get((scope.ns, sym.fqn))
        if first is None or not first.meta.get("partial") or first.kind != sym.kind \
                or first.file_path == scope.result.path:
            return False
        scope.by_fqn.setdefault(sym.fqn, first)
        self._parts.setdefault(first.key, []).append(scope)
        return True

    def _link_parent(self, node: GraphNode, sym: Symbol, scope: FileScope) -> None:
        parent = None
        if sym.parent is not None:
            # Methods may live in another file than their receiver type (or part of it).
            parent = scope.by_fqn.get(sym.parent) or self.by_fqn.get((scope.ns, sym.parent)) \
                or self._imported_parent(scope, sym.parent)
        if parent is None or parent is node:
            node.parent_key = scope.node.key
            result = scope.result
            scope.top.setdefault(node.name, node)
            if node.kind in CALLABLE_KINDS:
                self._top_callables[(scope.node.key, node.name)].append(node)
            self.module_members[(scope.ns, result.module)].setdefault(node.name, node)
            if result.package:
                self.package_members[(scope.ns, result.package)].setdefault(node.name, node)
        else:
            node.parent_key = parent.key
            self.children[parent.key].setdefault(node.name, []).append(node)
            if node.meta.get("package_member") and scope.result.package:
                # seen by name wherever its package is (an extension method)
                self.package_members[(scope.ns, scope.result.package)].setdefault(
                    node.name, node)

    def _imported_parent(self, scope: FileScope, fqn: str) -> GraphNode | None:
        """The type a member's parent fqn names when it is not of the file's own package:
        the one of a wildcard-imported package (an extension of ``User`` in a file of
        package ``AppTests`` importing ``App``: ``AppTests.User`` is ``App.User``)."""
        package = scope.result.package
        if not package or not fqn.startswith(package + "."):
            return None
        rest = fqn[len(package) + 1:]
        for target in scope.wildcards:
            found = self.by_fqn.get((scope.ns, f"{target}.{rest}"))
            if found is not None and found.kind in TYPE_KINDS:
                return found
        return None

    # ------------------------------------------------------------------ queries
    def all_nodes(self) -> list[GraphNode]:
        """Repository, packages, then per file (by path) the file and its symbols."""
        nodes = [self.repo, *(self.packages[k] for k in sorted(self.packages))]
        by_file: dict[str, list[GraphNode]] = defaultdict(list)
        for node in self.symbol_nodes:
            by_file[node.file_path or ""].append(node)
        for path, scope in self.files.items():
            nodes.append(scope.node)
            nodes.extend(by_file.get(path, []))
        return nodes

    def parent(self, node: GraphNode) -> GraphNode | None:
        """Enclosing symbol of ``node`` (None at file level)."""
        if node.parent_key is None or node.parent_key.startswith("file:"):
            return None
        return self.by_key.get(node.parent_key)

    def chain(self, node: GraphNode | None) -> tuple[GraphNode, ...]:
        """``node`` and its enclosing symbols, innermost first (memoized)."""
        if node is None or node.kind == "FILE":
            return ()
        cached = self._chains.get(node.key)
        if cached is None:
            self._chains[node.key] = (node,)  # stops parent cycles of malformed input
            parent = self.parent(node)
            outer = self.chain(parent) if parent is not None else ()
            cached = (node, *outer[:63])
            self._chains[node.key] = cached
        return cached

    def _watch_children(self, node: GraphNode) -> None:
        # Children are linked to their parent by its fqn (from any file of the
        # namespace), so asking for them is a lookup of that fqn.
        if self.watch is not None and node.lang is not None:
            ns = namespace(node.lang)
            self.watch.add(lookup_key("f", ns, node.fqn))
            self.watch.add(lookup_key("f", ns, plain_fqn(node.fqn, ns)))

    def members(self, node: GraphNode, name: str) -> list[GraphNode]:
        """Direct children of ``node`` called ``name``."""
        self._watch_children(node)
        return self.children.get(node.key, {}).get(name, [])

    def top_callables(self, file_key: str, name: str) -> list[GraphNode]:
        """Top-level callables called ``name`` in one file (overloads), in order."""
        return self._top_callables.get((file_key, name), [])

    def member_nodes(self, node: GraphNode) -> list[GraphNode]:
        """All direct children of ``node``."""
        self._watch_children(node)
        out = self._member_nodes.get(node.key)
        if out is None:
            out = self._member_nodes[node.key] = [
                n for group in self.children.get(node.key, {}).values() for n in group]
        return out

    def var_types(self, node: GraphNode) -> dict[str, str]:
        """``var_types`` of the scope ``node`` (its fields or locals; of every part of a
        type declared in parts)."""
        scope = self.file_of.get(node.key)
        if scope is None:
            return {}
        own = scope.result.var_types.get(node.fqn, {})
        parts = self._parts.get(node.key)
        if not parts:
            return own
        merged = self._part_vars.get(node.key)
        if merged is None:
            merged = dict(own)
            for part in parts:
                for name, text in part.result.var_types.get(node.fqn, {}).items():
                    merged.setdefault(name, text)
            self._part_vars[node.key] = merged
        return merged

    def declared_var(self, node: GraphNode, name: str) -> tuple[str, FileScope] | None:
        """The type of name ``name`` in scope ``node`` and the file that declares it (a
        later part of a type declared in parts reads its types with its own imports)."""
        scope = self.file_of.get(node.key)
        if scope is None:
            return None
        for part in (scope, *self._parts.get(node.key, ())):
            text = part.result.var_types.get(node.fqn, {}).get(name)
            if text is not None:
                return text, part
        return None

    def var_types_of(self, node: GraphNode, suffix: str) -> dict[str, str]:
        """``var_types`` recorded under ``<fqn of node><suffix>`` (e.g. ``#init``)."""
        scope = self.file_of.get(node.key)
        if scope is None:
            return {}
        return scope.result.var_types.get(node.fqn + suffix, {})

    def module_exists(self, ns: str, module: str) -> bool:
        return (ns, module) in self.module_files


def plain_fqn(fqn: str, ns: str) -> str:
    """``a.B.m(int,String)`` -> ``a.B.m``: the fqn of an overload without its
    parameter list (in namespaces whose spec has ``overloads_in_fqn``)."""
    if fqn.endswith(")") and "(" in fqn and namespace_spec(ns).overloads_in_fqn:
        return fqn[:fqn.index("(")]
    return fqn


def _fold_plan(results: list[ParseResult]
               ) -> tuple[dict[tuple[str, int], tuple[str, int]], dict[tuple[str, int], int]]:
    """Which declarations (``meta["declaration"]``: a prototype, a method declared in its
    class and defined outside, a namespace reopened) are no node of their own, as
    (path, symbol index) -> the symbol they fold into: the one definition of their fqn,
    else of their name and parameter types (a header's overload beside a source file's
    lone definition), else the only definition of their name; with no definition, the
    first declaration (by path). Their lines are recorded on that node
    (``meta["declarations"]``). Also how many definitions each declaration that stays a
    node has (none: an outside function; several: platform variants)."""
    ordered = sorted(results, key=lambda r: r.path)
    definitions: dict[tuple[str, str], list[tuple[str, int, str, str]]] = defaultdict(list)
    for result in ordered:
        ns = namespace(result.lang)
        for index, sym in enumerate(result.symbols):
            if not sym.meta.get("declaration"):
                definitions[(ns, plain_fqn(sym.fqn, ns))].append(
                    (result.path, index, sym.fqn, _parameter_types(sym)))
    folded: dict[tuple[str, int], tuple[str, int]] = {}
    counts: dict[tuple[str, int], int] = {}
    first: dict[tuple[str, str], tuple[str, int]] = {}
    for result in ordered:
        ns = namespace(result.lang)
        for index, sym in enumerate(result.symbols):
            if not sym.meta.get("declaration"):
                continue
            found = definitions.get((ns, plain_fqn(sym.fqn, ns)), [])
            target = [d for d in found if d[2] == sym.fqn]
            if len(target) != 1 and len(found) > 1:
                target = [d for d in found if d[3] == _parameter_types(sym)]
            if len(target) != 1 and len(found) == 1:
                target = found
            if len(target) == 1:
                folded[(result.path, index)] = target[0][:2]
            elif not found and (ns, sym.fqn) in first:
                folded[(result.path, index)] = first[(ns, sym.fqn)]
            else:
                first.setdefault((ns, sym.fqn), (result.path, index))
                counts[(result.path, index)] = len(target) or len(found)
    return folded, counts


def _parameter_types(sym: Symbol) -> str:
    return ",".join((p[1] or "").replace(" ", "") if len(p) > 1 else ""
                    for p in sym.meta.get("params") or ())


def _symbol_keys(results: list[ParseResult], folded: Collection[tuple[str, int]] = ()
                 ) -> dict[tuple[str, int], str]:
    """Stable key per (path, symbol index) (``folded`` declarations have none);
    duplicates numbered by (path, line)."""
    groups: dict[str, list[tuple[str, int, int, int]]] = defaultdict(list)
    for result in results:
        for index, sym in enumerate(result.symbols):
            if (result.path, index) in folded:
                continue
            base = symbol_key(result.lang, sym.fqn, sym.key_suffix)
            groups[base].append((result.path, sym.line_start, sym.char_start, index))
    keys: dict[tuple[str, int], str] = {}
    for base, occurrences in groups.items():
        for rank, (path, _line, _char, index) in enumerate(sorted(occurrences)):
            keys[(path, index)] = base if rank == 0 else f"{base}#{rank + 1}"
    return keys
