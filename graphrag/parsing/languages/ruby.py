"""Ruby extractor: one ``.rb`` file -> :class:`ParseResult`.

Covers modules (OBJECT) and classes (CLASS), methods (METHOD; ``initialize`` is the
CONSTRUCTOR), ``def self.x`` and ``class << self`` methods (``meta.static``),
``attr_reader``/``attr_writer``/``attr_accessor`` (FIELD), constants (FIELD), ``include``/
``extend``/``prepend`` mixins (``embeds`` heritage, searched in Ruby's ancestors' order: the
modules prepended, then those included, each the last first, then the superclass),
``require``/``require_relative`` (IMPORTS of the file loaded), calls with their receivers
(``self``, constants, ``Foo.new(...)`` as an instantiation, instance variables and locals
assigned from ``Foo.new``), and routes: Rails ``config/routes.rb`` (``get 'x'
=> 'c#a'``, ``to:``, ``resources``/``resource`` with their actions, ``only``/``except``,
nested resources, ``member``/``collection``, ``namespace``/``scope``, ``root``) linked to
the controller's action, and Sinatra (``get '/x' do ... end``: an ENDPOINT of the block).

Constants are global in Ruby: every file is in one package (``main``, the top-level
object), so a class declared in one file is seen from all. fqns join the constant path
with dots (``Shop::Order#total`` is ``Shop.Order.total``); a file's module is its path
without ``.rb``. A class or module reopened in several files is one node: the file that
Zeitwerk's naming gives the constant (``app/models/shop/order.rb`` for ``Shop::Order``,
``lib/shop.rb`` for ``Shop``; :func:`repo_facts`) declares it, the others only add their
methods and mixins to it. One opened in several files none of which is its home
(``Sinatra::Application``, declared in ``sinatra/base.rb`` and reopened in
``sinatra/main.rb``) is declared by the file that names its superclass, else by the first
in path order.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

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
from graphrag.parsing.routes import CalledRoute, RouteCall, call_facts, route_call_names

LANG = "ruby"
PACKAGE = "main"
_SIGNATURE_MAX = 300
_MIXINS = frozenset({"include", "extend", "prepend"})
_ATTRS = frozenset({"attr_reader", "attr_writer", "attr_accessor", "attr"})
_VISIBILITY = frozenset({"private", "protected", "public", "module_function",
                         "private_class_method", "public_class_method"})
# Directories whose files Zeitwerk (or a gem's load path) names by their path.
_AUTOLOAD_ROOT = re.compile(r"(?:^|/)(?:lib|app/[^/]+)/(.+)\.rb$")
# Top-level folders whose files no load path names (tests, configuration, scripts).
_NOT_LOADED = frozenset({"test", "tests", "spec", "config", "db", "script", "bin", "vendor",
                         "examples", "features", "tasks"})
_CAMEL = re.compile(r"(?:^|_)([a-z0-9])")
_READ_MAX = 256 * 1024  # what repository facts read of a file


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Ruby file into symbols, requires, calls, mixins, routes and types."""
    tree = registry.parser(LANG).parse(source)
    result = ParseResult(path=rel_path, lang=LANG, module=rel_path.removesuffix(".rb"),
                         package=PACKAGE)
    facts = ctx.of(LANG, {})
    _RubyFile(source, tree.root_node, rel_path, facts if isinstance(facts, dict) else {},
              result).run()
    result.error_count = count_errors(tree.root_node)
    return result


def camelize(segment: str) -> str:
    """``order_items`` -> ``OrderItems`` (Zeitwerk's default inflection)."""
    return _CAMEL.sub(lambda m: m.group(1).upper(), segment)


def constant_of(rel_path: str) -> str | None:
    """The constant Zeitwerk (or a load path) expects in a file: ``app/models/shop/order.rb``
    -> ``Shop.Order``, ``lib/sinatra/base.rb`` or, with ``lib/`` as the indexed root,
    ``sinatra/base.rb`` -> ``Sinatra.Base`` (None for tests, configuration, scripts)."""
    match = _AUTOLOAD_ROOT.search(rel_path)
    if match is not None:
        inner = match.group(1)
    elif rel_path.split("/", 1)[0] in _NOT_LOADED or not rel_path.endswith(".rb"):
        return None
    else:  # a load path indexed as the root (a gem's `lib/` itself)
        inner = rel_path.removesuffix(".rb")
    return ".".join(camelize(p) for p in inner.split("/") if p != "concerns")


def repo_facts(files: RepoFiles) -> dict[str, Any]:
    """``constants``: the file that declares each constant a file reopens: the one
    Zeitwerk names for it, else (no such file) the one :func:`_reopened` picks;
    ``features``: what ``require 'a/b'`` loads (``a/b`` ->
    the module of ``lib/a/b.rb``); ``namespaces``: the namespaces the repository's
    folders make (``app/controllers/admin/`` -> ``Admin``)."""
    constants: dict[str, str] = {}
    features: dict[str, str] = {}
    ruby = sorted(p for p in files.paths if p.endswith(".rb"))
    directories = {p.rpartition("/")[0] for p in ruby}
    # every file is read once: which constants it opens decides who declares a class
    # reopened in files none of which is its home
    texts = {rel: files.read(rel, _READ_MAX) or "" for rel in ruby}
    for rel in ruby:
        constant = constant_of(rel)
        if constant and (rel.removesuffix(".rb") not in directories
                         or _declares(texts[rel], constant)):
            constants.setdefault(constant, rel)
        head, sep, feature = rel.rpartition("lib/")
        if sep and (not head or head.endswith("/")):
            features.setdefault(feature.removesuffix(".rb"), rel.removesuffix(".rb"))
    # A namespace no file declares (Zeitwerk's implicit `app/controllers/admin/`, a gem's
    # `lib/sinatra/` whose `lib/sinatra.rb` only requires) is declared by the first file
    # inside it, so that its classes are members of one node
    folders: set[str] = set()
    for rel in ruby:
        directory = rel.rpartition("/")[0]
        rooted = _AUTOLOAD_ROOT.search(rel) is not None
        while directory:
            # inside `app/models/` or `lib/`, the namespaces stop at that folder
            if rooted and _AUTOLOAD_ROOT.search(directory + ".rb") is None:
                break
            constant = constant_of(directory + ".rb")
            if not constant:
                break
            constants.setdefault(constant, rel)
            folders.add(constant)
            directory = directory.rpartition("/")[0]
    constants.update(_reopened(texts, constants))
    return {"constants": constants, "features": features, "namespaces": sorted(folders)}


def _declares(text: str, constant: str) -> bool:
    """Whether the file of a namespace (``lib/sinatra.rb`` beside ``lib/sinatra/``)
    declares it: a gem's entry file often only requires the files of the namespace."""
    last = re.escape(constant.rsplit(".", 1)[-1])
    return re.search(rf"(?m)^\s*(?:module|class)\s+(?:\w+::)*{last}\b", text) is not None


# `class A::B < C` / `module A` at the start of a line (not `class << self`)
_OPENING = re.compile(r"(?m)^([ \t]*)(?:class|module)[ \t]+(?:::)?([A-Z]\w*(?:::[A-Z]\w*)*)")


def _guessed_openings(text: str) -> set[str]:
    """The classes and modules a file seems to open (and the namespaces their paths
    imply), nested by indentation: a cheap sieve, every file is read on every run; only
    the files it finds sharing a constant are parsed (:func:`_openings`)."""
    found: set[str] = set()
    stack: list[tuple[int, str]] = []
    for match in _OPENING.finditer(text):
        indent = len(match.group(1).expandtabs(2))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        prefix = stack[-1][1] if stack else ""
        for part in match.group(2).split("::"):
            prefix = f"{prefix}.{part}" if prefix else part
            found.add(prefix)
        stack.append((indent, prefix))
    return found


def _openings(source: bytes) -> dict[str, int]:
    """The classes and modules a file opens, as the extractor names them, each with its
    claim to declare it: 0 a class naming its superclass, 1 an opening, 2 a namespace
    only implied by a path (``class Rack::Builder`` implies ``Rack``)."""
    root = registry.parser(LANG).parse(source).root_node
    nodes = QueryCursor(registry.query(LANG, "ruby-definitions")).captures(root)
    found: dict[str, int] = {}
    for node in nodes.get("definition.type", []):
        path = _constant_path(node.child_by_field_name("name"))
        if node.type == "singleton_class" or path is None:
            continue
        outer: list[str] = []
        parent = node.parent
        while parent is not None:  # the enclosing classes and modules the extractor scopes
            if parent.type in ("class", "module"):
                name = _constant_path(parent.child_by_field_name("name"))
                if name is not None:
                    outer.append(name)
            parent = parent.parent
        prefix = ".".join(reversed(outer))
        parts = path.split(".")
        for index, part in enumerate(parts):
            prefix = f"{prefix}.{part}" if prefix else part
            superclass = node.child_by_field_name("superclass")
            rank = 2 if index < len(parts) - 1 else 0 if superclass is not None else 1
            found[prefix] = min(rank, found.get(prefix, rank))
    return found


def _reopened(texts: dict[str, str], homes: dict[str, str]) -> dict[str, str]:
    """The file that declares each class or module opened in several files none of
    which Zeitwerk names for it: the first (in path order) whose declaration names a
    superclass, else the first that opens it, else the first that implies it."""
    guessed: dict[str, list[str]] = {}
    for rel, text in texts.items():
        for fqn in _guessed_openings(text):
            if fqn not in homes:
                guessed.setdefault(fqn, []).append(rel)
    shared = sorted({rel for files in guessed.values() if len(files) > 1 for rel in files})
    claims: dict[str, list[tuple[int, str]]] = {}
    for rel in shared:
        for fqn, rank in _openings(texts[rel].encode("utf-8", "surrogatepass")).items():
            if fqn not in homes:
                claims.setdefault(fqn, []).append((rank, rel))
    return {fqn: min(found)[1] for fqn, found in claims.items() if len(found) > 1}


def _string(node: Node | None) -> str | None:
    """A string literal's text or a symbol's name (None for anything else)."""
    if node is None:
        return None
    if node.type in ("bare_symbol", "bare_string"):  # an item of `%i[a b]`, `%w[a b]`
        return _text(node)
    if node.type in ("simple_symbol", "hash_key_symbol"):
        return _text(node).lstrip(":")
    if node.type == "string" and all(c.type == "string_content" for c in node.named_children):
        return "".join(_text(c) for c in node.named_children)
    if node.type == "delimited_symbol":
        return "".join(_text(c) for c in node.named_children)
    return None


def _constant_path(node: Node | None) -> str | None:
    """``Foo::Bar`` -> ``Foo.Bar`` (``::Foo`` is ``Foo``); None for an expression."""
    if node is None:
        return None
    if node.type == "constant":
        return _text(node)
    if node.type == "scope_resolution":
        name = node.child_by_field_name("name")
        scope = node.child_by_field_name("scope")
        head = _constant_path(scope) if scope is not None else ""
        if name is None or head is None:
            return None
        return f"{head}.{_text(name)}" if head else _text(name)
    return None


def _args(call: Node) -> tuple[list[Node], dict[str, Node]]:
    """Positional arguments and keyword pairs of a call."""
    args = call.child_by_field_name("arguments")
    positional: list[Node] = []
    keywords: dict[str, Node] = {}
    for arg in args.named_children if args is not None else ():
        if arg.type == "pair":
            key, value = arg.child_by_field_name("key"), arg.child_by_field_name("value")
            if key is not None and value is not None and key.type in ("hash_key_symbol",
                                                                      "simple_symbol"):
                keywords[_string(key) or ""] = value
            elif key is not None and value is not None:
                positional.append(arg)  # `'path' => 'c#a'`
        elif arg.type != "comment":
            positional.append(arg)
    return positional, keywords


def _symbols(node: Node | None) -> set[str]:
    if node is None:
        return set()
    if node.type in ("array", "symbol_array", "string_array"):
        return {s for s in (_string(c) for c in node.named_children) if s}
    single = _string(node)
    return {single} if single else set()


@dataclass
class _Scope:
    """A class, module or method symbol being walked."""

    symbol: Symbol
    node: Node
    static: bool = False  # code of `class << self`


class _RubyFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, source: bytes, root: Node, rel_path: str, facts: dict,
                 result: ParseResult) -> None:
        super().__init__(source, root, result)
        self.rel_path = rel_path
        self.facts = facts
        self.scopes: ScopeIndex[int, _Scope] = ScopeIndex(node_id)
        self._frozen: tuple[list[int], list, list[int]] | None = None
        self.declared: set[str] = set()
        self.route_nodes: set[int] = set()
        self.locals: dict[str | None, set[str]] = {}
        self.endpoints: set[str] = set()

    def run(self) -> ParseResult:
        defs = QueryCursor(registry.query(LANG, "ruby-definitions")).captures(self.root)
        refs = QueryCursor(registry.query(LANG, "ruby-references")).captures(self.root)
        self.passes(defs, ("definition.type", self._type), ("definition.method", self._method))
        calls = in_order(refs.get("reference.call", []))
        # routes first: a route's block becomes the scope of the calls inside it
        self._routes(calls)
        self._freeze_scopes()
        self._locals(refs)
        for node in calls:
            self._call(node)
        self.passes(refs, ("reference.super", self._super), ("assignment", self._assignment))
        self.result.calls.sort(key=lambda c: c.line)
        self.result.var_types = {k: v for k, v in self.result.var_types.items() if v}
        return self.finished()

    # -- declarations --------------------------------------------------------------------

    def _owner(self, node: Node) -> _Scope | None:
        if self._frozen is None:
            return self.scopes.enclosing(node)
        starts, items, parents = self._frozen
        at = bisect.bisect_right(starts, node.start_byte) - 1
        while at >= 0:
            start, end, scope = items[at]
            if node.end_byte <= end and scope.node.id != node.id:
                return scope
            at = parents[at]
        return None

    def _freeze_scopes(self) -> None:
        """Once every scope is known, look them up by byte ranges: walking a node's
        parents costs its depth for each of the thousands of calls and names of a file.
        The innermost scope around a position is the last one starting before it or one
        of that one's enclosing scopes."""
        items = sorted(((s.node.start_byte, s.node.end_byte, s) for s in self.scopes.values()),
                       key=lambda t: (t[0], -t[1]))
        parents: list[int] = []
        stack: list[int] = []
        for index, (start, _end, _scope) in enumerate(items):
            while stack and items[stack[-1]][1] < start + 1 and \
                    not items[stack[-1]][1] > start:
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            stack.append(index)
        self._frozen = ([t[0] for t in items], items, parents)

    def _type_owner(self, node: Node) -> str | None:
        scope = self._owner(node)
        while scope is not None and scope.symbol.kind not in ("CLASS", "OBJECT"):
            scope = self._owner(scope.node)
        return scope.symbol.fqn if scope is not None else None

    def _type(self, node: Node) -> None:
        if node.type == "singleton_class":
            owner = self._owner(node)
            if owner is not None:  # `class << self`: its methods are the class's own
                self.scopes[node.id] = _Scope(owner.symbol, node, static=True)
            return
        path = _constant_path(node.child_by_field_name("name"))
        if path is None:
            return
        outer = self._type_owner(node)
        fqn = f"{outer}.{path}" if outer else path
        name = fqn.rsplit(".", 1)[-1]
        parent = fqn.rpartition(".")[0] or None
        kind = "CLASS" if node.type == "class" else "OBJECT"
        symbol = Symbol(kind=kind, name=name, fqn=fqn, parent=parent,
                        signature=_header(node), doc_comment=doc_comment(node),
                        meta={} if kind == "CLASS" else {"module": True}, **self.span(node))
        self.scopes[node.id] = _Scope(symbol, node)
        # `class Mod::Stories`: the namespaces it names are declared here unless their
        # home file does (else the class would be a top-level name of the package);
        # `implied`: the file never opens it (`class Rack::Builder` reopens a gem's
        # class), so it is no definition a search for its name should answer
        # (a namespace of the repository's own folders is its own, even where only implied)
        prefix = outer or ""
        folders = set(self.facts.get("namespaces", ())) if self.facts else set()
        for part in path.split(".")[:-1]:
            outer_fqn = f"{prefix}.{part}" if prefix else part
            meta = {"module": True} if outer_fqn in folders else {"module": True,
                                                                   "implied": True}
            self._declare(Symbol(kind="OBJECT", name=part, fqn=outer_fqn,
                                 parent=prefix or None, signature=f"module {part}",
                                 meta=meta, **self.span(node)))
            prefix = outer_fqn
        self._declare(symbol)
        line = node.start_point[0] + 1
        body = node.child_by_field_name("body")
        mixins = [c for c in (body.named_children if body is not None else ())
                  if c.type == "call" and c.child_by_field_name("receiver") is None
                  and _text(c.child_by_field_name("method")) in _MIXINS]
        # Ruby's ancestors: the modules prepended and those included, each the last
        # first, then the superclass (`include A; include B`: B's `m` before A's)
        for mixin in sorted(reversed(mixins),
                            key=lambda c: _text(c.child_by_field_name("method")) != "prepend"):
            for arg in _args(mixin)[0]:
                base = _constant_path(arg)
                if base:
                    self.result.heritage.append(Heritage(fqn, base, "embeds", line))
        superclass = node.child_by_field_name("superclass")
        if superclass is not None and superclass.named_children:
            base = _constant_path(superclass.named_children[0])
            if base:
                self.result.heritage.append(Heritage(fqn, base, "extends", line))
        for child in body.named_children if body is not None else ():
            if child.type == "call" and child.child_by_field_name("receiver") is None and \
                    _text(child.child_by_field_name("method")) in _ATTRS:
                for arg in _args(child)[0]:
                    field = _string(arg)
                    if field:
                        self._field(child, field, fqn)
            elif child.type == "assignment":
                left = child.child_by_field_name("left")
                if left is not None and left.type == "constant":
                    self._field(child, _text(left), fqn)

    def _declare(self, symbol: Symbol) -> None:
        """Add a class or module unless another file declares it (its Zeitwerk home, or
        the file :func:`repo_facts` picks for one reopened without a home) or this file
        declared it already: a reopened class or module is one node. A class another
        file declares is recorded as reopened here (a namespace module every file of a
        gem wraps itself in is not)."""
        home = self.facts.get("constants", {}).get(symbol.fqn) if self.facts else None
        if (home is None or home == self.rel_path) and symbol.fqn not in self.declared:
            self.declared.add(symbol.fqn)
            self.result.symbols.append(symbol)
        elif home is not None and home != self.rel_path and symbol.kind == "CLASS":
            self.result.reopens.setdefault(symbol.fqn, symbol.line_start)

    def _field(self, node: Node, name: str, owner: str) -> None:
        self.result.symbols.append(Symbol(
            kind="FIELD", name=name, fqn=f"{owner}.{name}", parent=owner,
            signature=normalize(_text(node))[:_SIGNATURE_MAX], meta={}, **self.span(node)))

    def _method(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        owner = self._owner(node)
        if owner is not None and owner.symbol.kind not in ("CLASS", "OBJECT"):
            return  # a method defined inside a method body: rare, left out
        if owner is None and node.parent is not None and node.parent.type != "program":
            # a `def` in a block (`describe ... do`) is a method of what runs the block,
            # not a global function
            return
        static = node.type == "singleton_method" or (owner is not None and owner.static)
        parent = owner.symbol.fqn if owner is not None else None
        fqn = f"{parent}.{name}" if parent else name
        kind = "METHOD" if parent else "FUNCTION"
        if name == "initialize" and parent and not static:
            kind = "CONSTRUCTOR"
        params = node.child_by_field_name("parameters")
        meta = {"static": static, "params": [[_text(p.child_by_field_name("name") or p), None]
                                             for p in (params.named_children if params
                                                       else ()) if p.type != "comment"]}
        symbol = Symbol(kind=kind, name=name, fqn=fqn, parent=parent,
                        signature=_header(node), doc_comment=doc_comment(node), meta=meta,
                        **self.span(node))
        self.result.symbols.append(symbol)
        self.scopes[node.id] = _Scope(symbol, node)

    # -- calls ---------------------------------------------------------------------------

    def _locals(self, caps: dict[str, list[Node]]) -> None:
        """Local names per method (parameters and assigned variables, its blocks' too);
        an identifier that is none of them is a call of a method without arguments."""
        self.locals: dict[str | None, set[str]] = {}
        for node in caps.get("local", []):
            self.locals.setdefault(self._caller(node), set()).add(_text(node))
        for node in in_order(caps.get("bare", [])):
            name = _text(node)
            caller = self._caller(node)
            if name not in self.locals.get(caller, ()) and node.parent is not None \
                    and node.parent.type not in ("method_parameters", "block_parameters"):
                self._bare_call(node, name, caller, node.start_point[0] + 1)

    def _bare_call(self, node: Node, name: str, caller: str | None, line: int) -> None:
        """A call without receiver: a method of ``self`` (Ruby looks methods up on the
        receiver's class and ancestors, never in lexically enclosing classes), or a global
        function outside any class; ``new`` in a class instantiates it."""
        owner = self._type_owner(node)
        if name == "new" and owner:
            self.result.calls.append(Call(caller, owner.rsplit(".", 1)[-1], None, line,
                                          kind="new"))
            return
        self.result.calls.append(Call(caller, name, ["self"] if owner else None, line))

    def _caller(self, node: Node) -> str | None:
        """The enclosing method or class; code in the body of a class this file does not
        declare (a reopening) is the file's: its node and lines are another file's."""
        scope = self._owner(node)
        if scope is None or (scope.symbol.kind in ("CLASS", "OBJECT")
                             and scope.symbol.fqn not in self.declared):
            return None
        return scope.symbol.fqn

    def _chain(self, node: Node | None) -> list[str]:
        """Receiver chain: ``@repo`` -> ``["self", "repo"]``, ``Foo::Bar`` -> ``["Foo",
        "Bar"]``, ``a.b`` -> ``["a", "b()"]``, ``Foo.new`` -> ``["Foo()"]`` (an instance),
        ``["?"]`` for what cannot be named."""
        if node is None:
            return ["?"]
        kind = node.type
        if kind in ("self",):
            return ["self"]
        if kind == "identifier":
            name = _text(node)
            return [name] if name in self.locals.get(self._caller(node), ()) else \
                [name + "()"]
        if kind == "instance_variable":
            return ["self", _text(node).lstrip("@")]
        if kind in ("constant", "scope_resolution"):
            path = _constant_path(node)
            return path.split(".") if path else ["?"]
        if kind == "call":
            method = node.child_by_field_name("method")
            receiver = node.child_by_field_name("receiver")
            if method is None or method.type not in ("identifier", "constant"):
                return ["?"]
            name = _text(method)
            if receiver is None:
                return [name + "()"]
            head = self._chain(receiver)
            if head == ["?"]:
                return head
            if name == "class" and head == ["self"]:
                return ["self"]  # `self.class.x`: a class method of the enclosing class
            if name == "new" and receiver.type in ("constant", "scope_resolution"):
                return [".".join(head) + "()"]  # a new instance: what calling the class gives
            return [*head, name + "()"]
        if kind == "parenthesized_statements" and node.named_child_count == 1:
            return self._chain(node.named_children[0])
        return ["?"]

    def _call(self, node: Node) -> None:
        method = node.child_by_field_name("method")
        if method is None or method.type not in ("identifier", "constant"):
            return
        name = _text(method)
        receiver_node = node.child_by_field_name("receiver")
        caller = self._caller(node)
        line = method.start_point[0] + 1
        if node.id in self.route_nodes:
            return  # a route declaration, not a call
        if receiver_node is None:
            if name in ("require", "require_relative"):
                self._require(node, name)
                return
            if name in _MIXINS or name in _ATTRS or name in _VISIBILITY:
                return
            self._bare_call(node, name, caller, line)
            return
        if name == "class":
            return
        receiver = self._chain(receiver_node)
        parent = node.parent
        if parent is not None and parent.type in ("assignment", "operator_assignment") and \
                parent.child_by_field_name("left") == node:
            name += "="  # `x.default = v` calls the writer `default=`
        if name == "new" and receiver_node.type in ("constant", "scope_resolution"):
            *head, cls = receiver
            self.result.calls.append(Call(caller, cls, head or None, line, kind="new"))
            return
        self.result.calls.append(Call(caller, name, receiver, line))

    def _super(self, node: Node) -> None:
        scope = self._owner(node)
        if scope is not None and scope.symbol.kind in ("METHOD", "CONSTRUCTOR"):
            self.result.calls.append(Call(scope.symbol.fqn, scope.symbol.name, ["super"],
                                          node.start_point[0] + 1))

    def _require(self, node: Node, how: str) -> None:
        args = _args(node)[0]
        feature = _string(args[0]) if args else None
        if not feature:
            return
        if how == "require_relative":
            base = self.rel_path.rpartition("/")[0]
            parts: list[str] = []
            for part in f"{base}/{feature}".strip("/").split("/"):
                if part == "..":
                    if parts:
                        parts.pop()
                elif part not in ("", "."):
                    parts.append(part)
            target = "/".join(parts).removesuffix(".rb")
        else:
            target = (self.facts.get("features") or {}).get(feature.removesuffix(".rb"),
                                                           feature)
        self.result.imports.append(Import(feature, target, node.start_point[0] + 1))

    def _assignment(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or right.type != "call":
            return
        method = right.child_by_field_name("method")
        receiver = right.child_by_field_name("receiver")
        if method is None or _text(method) != "new" or receiver is None:
            return
        cls = _constant_path(receiver)
        if not cls:
            return
        if left.type == "instance_variable":
            owner = self._type_owner(node)
            if owner:
                self.scope_vars(owner).setdefault(_text(left).lstrip("@"), cls)
        elif left.type == "identifier":
            scope = self._caller(node)
            self.scope_vars(scope or self.result.module).setdefault(_text(left), cls)

    # -- routes --------------------------------------------------------------------------

    def _route_call(self, node: Node, outer: tuple[RouteCall, ...] = ()) -> RouteCall:
        """A call as the route frameworks read it: literal arguments (a positional
        ``'x' => 'c#a'`` as a pair of items), keywords, its block, the file."""
        args, kws = _args(node)
        receiver = node.child_by_field_name("receiver")
        items = tuple(
            (_string(a.child_by_field_name("key")), _string(a.child_by_field_name("value")))
            if a.type == "pair" else None for a in args)
        keywords = tuple(
            (key, _string(value), tuple(_string(c) for c in value.named_children)
             if value.type in ("array", "symbol_array", "string_array") else None)
            for key, value in kws.items())
        return RouteCall(
            _text(node.child_by_field_name("method")),
            (_text(receiver),) if receiver is not None else (),
            tuple(_string(a) for a in args), tuple(_text(a) for a in args),
            block=node.child_by_field_name("block") is not None, items=items,
            keywords=keywords, outer=outer, path=self.rel_path)

    def _outer_calls(self, node: Node) -> tuple[RouteCall, ...]:
        """The calls whose blocks hold ``node``, outermost first."""
        blocks: list[Node] = []
        current = node.parent
        while current is not None:
            if current.type in ("do_block", "block") and current.parent is not None and \
                    current.parent.type == "call" and \
                    current.parent.child_by_field_name("method") is not None:
                blocks.append(current.parent)
            current = current.parent
        return tuple(self._route_call(call) for call in reversed(blocks))

    def _routes(self, calls: list[Node]) -> None:
        """Calls some route framework recognises: a route whose handler is the call's
        block (Sinatra's ``get '/x' do ... end``: an ENDPOINT of the block) or a
        controller's action (Rails' routes); a framework's call declares, never calls."""
        names, plain = route_call_names(LANG), route_call_names(LANG, block=False)
        for node in calls:
            method = node.child_by_field_name("method")
            if method is None or _text(method) not in names or (
                    node.child_by_field_name("block") is None and _text(method) not in plain):
                continue
            facts = call_facts(LANG, self._route_call(node, self._outer_calls(node)))
            if facts is None:
                continue
            if not any(f.handler is None and f.action is None
                       for f in facts if isinstance(f, CalledRoute)):
                self.route_nodes.add(node.id)
            for fact in facts:
                if not isinstance(fact, CalledRoute):
                    continue
                if fact.action is not None and fact.controller is not None:
                    self.result.registrations.append(Registration(
                        http_method=fact.method, route=fact.route,
                        line=node.start_point[0] + 1, caller=self._caller(node),
                        handler_name=fact.action, handler_receiver=fact.controller.split("::")))
                elif fact.handler is None:
                    self._block_endpoint(node, fact)

    def _block_endpoint(self, node: Node, fact: CalledRoute) -> None:
        block = node.child_by_field_name("block")
        if block is None:
            return
        verb, route = fact.method, fact.route
        owner = self._type_owner(node)
        label = f"{verb} {route}"
        fqn = f"{owner or self.result.module}.{label}"
        if fqn in self.endpoints:
            return
        self.endpoints.add(fqn)
        self.route_nodes.add(node.id)
        symbol = Symbol(kind="ENDPOINT", name=label, fqn=fqn, parent=owner,
                        signature=label, meta={"http_method": verb, "route": route},
                        **self.span(node))
        self.result.symbols.append(symbol)
        self.scopes[block.id] = _Scope(symbol, block)
        self.result.registrations.append(Registration(
            http_method=verb, route=route, line=node.start_point[0] + 1,
            caller=self._caller(node), inline_fqn=fqn))


def _header(node: Node) -> str:
    """The declaration's first line (``def place(id, qty = 1)``, ``class A < B``)."""
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None and body.start_byte > node.start_byte \
        else node.end_byte
    text = node.text[:end - node.start_byte].decode("utf-8", errors="replace")
    return normalize(text.split("\n", 1)[0] if "\n" in text.strip() else text).rstrip(
        ";").strip()[:_SIGNATURE_MAX]


def doc_comment(node: Node) -> str | None:
    """The ``#`` comment lines right above a declaration, ``#`` stripped. The first
    declaration of a class or module body has its comment outside the body: tree-sitter
    starts the body at its first statement, so the comment is the class's child before
    it. A comment after code on its line (``class A # :nodoc:``) is none."""
    lines: list[str] = []
    prev = node.prev_named_sibling
    if prev is None and node.parent is not None and node.parent.type == "body_statement":
        prev = node.parent.prev_named_sibling
    expected = node.start_point[0] - 1
    while (prev is not None and prev.type == "comment" and prev.end_point[0] == expected
           and _own_line(prev)):
        lines.append(_text(prev).lstrip("#").strip())
        expected = prev.start_point[0] - 1
        prev = prev.prev_named_sibling
    text = "\n".join(reversed(lines)).strip()
    return text or None


def _own_line(comment: Node) -> bool:
    """Whether nothing but the comment stands on its line."""
    before = comment.prev_sibling
    return before is None or before.end_point[0] < comment.start_point[0]


