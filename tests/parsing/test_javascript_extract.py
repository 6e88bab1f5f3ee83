"""JavaScript extractor: CommonJS, ES classes, JSDoc types, Express routers."""

from __future__ import annotations

from pathlib import Path

from graphrag.parsing.languages.javascript import extract
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "js_express"


def parse(source: str, path: str = "src/a.js") -> ParseResult:
    return extract(source.encode(), path, RepoContext())


def sample(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, RepoContext())


def symbol(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert matches, f"{fqn} not in {[s.fqn for s in result.symbols]}"
    return matches[0]


def test_classes_fields_and_jsdoc_types() -> None:
    result = parse("""\
const { Store } = require('./store');

/** Keeps books. */
class BookRepo extends Store {
  static table = 'books';
  #cache = new Map();

  /**
   * @param {Database} db connection
   * @param {number} ttl seconds
   */
  constructor(db, ttl = 60, clock = new Clock()) {
    super(db);
    this.db = db;
    this.clock = clock;
  }

  /** @returns {Book[]} every book */
  all() { return this.db.query('select * from books'); }
}
module.exports = BookRepo;
""", "lib/bookRepo.js")
    assert result.module == "lib/bookRepo"
    cls = symbol(result, "lib/bookRepo:BookRepo")
    assert cls.kind == "CLASS" and cls.doc_comment == "Keeps books."
    assert cls.meta["export_default"] is True
    ctor = symbol(result, "lib/bookRepo:BookRepo.constructor")
    assert ctor.kind == "CONSTRUCTOR"
    assert ctor.meta["params"] == [["db", "Database"], ["ttl", "number"], ["clock", "Clock"]]
    assert symbol(result, "lib/bookRepo:BookRepo.all").meta["return_type"] == "Book[]"
    kinds = {s.fqn: s.kind for s in result.symbols}
    assert kinds["lib/bookRepo:BookRepo.table"] == "FIELD"
    assert kinds["lib/bookRepo:BookRepo.#cache"] == "FIELD"
    assert kinds["lib/bookRepo:BookRepo.db"] == "FIELD"     # assigned in the constructor
    assert result.var_types["lib/bookRepo:BookRepo"] == {
        "#cache": "Map", "db": "Database", "clock": "Clock"}
    assert [(h.base, h.relation) for h in result.heritage] == [("Store", "extends")]
    assert ("query", ["this", "db"]) in [(c.name, c.receiver) for c in result.calls]
    assert ("Store", "lib/store:Store") in [(i.alias, i.target) for i in result.imports]


def test_commonjs_function_exports() -> None:
    result = parse("""\
/** Lists things. */
exports.list = (req, res) => { res.json(service.list()); };
module.exports.show = function show(req, res) { helper(); };
function helper() {}
""")
    assert {s.fqn: s.kind for s in result.symbols} == {
        "src/a:list": "FUNCTION", "src/a:show": "FUNCTION", "src/a:helper": "FUNCTION"}
    assert symbol(result, "src/a:list").doc_comment == "Lists things."
    assert [(c.caller, c.name) for c in result.calls if c.name == "helper"] == [
        ("src/a:show", "helper")]


def test_require_forms_and_router_registrations() -> None:
    result = parse("""\
const express = require('express');
const books = require('../controllers/books');
const { requireKey: auth } = require('../middleware/auth');
const router = express.Router();

router.get('/', books.list);
router.post('/', auth, books.create);
router.get('/:id', controller.show.bind(controller));
router.all('/ping', function ping(req, res) { res.send(pong()); });

module.exports = router;
""", "src/routes/books.js")
    assert {(i.alias, i.target) for i in result.imports} == {
        ("express", "express"), ("books", "src/controllers/books"),
        ("auth", "src/middleware/auth:requireKey")}
    regs = [(r.http_method, r.route, r.handler_name, r.handler_receiver, r.inline_fqn)
            for r in result.registrations]
    assert regs == [
        ("GET", "/", "list", ["books"], None),
        ("POST", "/", "create", ["books"], None),
        ("GET", "/:id", "show", ["controller"], None),
        ("ANY", "/ping", None, None, "src/routes/books:ANY /ping"),
    ]
    endpoint = symbol(result, "src/routes/books:ANY /ping")
    assert endpoint.kind == "ENDPOINT" and endpoint.meta["http_method"] == "ANY"
    assert [c.name for c in result.calls if c.caller == endpoint.fqn] == ["send", "pong"]
    refs = [(c.name, c.receiver) for c in result.calls if c.kind == "ref"]
    assert refs == [("list", ["books"]), ("auth", None), ("create", ["books"]),
                    ("show", ["controller"])]
    assert result.var_types["src/routes/books.js"] == {"router": "=call:express.Router"}


def test_sample_services_and_routes() -> None:
    service = sample("src/services/bookService.js")
    assert service.error_count == 0
    assert service.var_types["src/services/bookService:BookService"] == {
        "books": "BookStore", "authors": "AuthorStore"}
    add = symbol(service, "src/services/bookService:BookService.add")
    assert add.doc_comment.startswith("Adds a book for an existing author")
    assert ("put", ["this", "books"]) in [
        (c.name, c.receiver) for c in service.calls if c.caller == add.fqn]
    routes = sample("src/routes/authors.js")
    assert routes.var_types["src/routes/authors.js"]["controller"] == "AuthorsController"
    assert symbol(routes, "src/routes/authors:GET /meta/ping").line_start == 13
    app = sample("src/app.js")
    assert [(r.http_method, r.route, r.handler_name) for r in app.registrations] == [
        ("USE", "/books", "bookRoutes"), ("USE", "/authors", "authorRoutes")]


def test_non_ascii_offsets_in_sample() -> None:
    source = (SAMPLE / "src/lib/slug.js").read_bytes()
    text = source.decode()
    simplify = symbol(sample("src/lib/slug.js"), "src/lib/slug:simplify")
    assert text[simplify.char_start:simplify.char_end].startswith("function simplify(text)")


def test_syntax_error_partial() -> None:
    result = parse("function ok() { run(); }\nfunction broken( {\n")
    assert result.error_count > 0
    assert symbol(result, "src/a:ok").kind == "FUNCTION"


def test_route_chains_and_router_of_each_route() -> None:
    """``router.route('/x').get(h).post(h2)``: one route per verb; every route and mount
    names the router at the top of the file's local mounts."""
    result = parse(
        "const express = require('express');\n"
        "const { items } = require('./items');\n"
        "const app = express();\n"
        "const api = express.Router();\n"
        "function show(req, res) {}\n"
        "api.route('/things/:id').get(show).put((req, res) => {}).delete(show);\n"
        "api.use('/items', items);\n"
        "app.use('/api', api);\n")
    assert {(r.http_method, r.route, r.handler_name, r.router)
            for r in result.registrations} == {
        ("GET", "/api/things/:id", "show", "app"),
        ("PUT", "/api/things/:id", None, "app"),
        ("DELETE", "/api/things/:id", "show", "app"),
        ("USE", "/api/items", "items", "app"),
    }


def test_prototype_assignments_make_a_constructor_function_a_class() -> None:
    result = parse(
        "function Cart(owner) { this.owner = owner; }\n"
        "Cart.prototype.add = function (item) { return this.count(); };\n"
        "Other.prototype.x = function () {};\n"
        "function plain() {}\n")
    kinds = {s.fqn: (s.kind, s.parent) for s in result.symbols}
    assert kinds == {
        "src/a:Cart": ("CLASS", None),
        "src/a:Cart.constructor": ("CONSTRUCTOR", "src/a:Cart"),
        "src/a:Cart.owner": ("FIELD", "src/a:Cart"),
        "src/a:Cart.add": ("METHOD", "src/a:Cart"),
        "src/a:plain": ("FUNCTION", None)}
    assert [(c.caller, c.name, c.receiver) for c in result.calls] == [
        ("src/a:Cart.add", "count", ["this"])]
