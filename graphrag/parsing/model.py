"""Language-neutral parse results: what every language extractor produces.

Extractors (one module per language in ``graphrag/parsing/languages/``) turn one
file into a :class:`ParseResult`. They know nothing about other files. The
cross-file resolver in ``graphrag/graph/`` turns many ParseResults into nodes and
edges. ParseResults are stored as JSON per file (``to_dict``/``from_dict``) so that
an incremental run can re-resolve the whole graph without re-parsing unchanged files.

FQN conventions (the ids tests and ``expected_graph.json`` files use):

* Python: module = repo-relative path, ``/`` -> ``.``, without ``.py``; ``pkg/__init__.py``
  is module ``pkg``. Symbols: ``app.services.users.UserService.get_user``; nested
  functions ``module.outer.inner``.
* Java / Kotlin: ``<package>.<Class>.<member>``; Kotlin top-level functions and
  properties ``<package>.<name>``; nested classes ``<package>.<Outer>.<Inner>``.
  Module of a file = its package (empty package -> file stem). An overloaded method or
  constructor (two or more of that name in one type, or Kotlin top-level functions in one
  file) carries its parameter types, generics dropped, as written:
  ``<package>.<Class>.parse(String,int)``, ``<package>.<Class>.<init>(String...)``.
* Python ``@overload`` stubs and TypeScript overload signatures are no symbols: the
  implementation lists them in ``meta["overloads"]``.
* TypeScript / JavaScript: module = repo-relative path without extension (``/`` kept);
  symbols ``<module>:<Name>`` and ``<module>:<Class>.<member>``, e.g.
  ``src/services/userService:UserService.getUser``.
* C#: package = the file's (first) namespace, module = the file's path without ``.cs``.
  Symbols ``<namespace>.<Type>.<member>``, constructors ``<Type>.<init>``, overloads
  with their parameter types like Java's.
* Go: package = module path from ``go.mod`` + ``/`` + repo-relative dir (the module path
  alone for the root dir). Symbols ``<pkg>.<Func>``, ``<pkg>.<Type>``, methods
  ``<pkg>.<Type>.<Method>`` (pointer receivers too).
* Anonymous handlers (an inline Express arrow function, a Go ``func(w, r)`` literal
  passed to HandleFunc) become ENDPOINT symbols named ``"<METHOD> <route>"`` with fqn
  ``<module or pkg><sep><METHOD> <route>`` (sep ``:`` for TS/JS, ``.`` otherwise).

Lines are 1-based inclusive. ``char_start``/``char_end`` are character (not byte)
offsets into the decoded text, end exclusive.
"""

from __future__ import annotations

import bisect
from dataclasses import MISSING, dataclass, field, fields
from typing import Any


@dataclass
class Symbol:
    """A declaration found in a file.

    ``parent`` is the fqn of the enclosing symbol, or None when the file itself
    contains it. ``meta`` carries language facts the resolver and later steps use:
    ``return_type`` (as written), ``params`` (list of ``[name, type-or-null]``),
    ``decorators``/``annotations`` (as written), ``static`` (bool), ``type`` (FIELD:
    declared type as written), ``companion`` (Kotlin companion object), and for ENDPOINT
    ``http_method`` (upper case; several joined by ``,``; ``ANY`` when unrestricted)
    and ``route`` (class/router prefix already joined, starting with ``/``);
    ``partial`` (a type declared in parts in several files, C# ``partial class``: one
    node, the first part by path, holds every part's members) and ``package_member`` (a
    member seen by its name wherever its package is, a C# extension method; with
    ``receiver_in_params`` its receiver is its first parameter).
    ``key_suffix`` keeps stable keys of re-declarations apart (TS/JS ``#<line>``); JVM
    overloads differ in their fqn already (see the module docstring).
    """

    kind: str
    name: str
    fqn: str
    parent: str | None
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    signature: str | None = None
    doc_comment: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    key_suffix: str = ""


@dataclass
class Import:
    """A name bound in the file by an import.

    ``alias`` is the local name (``UserService``, ``np``, ``store``); ``target`` the
    fqn it refers to in our conventions (a module, package, class or function;
    possibly outside the repository). A wildcard import has alias ``"*"`` and the
    module/package as target. For TS/JS relative imports the target is already the
    resolved module path (``./user`` in ``src/a.ts`` -> ``src/user``) plus
    ``:Name`` for named imports; a namespace/default-module import targets the module.
    ``exported``: the file publishes the name it binds (Rust ``pub use``), so a user of
    the file's module finds it there even when its definition is outside the repository;
    ``published``: the name users write for it when that is not ``alias`` (a C++ header's
    ``using std::string_view;`` in namespace ``absl`` publishes ``absl::string_view``).
    """

    alias: str
    target: str
    line: int
    exported: bool = False
    published: str | None = None


@dataclass
class Call:
    """A call (or handler reference) inside ``caller`` (fqn; None = file level).

    ``receiver`` is the receiver chain as written, simplified: None for a bare call
    ``foo()``; ``["self"]``/``["this"]``/``["super"]``; ``["repo"]`` for
    ``repo.find()``; ``["self", "repo"]`` / ``["this", "repo"]`` for
    ``self.repo.find()``; ``["store"]`` for a package-qualified ``store.New()``;
    ``["?"]`` when the receiver is an expression we cannot name (a call result, an
    index...). ``kind``: ``call``; ``new`` for an instantiation (``new Foo()``,
    Python/Kotlin ``Foo()`` is recorded as ``call`` and the resolver decides);
    ``ref`` for a function passed as a value (``handler`` in
    ``HandleFunc("/x", handler)``, ``this::save``).

    ``args`` is the number of arguments where the language overloads (None = not
    recorded) and ``arg_types`` their static types where readable: a type name (from a
    literal, ``new T()``, a cast) or ``"=var:name"`` for a plain name the resolver types
    from the caller's locals and fields; None when unknown. They pick the overload.
    ``arg_labels`` name the arguments where a language calls by parameter labels
    (Swift's ``f(_:to:)``): a label, None for an unlabelled argument, ``TRAILING`` for
    an unlabelled trailing closure.
    """

    caller: str | None
    name: str
    receiver: list[str] | None
    line: int
    kind: str = "call"
    args: int | None = None
    arg_types: list[str | None] | None = None
    # explicit type arguments (`Query<T>(...)`: 1) where a language picks generic
    # overloads by them (C#); None when there are none
    type_args: int | None = None
    arg_labels: list[str | None] | None = None
    # a bare call in the body of an anonymous class: the class's supertypes as written,
    # whose members the name is looked up among before the enclosing scopes'
    within: list[str] | None = None


# an unlabelled trailing closure among a call's ``arg_labels`` (`f(x) { ... }`)
TRAILING = "{}"

_CALL_DEFAULTS = {f.name: f.default for f in fields(Call) if f.default is not MISSING}


@dataclass
class Heritage:
    """``cls`` (fqn) derives from ``base`` (as written, generics stripped, qualified
    names kept like ``models.Base``). ``relation``: ``extends``, ``implements``,
    ``unknown`` (Kotlin supertypes without ``()``; the resolver decides by the
    target's kind) or ``embeds`` (Go struct embedding). ``static``: a supertype of the
    class's static side (a Scala companion object's, merged into its class), searched
    after every supertype of the class's instances."""

    cls: str
    base: str
    relation: str
    line: int
    static: bool = False


@dataclass
class Registration:
    """A route registered by a call (Express ``router.get('/x', h)``, Go
    ``mux.HandleFunc("/x", h)``). ``handler`` names the handler like a Call
    (``name`` + ``receiver``) when it is a reference; when it is an inline function
    the extractor emits an ENDPOINT symbol and sets ``inline_fqn`` instead.

    A router mount (Express ``app.use('/api', usersRouter)``) is recorded as
    ``http_method="USE"``, ``route=<prefix>``, ``handler_name=<router alias>``; the
    resolver joins the prefix to the routes of the router the alias names.

    ``router`` names the router variable a route is registered on (``users_router`` in
    ``users_router.get(...)``), or for a mount the router that mounts (``api`` in
    ``api.use('/v1', v1)``, whose own mount prefix comes first). A mount names its router
    by ``handler_name`` (+ ``handler_receiver``): a router variable of the same module, an
    imported router (``users.router``, ``from .users import router``) or an imported
    module (``require('./routes/users')``: the router that module exports; every router of
    the module when that is not known). ``base`` is the part of ``route`` that is the
    router's own prefix (Flask ``Blueprint(url_prefix=)``); a mount with
    ``replaces_base`` (Flask ``register_blueprint(bp, url_prefix=)``) replaces it."""

    http_method: str
    route: str
    line: int
    caller: str | None
    handler_name: str | None = None
    handler_receiver: list[str] | None = None
    inline_fqn: str | None = None
    router: str | None = None
    base: str = ""
    replaces_base: bool = False


@dataclass
class HttpCall:
    """An HTTP request sent by ``caller`` (fqn; None = file level) at ``line``.

    ``client`` names the library (``requests``, ``axios``, ``feign``...); ``method`` is
    upper case, None when the code does not say. ``url`` is the URL as rebuilt from the
    code: literals as written, values from configuration or the environment kept by name
    as ``${NAME}``, run-time values as ``{name}``. ``base`` is its scheme and host
    (``http://orders:8080``) or the name it starts with (``${ORDERS_URL}``); ``path`` the
    path template (``/orders/{id}``, no query string), None when nothing of it is known.
    ``service`` is the service a declared client names (``@FeignClient("orders")``)."""

    caller: str | None
    line: int
    client: str
    method: str | None
    url: str
    base: str | None = None
    path: str | None = None
    service: str | None = None


@dataclass
class ParseResult:
    """Everything one file contributes. ``var_types`` maps a scope fqn to the types
    of names visible in it: for a class scope its fields (declared fields, Kotlin/TS
    constructor properties, Python ``self.x = ...`` assignments); for a function
    scope its parameters and local variables. A type is either a type as written
    (``UserRepository``, ``store.Store``, generics and ``?``/``*``/``[]`` stripped)
    or ``"=call:<dotted callee>"`` when only the initialising call is known
    (``x := store.NewStore()`` -> ``"=call:store.NewStore"``; Python
    ``self.repo = UserRepository(db)`` -> ``"=call:UserRepository"``); the resolver
    evaluates it to a class or to the callee's return type; ``"=iter:<call or chain>"`` is
    the element type of what a ``for`` loop iterates, ``"=arg:<callee>#<arg>#<param>"`` a
    callback parameter typed by the callee's declared function type. The key
    ``"<class fqn>#init"`` holds names seen by code directly in a class body (parameters
    of a Java lambda or anonymous class in a field initializer). Module-level variables are
    keyed by the module fqn (Python, Kotlin package), the package (Go) or the file path
    (TS/JS); the resolver accepts each of these and ``""``."""

    path: str
    lang: str
    module: str
    package: str | None
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    heritage: list[Heritage] = field(default_factory=list)
    registrations: list[Registration] = field(default_factory=list)
    var_types: dict[str, dict[str, str]] = field(default_factory=dict)
    http_calls: list[HttpCall] = field(default_factory=list)
    error_count: int = 0
    # The whole file's sha256 and line count: the FILE node's change detection and span
    # (filled by the parse worker, which reads the bytes).
    content_hash: str | None = None
    line_count: int = 0
    # The file's own documentation (a Rust module's ``//!`` docs): its FILE node's doc.
    doc: str | None = None
    # ``[line, reason]`` of the lines that make the file a program's entry point
    # (:mod:`graphrag.parsing.entrypoints`): its FILE node's ``meta.entry_points``.
    entry_points: list[list[int | str]] = field(default_factory=list)
    # Classes another file declares that this one reopens (Ruby's open classes): fqn ->
    # the line where it opens it; its FILE node's ``meta.reopens``, where search finds
    # the class's part in this file.
    reopens: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (stored in ``files.parse_data``).

        Written out by hand: ``dataclasses.asdict`` deep-copies every value and cost
        half of the parse time."""
        return {
            "path": self.path,
            "lang": self.lang,
            "module": self.module,
            "package": self.package,
            "symbols": [dict(vars(s)) for s in self.symbols],
            "imports": [dict(vars(i)) for i in self.imports],
            "calls": [_call_dict(c) for c in self.calls],
            "heritage": [dict(vars(h)) for h in self.heritage],
            "registrations": [dict(vars(r)) for r in self.registrations],
            "var_types": self.var_types,
            "http_calls": [dict(vars(h)) for h in self.http_calls],
            "error_count": self.error_count,
            "content_hash": self.content_hash,
            "line_count": self.line_count,
            "doc": self.doc,
            "entry_points": self.entry_points,
            "reopens": self.reopens,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ParseResult:
        """Inverse of :meth:`to_dict`."""
        return cls(
            path=data["path"],
            lang=data["lang"],
            module=data["module"],
            package=data.get("package"),
            symbols=[Symbol(**s) for s in data.get("symbols", [])],
            imports=[Import(**i) for i in data.get("imports", [])],
            calls=[Call(**c) for c in data.get("calls", [])],
            heritage=[Heritage(**h) for h in data.get("heritage", [])],
            registrations=[Registration(**r) for r in data.get("registrations", [])],
            var_types=data.get("var_types", {}),
            http_calls=[HttpCall(**h) for h in data.get("http_calls", [])],
            error_count=data.get("error_count", 0),
            content_hash=data.get("content_hash"),
            line_count=data.get("line_count", 0),
            doc=data.get("doc"),
            entry_points=data.get("entry_points", []),
            reopens=data.get("reopens", {}),
        )


def _call_dict(call: Call) -> dict[str, Any]:
    """``call`` as stored: the fields that differ from their defaults (most calls have
    no argument types, type arguments or anonymous class; the stored calls of a
    repository are the larger half of its parse results)."""
    return {k: v for k, v in vars(call).items() if _CALL_DEFAULTS.get(k, MISSING) != v}


class CharOffsets:
    """Maps tree-sitter byte offsets to character offsets of the decoded text.

    ASCII files (the common case) map 1:1 without any table. Otherwise one entry per
    line (byte start, char start) is kept and only the part of a line before the offset
    is decoded: a per-character table cost most of the parse time of large files."""

    def __init__(self, source: bytes) -> None:
        self._source = source
        self._identity = source.isascii()
        self._line_bytes: list[int] = []
        self._line_chars: list[int] = []
        if not self._identity:
            byte_pos = char_pos = 0
            for line in source.split(b"\n"):
                self._line_bytes.append(byte_pos)
                self._line_chars.append(char_pos)
                byte_pos += len(line) + 1
                char_pos += len(line.decode("utf-8", errors="replace")) + 1

    def __call__(self, byte_offset: int) -> int:
        if self._identity:
            return byte_offset
        i = bisect.bisect_right(self._line_bytes, byte_offset) - 1
        start = self._line_bytes[i]
        prefix = self._source[start:byte_offset]
        if prefix.isascii():
            return self._line_chars[i] + len(prefix)
        return self._line_chars[i] + len(prefix.decode("utf-8", errors="replace"))
