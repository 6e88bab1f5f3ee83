"""EXTENDS / IMPLEMENTS (declared and by method sets) and OVERRIDES edges."""

from __future__ import annotations

from collections import defaultdict

from graphrag.graph.edges import EdgeSet
from graphrag.graph.model import GraphNode
from graphrag.graph.overloads import same_signature
from graphrag.graph.scopes import Scopes
from graphrag.graph.types import Ctx
from graphrag.kinds import CALLABLE_KINDS, TYPE_KINDS
from graphrag.parsing.registry import languages


def resolve_heritage(scopes: Scopes, edges: EdgeSet) -> None:
    """Declared supertypes, then structural interface implementation (``structural_typing``)."""
    table = scopes.table
    for path, scope in table.files.items():
        for her in sorted(scope.result.heritage, key=lambda h: h.line):
            cls = scope.by_fqn.get(her.cls) or table.by_fqn.get((scope.ns, her.cls))
            if cls is None or cls.kind not in TYPE_KINDS:
                continue
            # The base is named from the scope around the class (imports, outer classes).
            base = scopes.type_node(Ctx(table.files[path], table.parent(cls)), her.base)
            if base is None or base.key == cls.key:
                continue  # external base class: no edge
            kind, resolution = _classify(her.relation, cls, base)
            bases = scopes.supers.setdefault(cls.key, [])
            if all(b.key != base.key for b in bases):
                bases.append(base)
                if her.static:
                    scopes.static_bases.add((cls.key, base.key))
            edges.add(cls.key, base.key, kind, resolution, her.line)
    scopes.reset_hierarchy_cache()
    _method_sets(scopes, edges)
    scopes.reset_hierarchy_cache()


def _classify(relation: str, cls: GraphNode, base: GraphNode) -> tuple[str, str]:
    if relation == "embeds":
        return "EXTENDS", "embedding"
    if cls.kind == "INTERFACE":
        return "EXTENDS", "declared"
    if relation == "implements" or (relation == "unknown" and base.kind == "INTERFACE"):
        return "IMPLEMENTS", "declared"
    return "EXTENDS", "declared"


def _method_names(scopes: Scopes, node: GraphNode) -> set[str]:
    """Method names of a type including those of embedded (inherited) types."""
    names: set[str] = set()
    for owner in (node, *scopes.ancestors(node)):
        names.update(m.name for m in scopes.table.member_nodes(owner)
                     if m.kind in CALLABLE_KINDS)
    return names


def _method_sets(scopes: Scopes, edges: EdgeSet) -> None:
    """In a language with ``structural_typing``, a struct whose method set covers
    an interface's implements it."""
    table = scopes.table
    structural = {s.name for s in languages().values() if s.structural_typing}
    structs = [n for n in table.symbol_nodes if n.lang in structural and n.kind == "CLASS"]
    interfaces = [n for n in table.symbol_nodes
                  if n.lang in structural and n.kind == "INTERFACE"]
    struct_methods = {s.key: _method_names(scopes, s) for s in structs}
    by_method: dict[str, list[GraphNode]] = defaultdict(list)
    for struct in structs:
        for name in struct_methods[struct.key]:
            by_method[name].append(struct)
    for iface in interfaces:
        wanted = _method_names(scopes, iface)
        if not wanted:
            continue  # `interface{}` is implemented by everything: no edge
        rarest = min(sorted(wanted), key=lambda name: len(by_method.get(name, ())))
        for struct in by_method.get(rarest, []):
            if wanted <= struct_methods[struct.key] and \
                    not edges.has(struct.key, iface.key, "IMPLEMENTS"):
                scopes.supers.setdefault(struct.key, []).append(iface)
                edges.add(struct.key, iface.key, "IMPLEMENTS", "method-set")


def resolve_overrides(scopes: Scopes, edges: EdgeSet) -> None:
    """A method overrides the same-named method (the same parameter list, among
    overloads) of its nearest ancestor."""
    table = scopes.table
    for node in table.symbol_nodes:
        if node.kind not in ("METHOD", "ENDPOINT", "FUNCTION"):
            continue
        owner = table.parent(node)
        if owner is None or owner.kind not in TYPE_KINDS:
            continue
        for anc in scopes.ancestors(owner):
            same = [m for m in table.members(anc, node.name)
                    if m.kind in CALLABLE_KINDS and m.kind != "CONSTRUCTOR"]
            if len(same) > 1 or (same and node.fqn.endswith(")")):
                # overloads: only the one with the same parameter list is overridden
                same = [m for m in same if same_signature(m, node)]
            target = same[0] if same else None
            if target is not None:
                edges.add(node.key, target.key, "OVERRIDES", "declared")
                break
