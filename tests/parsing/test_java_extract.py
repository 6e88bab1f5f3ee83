"""Java extractor against the java_spring sample repository and small inline sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.parsing import registry
from graphrag.parsing.languages.java import extract
from graphrag.parsing.model import Call, ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

ROOT = Path(__file__).resolve().parents[2] / "sample_repos" / "java_spring"
SRC = "src/main/java/com/example/shop"
PKG = "com.example.shop"


def parse(rel: str) -> ParseResult:
    return extract((ROOT / SRC / rel).read_bytes(), f"{SRC}/{rel}", RepoContext())


def parse_text(text: str, rel: str = "Demo.java") -> ParseResult:
    return extract(text.encode(), rel, RepoContext())


def symbol(result: ParseResult, fqn: str, key_suffix: str | None = None) -> Symbol:
    found = [s for s in result.symbols
             if s.fqn == fqn and (key_suffix is None or s.key_suffix == key_suffix)]
    assert len(found) == 1, f"{fqn}: {[s.fqn for s in result.symbols]}"
    return found[0]


def calls_named(result: ParseResult, name: str) -> list[Call]:
    return [c for c in result.calls if c.name == name]


def test_package_and_module() -> None:
    result = parse("model/Product.java")
    assert (result.lang, result.package, result.module) == ("java", f"{PKG}.model", f"{PKG}.model")
    assert result.path == f"{SRC}/model/Product.java"
    assert result.error_count == 0
    assert parse_text("class A {}", "x/NoPkg.java").module == "NoPkg"


def test_symbol_kinds_fqns_and_lines() -> None:
    product = parse("model/Product.java")
    cls = symbol(product, f"{PKG}.model.Product")
    assert (cls.kind, cls.parent, cls.line_start, cls.line_end) == ("CLASS", None, 10, 81)
    ctor = symbol(product, f"{PKG}.model.Product.<init>(String,String,String,long)")
    assert (ctor.kind, ctor.name, ctor.line_start) == ("CONSTRUCTOR", "<init>", 32)
    assert ctor.meta["params"][-1] == ["priceCents", "long"]
    field = symbol(product, f"{PKG}.model.Product.priceCents")
    assert (field.kind, field.meta["type"], field.parent) == ("FIELD", "long", cls.fqn)
    assert symbol(parse("model/OrderStatus.java"), f"{PKG}.model.OrderStatus").kind == "ENUM"
    assert symbol(parse("service/PricingService.java"), f"{PKG}.service.PricingService").kind \
        == "INTERFACE"
    line = parse("model/OrderLine.java")
    assert symbol(line, f"{PKG}.model.OrderLine").kind == "CLASS"  # record
    assert symbol(line, f"{PKG}.model.OrderLine.quantity").kind == "FIELD"
    assert symbol(line, f"{PKG}.model.OrderLine.subtotal").meta["return_type"] == "long"


def test_char_offsets_cover_the_declaration() -> None:
    text = (ROOT / SRC / "model/Product.java").read_text()
    method = symbol(parse("model/Product.java"), f"{PKG}.model.Product.getName")
    snippet = text[method.char_start:method.char_end]
    assert snippet.startswith("public String getName()") and snippet.endswith("}")
    # non-ASCII before a declaration: offsets count characters, not bytes
    result = parse_text("/** Prix en €. */\nclass Prix { void a() {} }\n")
    assert symbol(result, "Prix").char_start == len("/** Prix en €. */\n")


def test_doc_comments_are_stripped() -> None:
    product = parse("model/Product.java")
    doc = symbol(product, f"{PKG}.model.Product.changePrice").doc_comment
    assert doc == "Changes the unit price.\n\n@param priceCents new price in cents, never negative"
    assert symbol(product, f"{PKG}.model.Product.id").doc_comment.startswith("Unique product")
    # `// comment` and `/* plain */` are not documentation
    result = parse_text("class A {\n  /* no */\n  void a() {}\n  // no\n  void b() {}\n}")
    assert symbol(result, "A.a").doc_comment is None
    assert symbol(result, "A.b").doc_comment is None


def test_signatures_exclude_annotations_and_body() -> None:
    controller = parse("controller/OrderController.java")
    place = symbol(controller, f"{PKG}.controller.OrderController.placeOrder")
    assert place.signature == (
        "public Map<String, Object> placeOrder(String customerId, "
        "Map<String, Integer> quantities)")
    assert symbol(controller, f"{PKG}.controller.OrderController").signature \
        == "public class OrderController"
    assert symbol(controller, f"{PKG}.controller.OrderController.orderService").signature \
        == "private final OrderService orderService"
    assert "@GetMapping" in symbol(
        controller, f"{PKG}.controller.OrderController.listOrders").meta["annotations"][0]


def test_spring_endpoints_join_class_prefix() -> None:
    products = parse("controller/ProductController.java")
    get = symbol(products, f"{PKG}.controller.ProductController.getProduct")
    assert (get.kind, get.meta["http_method"], get.meta["route"]) == (
        "ENDPOINT", "GET", "/api/products/{id}")
    create = symbol(products, f"{PKG}.controller.ProductController.createProduct")
    assert (create.meta["http_method"], create.meta["route"]) == ("POST", "/api/products")
    count = symbol(products, f"{PKG}.controller.ProductController.countProducts")
    assert count.meta["route"] == "/api/products/count"
    orders = parse("controller/OrderController.java")
    cancel = symbol(orders, f"{PKG}.controller.OrderController.cancel")
    assert (cancel.meta["http_method"], cancel.meta["route"]) == ("POST", "/api/orders/{id}/cancel")
    assert symbol(orders, f"{PKG}.controller.OrderController.toSummary").kind == "METHOD"


def test_request_mapping_without_method_is_any() -> None:
    result = parse_text(
        '@RequestMapping({"/v1", "/v2"})\nclass A {\n'
        '  @RequestMapping("items")\n  void all() {}\n'
        '  @RequestMapping(path = "/x", method = {RequestMethod.GET, RequestMethod.HEAD})\n'
        '  void x() {}\n}')
    assert (symbol(result, "A.all").meta["http_method"], symbol(result, "A.all").meta["route"]) \
        == ("ANY", "/v1/items")
    assert symbol(result, "A.x").meta["http_method"] == "GET,HEAD"


def test_jaxrs_endpoints() -> None:
    health = parse("controller/HealthResource.java")
    live = symbol(health, f"{PKG}.controller.HealthResource.live")
    ready = symbol(health, f"{PKG}.controller.HealthResource.ready")
    assert (live.kind, live.meta["http_method"], live.meta["route"]) == (
        "ENDPOINT", "GET", "/health")
    assert ready.meta["route"] == "/health/ready"
    assert symbol(health, f"{PKG}.controller.HealthResource.<init>").kind == "CONSTRUCTOR"


def test_imports_regular_static_and_wildcard() -> None:
    imports = {(i.alias, i.target) for i in parse("controller/ProductController.java").imports}
    assert ("formatCents", f"{PKG}.util.PriceUtils.formatCents") in imports
    assert ("ProductService", f"{PKG}.service.ProductService") in imports
    result = parse_text("import java.util.*;\nimport static a.b.Util.*;\nclass A {}")
    assert [(i.alias, i.target, i.line) for i in result.imports] == [
        ("*", "java.util", 1), ("*", "a.b.Util", 2)]


def test_receiver_chains_and_call_kinds() -> None:
    service = parse("service/ProductService.java")
    caller = f"{PKG}.service.ProductService"
    (find,) = calls_named(service, "findByCategory")
    assert (find.caller, find.receiver) == (
        f"{caller}.listByCategory", ["this", "productRepository"])
    (nxt,) = calls_named(service, "next")
    assert nxt.receiver == ["IdGenerator"]
    (new_product,) = calls_named(service, "Product")
    assert (new_product.kind, new_product.receiver, new_product.caller) == (
        "new", None, f"{caller}.createProduct")
    (or_else,) = calls_named(service, "orElseThrow")  # a call result names its call
    assert or_else.receiver == ["productRepository", "findById()"]
    chains = parse_text("class A { void f() { new B().g().h(); make().k(); xs[0].m();"
                        " ((B) x).n(); } }")
    assert {c.name: c.receiver for c in chains.calls if c.name in ("h", "k", "m", "n")} == {
        "h": ["B()", "g()"], "k": ["make()"], "m": ["xs", "[]"], "n": ["?"]}
    (sup,) = calls_named(parse("repository/ProductRepository.java"), "save")
    assert sup.receiver == ["super"]
    (static_imported,) = calls_named(parse("controller/ProductController.java"), "formatCents")
    assert static_imported.receiver is None
    refs = [c for c in parse("controller/OrderController.java").calls if c.kind == "ref"]
    assert [(c.name, c.receiver, c.caller) for c in refs] == [
        ("toSummary", ["this"], f"{PKG}.controller.OrderController.listOrders")]
    (quote,) = calls_named(parse("service/OrderService.java"), "quote")
    assert (quote.kind, quote.receiver) == ("ref", ["pricingService"])


def test_field_initializer_calls_belong_to_the_class() -> None:
    (init,) = calls_named(parse("repository/BaseRepository.java"), "ConcurrentHashMap")
    assert init.caller == f"{PKG}.repository.BaseRepository"


def test_var_types() -> None:
    result = parse("service/OrderService.java")
    cls = f"{PKG}.service.OrderService"
    assert result.var_types[cls] == {
        "orderRepository": "OrderRepository", "productService": "ProductService",
        "pricingService": "PricingService"}
    place = result.var_types[f"{cls}.placeOrder"]
    assert place["order"] == "Order"          # `var order = new Order(...)`
    assert place["product"] == "Product"      # typed local
    assert place["quantities"] == "Map"       # parameter, generics stripped
    assert place["entry"] == "Map.Entry"      # enhanced for
    assert parse("model/Order.java").var_types[f"{PKG}.model.Order.total"]["line"] == "OrderLine"
    # `var x = Type.factory()` keeps the call; `var x = obj.call()` is unknowable
    local = parse_text("class A { void a() { var x = Foo.make(); var y = repo.find(); } }")
    assert local.var_types["A.a"] == {"x": "=call:Foo.make"}


def test_overloads_carry_their_parameters_in_the_fqn() -> None:
    result = parse("util/PriceUtils.java")
    util = f"{PKG}.util.PriceUtils"
    overloads = {s.fqn for s in result.symbols if s.name == "roundCents"}
    assert overloads == {f"{util}.roundCents(double)", f"{util}.roundCents(long,int)"}
    # stable keys are those the overloads had before they got their own fqns
    assert all(s.key_suffix == "" for s in result.symbols)
    assert symbol(result, f"{util}.formatCents").kind == "METHOD"  # not overloaded: plain
    assert symbol(result, f"{util}.roundCents(double)").meta["static"] is True
    # each overload owns its calls (with argument count and readable types) and locals
    inner = [c for c in result.calls if c.caller == f"{util}.applyDiscount(long,int,int)"]
    assert {(c.name, c.args) for c in inner} == {("applyDiscount", 2), ("roundCents", 2)}
    assert next(c for c in inner if c.name == "roundCents").arg_types == [
        "=var:discounted", "=var:step"]
    assert result.var_types[f"{util}.applyDiscount(long,int,int)"]["discounted"] == "long"
    generic = parse_text("class A { void f(List<String> a) {} void f(int[] a, String... b) {}"
                         " A(int x) { this(\"s\", 1L); } A(String s, long n) {} }")
    assert {s.fqn for s in generic.symbols if s.kind != "CLASS"} == {
        "A.f(List)", "A.f(int[],String...)", "A.<init>(int)", "A.<init>(String,long)"}
    delegation = calls_named(generic, "A")[0]
    assert (delegation.caller, delegation.args, delegation.arg_types) == (
        "A.<init>(int)", 2, ["String", "long"])


def test_heritage() -> None:
    repo = parse("repository/ProductRepository.java")
    assert [(h.cls, h.base, h.relation) for h in repo.heritage] == [
        (f"{PKG}.repository.ProductRepository", "BaseRepository", "extends")]
    pricing = parse("service/DefaultPricingService.java")
    assert [(h.base, h.relation) for h in pricing.heritage] == [("PricingService", "implements")]
    iface = parse_text("interface A extends B, C<D> {}")
    assert [(h.base, h.relation) for h in iface.heritage] == [("B", "extends"), ("C", "extends")]


def test_constructor_delegation_and_local_classes() -> None:
    result = parse_text(
        "class A extends B {\n  A() { this(1); }\n  A(int x) { super(x); }\n"
        "  void run() { new Runnable() { public void run() { inner(); } }; }\n}")
    delegations = [(c.caller, c.name, c.kind) for c in result.calls
                   if (c.caller or "").startswith("A.<init>")]
    assert delegations == [("A.<init>()", "A", "new"), ("A.<init>(int)", "B", "new")]
    # methods of anonymous classes are not symbols; their calls belong to the enclosing method
    assert [s.fqn for s in result.symbols if s.name == "run"] == ["A.run"]
    assert calls_named(result, "inner")[0].caller == "A.run"


def test_syntax_error_gives_partial_result() -> None:
    result = parse_text(
        "package p;\nclass Broken {\n  void ok() { helper(); }\n  void bad( {\n"
        "  int after() { return 1; }\n}\n")
    assert result.error_count > 0
    assert symbol(result, "p.Broken.ok").kind == "METHOD"
    assert calls_named(result, "helper")[0].caller == "p.Broken.ok"


def test_queries_are_compiled_once() -> None:
    parse("model/Order.java")
    before = registry.query.cache_info().misses
    parse("model/Order.java")
    parse("service/OrderService.java")
    assert registry.query.cache_info().misses == before


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT / SRC).as_posix()
                                        for p in (ROOT / SRC).rglob("*.java")))
def test_every_sample_file_parses_cleanly(path: str) -> None:
    result = parse(path)
    assert result.error_count == 0
    assert ParseResult.from_dict(result.to_dict()) == result
    documented = [s for s in result.symbols if s.kind in ("CLASS", "INTERFACE", "ENUM")]
    assert all(s.doc_comment for s in documented)


def test_broken_type_hides_no_later_type() -> None:
    result = parse_text("package p;\n\nclass Broken {\n    void bad( { int x = ; }\n"
                        "    void fine() { helper(); }\n}\n\n"
                        "class Ok {\n    void run() { other(); }\n}\n\n"
                        "interface Later { void go(); }\n", "p/Broken.java")
    assert result.error_count > 0
    assert {"p.Broken.fine", "p.Ok", "p.Ok.run", "p.Later", "p.Later.go"} <= {
        s.fqn for s in result.symbols}
    assert ("p.Ok.run", "other") in [(c.caller, c.name) for c in result.calls]


def test_lambda_and_anonymous_class_parameters_are_typed_where_their_calls_go() -> None:
    result = parse_text(
        "class A {\n"
        "  static final Adapter<X> ADAPTER = new Adapter<X>() {\n"
        "    public X read(Reader in) { return in.next(); }\n  };\n"
        "  void run(Reader in) {\n"
        "    handlers.forEach((Handler h) -> h.handle());\n"
        "    new Thread(new Runnable() { public void run(Writer in) { in.flush(); } });\n"
        "  }\n}\n")
    assert result.var_types["A#init"] == {"in": "Reader"}       # the field initializer's
    assert result.var_types["A.run"] == {"in": "Reader", "h": "Handler"}  # own `in` wins
    assert "in" not in result.var_types.get("A", {})  # never a field


def test_route_annotations_use_string_constants_of_the_file() -> None:
    """``@RequestMapping(Api.BASE)``, ``@GetMapping(ITEMS + "/{id}")``: constants of the
    file (interface fields too) become their values; an unknown one stays as written."""
    result = parse_text(
        "package p;\n@RestController\n@RequestMapping(Api.BASE)\nclass A {\n"
        "  static final String ROOT = \"/api\";\n"
        "  private static final String ITEMS = ROOT + \"/items\";\n"
        "  @GetMapping(ITEMS + \"/{id}\") void f() {}\n"
        "  @PostMapping(value = {(ITEMS), \"/x\"}) void g() {}\n"
        "  @GetMapping(Paths.Y) void h() {}\n}\n"
        "interface Api { String BASE = \"/v1\"; }\n")
    routes = {s.fqn: (s.meta["http_method"], s.meta["route"]) for s in result.symbols
              if s.kind == "ENDPOINT"}
    assert routes == {"p.A.f": ("GET", "/v1/api/items/{id}"),
                      "p.A.g": ("POST", "/v1/api/items"), "p.A.h": ("GET", "/v1/Paths.Y")}
