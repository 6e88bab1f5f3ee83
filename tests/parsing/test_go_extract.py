"""Go extractor against the go_shop sample and small inline snippets."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from graphrag.parsing.languages.go import clean_type, extract, package_path
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.routes.go import parse_pattern

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "go_shop"
CTX = RepoContext({"go": {"": "example.com/goshop"}})
STORE = "example.com/goshop/internal/store"
SERVICE = "example.com/goshop/internal/service"
HANDLERS = "example.com/goshop/internal/handlers"
MAIN = "example.com/goshop/cmd/server"


@cache
def parsed(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, CTX)


def snippet(code: str, rel: str = "pkg/x.go") -> ParseResult:
    return extract(code.encode(), rel, RepoContext({"go": {"": "example.com/m"}}))


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def line_of(rel: str, needle: str) -> int:
    lines = (SAMPLE / rel).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if needle in text)


@pytest.mark.parametrize(("path", "modules", "expected"), [
    ("internal/store/store.go", {"": "example.com/goshop"}, STORE),
    ("main.go", {"": "example.com/goshop"}, "example.com/goshop"),
    ("tools/gen/main.go", {"": "example.com/a", "tools": "example.com/tools"},
     "example.com/tools/gen"),
    ("toolsx/main.go", {"": "example.com/a", "tools": "example.com/tools"},
     "example.com/a/toolsx"),
    ("lib/util/u.go", {}, "lib/util"),
])
def test_package_path(path: str, modules: dict[str, str], expected: str) -> None:
    assert package_path(path, RepoContext({"go": modules})) == expected


def test_sample_files_parse_cleanly() -> None:
    for path in sorted(SAMPLE.rglob("*.go")):
        rel = path.relative_to(SAMPLE).as_posix()
        result = parsed(rel)
        assert result.error_count == 0, rel
        assert result.package == result.module
        assert ParseResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_types_interfaces_and_fields() -> None:
    rel = "internal/store/store.go"
    result = parsed(rel)
    product = sym(result, f"{STORE}.Product")
    assert (product.kind, product.signature) == ("CLASS", "type Product struct")
    assert product.line_start == line_of(rel, "type Product struct")
    field = sym(result, f"{STORE}.Product.PriceCents")
    assert (field.kind, field.parent, field.signature) == (
        "FIELD", product.fqn, "PriceCents int")
    reader = sym(result, f"{STORE}.ProductReader")
    assert reader.kind == "INTERFACE"
    get = sym(result, f"{STORE}.ProductReader.GetProduct")
    assert (get.kind, get.parent) == ("METHOD", reader.fqn)
    assert get.signature == "GetProduct(id int) (Product, error)"
    assert get.meta["params"] == [["id", "int"]]
    assert get.doc_comment == "GetProduct returns the product with id or ErrNotFound."


def test_functions_methods_and_signatures() -> None:
    rel = "internal/handlers/handlers.go"
    result = parsed(rel)
    ctor = sym(result, f"{HANDLERS}.NewHandler")
    assert (ctor.kind, ctor.meta["return_type"]) == ("FUNCTION", "*Handler")
    assert ctor.meta["params"][0] == ["catalog", "*service.CatalogService"]
    method = sym(result, f"{HANDLERS}.Handler.listProducts")
    assert (method.kind, method.parent) == ("METHOD", f"{HANDLERS}.Handler")
    assert method.signature == \
        "func (h *Handler) listProducts(w http.ResponseWriter, r *http.Request)"
    assert method.meta["receiver"] == "Handler"
    assert method.line_start == line_of(rel, "func (h *Handler) listProducts")


def test_method_of_type_declared_in_another_file() -> None:
    result = snippet("package x\n\nfunc (s *Server) Start() error { return nil }\n")
    start = sym(result, "example.com/m/pkg.Server.Start")
    assert (start.kind, start.parent) == ("METHOD", "example.com/m/pkg.Server")


def test_doc_comments() -> None:
    store = parsed("internal/store/store.go")
    assert sym(store, f"{STORE}.Product").doc_comment == \
        "Product is an item of the catalog. Prices are kept in cents."
    assert sym(store, f"{STORE}.Order.TotalCents").doc_comment == \
        "computed by the order service"
    memory = parsed("internal/store/memory.go")
    assert sym(memory, f"{STORE}.memBase").doc_comment == (
        "memBase holds what every in-memory store needs: a lock and an ID sequence.\n"
        "It is embedded, so its methods are promoted to the stores.")
    # a blank line between comment and declaration breaks the association
    detached = snippet("package x\n\n// Stray note.\n\nfunc F() {}\n")
    assert sym(detached, "example.com/m/pkg.F").doc_comment is None
    block = snippet("package x\n\n/*\n * Block doc.\n */\nfunc G() {}\n")
    assert sym(block, "example.com/m/pkg.G").doc_comment == "Block doc."


def test_imports() -> None:
    imports = {i.alias: i.target for i in parsed("cmd/server/main.go").imports}
    assert imports["http"] == "net/http"
    assert imports["store"] == STORE
    assert imports["handlers"] == HANDLERS
    aliased = snippet('package x\n\nimport (\n\tst "example.com/m/store"\n\t. "fmt"\n'
                      '\t_ "embed"\n)\n')
    assert [(i.alias, i.target) for i in aliased.imports] == [
        ("st", "example.com/m/store"), ("*", "fmt"), ("_", "embed")]


def test_registrations_and_handler_references() -> None:
    rel = "internal/handlers/handlers.go"
    result = parsed(rel)
    regs = {(r.http_method, r.route): r for r in result.registrations}
    listing = regs[("GET", "/products")]
    assert (listing.handler_name, listing.handler_receiver) == ("listProducts", ["h"])
    assert listing.caller == f"{HANDLERS}.Handler.Register"
    assert regs[("GET", "/products/{id}")].handler_name == "getProduct"
    assert regs[("ANY", "/metrics")].handler_name == "metrics"  # http.HandlerFunc unwrapped
    refs = {(c.caller, c.name, c.line) for c in result.calls if c.kind == "ref"}
    assert (f"{HANDLERS}.Handler.Register", "placeOrder",
            line_of(rel, '"POST /orders"')) in refs
    main = parsed("cmd/server/main.go")
    assert [(r.http_method, r.route, r.handler_name) for r in main.registrations] == [
        ("ANY", "/version", "versionHandler")]


def test_inline_handler_becomes_endpoint() -> None:
    rel = "internal/handlers/handlers.go"
    result = parsed(rel)
    fqn = f"{HANDLERS}.GET /healthz"
    endpoint = sym(result, fqn)
    assert endpoint.kind == "ENDPOINT"
    assert (endpoint.meta["http_method"], endpoint.meta["route"]) == ("GET", "/healthz")
    assert endpoint.parent == f"{HANDLERS}.Handler.Register"
    assert endpoint.doc_comment == "Liveness probe for the load balancer."
    reg = next(r for r in result.registrations if r.route == "/healthz")
    assert reg.inline_fqn == fqn and reg.handler_name is None
    inner = [c for c in result.calls if c.caller == fqn]
    assert [(c.name, c.receiver) for c in inner] == [("writeJSON", None)]
    assert result.var_types[fqn] == {"w": "http.ResponseWriter", "r": "http.Request"}


def test_calls_and_receiver_chains() -> None:
    rel = "internal/service/orders.go"
    calls = [(c.caller, c.name, c.receiver, c.line) for c in parsed(rel).calls]
    place = f"{SERVICE}.OrderService.Place"
    assert (place, "Get", ["s", "catalog"], line_of(rel, "s.catalog.Get(")) in calls
    assert (place, "NewOrder", ["store"], line_of(rel, "store.NewOrder(")) in calls
    assert not any(name == "len" for _, name, _, _ in calls)  # builtins are skipped
    handlers = parsed("internal/handlers/handlers.go").calls
    query = next(c for c in handlers if c.name == "Get" and c.caller.endswith("listOrders"))
    assert query.receiver == ["?"]  # r.URL.Query().Get: a call result


def test_heritage() -> None:
    memory = {(h.cls, h.base, h.relation) for h in parsed("internal/store/memory.go").heritage}
    assert memory == {(f"{STORE}.MemoryProductStore", "memBase", "embeds"),
                      (f"{STORE}.MemoryOrderStore", "memBase", "embeds")}
    store = {(h.cls, h.base, h.relation) for h in parsed("internal/store/store.go").heritage}
    assert store == {(f"{STORE}.ProductStore", "ProductReader", "extends")}
    external = parsed("internal/handlers/middleware.go").heritage
    assert [(h.base, h.relation) for h in external] == [("http.ResponseWriter", "embeds")]


def test_var_types() -> None:
    handlers = parsed("internal/handlers/handlers.go").var_types
    assert handlers[f"{HANDLERS}.Handler"] == {
        "catalog": "service.CatalogService", "orders": "service.OrderService",
        "logger": "log.Logger"}
    assert handlers[f"{HANDLERS}.Handler.getProduct"]["h"] == "Handler"
    assert handlers[f"{HANDLERS}.Handler.getProduct"]["p"] == "=call:h.catalog.Get"
    assert handlers[f"{HANDLERS}.Handler.createProduct"]["req"] == "createProductRequest"
    main = parsed("cmd/server/main.go").var_types[f"{MAIN}.main"]
    assert main["h"] == "=call:handlers.NewHandler"
    assert main["products"] == "=call:store.NewMemoryProductStore"
    assert main["srv"] == "http.Server"
    middleware = parsed("internal/handlers/middleware.go").var_types
    assert middleware[f"{HANDLERS}.WithLogging"]["rec"] == "statusRecorder"
    assert middleware[f"{HANDLERS}.statusRecorder"]["ResponseWriter"] == "http.ResponseWriter"
    memory = parsed("internal/store/memory.go").var_types
    # a slice keeps its `[]` (the resolver types `out[i]` and a `range` over it)
    assert memory[f"{STORE}.MemoryOrderStore.OrdersFor"]["out"] == "[]Order"
    assert parsed("internal/store/store.go").var_types[STORE]["ErrNotFound"] == \
        "=call:errors.New"


def test_syntax_errors_keep_what_parsed() -> None:
    result = snippet(
        "package x\n\n"
        "// Good is fine.\n"
        "func Good() int { return 1 }\n\n"
        "func Broken( {\n\n"
        "type T struct {\n\tName string\n}\n"
    )
    assert result.error_count > 0
    assert sym(result, "example.com/m/pkg.Good").doc_comment == "Good is fine."
    assert sym(result, "example.com/m/pkg.T.Name").kind == "FIELD"


def test_non_ascii_char_offsets() -> None:
    code = "package x\n\n// Grüße aus Köln — ünïcode.\nfunc Hallo() string { return \"é\" }\n"
    result = snippet(code)
    hallo = sym(result, "example.com/m/pkg.Hallo")
    assert hallo.char_start == code.index("func Hallo")
    assert hallo.char_end == len(code.rstrip("\n"))
    assert hallo.doc_comment == "Grüße aus Köln — ünïcode."


@pytest.mark.parametrize(("pattern", "expected"), [
    ("GET /products/{id}", ("GET", "/products/{id}")),
    ("/metrics", ("ANY", "/metrics")),
    ("POST example.com/x", ("POST", "/x")),
])
def test_parse_pattern(pattern: str, expected: tuple[str, str]) -> None:
    assert parse_pattern(pattern) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("*store.Store", "store.Store"),
    ("[]*Product", "Product"),
    ("Box[T]", "Box"),
    ("map[string]int", None),
    ("func()", None),
])
def test_clean_type(text: str, expected: str | None) -> None:
    assert clean_type(text) == expected


def test_range_variables_are_elements_of_what_they_range_over() -> None:
    from graphrag.graph.resolve import build_graph

    result = snippet(
        "package pkg\n\ntype User struct{ Name string }\nfunc (u *User) Save() {}\n"
        "type Store struct { users []*User }\nfunc (s *Store) All() []*User { return nil }\n"
        "func f(us []*User, s *Store) {\n"
        "\tfor _, u := range us { u.Save() }\n"
        "\tfor _, v := range s.users { v.Save() }\n"
        "\tfor _, w := range s.All() { w.Save() }\n"
        "\tfor i := range us { _ = i }\n}\n")
    types = result.var_types["example.com/m/pkg.f"]
    assert {k: types[k] for k in ("u", "v", "w")} == {
        "u": "=item:us", "v": "=item:s.users", "w": "=item:=call:s.All"}
    assert "i" not in types
    graph = build_graph([result])
    nodes = graph.node_by_key()
    (save,) = [e for e in graph.edges if e.kind == "CALLS" and nodes[e.dst_key].name == "Save"]
    assert save.lines == [8, 9, 10]


def test_chi_and_gorilla_routes_get_their_prefixes() -> None:
    """chi verbs inside nested ``Route`` blocks and gorilla/mux subrouters with
    ``.Methods(...)``; a verb-named method without a "/" path is no route."""
    result = snippet(
        "package x\n"
        "func routes(r chi.Router, m *mux.Router, c Cache) {\n"
        "\tr.Route(\"/api\", func(r chi.Router) {\n"
        "\t\tr.Route(\"/users\", func(r chi.Router) { r.Delete(\"/{id}\", del) })\n"
        "\t\tr.Get(\"/\", list)\n"
        "\t})\n"
        "\tc.Get(\"key\", fallback)\n"
        "\tv1 := m.PathPrefix(\"/v1\").Subrouter()\n"
        "\tv1.HandleFunc(\"/items\", items).Methods(http.MethodPost, \"PUT\")\n"
        "\tm.HandleFunc(\"/plain\", plain)\n"
        "}\n")
    assert [(r.http_method, r.route, r.handler_name) for r in result.registrations] == [
        ("DELETE", "/api/users/{id}", "del"), ("GET", "/api", "list"),
        ("POST,PUT", "/v1/items", "items"), ("ANY", "/plain", "plain")]
