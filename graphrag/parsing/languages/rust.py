"""Rust extractor: one ``.rs`` file -> :class:`ParseResult`.

Covers structs and unions (CLASS, fields as FIELD), enums (ENUM, variants as FIELD),
traits (INTERFACE, their methods as METHOD), ``impl`` and ``impl Trait for T`` blocks
(methods attached to their type wherever it is declared; ``implements`` heritage to the
trait), free and nested functions (FUNCTION), inline ``mod`` blocks (OBJECT whose
declarations are in scope inside it), ``macro_rules!`` macros by name (FUNCTION ``name!``,
not expanded), ``use`` imports (lists, globs, aliases, ``pub use`` re-exports) and
``mod x;`` declarations (an import of the child module), calls with receiver chains
(``self``, ``Self::``, ``crate::``/``super::``/``self::`` paths made absolute), declared
types of parameters, fields and ``let`` bindings, and the routes the route frameworks
(:mod:`graphrag.parsing.routes`) recognise: axum
(``Router::new().route("/x", get(h).post(p))``, ``nest``, ``merge``) and actix-web
(``#[get("/x")]``, ``web::resource("/x").route(web::get().to(h))``, ``web::scope``).

Module paths: a crate's files live under ``<crate dir>/src/``; the crate is named by its
``Cargo.toml`` (:func:`repo_facts`), else after its directory (``-`` -> ``_``; ``crate``
for a crate at the repository root without a manifest), and the
module of ``src/a/b.rs`` or ``src/a/b/mod.rs`` is ``<crate>.a.b`` (``src/lib.rs`` and
``src/main.rs`` are the crate itself). ``src/bin/x.rs`` and files directly under
``tests/``, ``examples/`` or ``benches/`` are crates of their own (``x``). Symbols are
``<module>.<Name>``, methods ``<module of the type>.<Type>.<method>``.

Types are recorded the way the resolver reads them: references, ``dyn``/``impl``,
lifetimes and the wrappers a method call sees through (``Box``, ``Arc``, ``Rc``,
``Option``/``Result`` after ``?``...) are dropped, generic parameters become their first
trait bound, ``Self`` the implemented type, and paths are dotted (``crate::a::B`` ->
``<crate>.a.B``).
"""

from __future__ import annotations

import os
import posixpath
import re
import textwrap
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import (
    ScopeIndex,
    count_errors,
    has_ancestor,
    in_order,
    node_id,
    normalize,
    opening,
)
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import (
    Call,
    CharOffsets,
    Heritage,
    Import,
    ParseResult,
    Registration,
    Symbol,
)
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles
from graphrag.parsing.routes import (
    Annotation,
    CalledRoute,
    Mount,
    RouteCall,
    Router,
    RouteSite,
    argument,
    call_facts,
    called_route,
    declared_endpoint,
    join_route,
    route_call_names,
)

LANG = "rust"
_SIGNATURE_MAX = 300
_ROOT_CRATE = "crate"
_CARGO_MAX_BYTES = 1024 * 1024
# Markdown a module includes as its documentation: read up to this size, and its opening
# (this many characters, cut at a line end) kept, like a doc comment's summary.
_DOC_MAX_BYTES = 512 * 1024
_DOCS_MAX_FILES = 500
# Directories whose files are each a crate of their own.
_CRATE_DIRS = ("tests", "examples", "benches")
# Wrappers a method call sees through (auto-deref, `?`, `.await`): `Arc<Store>` is a Store.
_WRAPPERS = frozenset({"Box", "Arc", "Rc", "Cow", "Option", "Result", "RefCell", "Cell",
                       "Mutex", "RwLock", "Pin", "MutexGuard", "Ref", "RefMut", "Weak",
                       "ManuallyDrop", "Poll", "Ready", "LockResult"})
# Methods that hand back (a view of) their receiver: `x.clone().f()`, `y.unwrap().g()`.
_IDENTITY_METHODS = frozenset({
    "unwrap", "expect", "clone", "as_ref", "as_mut", "borrow", "borrow_mut", "to_owned",
    "unwrap_or_default", "lock", "as_deref", "as_deref_mut", "deref", "deref_mut",
    "into_inner", "get_ref", "get_mut"})
# Standard macros: never defined in the repository, not recorded as calls. Those marked
# as expression macros have their calls read from their tokens.
_EXPRESSION_MACROS = frozenset({
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq",
    "debug_assert_ne", "println", "print", "eprintln", "eprint", "format", "write",
    "writeln", "panic", "vec", "dbg", "matches", "format_args", "unreachable", "todo",
    "unimplemented", "info", "debug", "warn", "error", "trace", "Ok", "Some", "json",
    "tokio::join", "join", "try_join", "select", "tokio::select", "ready"})
_STD_MACROS = _EXPRESSION_MACROS | frozenset({
    "include", "include_str", "include_bytes", "concat", "stringify", "env", "option_env",
    "cfg", "line", "column", "file", "module_path", "compile_error", "thread_local",
    "macro_rules", "quote", "quote_spanned", "parse_quote", "lazy_static"})
# Standard traits a type implements once per type argument (`From<&str>`, `From<Bytes>`,
# often by a macro): a call `Body::from(x)` names no one of their methods.
_FAMILY_TRAITS = frozenset({
    "From", "TryFrom", "PartialEq", "PartialOrd", "AsRef", "AsMut", "Borrow", "BorrowMut",
    "Extend", "FromIterator", "Add", "Sub", "Mul", "Div", "Rem", "AddAssign", "SubAssign",
    "MulAssign", "DivAssign", "BitAnd", "BitOr", "BitXor", "Shl", "Shr", "Index",
    "IndexMut"})
_PATH_KEYWORDS = frozenset({"crate", "$crate", "self", "super", "Self"})
# Enum variants of the prelude and `Self(..)`: constructions, no calls.
_CONSTRUCTORS = frozenset({"Some", "Ok", "Err", "Self"})


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Rust file into symbols, imports, calls, heritage, routes and types."""
    tree = registry.parser(LANG).parse(source)
    root = tree.root_node
    facts = ctx.of(LANG, {})
    crates: dict[str, str] = facts.get("crates", {})
    module = module_path(rel_path, crates)
    result = ParseResult(path=rel_path, lang=LANG, module=module, package=None)
    _RustFile(root, source, rel_path, module, CharOffsets(source), result, crates).run()
    result.doc = module_doc(root, rel_path, facts.get("docs", {}))
    result.error_count = count_errors(root)
    return result


def repo_facts(files: RepoFiles) -> dict[str, dict[str, str]]:
    """``crates``: the crate name of every ``Cargo.toml`` with a ``[package]`` (``[lib]
    name`` when given; ``-`` becomes ``_`` as in paths) by its repo-relative directory
    (``""`` at the root); an unreadable or workspace-only manifest names no crate.
    ``docs``: the opening of every Markdown file in the tree of a crate's root source file
    (the folder of a ``lib.rs`` or ``main.rs``), by path: the text a module's ``#![doc =
    include_str!("..")]`` makes its documentation (editing one re-parses the repository,
    as the manifests do)."""
    return {"crates": _crates(files), "docs": _included_docs(files)}


def _included_docs(files: RepoFiles) -> dict[str, str]:
    # Markdown is no source file the scan lists: walk the crates' source trees for it.
    roots = sorted({directory for _rel, directory, _name in files.named("lib.rs", "main.rs")})
    found: set[str] = set()
    for root in roots:
        for folder, dirs, names in os.walk(files.root / root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "target")
            rel_folder = Path(folder).relative_to(files.root).as_posix()
            for name in sorted(names):
                if name.endswith(".md") and len(found) < _DOCS_MAX_FILES:
                    found.add(name if rel_folder == "." else f"{rel_folder}/{name}")
    docs: dict[str, str] = {}
    for rel in sorted(found):
        text = files.read(rel, _DOC_MAX_BYTES)
        if text is not None and text.strip():
            docs[rel] = opening(text)
    return docs


def module_doc(root: Node, rel_path: str, docs: Mapping[str, str]) -> str | None:
    """A file's own documentation, as rustdoc shows it for its module: its inner doc
    comments (``//!``, ``/*! */``) and ``#![doc = ".."]`` attributes in order, an
    ``include_str!`` of a Markdown file of the crate (:func:`repo_facts`) by that file's
    opening; None when it has none."""
    parts: list[str] = []
    lines: list[str] = []
    for child in root.children:
        text = _text(child)
        if child.type == "line_comment" and text.startswith("//!"):
            body = text[3:].rstrip("\n")
            lines.append(body[1:] if body.startswith(" ") else body)
            continue
        if lines:
            parts.append(textwrap.dedent("\n".join(lines)).strip())
            lines = []
        if child.type == "block_comment" and text.startswith("/*!"):
            inner = [re.sub(r"^\s*\* ?", "", line) for line in text[3:-2].splitlines()]
            parts.append(textwrap.dedent("\n".join(inner)).strip())
        elif child.type == "inner_attribute_item":
            parts.append(_doc_attribute(child, rel_path, docs) or "")
    if lines:
        parts.append(textwrap.dedent("\n".join(lines)).strip())
    doc = "\n\n".join(p for p in parts if p)
    return doc or None


def _doc_attribute(item: Node, rel_path: str, docs: Mapping[str, str]) -> str | None:
    """The text of ``#![doc = "..."]`` or ``#![doc = include_str!("x.md")]``."""
    attr = next((c for c in item.named_children if c.type == "attribute"), None)
    if attr is None or not attr.named_children or _text(attr.named_children[0]) != "doc":
        return None
    value = attr.named_children[-1]
    literal = string_literal(value)
    if literal is not None:
        return literal
    if value.type != "macro_invocation" or \
            _text(value.child_by_field_name("macro")) != "include_str":
        return None
    tokens = next((c for c in value.named_children if c.type == "token_tree"), None)
    path = string_literal(tokens.named_children[0]) if tokens is not None and \
        tokens.named_children else None
    if not path:
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(rel_path), path))
    return docs.get(target)


def _crates(files: RepoFiles) -> dict[str, str]:
    crates: dict[str, str] = {}
    for rel, parent, _name in files.named("Cargo.toml"):
        text = files.read(rel, _CARGO_MAX_BYTES)
        try:
            manifest = tomllib.loads(text) if text is not None else {}
        except tomllib.TOMLDecodeError:
            continue
        lib, package = manifest.get("lib"), manifest.get("package")
        name = lib.get("name") if isinstance(lib, dict) else None
        if not isinstance(name, str) and isinstance(package, dict):
            name = package.get("name")
        if isinstance(name, str) and name.strip():
            crates[parent] = _crate_name(name.strip())
    return dict(sorted(crates.items()))


def _crate_name(directory: str) -> str:
    return re.sub(r"\W", "_", directory.replace("-", "_")) or _ROOT_CRATE


def _path_parts(rel_path: str, crates: Mapping[str, str] | None = None
                ) -> tuple[str, list[str], bool]:
    """``(crate, module segments, owns a directory)`` of a file: a crate root or a
    ``mod.rs`` declares its child modules in its own directory."""
    parts = rel_path.removesuffix(".rs").split("/")
    dirs, stem = parts[:-1], parts[-1]
    if "src" in dirs:
        at = len(dirs) - 1 - dirs[::-1].index("src")
        named = (crates or {}).get("/".join(dirs[:at]))
        crate = named or (_crate_name(dirs[at - 1]) if at > 0 else _ROOT_CRATE)
        inner = [*dirs[at + 1:], stem]
        if inner[0] == "bin" and len(inner) > 1:
            crate, inner = _crate_name(inner[1]), inner[2:]
        elif inner in (["lib"], ["main"]):
            inner = []
    else:
        marker = max((i for i, d in enumerate(dirs) if d in _CRATE_DIRS), default=None)
        rest = [*dirs[marker + 1:], stem] if marker is not None else [*dirs, stem]
        crate, inner = _crate_name(rest[0]), rest[1:]
    owner = not inner or inner[-1] in ("mod", "main")
    if inner and inner[-1] in ("mod", "main"):
        inner = inner[:-1]
    return crate, inner, owner


def module_path(rel_path: str, crates: Mapping[str, str] | None = None) -> str:
    """Module of a file: ``axum/src/routing/mod.rs`` -> ``axum.routing`` (see the module
    docstring); ``crates`` are the crate names of :func:`repo_facts`."""
    crate, inner, _owner = _path_parts(rel_path, crates)
    return ".".join([crate, *inner])


def _child_module(rel_path: str, name: str, crates: Mapping[str, str]) -> str:
    """Module declared by ``mod name;`` in the file at ``rel_path``."""
    _crate, _inner, owner = _path_parts(rel_path, crates)
    directory = rel_path.rsplit("/", 1)[0] if "/" in rel_path else ""
    stem = rel_path.rsplit("/", 1)[-1].removesuffix(".rs")
    base = directory if owner else f"{directory}/{stem}".lstrip("/")
    return module_path(f"{base}/{name}.rs".lstrip("/"), crates)


@dataclass
class _Scope:
    """Where a declaration sits: its module (dotted), the fqn of the enclosing symbol (a
    type, trait, inline module or function; None at file level), the type ``Self``
    names and the generic parameters in scope (name -> first bound)."""

    module: str
    fqn: str | None = None
    self_type: str | None = None
    generics: dict[str, str | None] = field(default_factory=dict)
    function: bool = False
    trait: str | None = None  # the trait an `impl Trait for T` block implements


def string_literal(node: Node | None) -> str | None:
    """Content of a plain or raw string literal."""
    if node is None or node.type not in ("string_literal", "raw_string_literal"):
        return None
    content = next((c for c in node.named_children if c.type == "string_content"), None)
    return _text(content) if content is not None else ""


def _args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type not in ("line_comment", "block_comment",
                                                              "attribute_item")] \
        if args is not None else []


def _method(call: Node) -> tuple[str | None, Node | None]:
    """``("route", receiver)`` of a method call ``x.route(...)``; (None, None) else."""
    func = call.child_by_field_name("function")
    if func is not None and func.type == "generic_function":
        func = func.child_by_field_name("function")
    if func is None or func.type != "field_expression":
        return None, None
    return _text(func.child_by_field_name("field")), func.child_by_field_name("value")


def _callee_name(call: Node) -> str | None:
    """Last path segment of a called function or method (``web::get`` -> ``get``)."""
    func = call.child_by_field_name("function")
    if func is not None and func.type == "generic_function":
        func = func.child_by_field_name("function")
    if func is None:
        return None
    if func.type == "identifier":
        return _text(func)
    if func.type in ("scoped_identifier", "field_expression"):
        last = func.child_by_field_name("name") or func.child_by_field_name("field")
        return _text(last) if last is not None else None
    return None


def _chain_root(node: Node) -> Node:
    """The start of a builder chain: ``Router::new()`` in ``Router::new().route(..)``."""
    while node.type == "call_expression":
        name, value = _method(node)
        if name is None or value is None:
            return node
        node = value
    return node


def _doc_comment(node: Node) -> str | None:
    """The ``///`` or ``/** */`` comments right above an item (attributes between)."""
    lines: list[str] = []
    cur = node.prev_named_sibling
    row = node.start_point[0]
    while cur is not None and cur.end_point[0] >= row - 1:
        if cur.type == "attribute_item":
            row = cur.start_point[0]
            cur = cur.prev_named_sibling
            continue
        text = _text(cur)
        if cur.type == "line_comment" and text.startswith("///") \
                and not text.startswith("////"):
            body = text[3:].rstrip("\n")
            lines.insert(0, body[1:] if body.startswith(" ") else body)
        elif cur.type == "block_comment" and text.startswith("/**"):
            inner = [re.sub(r"^\s*\* ?", "", line) for line in text[3:-2].splitlines()]
            lines[0:0] = inner
        else:
            break
        row = cur.start_point[0]
        cur = cur.prev_named_sibling
    doc = textwrap.dedent("\n".join(lines)).strip()
    return doc or None


def _attributes(node: Node) -> list[Node]:
    """The ``#[...]`` attributes of an item, in order."""
    out: list[Node] = []
    cur = node.prev_named_sibling
    while cur is not None and cur.type in ("attribute_item", "line_comment", "block_comment"):
        if cur.type == "attribute_item":
            attr = next((c for c in cur.named_children if c.type == "attribute"), None)
            if attr is not None:
                out.insert(0, attr)
        cur = cur.prev_named_sibling
    return out


class _RustFile(FileExtractor):
    """Single-use worker filling ``result`` for one file."""

    def __init__(self, root: Node, source: bytes, rel_path: str, module: str,
                 offsets: CharOffsets, result: ParseResult, crates: Mapping[str, str]
                 ) -> None:
        super().__init__(source, root, result, offsets)
        self.rel_path = rel_path
        self.crates = crates
        self.module = module
        self.crate = module.split(".", 1)[0]
        self.containers: ScopeIndex[int, _Scope] = ScopeIndex(node_id)
        self.callers: ScopeIndex[int, str] = ScopeIndex(node_id)  # fn/closure -> fqn
        self.declared: dict[str, dict[str, str]] = {}  # module -> name -> fqn
        self.imports: dict[str, str] = {}  # alias -> target (file-wide)
        self.file_scope = _Scope(module)
        self.route_names = route_call_names(LANG)
        # the calls handed to route frameworks, by id, with their nodes (kept alive)
        self.fact_nodes: dict[int, tuple[RouteCall, Node]] = {}
        # each call's fact once per file: a long builder chain names every call of it as
        # the receiver of the next (quadratic without it)
        self._facts: dict[tuple[int, bool], RouteCall] = {}
        self.clashes: set[tuple[str, str]] = set()
        self.path_heads: dict[str, int] = {}  # first segments of paths, in order

    # -- driving -----------------------------------------------------------------------

    def run(self) -> ParseResult:
        defs = refs = QueryCursor(registry.query(LANG, "rust")).captures(self.root)
        self.passes(defs, ("definition.module", self._module))
        named = ("definition.class", "definition.enum", "definition.trait",
                 "definition.function", "definition.macro")
        for capture in named:
            for node in defs.get(capture, []):
                self._declare(node, capture == "definition.macro")
        self.passes(defs, ("definition.import", self._use),
                    (("definition.class", "definition.enum", "definition.trait",
                      "definition.impl"), self._type_item))
        functions = in_order(defs.get("definition.function", []))
        self.clashes = self._clashing_methods(functions)
        for node in functions:
            self._function(node)
        self._shadow_clashes()
        for node in defs.get("definition.macro", []):
            self._macro_definition(node)
        for node in defs.get("definition.constant", []):
            self._constant(node)
        calls = in_order(refs.get("reference.call", []))
        # Route registrations first: an inline handler's scope must exist before the
        # calls inside it look for their caller.
        for node in calls:
            self._routes(node)
        for node in calls:
            self._call(node)
        self.passes(refs, ("reference.macro", self._macro_call))
        self.passes(defs, ("definition.binding", self._bind_pattern),
                    ("definition.local", self._local), ("definition.range", self._range))
        self._crate_names()
        return self.finished()

    def _crate_names(self) -> None:
        """The names a path may start with in every module (the crate itself as ``crate``,
        the extern crates) bound like imports: ``crate::f()`` and ``axum::serve()`` name
        a member of a crate's root module."""
        local = self.declared.get(self.module, {})
        for head in sorted(self.path_heads, key=self.path_heads.__getitem__):
            if head not in self.imports and head not in local:
                self.result.imports.append(Import(alias=head, target=head, line=1))
        rooted = False
        for call in self.result.calls:
            if call.receiver == [self.crate]:
                call.receiver = ["crate"]
                rooted = True
        if rooted and "crate" not in self.path_heads:
            self.result.imports.append(Import(alias="crate", target=self.crate, line=1))

    # -- helpers -----------------------------------------------------------------------

    def _scope(self, node: Node) -> _Scope:
        return self.containers.enclosing(node) or self.file_scope

    def _signature(self, node: Node) -> str:
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        text = normalize(node.text[: end - node.start_byte].decode("utf-8", "replace"))
        return text.rstrip(";").strip()[:_SIGNATURE_MAX]

    def _symbol(self, kind: str, name: str, fqn: str, parent: str | None, node: Node,
                meta: dict | None = None, signature: str | None = None) -> None:
        self.result.symbols.append(Symbol(
            kind=kind, name=name, fqn=fqn, parent=parent,
            signature=signature if signature is not None else self._signature(node),
            doc_comment=_doc_comment(node), meta=meta or {}, **self.span(node)))

    # -- paths -------------------------------------------------------------------------

    def _absolute(self, segments: list[str], scope: _Scope | Node) -> list[str]:
        """A path as written with ``crate``/``self``/``super``/``Self`` made absolute;
        ``scope`` may be the node the path is in (its scope is looked up when needed)."""
        if not segments:
            return segments
        head = segments[0]
        if head not in _PATH_KEYWORDS and head[:1].islower():
            self.path_heads.setdefault(head, len(self.path_heads))
        if head == "crate" or head == "$crate":
            return [self.crate, *segments[1:]]
        if head not in _PATH_KEYWORDS and not (head[:1].isupper() and len(segments) > 1):
            return segments
        if not isinstance(scope, _Scope):
            scope = self._scope(scope)
        if head not in _PATH_KEYWORDS:  # `T::from_request(..)`: the method of T's bound
            bound = scope.generics.get(head)
            return [*bound.split("<", 1)[0].split("."), *segments[1:]] if bound else segments
        if head == "Self" and scope.self_type:
            return [*scope.self_type.split("."), *segments[1:]]
        if head in ("self", "super"):
            base = scope.module.split(".")
            rest = segments
            if rest[0] == "self":
                rest = rest[1:]
            while rest and rest[0] == "super":
                base = base[:-1] if len(base) > 1 else base
                rest = rest[1:]
            return [*base, *rest]
        return segments

    def _path_segments(self, node: Node | None) -> list[str]:
        """``a::b::C`` -> ``["a", "b", "C"]`` (generic arguments dropped)."""
        if node is None:
            return []
        kind = node.type
        if kind in ("identifier", "type_identifier", "crate", "self", "super",
                    "metavariable", "primitive_type"):
            return [_text(node)]
        if kind in ("scoped_identifier", "scoped_type_identifier"):
            path = node.child_by_field_name("path")
            head = self._path_segments(path) if path is not None else []
            name = node.child_by_field_name("name")
            return [*head, _text(name)] if name is not None else head
        if kind == "generic_type":
            return self._path_segments(node.child_by_field_name("type"))
        if kind == "bracketed_type":  # `<T as Trait>::m`: the trait names the method
            inner = node.named_children[0] if node.named_children else None
            if inner is not None and inner.type == "qualified_type":
                return self._path_segments(inner.child_by_field_name("alias"))
            return self._path_segments(inner)
        return []

    def _use_target(self, segments: list[str], scope: _Scope) -> str:
        """Target of a ``use`` path: absolute, or relative to the module when its first
        segment is declared or imported there (2018 edition paths)."""
        if not segments:
            return ""
        head = segments[0]
        if head in ("crate", "self", "super", "$crate"):
            return ".".join(self._absolute(segments, scope))
        local = self.declared.get(scope.module, {}).get(head)
        if local is not None:
            return ".".join([local, *segments[1:]])
        imported = self.imports.get(head)
        if imported is not None and imported != ".".join(segments):
            return ".".join([imported, *segments[1:]])
        return ".".join(segments).lstrip(":")

    def _type_fqn(self, node: Node | None, scope: _Scope) -> str | None:
        """The fqn of the type an ``impl`` block names (declared here, imported, or a
        path), or None for types that are no nominal name (tuples, slices...)."""
        if node is None:
            return None
        if node.type in ("reference_type", "generic_type"):
            return self._type_fqn(node.child_by_field_name("type"), scope)
        if node.type not in ("type_identifier", "scoped_type_identifier", "primitive_type"):
            return None
        segments = self._path_segments(node)
        if not segments:
            return None
        if node.type == "primitive_type":
            return f"{scope.module}.{segments[0]}"
        if len(segments) == 1:
            name = segments[0]
            if name in scope.generics:
                return None  # a blanket `impl<T> Trait for T`
            local = self.declared.get(scope.module, {}).get(name)
            if local is not None:
                return local
            imported = self.imports.get(name)
            return imported if imported is not None else f"{scope.module}.{name}"
        return self._use_target(segments, scope)

    # -- types as written --------------------------------------------------------------

    def _type(self, node: Node | None, scope: _Scope) -> str | None:
        """A declared type as the resolver reads it (see the module docstring)."""
        if node is None:
            return None
        kind = node.type
        if kind in ("reference_type", "pointer_type"):
            return self._type(node.child_by_field_name("type"), scope)
        if kind in ("dynamic_type", "abstract_type"):
            inner = node.child_by_field_name("trait")
            return self._type(inner if inner is not None else
                              (node.named_children[-1] if node.named_children else None),
                              scope)
        if kind == "bounded_type":
            return self._type(node.named_children[0] if node.named_children else None, scope)
        if kind == "type_identifier":
            name = _text(node)
            if name == "Self":
                return scope.self_type
            if name in scope.generics:
                return scope.generics[name]
            return name
        if kind == "scoped_type_identifier":
            return ".".join(self._absolute(self._path_segments(node), scope))
        if kind == "generic_type":
            base = self._path_segments(node.child_by_field_name("type"))
            args_node = node.child_by_field_name("type_arguments")
            args = [a for a in args_node.named_children if a.type not in (
                "lifetime", "type_binding", "line_comment", "block_comment")] \
                if args_node is not None else []
            if base and base[-1] in _WRAPPERS and args:
                return self._type(args[0], scope)
            if not base:
                return None
            inner = [self._type(a, scope) or "_" for a in args]
            head = ".".join(self._absolute(base, scope))
            return f"{head}<{', '.join(inner)}>" if inner else head
        if kind in ("array_type", "slice_type"):  # `[Route]`, `[u8; 4]`: items of a Vec
            element = self._type(node.child_by_field_name("element")
                                 or (node.named_children[0] if node.named_children else None),
                                 scope)
            return f"Vec<{element}>" if element else None
        return None

    def _generics(self, node: Node, outer: dict[str, str | None]) -> dict[str, str | None]:
        """Generic parameters of an item with their first trait bound (inline or in the
        ``where`` clause), over those of the enclosing item."""
        out = dict(outer)
        params = node.child_by_field_name("type_parameters")
        for param in params.named_children if params is not None else []:
            if param.type not in ("type_parameter", "constrained_type_parameter"):
                continue
            name_node = param.child_by_field_name("name") or param.child_by_field_name("left")
            if name_node is None:
                name_node = next((c for c in param.named_children
                                  if c.type == "type_identifier"), None)
            if name_node is None:
                continue
            out[_text(name_node)] = self._first_bound(param.child_by_field_name("bounds"))
        where = next((c for c in node.named_children if c.type == "where_clause"), None)
        for pred in where.named_children if where is not None else []:
            left = pred.child_by_field_name("left")
            if left is not None and left.type == "type_identifier" and _text(left) in out \
                    and out[_text(left)] is None:
                out[_text(left)] = self._first_bound(pred.child_by_field_name("bounds"))
        return out

    def _first_bound(self, bounds: Node | None) -> str | None:
        for bound in bounds.named_children if bounds is not None else []:
            if bound.type in ("type_identifier", "scoped_type_identifier", "generic_type"):
                found = self._type(bound, _Scope(self.module))
                if found and found.split("<", 1)[0].rsplit(".", 1)[-1] not in (
                        "Send", "Sync", "Clone", "Copy", "Debug", "Sized", "Unpin",
                        "Default", "Display", "PartialEq", "Eq", "Hash", "Ord",
                        "PartialOrd"):
                    return found
        return None

    # -- modules, imports --------------------------------------------------------------

    def _module(self, node: Node) -> None:
        name = _text(node.child_by_field_name("name"))
        scope = self._scope(node)
        body = node.child_by_field_name("body")
        if body is None:  # `mod x;`: the child module's file
            target = _child_module(self.rel_path, name, self.crates) \
                if scope.module == self.module \
                else f"{scope.module}.{name}"
            self.imports.setdefault(name, target)
            self.result.imports.append(Import(alias=name, target=target,
                                              line=node.start_point[0] + 1))
            self.declared.setdefault(scope.module, {}).setdefault(name, target)
            return
        fqn = f"{scope.module}.{name}" if scope.fqn is None or not scope.function \
            else f"{scope.fqn}.{name}"
        self.declared.setdefault(scope.module, {}).setdefault(name, fqn)
        self._symbol("OBJECT", name, fqn, scope.fqn, node, meta={"namespace": True,
                                                                  "module": True})
        self.containers[node.id] = _Scope(fqn, fqn)

    def _declare(self, node: Node, macro: bool) -> None:
        scope = self._scope(node)
        if scope.self_type is not None or scope.function:
            return  # members and local items are not names of the module
        name = _text(node.child_by_field_name("name"))
        if node.parent is not None and node.parent.type == "declaration_list" and \
                node.parent.parent is not None and \
                node.parent.parent.type in ("impl_item", "trait_item"):
            return
        key = f"{name}!" if macro else name
        self.declared.setdefault(scope.module, {}).setdefault(key, f"{scope.module}.{key}")

    def _use(self, node: Node) -> None:
        scope = self._scope(node)
        line = node.start_point[0] + 1
        # `pub use` publishes the names in the module (`pub(crate)` keeps them inside)
        exported = any(c.type == "visibility_modifier" and _text(c) == "pub"
                       for c in node.children) \
            and not has_ancestor(node, ("function_item", "closure_expression"))
        for alias, segments in self._use_tree(node.child_by_field_name("argument"), []):
            target = self._use_target(segments, scope)
            if not target or (alias == "*" and target == self.module):
                continue  # `use super::*` in an inline `mod tests`: the file's own names
            if alias != "*":
                self.imports.setdefault(alias, target)
            self.result.imports.append(Import(alias=alias, target=target, line=line,
                                              exported=exported and alias != "*"))

    def _use_tree(self, node: Node | None, prefix: list[str]) -> list[tuple[str, list[str]]]:
        """``(alias, path segments)`` of every name a ``use`` tree binds; ``*`` for a
        glob (segments = the module)."""
        if node is None:
            return []
        kind = node.type
        if kind in ("identifier", "scoped_identifier", "crate", "super"):
            segments = [*prefix, *self._path_segments(node)]
            return [(segments[-1], segments)] if segments else []
        if kind == "self":  # `use a::b::{self}`
            return [(prefix[-1], prefix)] if prefix else []
        if kind == "use_as_clause":
            segments = [*prefix, *self._path_segments(node.child_by_field_name("path"))]
            alias = _text(node.child_by_field_name("alias"))
            if segments and segments[-1] == "self":
                segments = segments[:-1]
            return [(alias, segments)] if segments and alias != "_" else []
        if kind == "use_wildcard":
            inner = node.named_children[0] if node.named_children else None
            return [("*", [*prefix, *self._path_segments(inner)])]
        if kind == "scoped_use_list":
            path = node.child_by_field_name("path")
            base = [*prefix, *self._path_segments(path)] if path is not None else prefix
            return self._use_tree(node.child_by_field_name("list"), base)
        if kind == "use_list":
            out: list[tuple[str, list[str]]] = []
            for child in node.named_children:
                out.extend(self._use_tree(child, prefix))
            return out
        return []

    # -- types, traits, impls ----------------------------------------------------------

    def _type_item(self, node: Node) -> None:
        scope = self._scope(node)
        if node.type == "impl_item":
            self._impl(node, scope)
            return
        name = _text(node.child_by_field_name("name"))
        fqn = f"{scope.fqn}.{name}" if scope.function else f"{scope.module}.{name}"
        parent = scope.fqn if scope.fqn is not None else None
        generics = self._generics(node, scope.generics)
        inner = _Scope(scope.module, fqn, fqn, generics)
        if node.type == "trait_item":
            self._symbol("INTERFACE", name, fqn, parent, node)
            bounds = node.child_by_field_name("bounds")
            for bound in bounds.named_children if bounds is not None else []:
                base = self._type(bound, scope)
                if base and base not in ("Send", "Sync", "Sized", "Clone"):
                    self.result.heritage.append(Heritage(fqn, base, "extends",
                                                         node.start_point[0] + 1))
            body = node.child_by_field_name("body")
            if body is not None:
                self.containers[body.id] = inner
            return
        kind = "ENUM" if node.type == "enum_item" else "CLASS"
        self._symbol(kind, name, fqn, parent, node)
        body = node.child_by_field_name("body")
        if body is None:
            return
        if node.type == "enum_item":
            for variant in body.named_children:
                if variant.type == "enum_variant":
                    vname = _text(variant.child_by_field_name("name"))
                    self._symbol("FIELD", vname, f"{fqn}.{vname}", fqn, variant,
                                 signature=normalize(_text(variant))[:_SIGNATURE_MAX])
            return
        for decl in body.named_children:
            if decl.type != "field_declaration":
                continue
            fname = _text(decl.child_by_field_name("name"))
            type_node = decl.child_by_field_name("type")
            declared = self._type(type_node, inner)
            self._symbol("FIELD", fname, f"{fqn}.{fname}", fqn, decl,
                         meta={"type": normalize(_text(type_node))},
                         signature=normalize(_text(decl))[:_SIGNATURE_MAX])
            self.scope_vars(fqn)[fname] = declared or "_"

    def _impl(self, node: Node, scope: _Scope) -> None:
        owner = self._type_fqn(node.child_by_field_name("type"), scope)
        if owner is None:
            type_text = normalize(_text(node.child_by_field_name("type")))
            owner = f"{scope.module}.{type_text}"
        generics = self._generics(node, scope.generics)
        trait = node.child_by_field_name("trait")
        label = normalize(_text(trait)).rsplit("::", 1)[-1] if trait is not None else None
        if trait is not None:
            base = self._type(trait, _Scope(scope.module, generics=generics))
            if base:
                self.result.heritage.append(Heritage(owner, base.split("<", 1)[0],
                                                     "implements", node.start_point[0] + 1))
        body = node.child_by_field_name("body")
        if body is not None:
            self.containers[body.id] = _Scope(scope.module, owner, owner, generics,
                                              trait=label)

    # -- functions ---------------------------------------------------------------------

    def _clashing_methods(self, functions: list[Node]) -> set[tuple[str, str]]:
        """(type, method) pairs defined by two or more ``impl`` blocks of the file
        (``impl Display for T`` and ``impl Debug for T`` both give ``fmt``): a call
        names no one of them, so those of trait impls are named with their trait
        (``fmt<Display>``), as are the methods of :data:`_FAMILY_TRAITS` impls."""
        seen: dict[tuple[str, str], int] = {}
        for node in functions:
            scope = self._scope(node)
            if scope.self_type is not None and not scope.function:
                key = (scope.self_type, _text(node.child_by_field_name("name")))
                seen[key] = seen.get(key, 0) + 1
        return {key for key, count in seen.items() if count > 1}

    def _shadow_clashes(self) -> None:
        """A type whose impls of two traits both define ``name`` (and that defines no
        ``name`` of its own) gets a FIELD ``name`` saying so: a call ``T::name()`` is
        then no call of one of the traits' methods (which would be a guess), as a field
        of a name shadows the methods of the ancestors in the resolver."""
        methods: dict[tuple[str, str], list[Symbol]] = {}
        for sym in self.result.symbols:
            if sym.kind == "METHOD" and sym.parent is not None:
                methods.setdefault((sym.parent, sym.name.split("<", 1)[0]), []).append(sym)
        for (owner, name), found in sorted(methods.items()):
            if (owner, name) not in self.clashes or any(m.name == name for m in found):
                continue
            first = min(found, key=lambda m: m.char_start)
            self.result.symbols.append(Symbol(
                kind="FIELD", name=name, fqn=f"{owner}.{name}", parent=owner,
                line_start=first.line_start, line_end=first.line_start,
                char_start=first.char_start, char_end=first.char_start,
                signature=f"{name}: one of {', '.join(m.name for m in found)}",
                meta={"ambiguous_methods": [m.fqn for m in found]}))

    def _function(self, node: Node) -> None:
        scope = self._scope(node)
        name = _text(node.child_by_field_name("name"))
        if scope.trait is not None and ((scope.self_type or "", name) in self.clashes or
                                        scope.trait.split("<", 1)[0] in _FAMILY_TRAITS):
            name = f"{name}<{scope.trait}>"
        generics = self._generics(node, scope.generics)
        inner = _Scope(scope.module, None, None if scope.function else scope.self_type,
                       generics, function=True)
        params, types, has_self = self._params(node.child_by_field_name("parameters"), inner)
        returned = self._type(node.child_by_field_name("return_type"), inner)
        meta: dict[str, object] = {"params": params, "return_type": returned}
        if scope.self_type is not None and not scope.function:
            kind, fqn, parent = "METHOD", f"{scope.self_type}.{name}", scope.self_type
            meta["static"] = not has_self
        elif scope.fqn is not None:
            kind, fqn, parent = "FUNCTION", f"{scope.fqn}.{name}", scope.fqn
        else:
            kind, fqn, parent = "FUNCTION", f"{scope.module}.{name}", None
        endpoint = self._attribute_route(node)
        if endpoint is not None:
            kind = "ENDPOINT"
            meta.update(http_method=endpoint[0], route=endpoint[1])
        attrs = [normalize(_text(a)) for a in _attributes(node)]
        if attrs:
            meta["attributes"] = attrs[:8]
        self._symbol(kind, name, fqn, parent, node, meta)
        inner.fqn = fqn
        self.callers[node.id] = fqn
        body = node.child_by_field_name("body")
        if body is not None:
            self.containers[body.id] = inner
        if types:
            self.scope_vars(fqn).update(types)

    def _params(self, plist: Node | None, scope: _Scope
                ) -> tuple[list[list[str | None]], dict[str, str], bool]:
        params: list[list[str | None]] = []
        types: dict[str, str] = {}
        has_self = False
        for param in plist.named_children if plist is not None else []:
            if param.type == "self_parameter":
                has_self = True
                continue
            if param.type != "parameter":
                continue
            pattern = param.child_by_field_name("pattern")
            type_node = param.child_by_field_name("type")
            written = normalize(_text(type_node)) if type_node is not None else None
            if pattern is not None and pattern.type == "identifier":
                pname = _text(pattern)
                params.append([pname, written])
                types[pname] = self._type(type_node, scope) or "_"
            else:
                params.append(["_", written])
                for ident in _bound_names(pattern):
                    types[ident] = "_"
                unwrapped = _extractor_binding(pattern, type_node)
                if unwrapped is not None:  # axum `State(state): State<AppState>`
                    types[unwrapped[0]] = self._type(unwrapped[1], scope) or "_"
        return params, types, has_self

    def _attribute_route(self, node: Node) -> tuple[str, str] | None:
        """The route a framework declares by the attributes of a function (actix-web's
        ``#[get("/x")]``)."""
        annotations = [self._annotation(attr) for attr in _attributes(node)]
        return declared_endpoint(LANG, RouteSite(annotations, [])) if annotations else None

    def _annotation(self, attr: Node) -> Annotation:
        """An attribute's last path segment and its literal arguments: a leading string
        under ``""``, ``key = "value"`` pairs under their key."""
        name_node = attr.named_children[0] if attr.named_children else None
        name = self._path_segments(name_node)[-1:] if name_node is not None else []
        args = attr.child_by_field_name("arguments")
        tokens = args.named_children if args is not None else []
        ann = Annotation(name[0] if name else "")
        first = string_literal(tokens[0]) if tokens else None
        if first is not None:
            ann.args[""] = [first]
        for key, value in zip(tokens, tokens[1:], strict=False):
            literal = string_literal(value)
            if key.type == "identifier" and literal is not None:
                ann.args.setdefault(_text(key), []).append(literal)
        return ann

    def _macro_definition(self, node: Node) -> None:
        scope = self._scope(node)
        name = _text(node.child_by_field_name("name")) + "!"
        fqn = f"{scope.fqn}.{name}" if scope.fqn is not None else f"{scope.module}.{name}"
        first = node.text.split(b"{", 1)[0].split(b"(", 1)[0]
        self._symbol("FUNCTION", name, fqn, scope.fqn, node, meta={"macro": True},
                     signature=normalize(first.decode("utf-8", "replace")))

    def _constant(self, node: Node) -> None:
        scope = self._scope(node)
        declared = self._type(node.child_by_field_name("type"), scope)
        name = _text(node.child_by_field_name("name"))
        self.scope_vars(scope.fqn or self.module)[name] = declared or "_"

    # -- calls -------------------------------------------------------------------------

    def _caller(self, node: Node) -> str | None:
        return self.callers.enclosing(node)

    def _call(self, node: Node) -> None:
        func = node.child_by_field_name("function")
        if func is not None and func.type == "generic_function":
            func = func.child_by_field_name("function")
        if func is None:
            return
        line = node.start_point[0] + 1
        if func.type == "identifier":
            if _text(func) not in _CONSTRUCTORS:
                self.result.calls.append(Call(self._caller(node), _text(func), None, line))
            return
        scope: _Scope | Node = node
        if func.type == "scoped_identifier":
            segments = self._absolute(self._path_segments(func), scope)
            if len(segments) >= 2:
                self.result.calls.append(Call(self._caller(node), segments[-1],
                                              segments[:-1], line))
        elif func.type == "field_expression":
            name = _text(func.child_by_field_name("field"))
            receiver = self._chain(func.child_by_field_name("value"), scope)
            self.result.calls.append(Call(self._caller(node), name, receiver, line))

    def _chain(self, node: Node | None, scope: _Scope | Node, depth: int = 0) -> list[str]:
        """Receiver chain of a method call (see :class:`~graphrag.parsing.model.Call`):
        ``self.repo`` -> ``["self", "repo"]``, ``Foo::new()`` -> ``["Foo", "new()"]``;
        ``["?"]`` for what cannot be named."""
        if node is None or depth > 64:
            return ["?"]
        kind = node.type
        if kind == "self":
            return ["self"]
        if kind == "identifier":
            return [_text(node)]
        if kind == "field_expression":
            head = self._chain(node.child_by_field_name("value"), scope, depth + 1)
            return ["?"] if head == ["?"] else [*head,
                                                _text(node.child_by_field_name("field"))]
        if kind in ("try_expression", "await_expression", "parenthesized_expression",
                    "reference_expression", "unary_expression", "type_cast_expression"):
            inner = node.child_by_field_name("value") or (
                node.named_children[0] if node.named_children else None)
            return self._chain(inner, scope, depth + 1)
        if kind == "index_expression":
            head = self._chain(node.named_children[0] if node.named_children else None,
                               scope, depth + 1)
            return ["?"] if head == ["?"] else [*head, "[]"]
        if kind == "scoped_identifier":
            segments = self._absolute(self._path_segments(node), scope)
            return segments or ["?"]
        if kind == "call_expression":
            func = node.child_by_field_name("function")
            if func is not None and func.type == "generic_function":
                func = func.child_by_field_name("function")
            if func is None:
                return ["?"]
            if func.type == "field_expression":
                name = _text(func.child_by_field_name("field"))
                head = self._chain(func.child_by_field_name("value"), scope, depth + 1)
                if name in _IDENTITY_METHODS or head == ["?"]:
                    return head
                return [*head, f"{name}()"]
            if func.type == "identifier":
                return [f"{_text(func)}()"]
            if func.type == "scoped_identifier":
                segments = self._absolute(self._path_segments(func), scope)
                if len(segments) >= 2:
                    return [*segments[:-1], f"{segments[-1]}()"]
        return ["?"]

    def _macro_call(self, node: Node) -> None:
        macro = node.child_by_field_name("macro")
        segments = self._path_segments(macro)
        if not segments:
            return
        name = segments[-1]
        caller = self._caller(node)
        line = node.start_point[0] + 1
        if name in _STD_MACROS or "::".join(segments) in _STD_MACROS:
            if name in _EXPRESSION_MACROS:
                tree = next((c for c in node.named_children if c.type == "token_tree"), None)
                if tree is not None:
                    self._token_calls(tree, caller, self._scope(node))
            return
        if len(segments) == 1:
            self.result.calls.append(Call(caller, f"{name}!", None, line))
        else:
            path = self._absolute(segments, self._scope(node))
            self.result.calls.append(Call(caller, f"{name}!", path[:-1], line))

    def _token_calls(self, tree: Node, caller: str | None, scope: _Scope) -> None:
        """Calls in the tokens of an expression macro (``assert_eq!(parse(x), y)``):
        ``f(..)``, ``a::b(..)`` and ``self.m(..)``; other receivers are not named."""
        stack = [tree]
        while stack:
            current = stack.pop()
            tokens = current.children
            for i, token in enumerate(tokens):
                if token.type == "token_tree":
                    stack.append(token)
                    continue
                if token.type != "identifier" or i + 1 >= len(tokens):
                    continue
                nxt = tokens[i + 1]
                if nxt.type != "token_tree" or not _text(nxt).startswith("("):
                    continue
                name, line = _text(token), token.start_point[0] + 1
                before = tokens[i - 1].type if i > 0 else None
                if before == ".":
                    if i >= 2 and tokens[i - 2].type in ("self", "identifier") and \
                            (i < 3 or tokens[i - 3].type not in (".", "::")):
                        self.result.calls.append(Call(caller, name, [_text(tokens[i - 2])],
                                                      line))
                    continue
                if before == "::":
                    path: list[str] = []
                    j = i - 2
                    while j >= 0 and tokens[j].type in ("identifier", "crate", "self",
                                                        "super"):
                        path.insert(0, _text(tokens[j]))
                        if j >= 1 and tokens[j - 1].type == "::":
                            j -= 2
                        else:
                            break
                    if path:
                        self.result.calls.append(Call(
                            caller, name, self._absolute(path, scope), line))
                    continue
                if before in ("!", "fn", "$") or name in _STD_MACROS:
                    continue
                self.result.calls.append(Call(caller, name, None, line))

    # -- routes ------------------------------------------------------------------------

    def _fact(self, call: Node, nested: bool = True) -> RouteCall:
        """A call as the route frameworks read it: a method call with the calls its
        receiver is built from (down to the function call at the chain's root), or a
        function call named by a path; with ``nested``, the calls among its arguments
        too. Each is remembered with its node, to find a handler argument again."""
        memo = self._facts.get((call.id, nested))
        if memo is not None:
            return memo
        name, value = _method(call)
        args = _args(call)
        base: list[RouteCall] = []
        receiver: tuple[str, ...] = ()
        node = value
        while name is not None and node is not None and node.type == "call_expression":
            base.append(self._fact(node, nested=False))
            if _method(node)[0] is None:
                break
            node = _method(node)[1]
        if name is not None and node is not None and node.type == "identifier":
            receiver = (_text(node),)
        fact = RouteCall(
            name if name is not None else _callee_name(call) or "", receiver,
            tuple(string_literal(a) for a in args), tuple(_text(a) for a in args),
            base=tuple(base), function=name is None,
            arg_calls=tuple(self._fact(a, nested=False) if a.type == "call_expression"
                            else None for a in args) if nested else ())
        self.fact_nodes[id(fact)] = (fact, call)
        self._facts[(call.id, nested)] = fact
        return fact

    def _argument_of(self, fact: CalledRoute, call: Node) -> Node | None:
        """The handler argument a route names, in the call itself or the call it names."""
        node = call if fact.of is None else self.fact_nodes.get(id(fact.of), (None, None))[1]
        return argument(fact.handler, _args(node)) if node is not None else None

    def _routes(self, call: Node) -> None:
        name, _value = _method(call)
        if name not in self.route_names:
            return
        args = _args(call)
        caller = self._caller(call)
        facts = call_facts(LANG, self._fact(call)) or []
        if not facts:
            return
        prefix = self._syntactic_prefix(call)
        for fact in facts:
            if isinstance(fact, CalledRoute):
                handler = self._argument_of(fact, call)
                if handler is not None:
                    self._register(call, fact.method, join_route(prefix, fact.route),
                                   handler, caller)
            elif isinstance(fact, Mount) and isinstance(fact.router, int) \
                    and fact.router < len(args):
                self._mount(call, join_route(prefix, fact.prefix) if fact.prefix else prefix,
                            args[fact.router], caller)

    def _syntactic_prefix(self, call: Node) -> str:
        """Prefixes of the routers a route is built inside, as frameworks say: a router
        at the root of a chain holding it (actix's ``web::scope("/api").route(..)``,
        ``.service(web::scope("/api").service(..))``) or a mount whose router argument
        holds it (axum's ``.nest("/api", Router::new().route(..))``)."""
        prefix = ""
        node = call
        for _ in range(200):
            root = _chain_root(node)
            if root.type == "call_expression" and _method(root)[0] is None \
                    and _callee_name(root) in self.route_names:
                found = called_route(LANG, self._fact(root, nested=False))
                if isinstance(found, Router):
                    prefix = join_route(found.prefix, prefix) if prefix else found.prefix
            parent = node.parent
            while parent is not None and parent.type != "arguments":
                if parent.type in ("function_item", "closure_expression", "block"):
                    return prefix
                node = parent
                parent = parent.parent
            if parent is None or parent.parent is None:
                return prefix
            outer = parent.parent
            name, _value = _method(outer)
            if name in self.route_names:
                found = called_route(LANG, self._fact(outer, nested=False))
                args = _args(outer)
                if isinstance(found, Mount) and found.prefix and \
                        isinstance(found.router, int) and found.router < len(args) and \
                        args[found.router] == node:
                    prefix = join_route(found.prefix, prefix) if prefix else found.prefix
            node = outer
        return prefix

    def _router_name(self, call: Node) -> str | None:
        """The router a builder chain registers on: the variable at its start
        (``app.route(..)``), the variable it is bound to (``let app = Router::new()...``)
        or the function returning it (``fn routes() -> Router``)."""
        root = _chain_root(call)
        if root.type == "identifier":
            return _text(root)
        top = call
        while top.parent is not None and top.parent.type in (
                "field_expression", "call_expression", "try_expression", "await_expression"):
            top = top.parent
        parent = top.parent
        if parent is not None and parent.type == "let_declaration":
            pattern = parent.child_by_field_name("pattern")
            names = _bound_names(pattern)
            return names[0] if names else None
        if parent is not None and parent.type == "assignment_expression":
            left = parent.child_by_field_name("left")
            return _text(left) if left is not None and left.type == "identifier" else None
        caller = self._caller(call)
        return caller.rsplit(".", 1)[-1] if caller else None

    def _handler(self, node: Node, scope: _Scope) -> tuple[str | None, list[str] | None]:
        if node.type == "identifier":
            return _text(node), None
        if node.type == "scoped_identifier":
            segments = self._absolute(self._path_segments(node), scope)
            return (segments[-1], segments[:-1]) if len(segments) >= 2 else (None, None)
        if node.type == "field_expression":
            return _text(node.child_by_field_name("field")), self._chain(
                node.child_by_field_name("value"), scope)
        return None, None

    def _register(self, call: Node, method: str, route: str, handler: Node,
                  caller: str | None) -> None:
        line = call.start_point[0] + 1
        reg = Registration(http_method=method, route=route, line=line, caller=caller,
                           router=self._router_name(call))
        if handler.type == "closure_expression":
            name = f"{method} {route}"
            fqn = f"{self.module}.{name}"
            self._symbol("ENDPOINT", name, fqn, caller, handler,
                         meta={"http_method": method, "route": route, "inline": True},
                         signature=normalize(_text(handler).split("{", 1)[0])[:_SIGNATURE_MAX])
            self.callers[handler.id] = fqn
            reg.inline_fqn = fqn
        else:
            name_, receiver = self._handler(handler, self._scope(call))
            if name_ is None:
                return
            reg.handler_name, reg.handler_receiver = name_, receiver
            self.result.calls.append(Call(caller, name_, receiver,
                                          handler.start_point[0] + 1, kind="ref"))
        self.result.registrations.append(reg)

    def _mount(self, call: Node, prefix: str, router: Node, caller: str | None) -> None:
        """``.nest("/api", api_routes())``/``.nest("/api", api)``: the routes of the
        router a function returns (or a variable holds) get the prefix. A router built in
        the arguments is handled by :meth:`_syntactic_prefix`."""
        target = router
        if target.type == "call_expression" and _method(target)[0] is None:
            target = target.child_by_field_name("function")
        if target is None or target.type not in ("identifier", "scoped_identifier"):
            return
        name, receiver = self._handler(target, self._scope(call))
        if name is None:
            return
        self.result.registrations.append(Registration(
            http_method="USE", route=prefix, line=call.start_point[0] + 1, caller=caller,
            handler_name=name, handler_receiver=receiver, router=self._router_name(call)))

    # -- bindings ----------------------------------------------------------------------

    def _bind_pattern(self, node: Node) -> None:
        """Names a closure, ``match`` arm or ``if let`` binds: they shadow outer names.
        ``Some(x)``/``Ok(x)`` of a call's result (``if let Some(user) = self.find(id)``)
        binds what the call returns; other bindings are not followed."""
        caller = self._caller(node)
        if caller is None:
            return
        types = self.scope_vars(caller)
        unwrapped = self._unwrapped_binding(node)
        if unwrapped is not None:
            name, found = unwrapped
            known = types.get(name)
            types[name] = found if known in (None, found) else "_"
        for name in _bound_names(node):
            types.setdefault(name, "_")

    def _unwrapped_binding(self, pattern: Node) -> tuple[str, str] | None:
        """``(x, "=call:...")`` for ``Some(x)``/``Ok(x)`` matched against a call."""
        if pattern.type == "match_pattern" and pattern.named_children:
            pattern = pattern.named_children[0]
        if pattern.type != "tuple_struct_pattern":
            return None
        head = pattern.child_by_field_name("type")
        inner = [c for c in pattern.named_children if c != head]
        if head is None or _text(head) not in ("Some", "Ok") or len(inner) != 1 or \
                inner[0].type != "identifier":
            return None
        owner = pattern.parent
        if owner is not None and owner.type == "match_pattern":
            owner = owner.parent
        value = None
        if owner is not None and owner.type in ("let_condition", "let_declaration"):
            value = owner.child_by_field_name("value")
        elif owner is not None and owner.type == "match_arm" and owner.parent is not None \
                and owner.parent.parent is not None:
            value = owner.parent.parent.child_by_field_name("value")
        found = self._value_type(value, self._scope(pattern)) if value is not None else None
        return (_text(inner[0]), found) if found is not None and found.startswith("=call:") \
            else None

    def _local(self, node: Node) -> None:
        caller = self._caller(node)
        if caller is None:
            return
        pattern = node.child_by_field_name("pattern")
        types = self.scope_vars(caller)
        names = _bound_names(pattern)
        if pattern is None or pattern.type not in ("identifier", "mut_pattern") or \
                len(names) != 1:
            unwrapped = self._unwrapped_binding(pattern) if pattern is not None else None
            if unwrapped is not None:  # `let Some(x) = find() else { .. }`
                types.setdefault(unwrapped[0], unwrapped[1])
            for name in names:
                types.setdefault(name, "_")
            return
        scope = self._scope(node)
        declared = self._type(node.child_by_field_name("type"), scope)
        found = declared or self._value_type(node.child_by_field_name("value"), scope) or "_"
        name = names[0]
        known = types.get(name)
        if known is None:
            types[name] = found
        elif known != found:
            types[name] = "_"  # shadowed by a binding of another type: not followed

    def _value_type(self, value: Node | None, scope: _Scope, depth: int = 0) -> str | None:
        """Type of an initialiser: ``Foo { .. }`` -> ``Foo``, ``Foo::new()`` ->
        ``=call:Foo.new``, ``self.repo.find(id)?`` -> ``=call:self.repo.find``."""
        if value is None or depth > 16:
            return None
        kind = value.type
        if kind in ("try_expression", "await_expression", "parenthesized_expression",
                    "reference_expression"):
            inner = value.child_by_field_name("value") or (
                value.named_children[0] if value.named_children else None)
            return self._value_type(inner, scope, depth + 1)
        if kind == "struct_expression":
            segments = self._absolute(self._path_segments(value.child_by_field_name("name")),
                                      scope)
            return ".".join(segments) if segments else None
        if kind == "call_expression":
            name, receiver = _method(value)
            if name in _IDENTITY_METHODS and receiver is not None:
                return self._value_type(receiver, scope, depth + 1)
            chain = self._chain(value, scope)
            if "?" in chain or not chain[-1].endswith("()"):
                return None
            parts = [*chain[:-1], chain[-1][:-2]]
            if any(p.endswith("()") or p == "[]" for p in parts[:-1]):
                return None
            if parts[-1] == "default" and len(parts) >= 2:  # `T::default()` is a T
                return ".".join(parts[:-1])
            if parts[-1] == "new" and len(parts) >= 2 and parts[-2] in _WRAPPERS:
                args = _args(value)
                return self._value_type(args[0], scope, depth + 1) if args else None
            return "=call:" + ".".join(parts)
        return None

    def _range(self, node: Node) -> None:
        """``for x in &self.items`` / ``for x in items.iter()``: ``x`` is one element."""
        caller = self._caller(node)
        if caller is None:
            return
        pattern = node.child_by_field_name("pattern")
        names = _bound_names(pattern)
        types = self.scope_vars(caller)
        if pattern is None or pattern.type != "identifier":
            for name in names:
                types.setdefault(name, "_")
            return
        source = node.child_by_field_name("value")
        while source is not None and source.type in ("reference_expression",
                                                     "parenthesized_expression"):
            source = source.child_by_field_name("value") or (
                source.named_children[0] if source.named_children else None)
        if source is not None and source.type == "call_expression":
            name, receiver = _method(source)
            if name in ("iter", "iter_mut", "into_iter") and not _args(source):
                source = receiver
        element = None
        if source is not None and source.type in ("identifier", "field_expression", "self"):
            chain = self._chain(source, self._scope(node))
            if "?" not in chain and "[]" not in chain:
                element = "=iter:" + ".".join(chain)
        types.setdefault(names[0], element or "_")


def _extractor_binding(pattern: Node | None, type_node: Node | None
                       ) -> tuple[str, Node] | None:
    """``(state, AppState)`` for a parameter ``State(state): State<AppState>``: a
    one-field wrapper destructured where it is declared (axum's extractors)."""
    if pattern is None or type_node is None or pattern.type != "tuple_struct_pattern" \
            or type_node.type != "generic_type":
        return None
    head = pattern.child_by_field_name("type")
    inner = [c for c in pattern.named_children if c != head]
    base = type_node.child_by_field_name("type")
    args = type_node.child_by_field_name("type_arguments")
    if head is None or base is None or args is None or len(inner) != 1 or \
            inner[0].type != "identifier" or not args.named_children or \
            _text(head).rsplit("::", 1)[-1] != _text(base).rsplit("::", 1)[-1]:
        return None
    return _text(inner[0]), args.named_children[0]


def _bound_names(pattern: Node | None) -> list[str]:
    """Every name a pattern binds (``(a, Some(b))`` -> a, b; ``Foo { x, y: z }`` -> x,
    z); identifiers written as paths or constructors (``Some``, ``Foo::Bar``) bind
    nothing."""
    if pattern is None:
        return []
    out: list[str] = []
    stack = [pattern]
    while stack and len(out) < 64:
        node = stack.pop()
        kind = node.type
        if kind == "identifier":
            out.append(_text(node))
            continue
        if kind in ("scoped_identifier", "type_identifier", "string_literal",
                    "integer_literal", "char_literal"):
            continue
        if kind == "field_pattern":
            inner = node.child_by_field_name("pattern")
            if inner is not None:
                stack.append(inner)
            else:
                name = node.child_by_field_name("name")
                if name is not None:
                    out.append(_text(name))
            continue
        if kind in ("tuple_struct_pattern", "struct_pattern"):
            head = node.child_by_field_name("type")
            stack.extend(reversed([c for c in node.named_children if c != head]))
            continue
        if kind == "parameter":
            inner = node.child_by_field_name("pattern")
            if inner is not None:
                stack.append(inner)
            continue
        stack.extend(reversed(node.named_children))
    return out
