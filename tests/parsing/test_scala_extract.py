"""Scala extractor against the scala_http4s sample and small inline snippets, and the
resolver on snippets of several files (what a Scala user's graph holds)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from graphrag.graph.resolve import build_graph
from graphrag.parsing.languages.scala import extract
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "scala_http4s"
BOOKS = "src/main/scala/com/example/books"


@cache
def parsed(rel: str) -> ParseResult:
    return extract((SAMPLE / BOOKS / rel).read_bytes(), f"{BOOKS}/{rel}", RepoContext())


def snippet(code: str, rel: str = "src/main/scala/a/A.scala") -> ParseResult:
    return extract(code.encode(), rel, RepoContext())


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def edges_of(files: dict[str, str], kinds: tuple[str, ...] = ("CALLS",)) -> set[tuple]:
    graph = build_graph([snippet(code, rel) for rel, code in files.items()])
    nodes = graph.node_by_key()
    return {(e.kind, nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
            if e.kind in kinds}


def test_a_companion_objects_members_belong_to_its_class() -> None:
    book = parsed("model/Book.scala")
    assert sym(book, "com.example.books.model.Book").meta["case"] is True
    assert sym(book, "com.example.books.model.Book.title").meta["type"] == "String"
    draft = sym(book, "com.example.books.model.Book.draft")
    assert (draft.kind, draft.parent, draft.meta["static"]) == (
        "METHOD", "com.example.books.model.Book", True)
    assert draft.doc_comment == "A new book by an unknown author, not stored yet."
    assert not any(s.kind == "OBJECT" for s in book.symbols)
    routes = parsed("http/BookRoutes.scala")
    assert sym(routes, "com.example.books.http.Health").kind == "OBJECT"


def test_imports_with_selectors_renames_and_wildcards() -> None:
    result = snippet("package p\nimport a.b.{C, D => E, F => _}\nimport x.y._\n"
                     "import z.W\nimport cats.effect.{IO, _}\n")
    assert {(i.alias, i.target) for i in result.imports} == {
        ("C", "a.b.C"), ("E", "a.b.D"), ("*", "x.y"), ("W", "z.W"),
        ("IO", "cats.effect.IO"), ("*", "cats.effect")}


def test_chained_package_clauses_join() -> None:
    result = snippet("package com.example\npackage shop\n\nclass Cart\n")
    assert result.package == "com.example.shop"
    assert sym(result, "com.example.shop.Cart").kind == "CLASS"


def test_http4s_cases_are_endpoints_of_their_bodies() -> None:
    routes = parsed("http/BookRoutes.scala")
    assert {(r.http_method, r.route) for r in routes.registrations} == {
        ("GET", "/books/{id}"), ("POST", "/books/{title}"), ("GET", "/health")}
    owner = "com.example.books.http.BookRoutes.routes"
    assert any(c.caller == f"{owner}.GET /books/{{id}}" and c.name == "describe"
               for c in routes.calls)


def test_calls_resolve_through_this_objects_declared_types_and_new() -> None:
    edges = edges_of({
        "src/main/scala/a/Repo.scala":
            "package a\n"
            "class Repo { def load(id: Int): Item = new Item(id) }\n"
            "class Item(val id: Int) { def render(): String = id.toString }\n"
            "object Repo { def default(): Repo = new Repo() }\n",
        "src/main/scala/b/Service.scala":
            "package b\n"
            "import a.{Repo => Store, Item}\n"
            "class Service(store: Store) {\n"
            "  private val fallback = Store.default()\n"
            "  def show(id: Int): String = {\n"
            "    val item = store.load(id)\n"
            "    this.format(item.render())\n"
            "  }\n"
            "  def format(s: String): String = fallback.load(0).render()\n"
            "}\n",
    })
    assert edges >= {
        ("CALLS", "b.Service.show", "a.Repo.load"),
        ("CALLS", "b.Service.show", "a.Item.render"),
        ("CALLS", "b.Service.show", "b.Service.format"),
        ("CALLS", "b.Service", "a.Repo.default"),
        ("CALLS", "b.Service.format", "a.Repo.load"),
        ("CALLS", "b.Service.format", "a.Item.render"),
    }


def test_with_mixins_are_implemented_and_a_class_is_extended() -> None:
    edges = edges_of({"src/main/scala/a/A.scala":
                      "package a\ntrait Log { def log(): Unit = () }\n"
                      "trait Named extends Log\nclass Base(x: Int)\n"
                      "class Impl extends Base(1) with Named with Log\n"},
                     kinds=("EXTENDS", "IMPLEMENTS"))
    assert edges == {("EXTENDS", "a.Impl", "a.Base"), ("IMPLEMENTS", "a.Impl", "a.Named"),
                     ("IMPLEMENTS", "a.Impl", "a.Log"), ("EXTENDS", "a.Named", "a.Log")}


def test_broken_code_keeps_what_parses() -> None:
    result = snippet("package p\nclass A {\n  def ok(): Int = b()\n  def broken( = {\n}\n")
    assert any(s.fqn == "p.A.ok" for s in result.symbols)
    assert result.error_count > 0


def test_overloads_carry_their_types_and_a_call_picks_one_by_arity() -> None:
    edges = edges_of({"src/main/scala/p/Printer.scala":
                      "package p\nclass Printer {\n"
                      "  def print(json: Json, cs: Charset): String = print(json)\n"
                      "  def print(json: Json): String = \"\"\n"
                      "}\nobject Printer {\n"
                      "  def plain(j: Json): String = new Printer().print(j)\n}\n"
                      "class Failure(reason: Eval) { def this(r: String) = this(Eval.now(r)) }\n"})
    assert edges == {("CALLS", "p.Printer.print(Json,Charset)", "p.Printer.print(Json)"),
                     ("CALLS", "p.Printer.plain", "p.Printer.print(Json)")}


def test_play_conf_routes_link_to_the_controller_actions(tmp_path: Path) -> None:
    from graphrag.parsing.extract import repo_context

    files = {
        "conf/routes": "# Routes\nGET   /books/:id   controllers.Books.show(id: Long)\n"
                       "POST  /books       @controllers.Books.create()\n"
                       "GET   /assets/*file  controllers.Assets.versioned(path=\"/public\", "
                       "file: Asset)\n",
        "app/controllers/Books.scala": "package controllers\n"
                                       "class Books(cc: Components) {\n"
                                       "  def show(id: Long) = Action { Ok(\"\") }\n"
                                       "  def create() = Action { Ok(\"\") }\n}\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = repo_context(tmp_path, list(files))
    graph = build_graph([extract(files["app/controllers/Books.scala"].encode(),
                                 "app/controllers/Books.scala", ctx)])
    assert {(n.fqn, n.meta.get("http_method"), n.meta.get("route")) for n in graph.nodes
            if n.kind == "ENDPOINT"} == {("controllers.Books.show", "GET", "/books/:id"),
                                         ("controllers.Books.create", "POST", "/books")}


def test_a_body_on_the_lines_after_equals_ends_at_its_last_token() -> None:
    code = (
        "package a\n"                                   # 1
        "trait F {\n"                                   # 2
        "  def compose(f: Int): Int =\n"                # 3
        "    f + 1\n"                                   # 4
        "\n"                                            # 5
        "  /**\n"                                       # 6
        "   * Adds two, the doc of the next method.\n"  # 7
        "   */\n"                                       # 8
        "  def andThen(f: Int): Int =\n"                # 9
        "    f + 2 // trailing note\n"                  # 10
        "  // a comment before the brace\n"             # 11
        "}\n")                                          # 12
    result = snippet(code)
    compose, and_then = sym(result, "a.F.compose"), sym(result, "a.F.andThen")
    # the next method's doc and signature are not part of the first one
    assert (compose.line_start, compose.line_end) == (3, 4)
    assert code[compose.char_start:compose.char_end].endswith("f + 1")
    assert (and_then.line_start, and_then.line_end) == (9, 10)
    assert code[and_then.char_start:and_then.char_end].endswith("f + 2")
    assert sym(result, "a.F").line_end == 12
