"""Rust extractor against the rust_axum sample and small inline snippets, and the
resolver on snippets of several files (what a Rust user's graph holds)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from graphrag.graph.resolve import build_graph
from graphrag.parsing.languages import rust
from graphrag.parsing.languages.rust import extract, module_path
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles, repo_context

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "rust_axum"


@cache
def sample_context() -> RepoContext:
    return repo_context(SAMPLE, [p.relative_to(SAMPLE).as_posix()
                                 for p in SAMPLE.rglob("*") if p.is_file()])


@cache
def parsed(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, sample_context())


def snippet(code: str, rel: str = "src/lib.rs") -> ParseResult:
    return extract(code.encode(), rel, RepoContext())


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def calls_of(files: dict[str, str]) -> set[tuple[str, str]]:
    """CALLS edges (caller fqn, callee fqn) of a repository made of ``files``."""
    graph = build_graph([extract(code.encode(), rel, RepoContext())
                         for rel, code in files.items()])
    nodes = graph.node_by_key()
    return {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
            if e.kind == "CALLS"}


@pytest.mark.parametrize(("path", "expected"), [
    ("src/main.rs", "crate"),
    ("src/lib.rs", "crate"),
    ("src/store/mod.rs", "crate.store"),
    ("src/store/memory.rs", "crate.store.memory"),
    ("axum-core/src/body.rs", "axum_core.body"),
    ("axum/src/routing/mod.rs", "axum.routing"),
    ("tool/src/bin/gen.rs", "gen"),
    ("tool/src/bin/gen/main.rs", "gen"),
    ("axum/tests/routing.rs", "routing"),
    ("examples/hello-world/src/main.rs", "hello_world"),
    ("build.rs", "build"),
])
def test_module_path(path: str, expected: str) -> None:
    assert module_path(path) == expected


def test_crates_are_named_by_their_manifests(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text("[workspace]\nmembers = ['core-lib', 'app']\n")
    (tmp_path / "core-lib").mkdir()
    (tmp_path / "core-lib" / "Cargo.toml").write_text(
        '[package]\nname = "core-lib"\n\n[lib]\nname = "corelib"\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "Cargo.toml").write_text('[package]\nname = "my-app"\n')
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "Cargo.toml").write_text("[package\nname = ")
    crates = rust.repo_facts(RepoFiles(tmp_path, [
        "Cargo.toml", "core-lib/Cargo.toml", "app/Cargo.toml", "bad/Cargo.toml"]))["crates"]
    assert crates == {"core-lib": "corelib", "app": "my_app"}
    assert module_path("core-lib/src/net/mod.rs", crates) == "corelib.net"
    assert module_path("app/src/main.rs", crates) == "my_app"
    assert module_path("bad/src/lib.rs", crates) == "bad"
    assert sample_context().of("rust")["crates"] == {"": "bookshelf"}


def test_sample_files_parse_cleanly() -> None:
    for path in sorted(SAMPLE.rglob("*.rs")):
        rel = path.relative_to(SAMPLE).as_posix()
        assert parsed(rel).error_count == 0, rel


def test_items_and_their_kinds() -> None:
    models = parsed("src/models.rs")
    assert sym(models, "bookshelf.models.Book").kind == "CLASS"
    assert sym(models, "bookshelf.models.Book.title").kind == "FIELD"
    assert sym(models, "bookshelf.models.Status").kind == "ENUM"
    assert sym(models, "bookshelf.models.Status.Lent").kind == "FIELD"  # a variant
    label = sym(models, "bookshelf.models.Status.label")
    assert label.kind == "METHOD" and label.parent == "bookshelf.models.Status"
    assert label.doc_comment == "A short label for listings."
    assert label.meta["static"] is False
    assert sym(models, "bookshelf.models.require_text").kind == "FUNCTION"
    store = parsed("src/store/mod.rs")
    trait = sym(store, "bookshelf.store.Store")
    assert trait.kind == "INTERFACE" and trait.signature == "pub trait Store: Send + Sync"
    assert sym(store, "bookshelf.store.Store.count").parent == "bookshelf.store.Store"
    memory = parsed("src/store/memory.rs")
    assert sym(memory, "bookshelf.store.memory.trace_op!").meta == {"macro": True}
    tests = sym(memory, "bookshelf.store.memory.tests")
    assert tests.kind == "OBJECT" and tests.meta["namespace"]
    assert sym(memory, "bookshelf.store.memory.tests.fixture").parent == tests.fqn
    # `impl Store for MemoryStore` attaches its methods to the struct
    books = [s for s in memory.symbols if s.fqn == "bookshelf.store.memory.MemoryStore.books"]
    # a field and a method may share a name (Rust keeps them apart)
    owner = "bookshelf.store.memory.MemoryStore"
    assert {(s.kind, s.parent) for s in books} == {("FIELD", owner), ("METHOD", owner)}
    assert [(h.cls, h.base, h.relation) for h in memory.heritage] == [
        ("bookshelf.store.memory.MemoryStore", "Store", "implements")]


def test_imports_are_absolute_module_paths() -> None:
    imports = {(i.alias, i.target) for i in snippet(
        "mod util;\n"
        "use crate::a::{B, c::D as E, self};\n"
        "use super::x::*;\n"
        "use std::collections::HashMap;\n"
        "use util::helper;\n", "src/net/mod.rs").imports}
    assert imports == {
        ("util", "crate.net.util"), ("B", "crate.a.B"), ("E", "crate.a.c.D"),
        ("a", "crate.a"), ("*", "crate.x"), ("HashMap", "std.collections.HashMap"),
        ("helper", "crate.net.util.helper")}
    # `mod x;` in a file that is no crate root nor `mod.rs` names its own directory
    assert [(i.alias, i.target) for i in snippet("mod inner;", "src/net.rs").imports] == [
        ("inner", "crate.net.inner")]


def test_declared_types_read_through_references_wrappers_and_generics() -> None:
    result = snippet(
        "use std::sync::Arc;\n"
        "struct Svc<S: Store> { store: S, cache: Arc<Cache>, all: Vec<Item> }\n"
        "impl<S: Store> Svc<S> {\n"
        "    fn run(&self, r: &mut Repo, d: Box<dyn Sink>, i: impl Source) -> Self {\n"
        "        let a = Repo::open()?;\n"
        "        let b: Option<Item> = None;\n"
        "        let c = Cache { size: 1 };\n"
        "        let d2 = Self::default();\n"
        "        for item in &self.all {}\n"
        "        todo!()\n"
        "    }\n"
        "}\n")
    assert result.var_types["crate.Svc"] == {"store": "Store", "cache": "Cache",
                                             "all": "Vec<Item>"}
    run = result.var_types["crate.Svc.run"]
    assert run == {"r": "Repo", "d": "Sink", "i": "Source", "a": "=call:Repo.open",
                   "b": "Item", "c": "Cache", "d2": "crate.Svc", "item": "=iter:self.all"}
    assert sym(result, "crate.Svc.run").meta["return_type"] == "crate.Svc"


def test_some_and_ok_of_a_call_bind_what_it_returns() -> None:
    result = snippet("fn f() { if let Some(u) = self.find(1) { u.go(); }\n"
                     "    match repo.load()? { Ok(v) => v.run(), Err(e) => {} }\n"
                     "    let Some(w) = Repo::one() else { return };\n"
                     "    if let Some(k) = maybe { k.go(); } }\n")
    assert result.var_types["crate.f"] == {"u": "=call:self.find", "v": "=call:repo.load",
                                           "e": "_", "w": "=call:Repo.one", "k": "_"}


def test_shadowing_with_another_type_is_not_followed() -> None:
    result = snippet("fn f() { let x = Repo::open(); let x = x.into_stream(); x.next(); }")
    assert result.var_types["crate.f"]["x"] == "_"


def test_calls_through_self_paths_and_macros() -> None:
    result = snippet(
        "impl Foo {\n"
        "    fn a(&self) { self.b(); Self::c(); crate::util::d(); super::e(); x.f()?.g(); }\n"
        "    fn t(&self) { assert_eq!(helper(1), self.b()); my_macro!(1); }\n"
        "    fn g<T: Parse<u8>>(&self) { T::parse(); }\n"
        "}\n", "src/m/mod.rs")
    calls = {(c.caller, tuple(c.receiver or ()), c.name) for c in result.calls}
    assert calls == {
        ("crate.m.Foo.a", ("self",), "b"), ("crate.m.Foo.a", ("crate", "m", "Foo"), "c"),
        ("crate.m.Foo.a", ("crate", "util"), "d"), ("crate.m.Foo.a", ("crate",), "e"),
        ("crate.m.Foo.a", ("x",), "f"), ("crate.m.Foo.a", ("x", "f()"), "g"),
        ("crate.m.Foo.t", (), "helper"), ("crate.m.Foo.t", ("self",), "b"),
        ("crate.m.Foo.t", (), "my_macro!"), ("crate.m.Foo.g", ("Parse",), "parse")}


def test_axum_and_actix_routes() -> None:
    routes = parsed("src/routes.rs")
    regs = {(r.http_method, r.route, r.handler_name, r.router) for r in routes.registrations}
    assert regs == {
        ("GET", "/health", None, "app"), ("USE", "/api", "api_routes", "app"),
        ("GET", "/books", "list_books", "api_routes"),
        ("POST", "/books", "add_book", "api_routes"),
        ("GET", "/books/:id", "get_book", "api_routes"),
        ("DELETE", "/books/:id", "remove_book", "api_routes"),
        ("USE", "/loans", "loan_routes", "api_routes")}
    health = sym(routes, "bookshelf.routes.GET /health")
    assert health.kind == "ENDPOINT" and health.parent == "bookshelf.routes.app"
    actix = snippet(
        '#[get("/users/{id}")]\nasync fn user() {}\n'
        '#[route("/x", method = "GET", method = "POST")]\nasync fn both() {}\n'
        'fn config(cfg: &mut web::ServiceConfig) {\n'
        '    cfg.service(web::scope("/api")\n'
        '        .service(web::resource("/items").route(web::get().to(list_items)))\n'
        '        .route("/ping", web::post().to(ping)));\n'
        '}\n')
    assert (sym(actix, "crate.user").kind, sym(actix, "crate.user").meta["route"]) == \
        ("ENDPOINT", "/users/{id}")
    assert sym(actix, "crate.both").meta["http_method"] == "GET,POST"
    assert {(r.http_method, r.route, r.handler_name) for r in actix.registrations} == {
        ("GET", "/api/items", "list_items"), ("POST", "/api/ping", "ping")}


def test_nested_routers_are_prefixed_where_they_are_built() -> None:
    result = snippet(
        'fn app() -> Router {\n'
        '    Router::new().nest("/api", Router::new().route("/users", get(users)))\n'
        '        .merge(admin::routes())\n'
        '}\n')
    regs = {(r.http_method, r.route, r.handler_name) for r in result.registrations}
    assert regs == {("GET", "/api/users", "users"), ("USE", "", "routes")}


def test_trait_methods_reach_implementations_across_files() -> None:
    files = {
        "src/lib.rs": "pub mod store;\npub mod svc;\n",
        "src/store.rs": (
            "pub trait Store { fn get(&self) -> u8; fn all(&self) -> u8 { self.get() } }\n"
            "pub struct Mem;\n"
            "impl Mem { pub fn new() -> Self { Mem } }\n"
            "impl Store for Mem { fn get(&self) -> u8 { 1 } }\n"),
        "src/svc.rs": (
            "use crate::store::{Mem, Store};\n"
            "pub struct Svc<S: Store> { store: S }\n"
            "impl<S: Store> Svc<S> { pub fn run(&self) -> u8 { self.store.get() } }\n"
            "pub fn make() -> u8 { let m = Mem::new(); m.get(); m.all() }\n"),
    }
    assert calls_of(files) == {
        ("crate.store.Store.all", "crate.store.Store.get"),
        ("crate.svc.Svc.run", "crate.store.Store.get"),
        ("crate.svc.make", "crate.store.Mem.new"),
        ("crate.svc.make", "crate.store.Mem.get"),
        ("crate.svc.make", "crate.store.Store.all"),  # a default method, inherited
    }


def test_two_impls_of_one_generic_trait_name_no_single_method() -> None:
    files = {"src/lib.rs": (
        "pub struct Body;\n"
        "impl From<String> for Body { fn from(s: String) -> Self { Body } }\n"
        "impl From<Vec<u8>> for Body { fn from(v: Vec<u8>) -> Self { Body } }\n"
        "impl Body { pub fn empty() -> Self { Body } }\n"
        "impl std::fmt::Display for Body { fn fmt(&self) {} }\n"
        "impl std::fmt::Debug for Body { fn fmt(&self) {} }\n"
        "pub struct Other;\n"
        "impl From<()> for Other { fn from(_: ()) -> Self { Other } }\n"
        "fn f() { Body::from(String::new()); Body::empty(); Other::from(\"x\"); }\n")}
    result = snippet(files["src/lib.rs"])
    # one `From` impl in the file may be one of many (a macro writes the others)
    assert {s.name for s in result.symbols if s.kind == "METHOD"} == {
        "from<From<String>>", "from<From<Vec<u8>>>", "empty", "fmt<Display>", "fmt<Debug>",
        "from<From<()>>"}
    assert calls_of(files) == {("crate.f", "crate.Body.empty")}


def test_a_method_two_repository_traits_give_a_type_is_no_guess_between_them() -> None:
    files = {"src/lib.rs": (
        "pub trait FromRequest { fn from_request() -> Self; }\n"
        "pub trait OptionalFromRequest { fn from_request() -> Option<Self>; }\n"
        "pub struct Json;\n"
        "impl FromRequest for Json { fn from_request() -> Self { Json } }\n"
        "impl OptionalFromRequest for Json { fn from_request() -> Option<Self> { None } }\n"
        "fn f() { Json::from_request(); }\n"
        "fn g<T: FromRequest>() { T::from_request(); }\n")}
    shadow = sym(snippet(files["src/lib.rs"]), "crate.Json.from_request")
    assert shadow.kind == "FIELD" and shadow.meta["ambiguous_methods"] == [
        "crate.Json.from_request<FromRequest>", "crate.Json.from_request<OptionalFromRequest>"]
    # through a bound the trait is known; through the type it is not
    assert calls_of(files) == {("crate.g", "crate.FromRequest.from_request")}


def test_macro_heavy_and_broken_code_still_yields_the_rest() -> None:
    code = (
        "macro_rules! gen { ($($n:ident),*) => { $(fn $n() {})* }; }\n"
        "gen!(a, b, c);\n"
        "impl Foo { fn broken(&self) { let x = ; self.ok(); } }\n"
        "fn after() { quote! { fn inside() { not_a_call() } } }\n")
    result = snippet(code)
    assert {"crate.gen!", "crate.after"} <= {s.fqn for s in result.symbols}
    assert result.error_count >= 1
    # tokens of a code-generating macro are no calls
    assert "not_a_call" not in {c.name for c in result.calls}


def test_crate_names_follow_the_manifest_and_pub_use_publishes(tmp_path: Path, engine,
                                                                app_name: str) -> None:
    """Cargo.toml is read for the crate's name: editing it re-parses the crate's files
    (an incremental run follows, as a full one would); a ``pub use`` names the symbol
    by its public path."""
    from sqlalchemy import text

    from graphrag.config import load_settings
    from graphrag.graph.index import index_graph
    from graphrag.graph.lookup import resolve_name

    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text('[package]\nname = "shelf"\n')
    (repo / "src" / "lib.rs").write_text("pub mod util;\npub fn run() { util::helper(); }\n")
    (repo / "src" / "util.rs").write_text("pub fn helper() {}\n")
    settings = load_settings().with_overrides(workers=1)

    def calls() -> set[tuple[str, str]]:
        with engine.connect() as conn:
            return {tuple(r) for r in conn.execute(text(
                "SELECT s.fqn, d.fqn FROM edges e JOIN nodes s ON s.id = e.src_id"
                " JOIN nodes d ON d.id = e.dst_id JOIN applications a"
                " ON a.id = e.application_id WHERE a.name = :n AND e.kind = 'CALLS'"),
                {"n": app_name})}

    index_graph(engine, settings, repo, app_name)
    assert calls() == {("shelf.run", "shelf.util.helper")}
    # `pub use util::helper;` publishes shelf.helper: the name lookup follows it
    (repo / "src" / "lib.rs").write_text(
        "pub mod util;\npub use util::helper;\npub fn run() { util::helper(); }\n")
    index_graph(engine, settings, repo, app_name)
    with engine.connect() as conn:
        app_id = conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                              {"n": app_name}).scalar_one()
        found = resolve_name(conn, app_id, "shelf.helper")
        fqns = conn.execute(text("SELECT fqn FROM nodes WHERE id = ANY(:ids)"),
                            {"ids": found}).scalars().all()
    assert fqns == ["shelf.util.helper"]
    (repo / "Cargo.toml").write_text('[package]\nname = "book-shelf"\n')
    stats = index_graph(engine, settings, repo, app_name)
    assert stats.files_parsed == 2  # the manifest changed: every file of the crate
    assert calls() == {("book_shelf.run", "book_shelf.util.helper")}


def test_pub_use_marks_the_names_a_module_publishes() -> None:
    result = snippet("pub use other::extract::{FromRequest, Json as JsonBody};\n"
                     "pub(crate) use other::Inner;\nuse other::Private;\n"
                     "pub use other::prelude::*;\nfn f() { pub use other::Local; }\n")
    exported = {i.alias: i.exported for i in result.imports if i.alias[0].isupper()
                or i.alias == "*"}
    assert exported == {"FromRequest": True, "JsonBody": True, "Inner": False,
                        "Private": False, "*": False, "Local": False}


def test_a_modules_inner_docs_and_included_markdown_are_its_files_doc(tmp_path: Path
                                                                        ) -> None:
    """rustdoc shows a module's ``//!`` comments and ``#![doc = ...]`` attributes, an
    ``include_str!`` of a Markdown file by its text: the file gets that doc."""
    (tmp_path / "web" / "src" / "docs").mkdir(parents=True)
    (tmp_path / "web" / "Cargo.toml").write_text('[package]\nname = "web"\n')
    (tmp_path / "web" / "src" / "docs" / "layers.md").write_text(
        "# Layers\n\nEvery router wraps its routes in tower layers.\n" + "more\n" * 1000)
    (tmp_path / "web" / "src" / "lib.rs").write_text("pub mod middleware;\n")
    (tmp_path / "README.md").write_text("# not in a crate's source tree\n")
    # the scan lists source and manifest files only: the Markdown is found on disk
    ctx = repo_context(tmp_path, ["web/Cargo.toml", "web/src/lib.rs"])
    assert set(ctx.of("rust")["docs"]) == {"web/src/docs/layers.md"}
    code = ('//! Utilities for writing middleware\n//!\n'
            '#![doc = include_str!("../docs/layers.md")]\n#![allow(dead_code)]\n'
            '#![doc = "Literal text."]\n/*! Block text. */\n\n'
            'mod from_fn;\n//! not at the top: still the module\'s\n')
    doc = extract(code.encode(), "web/src/middleware/mod.rs", ctx).doc
    assert doc is not None
    assert doc.startswith("Utilities for writing middleware\n\n# Layers\n\nEvery router")
    assert "Literal text." in doc and "Block text." in doc
    assert len(doc) < 2500  # the included file's opening, not all of it
    assert extract(b"/// an item's doc\nfn f() {}\n", "web/src/a.rs", ctx).doc is None


def test_editing_an_included_doc_refreshes_its_modules_doc(tmp_path: Path, engine,
                                                          app_name: str) -> None:
    """The Markdown a module includes is a repository fact: editing it re-parses, and
    the module's FILE node carries the new text (an incremental run as a full one)."""
    from sqlalchemy import text

    from graphrag.config import load_settings
    from graphrag.graph.index import index_graph

    repo = tmp_path / "repo"
    (repo / "src" / "docs").mkdir(parents=True)
    (repo / "Cargo.toml").write_text('[package]\nname = "shelf"\n')
    (repo / "src" / "lib.rs").write_text('#![doc = include_str!("docs/intro.md")]\n'
                                         "pub fn run() {}\n")
    (repo / "src" / "docs" / "intro.md").write_text("Shelves of books.\n")
    settings = load_settings().with_overrides(workers=1)

    def doc() -> str | None:
        with engine.connect() as conn:
            return conn.execute(text(
                "SELECT n.doc_comment FROM nodes n JOIN applications a"
                " ON a.id = n.application_id WHERE a.name = :n AND n.kind = 'FILE'"),
                {"n": app_name}).scalar_one()

    index_graph(engine, settings, repo, app_name)
    assert doc() == "Shelves of books."
    (repo / "src" / "docs" / "intro.md").write_text("Racks of records.\n")
    stats = index_graph(engine, settings, repo, app_name)
    assert stats.files_parsed == 1 and doc() == "Racks of records."


def test_a_method_router_merging_another_inside_a_route_keeps_its_routes() -> None:
    """axum's own tests write `.route("/", get(ok).post(ok).merge(other).put(ok))`: the
    `merge` inside the route's method router is looked at for a prefix; it once stopped
    the file's parse (IndexError) and lost every symbol of it."""
    found = snippet(
        'fn app() -> Router {\n'
        '    Router::new().route(\n'
        '        "/",\n'
        '        get(ok)\n'
        '            .post(ok)\n'
        '            .merge(delete_service(ServeDir::new(".")))\n'
        '            .put(ok),\n'
        '    )\n'
        '}\n'
        'async fn ok() {}\n')
    # the methods after the merge are read (those before it are not, as before the
    # route frameworks were their own modules)
    assert ("PUT", "/", "ok") in {(r.http_method, r.route, r.handler_name)
                                  for r in found.registrations}
    assert sym(found, "crate.ok").kind == "FUNCTION"
