"""Scala extractor against the scala_http4s sample and small inline snippets, and the
resolver on snippets of several files (what a Scala user's graph holds)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from graphrag.graph.resolve import build_graph
from graphrag.graph.types import clean_type
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


def test_a_bare_call_in_an_anonymous_class_looks_in_the_class_first() -> None:
    edges = edges_of({"src/main/scala/p/Decoder.scala":
                      "package p\ntrait Decoder[A] { self =>\n"
                      "  def apply(c: Cursor): A\n"
                      "  def tryDecode(c: Cursor): A = apply(c)\n"
                      "  def fallback(c: Cursor): A = apply(c)\n"
                      "  def indent(n: Int): String = \"\"\n"
                      "  final def map[B](f: A => B): Decoder[B] = new Decoder[B] {\n"
                      "    def apply(c: Cursor): B = f(self.tryDecode(c))\n"
                      "    override def tryDecode(c: Cursor): B = apply(c)\n"
                      "    def twice(c: Cursor): B = { indent(2); fallback(c) }\n"
                      "  }\n"
                      "}\n"
                      "class Pieces { def indent(n: Int): String = \"\"\n"
                      "  def make(): Decoder[Int] = new Decoder[Int] {\n"
                      "    def apply(c: Cursor): Int = { indent(1); this.fallback(c) }\n"
                      "  }\n"
                      "}\n"})
    calls = {(src, dst) for kind, src, dst in edges}
    # the overriding `apply`/`tryDecode` of the anonymous class run, not the trait's:
    # no edge; what it inherits is the trait's; `self.` is the outer instance
    assert ("p.Decoder.map", "p.Decoder.fallback") in calls
    assert ("p.Decoder.map", "p.Decoder.indent") in calls
    assert ("p.Decoder.map", "p.Decoder.tryDecode") in calls
    assert ("p.Decoder.map", "p.Decoder.apply") not in calls
    # inside `new Decoder[Int] { ... }` of Pieces, `indent` is Decoder's, and `this` is
    # the anonymous Decoder
    assert ("p.Pieces.make", "p.Decoder.indent") in calls
    assert ("p.Pieces.make", "p.Pieces.indent") not in calls
    assert ("p.Pieces.make", "p.Decoder.fallback") in calls


def test_a_local_def_is_no_call_site_and_its_parameters_are_typed() -> None:
    result = snippet("package p\nclass A {\n"
                     "  def run(x: Int)(implicit d: Decoder): Int = {\n"
                     "    def loop(c: Cursor): Int = loop(c.next())\n"
                     "    d.decode(loop(x))\n  }\n}\n")
    assert [(c.name, c.receiver) for c in result.calls] == [("next", ["c"]),
                                                            ("decode", ["d"])]
    assert result.var_types["p.A.run"] == {"x": "Int", "d": "Decoder", "c": "Cursor"}


def test_a_call_of_a_value_or_an_object_is_its_apply() -> None:
    edges = edges_of({"src/main/scala/p/Codec.scala":
                      "package p\n"
                      "trait Encoder[A] { def apply(a: A): Json }\n"
                      "object Encoder { def apply[A](implicit e: Encoder[A]): Encoder[A] = e }\n"
                      "class Parser(size: Int) { def parse(s: String): Json = null }\n"
                      "object Parser { def apply(size: Int): Parser = new Parser(size)\n"
                      "  def apply(size: Int, strict: Boolean): Parser = Parser(size) }\n"
                      "case class Point(x: Int)\n"
                      "object Point { def apply(s: String): Point = Point(s.length) }\n"
                      "class Use(enc: Encoder[Int]) {\n"
                      "  private val field: Encoder[Int] = enc\n"
                      "  def run(e: Encoder[String]): Json = {\n"
                      "    Parser(1, true).parse(\"\"); Point(2)\n"
                      "    enc(1); field(2); this.field(3); e(\"x\")\n  }\n}\n"})
    calls = {(src, dst) for kind, src, dst in edges}
    assert ("p.Parser.apply(Int,Boolean)", "p.Parser.apply(Int)") in calls
    assert ("p.Use.run", "p.Parser.apply(Int,Boolean)") in calls
    assert ("p.Use.run", "p.Parser.parse") in calls
    assert ("p.Use.run", "p.Encoder.apply(A)") in calls
    # a case class's `Point(2)` is its generated apply, not the declared one
    assert not any(dst.startswith("p.Point.apply") for src, dst in calls if src != "p.Point.apply")


def test_top_level_overloads_and_a_call_through_the_type_picks_a_companion_overload() -> None:
    edges = edges_of({"src/main/scala/p/package.scala":
                      "package p\n"
                      "def summon(using c: Conf): List[Int] = Nil\n"
                      "def summon(forSum: Boolean)(using c: Conf): List[Int] = Nil\n"
                      "abstract class Obj { def apply(key: String): Int }\n"
                      "object Obj { def apply(fields: Field*): Obj = null }\n"
                      "object Use { def run(f: Field): Obj = { summon(false); Obj(f) } }\n"})
    calls = {(src, dst) for kind, src, dst in edges}
    assert ("p.Use.run", "p.summon(Boolean)") in calls
    assert ("p.Use.run", "p.Obj.apply(_)") in calls  # a repeated parameter: no type name
    assert ("p.Use.run", "p.Obj.apply(String)") not in calls


def test_an_overload_is_chosen_by_the_types_of_the_arguments() -> None:
    edges = edges_of({"src/main/scala/p/Failure.scala":
                      "package p\n"
                      "sealed trait Reason\ncase object Missing extends Reason\n"
                      "case class Custom(m: String) extends Reason\n"
                      "object Failure {\n"
                      "  def apply(message: String, ops: List[Op]): Failure = null\n"
                      "  def apply(reason: Reason, ops: List[Op]): Failure = null\n"
                      "  private def isReal(value: Double): Boolean = true\n"
                      "  private def isReal(value: Float): Boolean = true\n"
                      "  def fromFloat(value: Float): Boolean = isReal(value)\n"
                      "  def fromInt(value: Int): Boolean = isReal(value)\n"
                      "}\nclass Failure\n"
                      "object Use {\n"
                      "  def a(ops: List[Op]): Failure = Failure(Missing, ops)\n"
                      "  def b(ops: List[Op]): Failure = Failure(Custom(\"x\"), ops)\n"
                      "  def c(ops: List[Op]): Failure = Failure(s\"x\", ops)\n}\n"})
    calls = {(src, dst) for kind, src, dst in edges}
    assert {(src, dst) for src, dst in calls if src.startswith(("p.Use", "p.Failure.from"))} == {
        ("p.Use.a", "p.Failure.apply(Reason,List)"), ("p.Use.b", "p.Failure.apply(Reason,List)"),
        ("p.Use.c", "p.Failure.apply(String,List)"),
        ("p.Failure.fromFloat", "p.Failure.isReal(Float)"),
        # an Int widens to both: the one declared first
        ("p.Failure.fromInt", "p.Failure.isReal(Double)")}


def test_typed_patterns_and_lambda_parameters_type_their_names() -> None:
    result = snippet("package p\nobject A {\n"
                     "  def f(c: ACursor): Int = c match {\n"
                     "    case hc: HCursor => hc.keys(); case _ => 0 }\n"
                     "  def g(xs: List[Json]): Unit = xs.map((j: Json) => j.show())\n"
                     "  def h(c: ACursor): Unit = c match { case c: HCursor => c.keys() }\n"
                     "  def i(): Unit = _root_.p.A.g(Nil)\n}\n")
    assert result.var_types["p.A.f"] == {"c": "ACursor", "hc": "HCursor"}
    assert result.var_types["p.A.g"] == {"xs": "List", "j": "Json"}
    assert "c" not in result.var_types.get("p.A.h", {})  # two types of one name: neither
    assert [c.receiver for c in result.calls if c.name == "g"] == [["p", "A"]]


def test_a_package_objects_members_belong_to_its_package() -> None:
    files = {
        "src/main/scala/a/json/package.scala":
            "package a\npackage object json {\n"
            "  def parse(s: String): Doc = Doc(s)\n}\n",
        "src/main/scala/a/Doc.scala":
            "package a\ncase class Doc(s: String) { def show(): String = s }\n",
        "src/main/scala/b/Use.scala":
            "package b\nimport a.json._\nobject Use { def run(): String = parse(\"x\").show() }\n",
    }
    result = snippet(files["src/main/scala/a/json/package.scala"],
                     "src/main/scala/a/json/package.scala")
    assert (result.module, result.package) == ("a.json", "a")
    assert sym(result, "a.json.parse").kind == "FUNCTION"
    assert edges_of(files) >= {("CALLS", "b.Use.run", "a.json.parse"),
                               ("CALLS", "b.Use.run", "a.Doc.show")}


def test_a_type_alias_is_a_class_node_naming_the_type_it_stands_for() -> None:
    result = snippet("package a\n"
                     "package object fx {\n"
                     "  /** A natural transformation. */\n"
                     "  type ~>[F[_], G[_]] = arrow.FunctionK[F, G]\n"
                     "  type Id[A] = A\n"
                     "  object Id { def apply[A](a: A): A = a }\n"
                     "  type ReaderT[F[_], A, B] = Kleisli[F, A, B]\n"
                     "  val ReaderT = Kleisli\n"
                     "  trait Codec { type Out; type Bound <: String; type Items = List[Int]\n"
                     "    def size: Int = { type L = Int; 1 } }\n"
                     "}\n", "src/main/scala/a/fx/package.scala")
    arrow = sym(result, "a.fx.~>")
    assert (arrow.kind, arrow.meta["alias"], arrow.doc_comment) == (
        "CLASS", "arrow.FunctionK[F, G]", "A natural transformation.")
    assert (arrow.line_start, arrow.line_end) == (4, 4)
    assert sym(result, "a.fx.Codec.Items").meta["alias"] == "List[Int]"
    # an object or val of the alias's name keeps the name; abstract and local types are
    # no aliases
    assert sym(result, "a.fx.Id").kind == "OBJECT"
    assert sym(result, "a.fx.ReaderT").kind == "FIELD"
    fqns = {s.fqn for s in result.symbols}
    assert not fqns & {"a.fx.Codec.Out", "a.fx.Codec.Bound", "a.fx.Codec.size.L", "a.fx.L"}
    graph = build_graph([result])
    assert {n.fqn for n in graph.nodes if n.meta.get("alias")} == {"a.fx.~>",
                                                                   "a.fx.Codec.Items"}


def test_a_value_typed_with_an_infix_type_is_of_the_operators_type() -> None:
    """``f: F ~> G`` is a ``~>``, here an alias of ``FunctionK``: ``f(fa)`` is its apply
    and a result declared ``F ~> H`` is one too."""
    edges = edges_of({
        "src/main/scala/p/package.scala":
            "package object p {\n  type ~>[F[_], G[_]] = FunctionK[F, G]\n}\n",
        "src/main/scala/p/FunctionK.scala":
            "package p\ntrait FunctionK[F[_], G[_]] {\n  def apply[A](fa: F[A]): G[A]\n"
            "  def andThen[H[_]](g: G ~> H): F ~> H = ???\n}\n",
        "src/main/scala/p/Box.scala":
            "package p\nfinal case class Box[F[_], A](value: F[A]) {\n"
            "  def mapK[G[_]](f: F ~> G): Box[G, A] = Box(f(value))\n"
            "  def twice[G[_]](f: F ~> G): Unit = f.andThen(f).andThen(f)\n}\n"})
    calls = {(src, dst) for kind, src, dst in edges}
    assert ("p.Box.mapK", "p.FunctionK.apply") in calls
    assert ("p.Box.twice", "p.FunctionK.andThen") in calls
    assert clean_type("Kleisli[F, A, *] ~> Kleisli[G, A, *]", "scala") == "~>"
    # a function type and a compound type are no infix types
    assert clean_type("A => Option[B]", "scala") != "=>"
    assert clean_type("Foo with Bar", "scala") != "with"


def test_chained_package_clauses_see_the_outer_packages_members() -> None:
    """``package p`` then ``package q``: the code sees ``p``'s types and its package
    object's alias unqualified, and ``p``'s subpackages by their relative names; the
    package object's own code sees ``p``'s members too. ``package p.q`` alone does not."""
    files = {
        "src/main/scala/p/package.scala":
            "package object p {\n  type ~>[F[_], G[_]] = arrow.FunctionK[F, G]\n}\n",
        "src/main/scala/p/arrow/FunctionK.scala":
            "package p\npackage arrow\ntrait FunctionK[F[_], G[_]] {\n"
            "  def apply[A](fa: F[A]): G[A]\n}\n",
        "src/main/scala/p/Functor.scala":
            "package p\ntrait Functor[F[_]] {\n  def map[A, B](fa: F[A])(f: A => B): F[B]\n}\n",
        "src/main/scala/p/q/Box.scala":
            "package p\npackage q\n"
            "final case class Box[F[_], A](value: F[A]) {\n"
            "  def mapK[G[_]](f: F ~> G): Box[G, A] = Box(f(value))\n"
            "  def lift[G[_]](f: arrow.FunctionK[F, G]): G[A] = f(value)\n"
            "  def map[B](g: A => B)(implicit F: Functor[F]): Box[F, B] = Box(F.map(value)(g))\n"
            "}\n"
            "class BoxFunctor extends Functor[Option] {\n"
            "  def map[A, B](fa: Option[A])(f: A => B): Option[B] = fa.map(f)\n}\n",
        "src/main/scala/p/q/Flat.scala":
            "package p.q\nclass Flat(F: Functor[Option]) {\n"
            "  def run(): Option[Int] = F.map(Option(1))(_ + 1)\n}\n"}
    edges = edges_of(files, ("CALLS", "IMPLEMENTS", "OVERRIDES"))
    assert {("CALLS", "p.q.Box.mapK", "p.arrow.FunctionK.apply"),
            ("CALLS", "p.q.Box.lift", "p.arrow.FunctionK.apply"),
            ("CALLS", "p.q.Box.map", "p.Functor.map"),
            ("IMPLEMENTS", "p.q.BoxFunctor", "p.Functor"),
            ("OVERRIDES", "p.q.BoxFunctor.map", "p.Functor.map")} <= edges
    # one clause `package p.q` is in `p.q` only: `Functor` is not in scope there
    assert not any(src.startswith("p.q.Flat") for _, src, _ in edges)


def test_a_qualified_super_call_runs_the_named_parents_method() -> None:
    edges = edges_of({"src/main/scala/p/A.scala":
                      "package p\ntrait A { def map(x: Int): Int = x }\n"
                      "trait B { def map(x: Int): Int = x + 1 }\ntrait B2 extends B\n"
                      "trait C extends A with B2 {\n"
                      "  override def map(x: Int): Int = super[B2].map(x)\n}\n"})
    # `super[B2]` is B2's `map`, which it inherits from B; not the first parent's
    assert {(src, dst) for _, src, dst in edges} == {("p.C.map", "p.B.map")}


def test_super_and_inherited_calls_follow_the_linearization() -> None:
    # `extends Loud with Polite` linearizes to Speaker, Polite, Loud, Base: `super.greet`
    # and an inherited `greet` are Polite's, and Speaker's `greet` overrides Polite's
    edges = edges_of({"src/main/scala/p/A.scala":
                      "package p\ntrait Base { def greet(): String = \"base\" }\n"
                      "trait Loud extends Base { override def greet(): String = \"L\" }\n"
                      "trait Polite extends Base { override def greet(): String = \"P\" }\n"
                      "class Speaker extends Loud with Polite {\n"
                      "  override def greet(): String = super.greet()\n}\n"
                      "class Plain extends Loud with Polite { def talk(): String = greet() }\n"},
                     ("CALLS", "OVERRIDES"))
    assert ("CALLS", "p.Speaker.greet", "p.Polite.greet") in edges
    assert ("OVERRIDES", "p.Speaker.greet", "p.Polite.greet") in edges
    assert ("CALLS", "p.Plain.talk", "p.Polite.greet") in edges
    assert not {e for e in edges if e[0] == "CALLS" and e[2] == "p.Loud.greet"}


def test_a_companions_helpers_do_not_shadow_an_inherited_instance_method() -> None:
    # `object Ring extends PowFunctions` merges into the class Ring, but its `pow` is a
    # static helper: `r.pow` on an instance is Semigroup's, two supertypes further up
    edges = edges_of({"src/main/scala/p/A.scala":
                      "package p\ntrait Semigroup[A] { def pow(a: A, n: Int): A = a }\n"
                      "trait Monoid[A] extends Semigroup[A]\n"
                      "trait PowFunctions { def pow[A](a: A, n: Int): A = a }\n"
                      "trait Ring[A] extends Monoid[A]\n"
                      "object Ring extends PowFunctions\n"
                      "object Use {\n  def square[A](r: Ring[A], a: A): A = r.pow(a, 2)\n"
                      "  def helper(a: Int): Int = Ring.pow(a, 2)\n}\n"})
    assert ("CALLS", "p.Use.square", "p.Semigroup.pow") in edges
    assert ("CALLS", "p.Use.helper", "p.PowFunctions.pow") in edges


def test_a_value_given_type_arguments_is_a_call() -> None:
    # cats' summoner `Semigroup[Int]` is `Semigroup.apply[Int]`, an instance; `retag[B]`
    # a polymorphic method called without arguments
    edges = edges_of({"src/main/scala/p/A.scala":
                      "package p\ntrait Semigroup[A] { def combine(x: A, y: A): A = x }\n"
                      "object Semigroup {\n"
                      "  def apply[A](implicit ev: Semigroup[A]): Semigroup[A] = ev\n}\n"
                      "class Box[A](a: A) {\n  def retag[B]: Box[B] = new Box[B](null)\n"
                      "  def size(): Int = 1\n}\n"
                      "object Use {\n  def f(a: Int): Int = Semigroup[Int].combine(a, a)\n"
                      "  def g(b: Box[Int]): Int = b.retag[String].size()\n}\n"})
    assert ("CALLS", "p.Use.f", "p.Semigroup.combine") in edges
    assert ("CALLS", "p.Use.g", "p.Box.size") in edges
