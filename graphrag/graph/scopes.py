"""Name lookup and type evaluation: what a name, a receiver chain or a declared type
refers to, seen from one scope of one file (results are :class:`~graphrag.graph.types.Ent`).

Language-neutral: where languages differ (package scope, implicit ``this``, ``module:name``
import targets, constructor calls, the class receiver, how a type reduces to a name) the
lookup reads the traits of the file's :class:`~graphrag.parsing.registry.LanguageSpec`.
"""

from __future__ import annotations

from graphrag.graph import overloads
from graphrag.graph.model import GraphNode
from graphrag.graph.symbols import FileScope, SymbolTable
from graphrag.graph.types import BOUND, EXTERNAL, UNKNOWN, Ctx, Ent, clean_type
from graphrag.kinds import CALLABLE_KINDS, TYPE_KINDS
from graphrag.parsing.builtins import is_builtin
from graphrag.parsing.languages._common import element_type, item_type
from graphrag.parsing.registry import find, hook, namespace_spec, namespaces, package_namespaces
from graphrag.parsing.typetext import function_type_param, union_members

_MAX_DEPTH = 8
_MAX_ALIASES = 8  # an alias of an alias of ...: a cycle ends here


class Scopes:
    """Lookups over a :class:`SymbolTable`; ``supers`` is filled by heritage resolution."""

    def __init__(self, table: SymbolTable) -> None:
        self.table = table
        self.supers: dict[str, list[GraphNode]] = {}
        # (type, base) of ``supers`` that are supertypes of the type's static side only
        self.static_bases: set[tuple[str, str]] = set()
        self.unique_name_fallback = False
        self._ancestors: dict[tuple[str, bool], list[GraphNode]] = {}
        self._companions: dict[str, list[GraphNode]] = {}
        self._wildcard_memo: dict[tuple[str, str, str], Ent | None] = {}
        self._type_memo: dict[tuple[str, str | None, str], Ent] = {}
        self._target_memo: dict[tuple[str, str], Ent] = {}
        # elements being evaluated: `x = x[0].f()` types x by itself, which must end
        self._elements_open: set[tuple[int, int, str, bool]] = set()
        self._field_names: set[str] | None = None
        self._file_vars: dict[str, set[str]] = {}

    # ------------------------------------------------------------- hierarchy
    def reset_hierarchy_cache(self) -> None:
        """Forget memoized ancestors (call after changing ``supers``)."""
        self._ancestors.clear()
        self._wildcard_memo.clear()
        self._type_memo.clear()
        self._target_memo.clear()

    def ancestors(self, node: GraphNode, static: bool = False) -> list[GraphNode]:
        """Supertypes of ``node``, nearest first (breadth first), without ``node``: those
        of its instances, then those of its static side (``static_bases``: a companion
        object's merged into its class, whose helpers must not shadow an inherited
        instance method); with ``static`` (a call through the object), its static
        side's first."""
        cached = self._ancestors.get((node.key, static))
        if cached is not None:
            return cached
        out: list[GraphNode] = []
        seen = {node.key}

        def walk(frontier: list[GraphNode], static: bool) -> None:
            while frontier:
                nxt: list[GraphNode] = []
                for cur in frontier:
                    for base in self.supers.get(cur.key, []):
                        if base.key not in seen and \
                                (static or (cur.key, base.key) not in self.static_bases):
                            seen.add(base.key)
                            out.append(base)
                            nxt.append(base)
                frontier = nxt

        if static:
            first = [b for b in self.supers.get(node.key, [])
                     if (node.key, b.key) in self.static_bases]
            seen.update(b.key for b in first)
            out.extend(first)
            walk(first, True)
        walk([node], False)
        if self.static_bases:
            walk([node, *out], True)
        self._ancestors[(node.key, static)] = out
        return out

    def companions(self, node: GraphNode) -> list[GraphNode]:
        """Companion objects (``meta.companion``) declared in class ``node``: their
        members are reached through the class."""
        members = self.table.member_nodes(node)  # recorded as a lookup, as always
        out = self._companions.get(node.key)
        if out is None:
            out = self._companions[node.key] = [
                m for m in members if m.kind == "OBJECT" and m.meta.get("companion")]
        return out

    def own_callable(self, node: GraphNode, name: str) -> GraphNode | None:
        return next((m for m in self.table.members(node, name) if m.kind in CALLABLE_KINDS),
                    None)

    def find_method(self, node: GraphNode, name: str, companion: bool = False,
                    static: bool = False) -> tuple[GraphNode, bool] | None:
        """Method ``name`` of type ``node`` or its ancestors; bool = declared in ``node``
        (``static``: called through the type, whose static side is searched first).

        A field of that name (a function-typed property, a mixin slot) shadows the
        methods of the ancestors: what it holds is unknown, so there is no method."""
        hit, field = self._own_member(node, name)
        if hit is not None:
            return hit, True
        if companion:
            for obj in self.companions(node):
                hit = self.own_callable(obj, name)
                if hit is not None:
                    return hit, True
        if field:
            return None
        for anc in self.ancestors(node, static):
            hit, field = self._own_member(anc, name)
            if hit is not None:
                return hit, False
            if field:
                return None
        return None

    def _own_member(self, node: GraphNode, name: str) -> tuple[GraphNode | None, bool]:
        """The first method ``name`` declared in ``node``, and whether a field of that
        name is (one look at the members for both)."""
        members = self.table.members(node, name)
        hit = next((m for m in members if m.kind in CALLABLE_KINDS), None)
        return hit, hit is None and any(m.kind == "FIELD" for m in members)

    def constructor(self, node: GraphNode) -> GraphNode | None:
        """The explicitly declared constructor of class ``node``, if any."""
        return next((m for m in self.table.member_nodes(node) if m.kind == "CONSTRUCTOR"),
                    None)

    def field_type(self, node: GraphNode, name: str) -> Ent | None:
        """Type of field ``name`` of class ``node`` (own fields first, then inherited)."""
        for owner in (node, *self.ancestors(node)):
            found = self.table.declared_var(owner, name)
            if found is not None:
                return self.eval_type(Ctx(found[1], owner), found[0])
        return None

    def ctx_of(self, node: GraphNode) -> Ctx:
        """Lookup position inside symbol ``node``."""
        return Ctx(self.table.file_of[node.key], node)

    def enclosing_type(self, ctx: Ctx) -> GraphNode | None:
        return next((n for n in self.table.chain(ctx.scope) if n.kind in TYPE_KINDS), None)

    # ---------------------------------------------------------------- lookups
    def lookup(self, ctx: Ctx, name: str, mode: str) -> Ent | None:
        """Resolve a simple ``name`` from ``ctx``.

        ``mode``: ``call`` (a bare call: locals bind, ``implicit_this`` languages see members of
        enclosing classes), ``value`` (a receiver: locals and fields give instances),
        ``type`` (a type name: only declarations and imports)."""
        table = self.table
        nearest = True  # the first type scope: its members are those of the caller's own
        for scope in table.chain(ctx.scope):
            if scope.kind in CALLABLE_KINDS:
                local = table.members(scope, name)
                if local:
                    return Ent("node", local[0], resolution="local")
                if mode != "type" and name in table.var_types(scope):
                    return self._var(Ctx(ctx.file, scope), table.var_types(scope)[name], mode)
            elif scope.kind in TYPE_KINDS:
                if scope is ctx.scope and mode != "type":
                    # code directly in a class (a field initializer's lambda or anonymous
                    # class) sees the parameters recorded under `<class fqn>#init`
                    text = table.var_types_of(scope, "#init").get(name)
                    if text is not None:
                        return self._var(Ctx(ctx.file, scope), text, mode)
                found = self._in_type_scope(scope, name, mode, ctx.file, nearest)
                if found is not None:
                    return found
                nearest = False
        return self._file_level(ctx, name, mode)

    def _in_type_scope(self, scope: GraphNode, name: str, mode: str, file: FileScope,
                       nearest: bool = False) -> Ent | None:
        if scope.meta.get("namespace"):  # a namespace symbol: its declarations are in scope
            members = self.table.members(scope, name)
            if members:
                return Ent("node", members[0], resolution="local")
        if mode == "call" and file.traits.implicit_this:  # `this` and companion members
            hit = self.find_method(scope, name, companion=True)
            if hit is not None:
                inherited = "self-inherited" if nearest else "inherited"
                return Ent("node", hit[0], resolution="self" if hit[1] else inherited)
        if mode == "value":
            typed = self.field_type(scope, name)
            if typed is not None:
                if typed.kind != "external":
                    return typed
                return Ent("bound", name=typed.name) if typed.name else BOUND
        nested = [m for m in self.table.members(scope, name) if m.kind in TYPE_KINDS]
        return Ent("node", nested[0], resolution="local") if nested else None

    def _var(self, ctx: Ctx, text: str, mode: str) -> Ent:
        if mode == "call":
            return BOUND
        typed = self.eval_type(ctx, text)
        if typed.kind == "instance":
            return typed
        return Ent("bound", name=typed.name) if typed.name else BOUND

    def _file_level(self, ctx: Ctx, name: str, mode: str) -> Ent | None:
        table, scope = self.table, ctx.file
        result, ns = scope.result, scope.ns
        if mode != "type":
            text = _module_var(scope, name)
            if text is not None:
                return self._var(Ctx(scope, None), text, mode)
        node = scope.top.get(name)
        if node is not None:
            return Ent("node", node, resolution="local")
        imp = scope.imports.get(name)
        if imp is not None:
            return _with_resolution(self.resolve_target(ns, imp.target), "import")
        same = "package" if scope.traits.packages else "local"
        node = table.module_members.get((ns, result.module), {}).get(name)
        if node is not None:
            return Ent("node", node, resolution=same)
        if result.package:
            node = table.package_members.get((ns, result.package), {}).get(name)
            if node is not None:
                return Ent("node", node, resolution="package")
        for target in scope.wildcards:
            found = self._wildcard_member(ns, target, name)
            if found is not None and found.kind not in ("unknown", "external"):
                return _with_resolution(found, "import")
        if scope.traits.global_names:
            return self._global(ns, name, mode)
        return None

    def _wildcard_member(self, ns: str, target: str, name: str) -> Ent | None:
        """Member ``name`` of a wildcard import's target (memoized: the files of a
        package or namespace import the same few, and each unknown name is tried in each)."""
        key = (ns, target, name)
        if key in self._wildcard_memo:
            return self._wildcard_memo[key]
        found = self._wildcard_memo[key] = self.member_of(self.resolve_target(ns, target),
                                                          name)
        return found

    def _global(self, ns: str, name: str, mode: str) -> Ent | None:
        """``name`` in the one namespace of the linker (spec ``global_names``): a type of
        that fqn, or the one function of that fqn: a function rather than a macro of its
        name (the macro stands in where the function is not built), the declaration when
        several files define it (platform variants); a declaration nothing in the
        repository defines is outside it (a system function declared for some platform)."""
        found = [n for n in self.table.callables_by_name.get((ns, name), [])
                 if n.fqn == name] if mode == "call" else []
        if not found:  # a type or a namespace (`geo::twice()`, `new geo::Circle()`)
            node = self.table.by_fqn.get((ns, name))
            return Ent("node", node, resolution="global") \
                if node is not None and node.kind in TYPE_KINDS else None
        if len(found) > 1:
            found = [n for n in found if not n.meta.get("macro")] or found
        if len(found) > 1:
            found = [n for n in found if n.meta.get("declaration")]
        if len(found) != 1:
            return None
        if found[0].meta.get("declaration") and not found[0].meta.get("definitions"):
            return EXTERNAL
        return Ent("node", found[0], resolution="global")

    # ------------------------------------------------------- modules, imports
    def resolve_target(self, ns: str, target: str, depth: int = 0) -> Ent:
        """What an import target (fqn in our conventions) denotes (memoized: every file
        of a namespace imports the same few, and every lookup tries them)."""
        if depth == 0:
            found = self._target_memo.get((ns, target))
            if found is None:
                found = self._target_memo[(ns, target)] = self._resolve_target(ns, target, 0)
            return found
        return self._resolve_target(ns, target, depth)

    def _resolve_target(self, ns: str, target: str, depth: int) -> Ent:
        table = self.table
        if depth > _MAX_DEPTH:
            return EXTERNAL
        if namespace_spec(ns).target_style == "module-member":
            return self._resolve_member_target(ns, target, depth)
        node = table.by_fqn.get((ns, target))
        if node is not None:
            return Ent("node", node)
        if (ns, target) in table.package_nodes:
            return Ent("package", name=target)
        if table.module_exists(ns, target):
            return Ent("module", name=target)
        head, _, last = target.rpartition(".")
        if head:
            found = self.member_of(self.resolve_target(ns, head, depth + 1), last, depth + 1)
            if found is not None and found.kind != "unknown":
                return Ent(found.kind, found.node, found.name)
        return EXTERNAL

    def module_of_target(self, ns: str, target: str) -> str | None:
        """Module that defines an import target (``src/routes/users:default`` -> the file)."""
        if namespace_spec(ns).target_style == "module-member":
            module = target.partition(":")[0]
            for candidate in (module, f"{module}/index"):
                if self.table.module_exists(ns, candidate):
                    return candidate
            return None
        ent = self.resolve_target(ns, target)
        if ent.kind == "module":
            return ent.name
        if ent.node is not None:
            return self.table.file_of[ent.node.key].result.module
        head = target.rpartition(".")[0]
        return head if self.table.module_exists(ns, head) else None

    def _resolve_member_target(self, ns: str, target: str, depth: int) -> Ent:
        """``src/mod:Name`` (``module-member`` targets): a member of a module, ``default``
        its default export, no name the module itself (``index`` modules included)."""
        module, _, name = target.partition(":")
        found = self._index_module(ns, module)
        if found is None:
            return EXTERNAL
        if not name:
            return Ent("module", name=found)
        if name == "default":
            for scope in self.table.module_files.get((ns, found), []):
                for node in scope.top.values():
                    if node.meta.get("export_default"):
                        return Ent("node", node)
                imp = scope.imports.get("default")
                if imp is not None:
                    return self.resolve_target(ns, imp.target, depth + 1)
            return EXTERNAL
        head, *rest = name.split(".")
        ent = self.member_of(Ent("module", name=found), head, depth + 1)
        for part in rest:
            if ent is None or ent.kind in ("unknown", "external"):
                break
            ent = self.member_of(ent, part, depth + 1)
        return ent if ent is not None and ent.kind != "unknown" else EXTERNAL

    def _index_module(self, ns: str, module: str) -> str | None:
        for candidate in (module, f"{module}/index"):
            if self.table.module_exists(ns, candidate):
                return candidate
        return None

    def member_of(self, ent: Ent | None, name: str, depth: int = 0, value: bool = False
                  ) -> Ent | None:
        """Member ``name`` of a module, package, class (static) or instance. With
        ``value`` (the member is used as a value, ``mod.X.init()``), a module variable
        named like a type of that module (an ``interface X`` beside ``const
        X``) is the variable."""
        if ent is None:
            return None
        if ent.kind == "module":
            return self._module_member(ent.name, name, depth, value)
        if ent.kind == "package":
            return self._package_member(ent.name, name)
        if ent.kind in ("node", "static") and ent.node is not None:
            if ent.node.kind in TYPE_KINDS:
                return self._static_member(ent.node, name)
            return UNKNOWN
        if ent.kind == "instance" and ent.node is not None:
            typed = self.field_type(ent.node, name)
            if typed is None:
                return UNKNOWN
            return typed if typed.kind in ("instance", "external") else EXTERNAL
        if ent.kind in ("external", "bound"):
            return EXTERNAL
        return UNKNOWN

    def _module_member(self, module: str, name: str, depth: int, value: bool = False
                       ) -> Ent | None:
        table = self.table
        for ns in self._namespaces_of_module(module):
            node = table.module_members.get((ns, module), {}).get(name)
            if node is not None and value and node.kind in TYPE_KINDS:
                for scope in table.module_files.get((ns, module), []):
                    text = _module_var(scope, name)
                    typed = self.eval_type(Ctx(scope, None), text) if text else None
                    if typed is not None and typed.kind == "instance":
                        return typed
            if node is not None:
                return Ent("node", node)
            for scope in table.module_files.get((ns, module), []):
                text = _module_var(scope, name)
                if text is not None:
                    typed = self.eval_type(Ctx(scope, None), text)
                    return typed if typed.kind == "instance" else EXTERNAL
                imp = scope.imports.get(name)  # a re-export (`from .x import Y`)
                if imp is not None and depth < _MAX_DEPTH:
                    return self.resolve_target(ns, imp.target, depth + 1)
            # `export * from "./api"` (`from .x import *`): a member of a module re-exported
            # whole, in the order the module says it
            for scope in table.module_files.get((ns, module), []) if depth < _MAX_DEPTH else ():
                for imp in scope.result.imports:
                    if imp.alias != "*":
                        continue
                    found = self.member_of(self.resolve_target(ns, imp.target, depth + 1),
                                           name, depth + 1, value)
                    if found is not None and found.kind not in ("unknown", "external"):
                        return found
            sub = f"{module}{namespace_spec(ns).separator}{name}"
            if table.module_exists(ns, sub) or (ns, sub) in table.package_nodes:
                kind = "package" if (ns, sub) in table.package_nodes else "module"
                return Ent(kind, name=sub)
        return UNKNOWN

    def _namespaces_of_module(self, module: str) -> list[str]:
        # Module names are unique enough across namespaces; try each that knows it.
        return [ns for ns in namespaces() if (ns, module) in self.table.module_files]

    def _package_member(self, package: str, name: str) -> Ent | None:
        for ns in package_namespaces():
            node = self.table.package_members.get((ns, package), {}).get(name)
            if node is not None:
                return Ent("node", node)
        return self._module_member(package, name, _MAX_DEPTH)

    def _static_member(self, cls: GraphNode, name: str) -> Ent:
        nested = [m for m in self.table.members(cls, name) if m.kind in TYPE_KINDS]
        if nested:
            return Ent("static", nested[0])
        typed = self.field_type(cls, name)
        if typed is not None:
            return typed if typed.kind == "instance" else EXTERNAL
        if cls.kind == "ENUM" and any(m.kind == "FIELD" for m in self.table.members(cls, name)):
            return Ent("instance", cls)  # an enum constant
        for obj in self.companions(cls):
            found = self._static_member(obj, name)
            if found.kind != "unknown":
                return found
        return UNKNOWN

    # -------------------------------------------------------- receiver chains
    def eval_chain(self, ctx: Ctx, chain: list[str], mode: str = "value") -> Ent:
        """Evaluate a receiver chain (``["self", "repo"]``, ``["store"]``) to an Ent."""
        if not chain:
            return UNKNOWN
        head = chain[0]
        start = 1
        traits = ctx.file.traits
        if head in traits.self_names:
            cls = self.enclosing_type(ctx)
            ent = Ent("instance", cls, resolution="self") if cls is not None else UNKNOWN
        elif head in traits.super_names:
            cls = self.enclosing_type(ctx)
            ent = Ent("super", cls) if cls is not None else UNKNOWN
        elif head == "?":
            return UNKNOWN
        elif head.endswith("()"):  # `make().x()`: the declared result of a bare call
            ent = _returned(self._eval_call_type(ctx, head[:-2], 0))
        else:
            ent, start = self._chain_head(ctx, chain, mode)
        for i, part in enumerate(chain[start:], start):
            if part == "[]":  # `opts[k].process()`: an item of a typed container
                ent = self._item_read(ctx, chain[:i], None)
                if ent.kind != "instance":
                    return ent
                continue
            if part.endswith("()") and ent.kind in ("instance", "static", "super", "module",
                                                    "package", "external", "bound"):
                if ent.kind in ("external", "bound"):
                    # `users.get(i).name()`: an item of a declared `List<User>`
                    ent = self._item_read(ctx, chain[:i], part[:-2])
                    if ent.kind != "instance":
                        return ent
                    continue
                ent = self._call_result(ent, part[:-2])  # chained call `a.b().c()`
                continue
            if ent.kind in ("unknown", "external", "bound", "super"):
                return ent if ent.kind != "super" else UNKNOWN
            ent = self.member_of(ent, part, value=mode != "type") or UNKNOWN
        return ent

    def _item_read(self, ctx: Ctx, container: list[str], method: str | None) -> Ent:
        """The item ``container.method()`` reads when ``method`` reads one item by key or
        index (the language's ``item_reads``; None: an index ``container[k]``) of a
        container declared with its item type; else external."""
        traits = ctx.file.traits
        if (method is not None and method not in traits.item_reads) or any(
                p.endswith("()") or p in ("?", "[]") or p in traits.super_names
                for p in container):
            return EXTERNAL
        found = self._eval_element(ctx, ".".join(container), 0, item=True)
        return _returned(found) if found.kind == "instance" else EXTERNAL

    def _call_result(self, recv: Ent, name: str) -> Ent:
        """The declared result type of calling ``name`` on ``recv`` (``return-type``)."""
        found = self._method_of(recv, name)
        node = found.node if found is not None else None
        if node is None:
            # a method we do not know on a known class: inherited from outside the repo
            return EXTERNAL if recv.kind in ("instance", "static", "super") else UNKNOWN
        if node.kind in TYPE_KINDS:
            return Ent("instance", node, resolution="return-type")
        if node.kind == "CONSTRUCTOR":
            parent = self.table.parent(node)
            return Ent("instance", parent, resolution="return-type") if parent else EXTERNAL
        returned = node.meta.get("return_type")
        if isinstance(returned, str) and returned:
            return _returned(self.eval_type(self.ctx_of(node), returned))
        return EXTERNAL

    def _chain_head(self, ctx: Ctx, chain: list[str], mode: str) -> tuple[Ent, int]:
        found = self.lookup(ctx, chain[0], mode)
        if found is not None:
            if found.kind == "node" and found.node is not None:
                if found.node.kind in TYPE_KINDS:
                    return Ent("static", found.node, resolution=found.resolution), 1
                return UNKNOWN, 1
            return found, 1
        if chain[0] == ctx.file.traits.class_receiver:  # `cls` in a classmethod
            cls = self.enclosing_type(ctx)
            if cls is not None:
                return Ent("static", cls, resolution="static"), 1
        # A fully qualified prefix (`com.acme.Util`, `app.services.users`).
        for end in range(len(chain), 1, -1):
            ent = self.resolve_target(ctx.file.ns, ".".join(chain[:end]))
            if ent.kind == "node" and ent.node is not None and ent.node.kind in TYPE_KINDS:
                return Ent("static", ent.node), end
            if ent.kind in ("module", "package"):
                return ent, end
        return UNKNOWN, 1

    # -------------------------------------------------------------- types
    def eval_type(self, ctx: Ctx, text: str, depth: int = 0) -> Ent:
        """Evaluate a declared type or ``=call:X`` to ``instance`` (or external)."""
        memo_key = (ctx.file.result.path, ctx.scope.key if ctx.scope else None, text)
        cached = self._type_memo.get(memo_key)
        if cached is not None:
            return cached
        self._type_memo[memo_key] = EXTERNAL  # cycle guard
        result = self._eval_type(ctx, text, depth) if depth <= _MAX_DEPTH else EXTERNAL
        self._type_memo[memo_key] = result
        return result

    def _eval_type(self, ctx: Ctx, text: str, depth: int) -> Ent:
        if text.startswith("=call:"):
            return self._eval_call_type(ctx, text[len("=call:"):], depth)
        if text.startswith(("=arg:", "=arg-new:")):
            return self._eval_callback_param(ctx, text, depth)
        if text.startswith("=iter:"):
            return self._eval_element(ctx, text[len("=iter:"):], depth)
        if text.startswith("=item:"):
            return self._eval_element(ctx, text[len("=item:"):], depth, item=True)
        members = union_members(text, ctx.file.traits.null_words) \
            if not text.startswith("=") else []
        if members:  # one of several classes: each, labelled `union`
            nodes: list[GraphNode] = []
            for member in members:
                found = self.type_node(ctx, member)
                if found is not None and found not in nodes:
                    nodes.append(found)
            if not nodes:
                return EXTERNAL
            return Ent("instance", nodes[0], resolution="union", alts=tuple(nodes[1:]))
        node = self.type_node(ctx, text)
        aliased = _aliased(node)
        if aliased is not None:  # a type alias is the type it names, where it is declared
            return self.eval_type(self.ctx_of(node), aliased, depth + 1)
        if node is not None:
            return Ent("instance", node)
        # outside the repository; the name is kept for the applicability of extensions
        return Ent("external", name=clean_type(text, ctx.file.lang))

    def type_node(self, ctx: Ctx, text: str) -> GraphNode | None:
        """The class/interface a type name as written refers to, or None."""
        name = clean_type(text, ctx.file.lang)
        if not name:
            return None
        parts = name.split(".")
        if len(parts) == 1:
            ent = self.lookup(ctx, name, "type")
        else:
            direct = self.table.by_fqn.get((ctx.file.ns, name))
            if direct is not None and direct.kind in TYPE_KINDS:
                return direct
            ent = self.member_of(self.eval_chain(ctx, parts[:-1], "type"), parts[-1])
        if ent is not None and ent.node is not None and ent.node.kind in TYPE_KINDS \
                and ent.kind in ("node", "static"):
            return ent.node
        return None

    def _eval_call_type(self, ctx: Ctx, callee: str, depth: int) -> Ent:
        if callee == ctx.file.traits.class_receiver:  # `cls(...)` in a classmethod
            cls = self.enclosing_type(ctx)
            return Ent("instance", cls) if cls is not None else EXTERNAL
        parts = callee.split(".")
        target = self.callee(ctx, parts[:-1] or None, parts[-1], "call")
        node = target.node if target is not None else None
        if node is None and len(parts) > 1 and parts[-1] in ctx.file.traits.item_reads:
            # `self.opts.get(k)`: an item of a container declared `Dict[str, Option]`
            return self._eval_element(ctx, ".".join(parts[:-1]), depth, item=True)
        if node is None:
            return EXTERNAL
        if node.kind in TYPE_KINDS:
            return Ent("instance", node)
        if node.kind == "CONSTRUCTOR":
            parent = self.table.parent(node)
            return Ent("instance", parent) if parent is not None else EXTERNAL
        returned = node.meta.get("return_type")
        if node.kind in CALLABLE_KINDS and isinstance(returned, str) and returned:
            return self.eval_type(self.ctx_of(node), returned, depth + 1)
        return EXTERNAL

    def _eval_element(self, ctx: Ctx, source: str, depth: int, item: bool = False) -> Ent:
        key = (id(ctx.file), id(ctx.scope), source, item)
        if key in self._elements_open:
            return EXTERNAL
        self._elements_open.add(key)
        try:
            return self._element_of(ctx, source, depth, item)
        finally:
            self._elements_open.discard(key)

    def _element_of(self, ctx: Ctx, source: str, depth: int, item: bool) -> Ent:
        """Element type of what a ``for`` loop iterates (or with ``item``, of one item read
        by key or index, ``x = self.opts[k]``: a mapping's value type): ``=call:<callee>``
        (the callee's declared result, e.g. ``list[Param]``), a chain ``self.params`` (the
        field's declared type) or a variable or parameter (its declared type)."""
        declared: str | None = None
        owner: GraphNode | None = None
        if "." not in source and not source.startswith("="):
            for scope in self.table.chain(ctx.scope):
                text = self.table.var_types(scope).get(source)
                if text is not None:
                    if text.startswith("=call:"):  # `xs = load()`: load's declared result
                        source = text
                    break
        if source.startswith("=call:"):
            parts = source[len("=call:"):].split(".")
            found = self.callee(ctx, parts[:-1] or None, parts[-1], "call")
            owner = found.node if found is not None else None
            if owner is not None and owner.kind in CALLABLE_KINDS:
                declared = owner.meta.get("return_type")
        elif "." not in source:
            for scope in self.table.chain(ctx.scope):
                text = self.table.var_types(scope).get(source)
                if text is not None:
                    declared, owner = text, scope
                    break
        else:
            *head, name = source.split(".")
            recv = self.eval_chain(ctx, head) if head else UNKNOWN
            if recv.kind == "instance" and recv.node is not None:
                for cls in (recv.node, *self.ancestors(recv.node)):
                    owner = next((m for m in self.table.members(cls, name)
                                  if m.kind == "FIELD"), None)
                    if owner is not None:
                        # as annotated, else as assigned (`self.params = params` with
                        # `params: list[Parameter]`)
                        declared = owner.meta.get("type") or \
                            self.table.var_types(cls).get(name)
                        break
        if not isinstance(declared, str) or owner is None:
            return EXTERNAL
        for _ in range(_MAX_ALIASES):  # `ShapeList shapes_;`: the sequence it names
            alias = self.type_node(self.ctx_of(owner), declared)
            aliased = _aliased(alias)
            if alias is None or aliased is None:
                break
            declared, owner = aliased, alias
        element = (item_type if item else element_type)(declared)
        if element is None and not item:
            # a repository class that is iterable: its __iter__'s result
            iterable = self.type_node(self.ctx_of(owner), declared)
            method = ctx.file.traits.iterator_method
            hit = self.find_method(iterable, method) if iterable is not None and method \
                else None
            returned = hit[0].meta.get("return_type") if hit is not None else None
            element = element_type(returned) if isinstance(returned, str) else None
            owner = hit[0] if hit is not None else owner
        if element is None:
            return EXTERNAL
        return self.eval_type(self.ctx_of(owner), element, depth + 1)

    def _eval_callback_param(self, ctx: Ctx, text: str, depth: int) -> Ent:
        """``=arg:<callee>#<argument>#<parameter>``: the type of parameter <parameter> of
        the callback passed as argument <argument> to <callee>, read from the callee's
        declared parameter type (a function type) (``callback-param``)."""
        new = text.startswith("=arg-new:")
        callee, arg, param = text.split(":", 1)[1].rsplit("#", 2)
        parts = callee.split(".")
        found = self.callee(ctx, parts[:-1] or None, parts[-1], "new" if new else "call")
        node = found.node if found is not None and found.kind in ("node", "static") else None
        if node is not None and node.kind in TYPE_KINDS:
            node = self.constructor(node)
        if node is None or node.kind not in CALLABLE_KINDS:
            return EXTERNAL
        declared = node.meta.get("params") or []
        index = int(arg)
        if index >= len(declared) or not isinstance(declared[index][1], str):
            return EXTERNAL
        wanted = function_type_param(declared[index][1], int(param))
        if wanted is None:
            return EXTERNAL
        ent = self.eval_type(self.ctx_of(node), wanted, depth + 1)
        if ent.kind == "instance" and ent.node is not None:
            return Ent("instance", ent.node, resolution="callback-param")
        return EXTERNAL

    # -------------------------------------------------------------- callees
    def callee(self, ctx: Ctx, receiver: list[str] | None, name: str, kind: str
               ) -> Ent | None:
        """What a call refers to: ``node`` (callable or class) with its resolution,
        ``unknown`` (fallback allowed), or None/other (no edge)."""
        if receiver is None:
            traits = ctx.file.traits
            if traits.constructor_calls and (name in traits.super_names
                                             or name in traits.self_names):
                return self._explicit_constructor(ctx, name)
            found = self.lookup(ctx, name, "call")
            return UNKNOWN if found is None else found
        recv = self.eval_chain(ctx, receiver)
        if recv.kind in ("unknown", "external", "bound"):
            found = self._extension(ctx, recv, name)
            if found is not None and found.node is not None \
                    and found.node.meta.get("package_member") and recv.kind == "unknown" \
                    and len(receiver) == 1 and is_builtin(ctx.file.lang, receiver[0]):
                return recv  # `DateTime.Parse(s)`: a built-in type, no value to extend
            return found or recv
        return self._method_of(recv, name) or self._extension(ctx, recv, name)

    def anonymous_member(self, ctx: Ctx, supers: list[str], name: str) -> Ent | None:
        """A bare call in the body of an anonymous subclass of ``supers`` (types as
        written): the method ``name`` one of them (a repository type) declares or
        inherits; None when none has one (the enclosing scopes are looked in then)."""
        for text in supers:
            node = self.type_node(ctx, text)
            hit = self.find_method(node, name) if node is not None else None
            if hit is not None:
                return Ent("node", hit[0], resolution="inherited")
        return None

    def applied(self, ctx: Ctx, receiver: list[str] | None, name: str, found: Ent | None,
                args: int | None) -> Ent | None:
        """A call of a value or an object where the language calls its ``apply_method``
        (``decoder(c)`` is ``decoder.apply(c)`` for a ``decoder`` of a repository type,
        ``Foo(x)`` the ``apply`` of object ``Foo`` or of class ``Foo``'s companion
        members): that method; None when ``found`` (what the call names) is a callable or
        there is no such method. A case class's own ``apply`` is generated, no
        declaration."""
        method = ctx.file.traits.apply_method
        if not method or (found is not None and found.node is not None
                          and found.node.kind in CALLABLE_KINDS):
            return None
        node = found.node if found is not None else None
        if found is not None and found.kind in ("node", "static") and node is not None \
                and node.kind in TYPE_KINDS:
            if node.meta.get("case"):
                return None
            hits = [m for m in self.table.members(node, method) if m.kind in CALLABLE_KINDS
                    and (node.kind == "OBJECT" or m.meta.get("static"))
                    and (args is None or overloads.accepts(m, args))]
            return Ent("node", hits[0], resolution="static") if hits else None
        if receiver is not None:
            if found is not None:  # the receiver has no method of that name, or no type
                return None
        elif found is not None and found.kind != "bound" and (
                found.kind != "unknown" or not self._may_be_value(ctx.file, name)):
            return None
        recv = self.eval_chain(ctx, [*receiver, name] if receiver else [name])
        if recv.kind != "instance" or recv.node is None:
            return None
        return self._method_of(recv, method)

    def _may_be_value(self, file: FileScope, name: str) -> bool:
        """Whether ``name`` is a field of some type or a variable of ``file`` (a bare
        call of anything else is no call of a value)."""
        if self._field_names is None:
            self._field_names = {n.name for n in self.table.symbol_nodes
                                 if n.kind == "FIELD"}
        names = self._file_vars.get(file.result.path)
        if names is None:
            names = self._file_vars[file.result.path] = {
                n for scoped in file.result.var_types.values() for n in scoped}
        return name in self._field_names or name in names

    def _extension(self, ctx: Ctx, recv: Ent, name: str) -> Ent | None:
        """``x.name()`` with no member ``name``: an extension function ``name`` visible
        here (imported or in scope) whose receiver type (``meta.receiver_type``,
        ``fun Book.label()``) is the receiver's class or one of its supertypes; when the
        receiver's class is not a repository class the visible extension is taken."""
        found = self.lookup(ctx, name, "call")
        node = found.node if found is not None and found.kind == "node" else None
        wanted = node.meta.get("receiver_type") if node is not None else None
        if not wanted or node.kind not in CALLABLE_KINDS:
            return None
        if recv.kind == "instance" and recv.node is not None:
            names = {recv.node.name, *(a.name for a in self.ancestors(recv.node))}
            if wanted.rsplit(".", 1)[-1] not in names:
                return None
        elif recv.name and node.meta.get("package_member"):
            # an extension seen package-wide, on a receiver of a named outside type: the
            # language says whether its receiver type can be that type
            spec = find(node.lang)
            applies = hook(spec.extension_receiver) if spec and spec.extension_receiver \
                else None
            if applies is not None and not applies(wanted, recv.name):
                return None
        return Ent("node", node, resolution="extension")

    def _explicit_constructor(self, ctx: Ctx, name: str) -> Ent | None:
        cls = self.enclosing_type(ctx)
        if cls is None:
            return None
        own = name in ctx.file.traits.self_names
        owners = [cls] if own else self.ancestors(cls)[:1]
        for owner in owners:
            ctor = self.constructor(owner)
            if ctor is not None:
                return Ent("node", ctor, resolution="self" if own else "super")
        return None

    def _method_of(self, recv: Ent, name: str) -> Ent | None:
        node = recv.node
        if recv.kind == "node" and node is not None and node.kind in TYPE_KINDS:
            recv = Ent("static", node)  # a class reached through a module (`mod.Cls.f()`)
        if recv.kind == "instance" and node is not None and recv.resolution == "union":
            hits: list[GraphNode] = []
            for cls in (node, *recv.alts):
                found = self.find_method(cls, name)
                if found is not None and found[0] not in hits:
                    hits.append(found[0])
            if not hits:
                return None
            return Ent("node", hits[0], resolution="union", alts=tuple(hits[1:]))
        if recv.kind == "instance" and node is not None:
            hit = self.find_method(node, name)
            if hit is None:
                return None
            if recv.resolution in ("return-type", "callback-param"):  # see edges.CONFIDENCE
                return Ent("node", hit[0], resolution=recv.resolution)
            own = "self" if recv.resolution == "self" else "type"
            inherited = "self-inherited" if own == "self" else "inherited"
            return Ent("node", hit[0], resolution=own if hit[1] else inherited)
        if recv.kind == "super" and node is not None:
            for anc in self.ancestors(node):
                hit = self.own_callable(anc, name) or self._ctor_named(anc, name)
                if hit is not None:
                    return Ent("node", hit, resolution="super")
            return None
        if recv.kind == "static" and node is not None:
            hit = self.find_method(node, name, companion=True, static=True)
            if hit is not None:
                return Ent("node", hit[0], resolution="static")
            nested = self._static_member(node, name)
            if nested.kind == "static":
                return Ent("node", nested.node, resolution="constructor")
            return None
        member = self.member_of(recv, name)
        if member is None or member.node is None:
            return None
        if member.node.kind in TYPE_KINDS:
            return Ent("node", member.node, resolution="constructor")
        return Ent("node", member.node, resolution="import")

    def _ctor_named(self, cls: GraphNode, name: str) -> GraphNode | None:
        spec = find(cls.lang)
        if spec is not None and name in spec.constructor_names:
            return self.constructor(cls)
        return None


def _aliased(node: GraphNode | None) -> str | None:
    """The type a type alias node stands for, as written (``meta.alias``), else None."""
    aliased = node.meta.get("alias") if node is not None else None
    return aliased if isinstance(aliased, str) and aliased else None


def _module_var(scope: FileScope, name: str) -> str | None:
    """Type of a module/package-level variable of this file."""
    var_types = scope.result.var_types
    for key in (scope.result.module, scope.result.path, ""):
        found = var_types.get(key)
        if found and name in found:
            return found[name]
    return None


def _returned(ent: Ent) -> Ent:
    """An instance obtained from a call result, labelled ``return-type``."""
    if ent.kind == "instance" and ent.node is not None:
        return Ent("instance", ent.node, resolution="return-type")
    return ent if ent.kind != "unknown" else EXTERNAL


def _with_resolution(ent: Ent, resolution: str) -> Ent:
    if ent.kind in ("node", "static"):
        return Ent("node" if ent.kind == "node" else "static", ent.node, ent.name, resolution)
    return ent
