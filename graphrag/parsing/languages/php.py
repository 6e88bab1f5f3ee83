"""PHP extractor: one ``.php`` file -> :class:`ParseResult`.

Covers namespaces (the file's package), ``use`` imports (groups, aliases, ``use
function``), classes, interfaces, traits (CLASS with ``meta.trait``; ``use T;`` in a class
body is an ``embeds`` heritage, so the trait's methods are the class's), enums (cases as
FIELD), functions, methods (``__construct`` is the CONSTRUCTOR), properties, constants and
promoted constructor parameters (FIELD), calls through ``$this->``, ``self::``,
``static::``, ``parent::``, typed variables, properties and return types, ``new X``; and
routes: Laravel (``Route::get('/x', [C::class, 'm'])``, ``match``/``any``, groups with
``prefix``, ``Route::resource``/``apiResource``; ``routes/api.php`` under ``/api`` as
Laravel mounts it) and Symfony ``#[Route]`` attributes (or ``@Route`` doc-comment
annotations) with their class prefix.

Names are resolved here the way PHP resolves them, since the rules are per file: a class
name is its ``use`` alias, else a member of the current namespace; a fully qualified
``\\A\\B`` is ``A.B``. fqns are dotted: ``App\\Models\\User::save`` is
``App.Models.User.save``; a function of the global namespace is its bare name. Composer's
PSR-4 map (``composer.json``, :func:`repo_facts`) names the namespace of a file that
declares none, and its ``autoload.files`` (global helper functions) are visible from every
namespace, as PHP falls back to global functions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import (
    ScopeIndex,
    count_errors,
    in_order,
    node_id,
    normalize,
)
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles
from graphrag.parsing.routes import (
    Annotation,
    CalledRoute,
    Endpoint,
    RouteCall,
    Router,
    RouteSite,
    argument,
    call_facts,
    called_route,
    declared_endpoint,
    file_prefix,
    join_segments,
    route_call_names,
)

LANG = "php"
_SIGNATURE_MAX = 300
# The module of files in the global namespace (global functions are found through it).
GLOBAL = ""
_TYPE_DECLS = {"class_declaration": "CLASS", "interface_declaration": "INTERFACE",
               "trait_declaration": "CLASS", "enum_declaration": "ENUM"}
_FUNCTION_NODES = frozenset({"function_definition", "method_declaration"})
# Type names that name no class (scalar and pseudo types).
_SCALARS = frozenset({
    "int", "integer", "float", "double", "string", "bool", "boolean", "array", "object",
    "mixed", "void", "null", "callable", "iterable", "never", "false", "true", "resource",
    "scalar", "numeric", "list", "non-empty-string", "class-string", "positive-int",
    "array-key", "non-empty-array", "non-empty-list", "callable-string", "int-mask"})
# Language constructs that parse like calls.
_CONSTRUCTS = frozenset({"isset", "empty", "unset", "eval", "exit", "die", "list", "array",
                         "compact", "extract"})
_USE_KIND = re.compile(r"use\s+(function|const)\b", re.IGNORECASE)
# a Doctrine annotation with a string first argument: `@Name("x", key={"a", "b"})`
_DOC_ANNOTATION = re.compile(r'@(\w+)\(\s*"([^"]*)"([^)]*)\)')
_DOC_LIST_ARG = re.compile(r"(\w+)\s*=\s*[{\[]([^}\]]*)[}\]]")
_DOC_VAR = re.compile(r"@var\s+([^\s*]+)")
_DOC_PARAM = re.compile(r"@param\s+([^\s*]+)\s+&?(?:\.\.\.)?\$(\w+)")
_DOC_RETURN = re.compile(r"@return\s+([^\s*]+)")


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one PHP file into symbols, imports, calls, heritage, routes and types."""
    tree = registry.parser(LANG).parse(source)
    facts = ctx.of(LANG, {})
    result = ParseResult(path=rel_path, lang=LANG, module=GLOBAL, package=None)
    _PhpFile(source, tree.root_node, rel_path, facts, result).run()
    result.error_count = count_errors(tree.root_node)
    return result


def repo_facts(files: RepoFiles) -> dict[str, object]:
    """Composer's autoload map of every ``composer.json`` (vendor copies left out):
    ``psr4`` (directory -> namespace, dotted), ``files`` (files of global functions) and
    ``roots`` (the directories holding one: each an application's root)."""
    psr4: dict[str, str] = {}
    helpers: list[str] = []
    roots: set[str] = set()
    for rel, directory, _name in files.named("composer.json"):
        if "vendor/" in f"{rel}" or rel.startswith("vendor"):
            continue
        roots.add(directory)
        text = files.read(rel, 1 << 20)
        try:
            data = json.loads(text) if text else None
        except ValueError:
            continue  # an unreadable composer.json only loses its map
        if not isinstance(data, dict):
            continue
        base = f"{directory}/" if directory else ""
        for section in ("autoload", "autoload-dev"):
            autoload = data.get(section)
            if not isinstance(autoload, dict):
                continue
            mapping = autoload.get("psr-4")
            for prefix, dirs in (mapping.items() if isinstance(mapping, dict) else ()):
                for path in dirs if isinstance(dirs, list) else [dirs]:
                    if isinstance(path, str) and isinstance(prefix, str):
                        key = (base + path).rstrip("/")
                        psr4[key] = prefix.strip("\\").replace("\\", ".")
            listed = autoload.get("files")
            helpers.extend(base + f for f in listed if isinstance(f, str)) \
                if isinstance(listed, list) else None
    return {"psr4": psr4, "files": sorted(set(helpers)), "roots": sorted(roots)}


def app_path(rel_path: str, roots: list[str]) -> str:
    """``rel_path`` relative to the innermost composer root holding it (unchanged when
    none does), so a file names the same module whether its application is indexed alone
    or inside a larger folder."""
    best = ""
    for root in roots:
        if root and rel_path.startswith(root + "/") and len(root) > len(best):
            best = root
    return rel_path[len(best) + 1:] if best else rel_path


def psr4_namespace(rel_path: str, psr4: dict[str, str]) -> str | None:
    """Namespace PSR-4 gives the file at ``rel_path`` (the longest mapped directory)."""
    directory = rel_path.rpartition("/")[0]
    best: str | None = None
    best_len = -1
    for root, prefix in psr4.items():
        if (directory == root or directory.startswith(root + "/") or root == "") \
                and len(root) > best_len:
            rest = directory[len(root):].strip("/").replace("/", ".")
            best, best_len = ".".join(p for p in (prefix, rest) if p), len(root)
    return best


def _dotted(name: str) -> str:
    """``\\App\\Models\\User`` -> ``App.Models.User``."""
    return name.strip().lstrip("\\").replace("\\", ".")


def _string(node: Node | None) -> str | None:
    """Content of a string literal (None for anything else)."""
    if node is None:
        return None
    if node.type == "argument":
        node = node.named_children[-1] if node.named_children else None
        if node is None:
            return None
    if node.type not in ("string", "encapsed_string"):
        return None
    parts = [c for c in node.named_children]
    if any(c.type not in ("string_content", "string_value", "escape_sequence") for c in parts):
        return None
    return "".join(_text(c) for c in parts)


def _args(call: Node) -> list[Node]:
    """The argument expressions of a call (named arguments included, by position)."""
    args = call.child_by_field_name("arguments")
    if args is None:
        args = next((c for c in call.named_children if c.type == "arguments"), None)
    if args is None:
        return []
    out = []
    for arg in args.named_children:
        if arg.type == "argument":
            value = arg.named_children[-1] if arg.named_children else None
            if value is not None:
                out.append(value)
    return out


def _named_args(call: Node) -> dict[str, Node]:
    args = call.child_by_field_name("arguments")
    out: dict[str, Node] = {}
    for arg in args.named_children if args is not None else ():
        name = arg.child_by_field_name("name")
        if arg.type == "argument" and name is not None and arg.named_children:
            out[_text(name)] = arg.named_children[-1]
    return out


def _array_items(node: Node | None) -> list[Node]:
    if node is None or node.type != "array_creation_expression":
        return []
    return [c.named_children[-1] for c in node.named_children
            if c.type == "array_element_initializer" and c.named_children]


def _array_pairs(node: Node | None) -> dict[str, Node]:
    """``['prefix' => 'admin']`` -> {prefix: node of 'admin'}."""
    out: dict[str, Node] = {}
    if node is None or node.type != "array_creation_expression":
        return out
    for item in node.named_children:
        kids = item.named_children
        if item.type == "array_element_initializer" and len(kids) == 2:
            key = _string(kids[0])
            if key is not None:
                out[key] = kids[1]
    return out


@dataclass
class _Scope:
    """A type or function symbol and what walking its body needs."""

    symbol: Symbol
    node: Node
    cls: str | None = None  # fqn of the class whose code this is (self, static)
    parent_class: str | None = None  # its superclass as written (resolved)
    locals: dict[str, str] = field(default_factory=dict)


class _PhpFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, source: bytes, root: Node, rel_path: str, facts: dict,
                 result: ParseResult) -> None:
        super().__init__(source, root, result)
        self.rel_path = rel_path
        self.facts = facts if isinstance(facts, dict) else {}
        self.scopes: ScopeIndex[int, _Scope] = ScopeIndex(node_id)
        self.namespaces: list[tuple[int, str]] = []  # (start byte, namespace) in order
        self.aliases: dict[tuple[int, str], dict[str, str]] = {}  # (ns start, kind) -> names
        self.endpoint_names: set[str] = set()

    # -- entry ---------------------------------------------------------------------------

    def run(self) -> ParseResult:
        defs = QueryCursor(registry.query(LANG, "php-definitions")).captures(self.root)
        refs = QueryCursor(registry.query(LANG, "php-references")).captures(self.root)
        self._namespaces(in_order(defs.get("namespace", [])))
        self.passes(
            defs, ("import", self._import),
            (("definition.class", "definition.interface", "definition.trait",
              "definition.enum"), self._type),
            (("definition.function", "definition.method"), self._function),
            ("definition.property", self._property),
            (("definition.constant", "definition.case"), self._constant))
        self.passes(refs, ("assignment", self._assignment), ("foreach", self._foreach))
        # routes first: a closure handler becomes the scope of the calls inside it
        self._routes(refs.get("reference.scoped", []) + refs.get("reference.member", []))
        for capture in ("reference.call", "reference.member", "reference.scoped",
                        "reference.new"):
            for node in refs.get(capture, []):
                self._call(node, capture)
        self.result.calls.sort(key=lambda c: c.line)
        self.result.var_types = {k: v for k, v in self.result.var_types.items() if v}
        return self.finished()

    # -- namespaces and imports ----------------------------------------------------------

    def _namespaces(self, nodes: list[Node]) -> None:
        for node in nodes:
            name = node.child_by_field_name("name")
            self.namespaces.append((node.start_byte, _dotted(_text(name)) if name else ""))
        first = self.namespaces[0][1] if self.namespaces else None
        if first is None:
            first = psr4_namespace(self.rel_path, self.facts.get("psr4") or {}) \
                if self._declares_symbols() else None
            if first:
                self.namespaces.append((0, first))
        if first:
            self.result.package = self.result.module = first
        if self.facts.get("files") and first:
            # the global helper functions composer loads: PHP falls back to them
            self.result.imports.append(Import("*", GLOBAL, 1))

    def _declares_symbols(self) -> bool:
        return any(c.type in _TYPE_DECLS for c in self.root.named_children)

    def _namespace_at(self, node: Node) -> tuple[int, str]:
        found = (0, "")
        for start, name in self.namespaces:
            if start <= node.start_byte:
                found = (start, name)
        return found

    def _import(self, node: Node) -> None:
        head = _USE_KIND.match(_text(node))
        kind = head.group(1).lower() if head else "class"
        ns_start = self._namespace_at(node)[0]
        group = node.child_by_field_name("body")
        prefix = ""
        if group is not None:
            head = next((c for c in node.named_children if c.type == "namespace_name"), None)
            prefix = _dotted(_text(head)) + "." if head is not None else ""
        clauses = group.named_children if group is not None else node.named_children
        for clause in clauses:
            if clause.type != "namespace_use_clause":
                continue
            clause_kind = kind
            inner = _USE_KIND.match("use " + _text(clause))  # `use A\{function f}`
            if inner:
                clause_kind = inner.group(1).lower()
            alias_node = clause.child_by_field_name("alias")
            target_node = next((c for c in clause.named_children
                                if c.type in ("qualified_name", "name")
                                and c != alias_node), None)
            if target_node is None:
                continue
            target = prefix + _dotted(_text(target_node))
            alias = _text(alias_node) if alias_node is not None else target.rsplit(".", 1)[-1]
            self.aliases.setdefault((ns_start, clause_kind), {})[alias.lower() if
                                                                 clause_kind != "const"
                                                                 else alias] = target
            if clause_kind != "const":
                self.result.imports.append(Import(alias, target, node.start_point[0] + 1))

    def resolve_class(self, name: str, at: Node) -> str:
        """A class name as written at ``at`` -> its dotted fully qualified name."""
        if name.startswith("\\"):
            return _dotted(name)
        start, namespace = self._namespace_at(at)
        head, _, rest = name.partition("\\")
        imported = self.aliases.get((start, "class"), {}).get(head.lower())
        if imported:
            return imported + ("." + _dotted(rest) if rest else "")
        dotted = _dotted(name)
        return f"{namespace}.{dotted}" if namespace else dotted

    def _class_ref(self, name: str, at: Node) -> str | None:
        """A class as written in code (``self``, ``static``, ``parent`` are the enclosing
        class and its parent): its fqn, or None for a scalar type."""
        lower = name.lower().lstrip("?")
        if lower in _SCALARS:
            return None
        if lower in ("self", "static", "$this"):
            scope = self.scopes.enclosing(at)
            return scope.cls if scope is not None else None
        if lower == "parent":
            scope = self.scopes.enclosing(at)
            return scope.parent_class if scope is not None else None
        return self.resolve_class(name.lstrip("?"), at)

    def type_text(self, node: Node | None, at: Node) -> str | None:
        """A declared type (native or docblock text) as the resolver reads it: class names
        fully qualified (``?User`` -> ``App.Models.User``; ``A|B|null`` keeps the classes;
        ``Foo[]``/``array<int, Foo>`` keep their item)."""
        if node is None:
            return None
        text = _text(node) if not isinstance(node, str) else node
        return self._type_string(text, at)

    def _type_string(self, text: str, at: Node) -> str | None:
        text = text.strip().lstrip("?")
        if not text:
            return None
        if "|" in text or "&" in text and "(" not in text:
            members = [self._type_string(p, at) for p in re.split(r"[|&]", text)]
            real = list(dict.fromkeys(m for m in members if m))
            return " | ".join(real) if real else None
        if text.endswith("[]"):
            inner = self._type_string(text[:-2], at)
            return f"{inner}[]" if inner else None
        generic = re.fullmatch(r"([\\\w]+)<(.*)>", text)
        if generic:
            base, args = generic.group(1), generic.group(2).split(",")
            item = self._type_string(args[-1], at)
            if base.lower() in _SCALARS or base.lower() in ("iterable", "traversable"):
                return f"{item}[]" if item else None
            outer = self._class_ref(base, at)
            return outer
        if not re.fullmatch(r"[\\\w]+", text):
            return None
        return self._class_ref(text, at)

    # -- declarations --------------------------------------------------------------------

    def _owner(self, node: Node) -> _Scope | None:
        return self.scopes.enclosing(node)

    def _fqn(self, node: Node, name: str) -> tuple[str, str | None]:
        owner = self._owner(node)
        if owner is not None:
            return f"{owner.symbol.fqn}.{name}", owner.symbol.fqn
        namespace = self._namespace_at(node)[1]
        return (f"{namespace}.{name}" if namespace else name), None

    def _type(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        owner = self._owner(node)
        if owner is not None and owner.symbol.kind not in ("CLASS", "INTERFACE", "ENUM"):
            return  # a class declared inside a function: not a symbol
        fqn, parent = self._fqn(node, name)
        meta: dict = {"attributes": self._attribute_texts(node)}
        if node.type == "trait_declaration":
            meta["trait"] = True
        symbol = Symbol(kind=_TYPE_DECLS[node.type], name=name, fqn=fqn, parent=parent,
                        signature=_header(node), doc_comment=doc_comment(node), meta=meta,
                        **self.span(node))
        self.result.symbols.append(symbol)
        scope = _Scope(symbol, node, cls=fqn)
        line = node.start_point[0] + 1
        # PHP's precedence: the class's own methods, then its traits', then inherited ones
        # (the resolver searches supertypes in the order given)
        body = node.child_by_field_name("body")
        for use in body.named_children if body is not None else ():
            if use.type == "use_declaration":
                for child in use.named_children:
                    if child.type in ("name", "qualified_name"):
                        self.result.heritage.append(Heritage(
                            fqn, self.resolve_class(_text(child), node), "embeds", line))
        for child in node.named_children:
            relation = {"base_clause": "extends",
                        "class_interface_clause": "implements"}.get(child.type)
            for base in child.named_children if relation else ():
                if base.type in ("name", "qualified_name"):
                    resolved = self.resolve_class(_text(base), node)
                    if relation == "extends" and node.type == "class_declaration":
                        scope.parent_class = resolved
                    self.result.heritage.append(Heritage(fqn, resolved, relation, line))
        self.scopes[node.id] = scope

    def _function(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        owner = self._owner(node)
        is_method = node.type == "method_declaration"
        if is_method and (owner is None or owner.node.type not in _TYPE_DECLS):
            return
        if not is_method and owner is not None:
            return  # a function declared inside a function body: global at run time, rare
        fqn, parent = self._fqn(node, name)
        doc = doc_comment(node)
        docs = _doc_types(node)
        kind = "FUNCTION"
        if is_method:
            kind = "CONSTRUCTOR" if name.lower() == "__construct" else "METHOD"
        params = self._params(node, docs)
        returned = node.child_by_field_name("return_type")
        return_type = self.type_text(returned, node) if returned is not None else None
        if docs.get("@return") and (return_type is None or return_type.endswith("[]") is False
                                    and _text(returned).lower() in ("array", "iterable")):
            return_type = self._type_string(docs["@return"], node) or return_type
        meta: dict = {"params": [[p, t] for p, t, _ in params], "return_type": return_type,
                      "static": _has_modifier(node, "static_modifier"),
                      "attributes": self._attribute_texts(node)}
        symbol = Symbol(kind=kind, name=name, fqn=fqn, parent=parent, signature=_header(node),
                        doc_comment=doc, meta=meta, **self.span(node))
        cls = owner.cls if owner is not None else None
        scope = _Scope(symbol, node, cls=cls,
                       parent_class=owner.parent_class if owner is not None else None)
        if is_method and owner is not None:
            found = self._symfony_route(node, owner.node, owner.symbol.name, name)
            if found is not None:
                symbol.kind = "ENDPOINT"
                symbol.meta["http_method"], symbol.meta["route"] = found
        self.result.symbols.append(symbol)
        self.scopes[node.id] = scope
        variables = self.scope_vars(fqn)
        for pname, ptype, promoted in params:
            if ptype:
                variables[pname] = ptype
            if promoted is not None and owner is not None:
                self._field(promoted, pname, ptype, owner, doc=None)

    def _params(self, node: Node, docs: dict[str, str]
                ) -> list[tuple[str, str | None, Node | None]]:
        """(name, type, the promoting parameter node or None) of each parameter."""
        params = node.child_by_field_name("parameters")
        out: list[tuple[str, str | None, Node | None]] = []
        for param in params.named_children if params is not None else ():
            if param.type not in ("simple_parameter", "variadic_parameter",
                                  "property_promotion_parameter"):
                continue
            name_node = param.child_by_field_name("name")
            if name_node is None:
                continue
            pname = _text(name_node).lstrip("$")
            declared = param.child_by_field_name("type")
            ptype = self.type_text(declared, node) if declared is not None else None
            doc = docs.get("$" + pname)
            if doc and (ptype is None or _text(declared).lower() in ("array", "iterable")):
                ptype = self._type_string(doc, node) or ptype
            promoted = param if param.type == "property_promotion_parameter" else None
            out.append((pname, ptype, promoted))
        return out

    def _field(self, node: Node, name: str, ftype: str | None, owner: _Scope,
               doc: str | None) -> None:
        fqn = f"{owner.symbol.fqn}.{name}"
        static = _has_modifier(node, "static_modifier") or node.type == "const_element"
        self.result.symbols.append(Symbol(
            kind="FIELD", name=name, fqn=fqn, parent=owner.symbol.fqn,
            signature=normalize(_text(node))[:_SIGNATURE_MAX], doc_comment=doc,
            meta={"type": ftype, "static": static}, **self.span(node)))
        if ftype:
            self.scope_vars(owner.symbol.fqn)[name] = ftype

    def _property(self, node: Node) -> None:
        owner = self._owner(node)
        if owner is None or owner.node.type not in _TYPE_DECLS:
            return
        declared = node.child_by_field_name("type")
        ftype = self.type_text(declared, node) if declared is not None else None
        doc = doc_comment(node)
        doc_type = _DOC_VAR.search(doc or "") if doc else None
        if doc_type and (ftype is None or _text(declared).lower() in ("array", "iterable")):
            ftype = self._type_string(doc_type.group(1), node) or ftype
        for element in node.named_children:
            if element.type != "property_element":
                continue
            name_node = element.child_by_field_name("name")
            if name_node is not None:
                self._field(node, _text(name_node).lstrip("$"), ftype, owner, doc)

    def _constant(self, node: Node) -> None:
        owner = self._owner(node)
        if owner is None or owner.node.type not in _TYPE_DECLS:
            return
        if node.type == "enum_case":
            name_node = node.child_by_field_name("name")
            if name_node is not None:
                self._field(node, _text(name_node), None, owner, doc_comment(node))
            return
        for element in node.named_children:
            if element.type == "const_element":
                name_node = next((c for c in element.named_children if c.type == "name"), None)
                if name_node is not None:
                    self._field(element, _text(name_node), None, owner, doc_comment(node))

    def _attribute_texts(self, node: Node) -> list[str]:
        return [normalize(_text(a)) for a in _attributes(node)]

    # -- routes declared by attributes ---------------------------------------------------

    def _symfony_route(self, method: Node, cls: Node, class_name: str, name: str
                       ) -> Endpoint | None:
        site = RouteSite([self._annotation(a) for a in _attributes(method)]
                         or _doc_annotations(method),
                         [self._annotation(a) for a in _attributes(cls)]
                         or _doc_annotations(cls), class_name, name)
        if not site.method:
            return None
        return declared_endpoint(LANG, site)

    def _annotation(self, node: Node) -> Annotation:
        name_node = next((c for c in node.named_children
                          if c.type in ("name", "qualified_name")), None)
        ann = Annotation(_text(name_node).rsplit("\\", 1)[-1] if name_node else "")
        params = node.child_by_field_name("parameters")
        for arg in params.named_children if params is not None else ():
            if arg.type != "argument" or not arg.named_children:
                continue
            key_node = arg.child_by_field_name("name")
            value = arg.named_children[-1]
            values = [_string(v) for v in _array_items(value)] if \
                value.type == "array_creation_expression" else [_string(value)]
            ann.args.setdefault(_text(key_node) if key_node is not None else "", []).extend(
                v for v in values if v is not None)
        return ann

    # -- variable types ------------------------------------------------------------------

    def _value_type(self, right: Node | None) -> str | None:
        if right is None:
            return None
        if right.type == "object_creation_expression":
            name = next((c for c in right.named_children
                         if c.type in ("name", "qualified_name")), None)
            return self._class_ref(_text(name), right) if name is not None else None
        if right.type in ("member_call_expression", "nullsafe_member_call_expression",
                          "scoped_call_expression", "function_call_expression"):
            callee = self._callee_text(right)
            return f"=call:{callee}" if callee else None
        if right.type == "parenthesized_expression" and right.named_children:
            return self._value_type(right.named_children[0])
        return None

    def _callee_text(self, call: Node) -> str | None:
        """``this.repo.find`` for ``$this->repo->find()`` (the resolver's ``=call:``)."""
        found = self._call_parts(call)
        if found is None:
            return None
        name, receiver = found
        if receiver is not None and "?" in receiver:
            return None
        return ".".join([*(receiver or []), name])

    def _assignment(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        value = self._value_type(right)
        if left is None or value is None:
            return
        scope = self._owner(node)
        if left.type == "variable_name":
            key = scope.symbol.fqn if scope is not None else (self.result.module or self.rel_path)
            if scope is None:
                key = self.result.module if self.result.module else self.rel_path
            self.scope_vars(key).setdefault(_text(left).lstrip("$"), value)
        elif left.type == "member_access_expression" and scope is not None and scope.cls:
            obj = left.child_by_field_name("object")
            name = left.child_by_field_name("name")
            if obj is not None and _text(obj) == "$this" and name is not None \
                    and name.type == "name":
                self.scope_vars(scope.cls).setdefault(_text(name), value)

    def _foreach(self, node: Node) -> None:
        """``foreach ($this->handlers as $h)``: ``$h`` is an item of the declared type."""
        scope = self._owner(node)
        kids = [c for c in node.named_children if c.type != "compound_statement"
                and c != node.child_by_field_name("body")]
        if scope is None or len(kids) < 2:
            return
        source, target = kids[0], kids[1]
        if target.type == "pair":
            target = target.named_children[-1] if target.named_children else target
        if target.type != "variable_name":
            return
        chain = self._chain(source)
        if chain is None or "?" in chain:
            return
        if chain[-1].endswith("()"):
            element = "=iter:=call:" + ".".join(chain)[:-2]
        else:
            element = "=iter:" + ".".join(chain)
        self.scope_vars(scope.symbol.fqn).setdefault(_text(target).lstrip("$"), element)

    # -- calls ---------------------------------------------------------------------------

    def _chain(self, node: Node) -> list[str] | None:
        """Receiver chain of an expression: ``$this->repo`` -> ``["this", "repo"]``,
        ``$x->a()`` -> ``["x", "a()"]``, ``Foo::bar()`` -> ``["Foo", "bar()"]``."""
        kind = node.type
        if kind == "variable_name":
            return [_text(node).lstrip("$")]
        if kind in ("member_access_expression", "nullsafe_member_access_expression"):
            obj = node.child_by_field_name("object")
            name = node.child_by_field_name("name")
            head = self._chain(obj) if obj is not None else None
            if head is None or name is None or name.type != "name":
                return ["?"]
            return ["?"] if head == ["?"] else [*head, _text(name)]
        if kind in ("member_call_expression", "nullsafe_member_call_expression",
                    "scoped_call_expression"):
            found = self._call_parts(node)
            if found is None or (found[1] is not None and "?" in found[1]):
                return ["?"]
            return [*(found[1] or []), found[0] + "()"]
        if kind == "function_call_expression":
            found = self._call_parts(node)
            return ["?"] if found is None else [*(found[1] or []), found[0] + "()"]
        if kind in ("name", "qualified_name", "relative_scope"):
            return self._scope_chain(node)
        if kind == "parenthesized_expression" and node.named_children:
            return self._chain(node.named_children[0])
        if kind == "object_creation_expression":
            cls = self._value_type(node)
            return cls.split(".") if cls else ["?"]
        return ["?"]

    def _scope_chain(self, node: Node) -> list[str]:
        """The receiver a class named before ``::`` is: ``self``/``static`` the instance
        view of the class (``self``), ``parent`` its superclass (``super``), a name as written (an
        import or namespace member, looked up by the resolver), a qualified name in full."""
        text = _text(node)
        lower = text.lower()
        if lower in ("self", "static"):
            return ["self"]
        if lower == "parent":
            return ["super"]  # the superclass view, named as the resolver's own term
        if node.type == "name":
            imported = self.aliases.get((self._namespace_at(node)[0], "class"), {})
            return [text] if text.lower() in imported or "\\" not in text else \
                self.resolve_class(text, node).split(".")
        return self.resolve_class(text, node).split(".")

    def _call_parts(self, node: Node) -> tuple[str, list[str] | None] | None:
        """(name, receiver chain) of a call node, or None when the name is dynamic."""
        kind = node.type
        if kind == "function_call_expression":
            func = node.child_by_field_name("function")
            if func is None:
                return None
            if func.type == "name":
                name = _text(func)
                return None if name.lower() in _CONSTRUCTS else (name, None)
            if func.type == "qualified_name":
                text = _text(func)
                if not text.startswith("\\"):
                    imported = self.aliases.get((self._namespace_at(node)[0], "function"), {})
                    head = text.split("\\", 1)[0].lower()
                    if head not in imported:
                        dotted = self.resolve_class(text, node)
                        *rec, name = dotted.split(".")
                        return name, rec or None
                *rec, name = _dotted(text).split(".")
                return name, rec or None
            return None
        name = node.child_by_field_name("name")
        if name is None or name.type != "name":
            return None
        if kind == "scoped_call_expression":
            scope = node.child_by_field_name("scope")
            receiver = self._scope_chain(scope) if scope is not None and scope.type in (
                "name", "qualified_name", "relative_scope") else \
                (self._chain(scope) if scope is not None else ["?"])
            return _text(name), receiver
        obj = node.child_by_field_name("object")
        return _text(name), (self._chain(obj) if obj is not None else ["?"])

    def _call(self, node: Node, capture: str) -> None:
        scope = self._owner(node)
        caller = scope.symbol.fqn if scope is not None else None
        line = node.start_point[0] + 1
        if capture == "reference.new":
            name_node = next((c for c in node.named_children
                              if c.type in ("name", "qualified_name")), None)
            if name_node is None:
                return
            cls = self._class_ref(_text(name_node), node)
            if not cls:
                return
            *receiver, name = cls.split(".")
            if name_node.type == "name" and _text(name_node).lower() not in (
                    "self", "static", "parent"):
                receiver = []
                name = _text(name_node)
            self.result.calls.append(Call(caller, name, receiver or None, line, kind="new"))
            return
        found = self._call_parts(node)
        if found is None:
            return
        name, receiver = found
        name_node = node.child_by_field_name("name")
        if name_node is not None:  # `$this\n->save()`: the line of the name
            line = name_node.start_point[0] + 1
        self.result.calls.append(Call(caller, name, receiver, line))

    # -- routes registered by calls ------------------------------------------------------

    def _route_call(self, node: Node) -> RouteCall | None:
        """A member or static call as the route frameworks read it (PHP's method names
        are case-insensitive: lower case), with the calls its receiver is built from and
        the calls chained on its result."""
        found = self._call_parts(node)
        if found is None:
            return None
        name, receiver = found[0], found[1] or []
        args = _args(node)
        base: list[RouteCall] = []
        current = node.child_by_field_name("object") or (
            node.child_by_field_name("scope") if node.type == "scoped_call_expression"
            else None)
        while current is not None and current.type in ("member_call_expression",
                                                        "scoped_call_expression"):
            inner = self._call_parts(current)
            if inner is not None:
                base.append(_fact_call(inner[0].lower(), (), _args(current)))
            current = current.child_by_field_name("object") or \
                (current.child_by_field_name("scope")
                 if current.type == "scoped_call_expression" else None)
        chained: list[RouteCall] = []
        current = node.parent
        while current is not None and current.type == "member_call_expression":
            outer = self._call_parts(current)
            if outer is not None:
                chained.append(_fact_call(outer[0].lower(), (), _args(current)))
            current = current.parent
        call = _fact_call(name.lower(), tuple(receiver), args)
        named = tuple((key, _string(value), None) for key, value in _named_args(node).items())
        return replace(call, base=tuple(base), chained=tuple(chained),
                       keywords=call.keywords + named)

    def _routes(self, nodes: list[Node]) -> None:
        names = route_call_names(LANG)
        for node in in_order(nodes):
            found = self._call_parts(node)
            if found is None or found[0].lower() not in names:
                continue
            call = self._route_call(node)
            facts = call_facts(LANG, call) if call is not None else None
            args = _args(node)
            for fact in facts or ():
                handler = argument(fact.handler, args) \
                    if isinstance(fact, CalledRoute) else None
                if handler is not None or (isinstance(fact, CalledRoute) and fact.controller):
                    self._route(node, fact, handler)

    def _group_context(self, node: Node) -> tuple[str, str | None]:
        """(prefix, controller fqn) the routers whose closure holds a route give it
        (outermost prefix first; the innermost controller), after the prefix a framework
        serves the whole file under."""
        prefixes: list[str] = []
        controller: str | None = None
        names = route_call_names(LANG)
        current = node.parent
        while current is not None:
            if current.type in ("anonymous_function", "arrow_function"):
                call = current.parent.parent if current.parent is not None else None
                if call is not None and call.type == "arguments":
                    call = call.parent
                parts = self._call_parts(call) if call is not None and call.type in (
                    "member_call_expression", "scoped_call_expression") else None
                fact = called_route(LANG, self._route_call(call) or RouteCall("")) \
                    if parts is not None and parts[0].lower() in names else None
                if isinstance(fact, Router):
                    prefixes.append(fact.prefix)
                    controller = controller or (self._class_text(fact.controller, call)
                                                if fact.controller else None)
            current = current.parent
        base = file_prefix(LANG, self.rel_path)
        return join_segments(base, *reversed(prefixes)) if base or prefixes else "", controller

    def _class_const(self, node: Node) -> str | None:
        """``C::class`` -> fqn of C."""
        if node.type != "class_constant_access_expression" or len(node.named_children) != 2:
            return None
        cls, const = node.named_children
        if _text(const).lower() != "class":
            return None
        return self._class_ref(_text(cls), node)

    def _class_text(self, text: str, at: Node) -> str | None:
        """``C::class`` as written -> fqn of C."""
        head, sep, const = text.strip().rpartition("::")
        return self._class_ref(head.strip(), at) if sep and const.lower() == "class" \
            else None

    def _handler(self, node: Node, controller: str | None
                 ) -> tuple[str, list[str]] | None:
        """(method, class fqn parts) of ``[C::class, 'm']``, ``C::class`` (an invokable
        class) or ``'m'`` inside a router group naming a controller."""
        items = _array_items(node)
        if len(items) == 2:
            cls, method = self._class_const(items[0]), _string(items[1])
            return (method, cls.split(".")) if cls and method else None
        text = _string(node)
        if text and controller:
            return text, controller.split(".")
        cls = self._class_const(node)
        return ("__invoke", cls.split(".")) if cls else None

    def _route(self, node: Node, fact: CalledRoute, handler: Node | None) -> None:
        prefix, controller = self._group_context(node)
        full = join_segments(prefix, fact.route)
        method = fact.method
        scope = self._owner(node)
        caller = scope.symbol.fqn if scope is not None else None
        line = node.start_point[0] + 1
        if handler is not None and handler.type in ("anonymous_function", "arrow_function"):
            self._inline_endpoint(handler, method, full, caller, line)
            return
        if fact.controller is not None:
            found: tuple[str, list[str]] | None = (
                fact.action or "__invoke", self.resolve_class(fact.controller, node).split("."))
        elif fact.action is not None:
            cls = self._class_const(handler) if handler is not None else None
            found = (fact.action, cls.split(".")) if cls else None
        else:
            found = self._handler(handler, controller) if handler is not None else None
        if found is None:
            return
        action, cls_parts = found
        self.result.registrations.append(Registration(
            http_method=method, route=full, line=line, caller=caller, handler_name=action,
            handler_receiver=cls_parts))

    def _inline_endpoint(self, handler: Node, method: str, route: str, caller: str | None,
                         line: int) -> None:
        label = f"{method} {route}"
        module = self.result.module or app_path(
            self.rel_path, self.facts.get("roots") or []).removesuffix(".php").replace("/", ".")
        fqn = f"{module}.{label}"
        if fqn in self.endpoint_names:
            return
        self.endpoint_names.add(fqn)
        symbol = Symbol(kind="ENDPOINT", name=label, fqn=fqn, parent=caller,
                        signature=label, meta={"http_method": method, "route": route},
                        **self.span(handler))
        self.result.symbols.append(symbol)
        self.scopes[handler.id] = _Scope(symbol, handler)
        self.result.registrations.append(Registration(
            http_method=method, route=route, line=line, caller=caller, inline_fqn=fqn))


# -- small tree helpers ------------------------------------------------------------------


def _fact_call(name: str, receiver: tuple[str, ...], args: list[Node]) -> RouteCall:
    """A call's arguments as the route frameworks read them: literals, texts, the items
    of array literals and the string keys of associative ones (as keywords)."""
    keywords = tuple((key, _string(value), None)
                     for arg in args if arg.type == "array_creation_expression"
                     for key, value in _array_pairs(arg).items())
    return RouteCall(name, receiver, tuple(_string(a) for a in args),
                     tuple(_text(a) for a in args),
                     items=tuple(tuple(_string(i) for i in _array_items(a))
                                 if a.type == "array_creation_expression" else None
                                 for a in args),
                     keywords=keywords)


def _attributes(node: Node) -> list[Node]:
    lists = node.child_by_field_name("attributes")
    out: list[Node] = []
    for group in lists.named_children if lists is not None else ():
        out.extend(a for a in group.named_children if a.type == "attribute")
    return out


def _doc_annotations(node: Node) -> list[Annotation]:
    """Doctrine annotations of a doc comment (Symfony before attributes):
    ``@Route("/x", methods={"GET"})``."""
    prev = node.prev_named_sibling
    text = _text(prev) if prev is not None and prev.type == "comment" else ""
    out: list[Annotation] = []
    for match in _DOC_ANNOTATION.finditer(text) if text.startswith("/**") else ():
        ann = Annotation(match.group(1), {"": [match.group(2)]})
        for key, values in _DOC_LIST_ARG.findall(match.group(3) or ""):
            ann.args[key] = re.findall(r'"(\w+)"', values)
        out.append(ann)
    return out


def _has_modifier(node: Node, kind: str) -> bool:
    return any(c.type == kind for c in node.children)


def _header(node: Node) -> str:
    """Declaration header without body and attributes: ``public function f(int $a): B``."""
    body = node.child_by_field_name("body")
    attrs = node.child_by_field_name("attributes")
    start = attrs.end_byte if attrs is not None else node.start_byte
    end = body.start_byte if body is not None else node.end_byte
    text = node.text[start - node.start_byte:end - node.start_byte].decode(
        "utf-8", errors="replace")
    return normalize(text).rstrip(";").rstrip()[:_SIGNATURE_MAX]


def doc_comment(node: Node) -> str | None:
    """The ``/** ... */`` comment right before a declaration (stars stripped)."""
    prev = node.prev_named_sibling
    if prev is None or prev.type != "comment":
        return None
    text = _text(prev)
    if not text.startswith("/**") or node.start_point[0] - prev.end_point[0] > 1:
        return None
    lines = [line.strip().lstrip("*").strip() for line in text[3:-2].splitlines()]
    return "\n".join(line for line in lines if line).strip() or None


def _doc_types(node: Node) -> dict[str, str]:
    """``@param`` types by ``$name`` and the ``@return`` type of a doc comment."""
    prev = node.prev_named_sibling
    if prev is None or prev.type != "comment" or not _text(prev).startswith("/**"):
        return {}
    text = _text(prev)
    out = {f"${name}": kind for kind, name in _DOC_PARAM.findall(text)}
    returned = _DOC_RETURN.search(text)
    if returned:
        out["@return"] = returned.group(1)
    return out


