"""Swift extractor against the swift_vapor sample and small inline snippets, and the
resolver on snippets of several files (what a Swift user's graph holds)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from graphrag.graph.resolve import build_graph
from graphrag.parsing.languages.swift import extract, package_of
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "swift_vapor"


@cache
def parsed(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, RepoContext())


def snippet(code: str, rel: str = "Sources/App/a.swift") -> ParseResult:
    return extract(code.encode(), rel, RepoContext())


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def calls_of(files: dict[str, str]) -> set[tuple[str, str]]:
    graph = build_graph([snippet(code, rel) for rel, code in files.items()])
    nodes = graph.node_by_key()
    return {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
            if e.kind == "CALLS"}


@pytest.mark.parametrize(("path", "expected"), [
    ("Sources/App/Models/Todo.swift", "App"),
    ("Tests/AppTests/TodoTests.swift", "AppTests"),
    ("Package.swift", "main"),
    ("Sources/main.swift", "main"),
])
def test_a_file_belongs_to_its_swiftpm_target(path: str, expected: str) -> None:
    assert package_of(path) == expected


def test_sample_declarations_have_their_kinds_and_owners() -> None:
    todo = parsed("Sources/App/Models/Todo.swift")
    assert sym(todo, "App.Todo").kind == "CLASS"
    assert sym(todo, "App.Todo.init").kind == "CONSTRUCTOR"
    assert sym(todo, "App.Todo.title").meta["type"] == "String"
    assert sym(todo, "App.Todo.placeholder").meta["static"] is True
    assert sym(todo, "App.Todo.complete").doc_comment == "Mark the todo as finished."
    assert sym(todo, "App.Priority").kind == "ENUM"
    store = parsed("Sources/App/Services/TodoStore.swift")
    assert sym(store, "App.TodoStore").kind == "INTERFACE"
    assert sym(store, "App.TodoStore.find").meta["return_type"] == "Todo?"
    assert sym(store, "App.Clock").meta["struct"] is True


def test_an_extension_adds_members_and_conformances_to_the_extended_type() -> None:
    ext = parsed("Sources/App/Models/Todo+Summary.swift")
    summary = sym(ext, "App.Todo.summary")
    assert (summary.kind, summary.parent) == ("METHOD", "App.Todo")
    assert sym(ext, "App.Todo.description").kind == "FIELD"
    assert not any(s.fqn == "App.Todo" for s in ext.symbols)  # declared in Todo.swift
    assert {(h.cls, h.base, h.relation) for h in ext.heritage} == {
        ("App.Todo", "Listable", "implements"),
        ("App.Todo", "CustomStringConvertible", "implements")}


def test_imports_name_modules() -> None:
    result = snippet("import Vapor\nimport struct Foundation.Date\nimport Fluent\n")
    assert {(i.alias, i.target) for i in result.imports} >= {("*", "Vapor"), ("*", "Fluent")}


def test_vapor_routes_join_grouped_prefixes_and_name_their_handlers() -> None:
    result = snippet(
        'import Vapor\n'
        'struct C: RouteCollection {\n'
        '  func boot(routes: RoutesBuilder) throws {\n'
        '    let api = routes.grouped("api")\n'
        '    let users = api.grouped("users", ":id")\n'
        '    users.get(use: show)\n'
        '    users.delete("avatar", use: self.drop)\n'
        '    routes.on(.PUT, "raw", use: raw)\n'
        '  }\n'
        '  func show(req: Request) -> String { "" }\n'
        '}\n'
        'func routes(_ app: Application) throws {\n'
        '  app.grouped("v2").post("echo") { req in req.body }\n'
        '}\n')
    regs = {(r.http_method, r.route, r.handler_name, tuple(r.handler_receiver or ()),
             r.inline_fqn) for r in result.registrations}
    assert regs == {
        ("GET", "/api/users/:id", "show", ("self",), None),
        ("DELETE", "/api/users/:id/avatar", "drop", ("self",), None),
        ("PUT", "/raw", "raw", ("self",), None),
        ("POST", "/v2/echo", None, (), "App.routes.POST /v2/echo"),
    }
    assert sym(result, "App.routes.POST /v2/echo").kind == "ENDPOINT"


def test_calls_resolve_through_self_declared_types_initialisers_and_bindings() -> None:
    calls = calls_of({
        "Sources/App/Repo.swift":
            "final class Repo {\n"
            "  init(path: String) {}\n"
            "  func load(id: Int) -> Item? { nil }\n"
            "  func all() -> [Item] { [] }\n"
            "}\n"
            "struct Item { func render() -> String { \"\" } }\n",
        "Sources/App/Service.swift":
            "class Service {\n"
            "  let repo: Repo\n"
            "  init() { repo = Repo(path: \"x\") }\n"
            "  func show(id: Int) -> String {\n"
            "    guard let item = repo.load(id: id) else { return \"\" }\n"
            "    return helper(item.render())\n"
            "  }\n"
            "  func each() { for item in repo.all() { item.render() } }\n"
            "  func helper(_ s: String) -> String { self.trim(s) }\n"
            "  func trim(_ s: String) -> String { s }\n"
            "}\n",
    })
    assert calls >= {
        ("App.Service.init", "App.Repo.init"),
        ("App.Service.show", "App.Repo.load"),
        ("App.Service.show", "App.Item.render"),
        ("App.Service.show", "App.Service.helper"),
        ("App.Service.helper", "App.Service.trim"),
        ("App.Service.each", "App.Repo.all"),
    }


def test_a_class_conforming_to_a_protocol_implements_it_and_extends_its_superclass() -> None:
    graph = build_graph([snippet(
        "protocol Store { func get() }\n"
        "class Base {}\n"
        "final class Disk: Base, Store { func get() {} }\n"
        "struct Memory: Store { func get() {} }\n")])
    nodes = graph.node_by_key()
    edges = {(e.kind, nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind in ("EXTENDS", "IMPLEMENTS")}
    assert edges == {("EXTENDS", "App.Disk", "App.Base"),
                     ("IMPLEMENTS", "App.Disk", "App.Store"),
                     ("IMPLEMENTS", "App.Memory", "App.Store")}


def test_broken_code_keeps_what_parses() -> None:
    result = snippet("class A {\n  func ok() { b() }\n  func broken( {\n}\n")
    assert any(s.fqn == "App.A.ok" for s in result.symbols)
    assert result.error_count > 0


def test_overloaded_initialisers_are_told_apart_by_labels_and_arity() -> None:
    """A convenience `init` whose parameters all have defaults is what `Session()`
    calls; the designated one needs its `session:` argument."""
    calls = calls_of({"Sources/A/Session.swift":
                      "class Session {\n"
                      "  init(session: URLSession, queue: Queue = Queue()) {}\n"
                      "  convenience init(configuration: Config = Config()) {\n"
                      "    self.init(session: URLSession())\n"
                      "  }\n"
                      "}\n"
                      "func make() { Session(); Session(session: shared) }\n"})
    assert calls == {("A.Session.init(configuration:)", "A.Session.init(session:queue:)"),
                     ("A.make", "A.Session.init(configuration:)"),
                     ("A.make", "A.Session.init(session:queue:)")}
