"""Python extractor against the python_fastapi sample and small inline snippets."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from graphrag.parsing.languages.python import clean_type, extract, module_name
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "python_fastapi"


@cache
def parsed(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, RepoContext())


def snippet(code: str, rel: str = "pkg/mod.py") -> ParseResult:
    return extract(code.encode(), rel, RepoContext())


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def line_of(rel: str, needle: str) -> int:
    lines = (SAMPLE / rel).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if needle in text)


@pytest.mark.parametrize(("path", "module"), [
    ("app/api/users.py", "app.api.users"),
    ("app/__init__.py", "app"),
    ("setup.py", "setup"),
])
def test_module_name(path: str, module: str) -> None:
    assert module_name(path) == module


def test_sample_files_parse_cleanly() -> None:
    for path in sorted(SAMPLE.rglob("*.py")):
        rel = path.relative_to(SAMPLE).as_posix()
        result = parsed(rel)
        assert result.error_count == 0, rel
        assert ParseResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_symbol_kinds_fqns_and_lines() -> None:
    rel = "app/repositories/users.py"
    result = parsed(rel)
    cls = sym(result, "app.repositories.users.UserRepository")
    assert (cls.kind, cls.parent) == ("CLASS", None)
    assert cls.line_start == line_of(rel, "class UserRepository")
    assert cls.line_end == len((SAMPLE / rel).read_text().splitlines())
    ctor = sym(result, "app.repositories.users.UserRepository.__init__")
    assert (ctor.kind, ctor.parent) == ("CONSTRUCTOR", cls.fqn)
    method = sym(result, "app.repositories.users.UserRepository.find_by_email")
    assert method.kind == "METHOD"
    assert method.signature == "def find_by_email(self, email: str) -> User | None"
    assert method.meta["params"] == [["email", "str"]]
    assert method.meta["return_type"] == "User | None"
    assert sym(result, "app.repositories.users.UserRepository.entity_name").kind == "FIELD"
    by_email = sym(result, "app.repositories.users.UserRepository._by_email")
    assert (by_email.kind, by_email.line_start) == ("FIELD", line_of(rel, "self._by_email:"))
    assert sym(parsed("app/utils/text.py"), "app.utils.text.slugify").kind == "FUNCTION"
    assert sym(parsed("app/models/user.py"), "app.models.user.Role").kind == "ENUM"


def test_char_offsets_cover_the_declaration() -> None:
    rel = "app/utils/pricing.py"
    text = (SAMPLE / rel).read_text()
    fn = sym(parsed(rel), "app.utils.pricing.compute_total")
    assert text[fn.char_start:fn.char_end].startswith("def compute_total(")
    assert text[fn.char_start:fn.char_end].endswith("return total")


def test_docstrings_are_stripped_and_dedented() -> None:
    result = parsed("app/services/notifications.py")
    notifier = sym(result, "app.services.notifications.Notifier")
    assert notifier.doc_comment == "Sends a short message to a recipient."
    module_doc_class = sym(result, "app.services.notifications.EmailNotifier.send")
    assert module_doc_class.doc_comment == "Append the message to the outbox."
    multi = snippet('def f():\n    """Title.\n\n    Body line\n      indented.\n    """\n')
    assert sym(multi, "pkg.mod.f").doc_comment == "Title.\n\nBody line\n  indented."


def test_decorators_and_static_methods() -> None:
    new = sym(parsed("app/models/order.py"), "app.models.order.Order.new")
    assert new.meta["decorators"] == ["classmethod"]
    assert new.meta["static"] is True
    assert new.meta["params"] == [["user_id", "int"], ["items", "list[OrderItem]"]]
    send = sym(parsed("app/services/notifications.py"),
               "app.services.notifications.Notifier.send")
    assert send.meta["decorators"] == ["abstractmethod"]
    assert send.line_start == line_of("app/services/notifications.py", "@abstractmethod")


@pytest.mark.parametrize(("rel", "fqn", "method", "route"), [
    ("app/api/users.py", "app.api.users.list_users", "GET", "/users/"),
    ("app/api/users.py", "app.api.users.get_user", "GET", "/users/{user_id}"),
    ("app/api/users.py", "app.api.users.deactivate_user", "DELETE", "/users/{user_id}"),
    ("app/api/orders.py", "app.api.orders.cancel_order", "PATCH", "/orders/{order_id}/cancel"),
    ("app/main.py", "app.main.health", "GET", "/health"),
    ("app/web/admin.py", "app.web.admin.admin_users", "GET", "/admin/users"),
    ("app/web/admin.py", "app.web.admin.admin_deactivate", "POST",
     "/admin/users/<int:user_id>/deactivate"),
    ("app/web/admin.py", "app.web.admin.admin_open_orders", "GET,HEAD", "/admin/orders/open"),
])
def test_endpoints(rel: str, fqn: str, method: str, route: str) -> None:
    endpoint = sym(parsed(rel), fqn)
    assert endpoint.kind == "ENDPOINT"
    assert (endpoint.meta["http_method"], endpoint.meta["route"]) == (method, route)


def test_non_route_decorators_are_not_endpoints() -> None:
    result = snippet('cache = Cache()\n@cache.get("key")\ndef f():\n    pass\n')
    assert sym(result, "pkg.mod.f").kind == "FUNCTION"


def test_imports_absolute_aliased_and_relative() -> None:
    orders = {i.alias: i.target for i in parsed("app/services/orders.py").imports}
    assert orders["OrderStore"] == "app.repositories.orders.OrderRepository"
    assert orders["pricing"] == "app.utils.pricing"
    assert orders["UserService"] == "app.services.users.UserService"
    assert orders["Notifier"] == "app.services.notifications.Notifier"
    assert orders["logging"] == "logging"
    users = {i.alias: i.target for i in parsed("app/services/users.py").imports}
    assert users["text_utils"] == "app.utils.text"
    package = {i.alias: i.target for i in parsed("app/models/__init__.py").imports}
    assert package["Order"] == "app.models.order.Order"
    deep = snippet("from .. import config\nfrom ..a.b import C as D\nfrom x import *\n",
                   "pkg/sub/mod.py")
    assert [(i.alias, i.target) for i in deep.imports] == [
        ("config", "pkg.config"), ("D", "pkg.a.b.C"), ("*", "x")]


def test_calls_with_receiver_chains() -> None:
    rel = "app/services/users.py"
    calls = {(c.caller, c.name, tuple(c.receiver or ()), c.line, c.kind)
             for c in parsed(rel).calls}
    register = "app.services.users.UserService.register"
    assert (register, "save", ("self", "repo"), line_of(rel, "self.repo.save(user)"),
            "call") in calls
    assert (register, "normalize_email", ("text_utils",),
            line_of(rel, "text_utils.normalize_email"), "call") in calls
    assert ("app.services.users.UserService.get_user", "UserNotFoundError", (),
            line_of(rel, "raise UserNotFoundError"), "call") in calls
    init = "app.services.users.UserNotFoundError.__init__"
    assert (init, "__init__", ("super",), line_of(rel, "super().__init__"), "call") in calls
    assert not any(name == "super" for _, name, *_ in calls)


def test_depends_is_a_reference_and_file_level_calls_have_no_caller() -> None:
    calls = parsed("app/api/users.py").calls
    refs = [(c.caller, c.name) for c in calls if c.kind == "ref"]
    assert ("app.api.users.get_user", "get_user_service") in refs
    orders = [c for c in parsed("app/api/orders.py").calls if c.kind == "ref"]
    assert orders[0].receiver == ["deps"]
    main = parsed("app/main.py").calls
    assert any(c.caller is None and c.name == "create_app" for c in main)
    user_model = parsed("app/models/user.py").calls
    assert any(c.caller == "app.models.user.UserBase" and c.name == "Field" for c in user_model)


def test_heritage() -> None:
    bases = {(h.cls, h.base, h.relation) for h in parsed("app/repositories/users.py").heritage}
    assert bases == {("app.repositories.users.UserRepository", "BaseRepository", "extends")}
    snip = snippet("class A(m.B, Generic[T], metaclass=M):\n    pass\n")
    assert [h.base for h in snip.heritage] == ["m.B", "Generic"]


def test_var_types_for_classes_functions_and_module() -> None:
    users = parsed("app/services/users.py").var_types
    assert users["app.services.users.UserService"] == {
        "repo": "UserRepository", "notifier": "Notifier"}
    assert users["app.services.users.UserService.register"]["payload"] == "UserCreate"
    assert users["app.services.users.UserService.register"]["user"] == "=call:User"
    orders = parsed("app/services/orders.py").var_types
    assert orders["app.services.orders.OrderService"]["orders"] == "=call:OrderStore"
    assert orders["app.services.orders.OrderService.cancel"]["order"] == "Order"
    api = parsed("app/api/orders.py").var_types
    assert api["app.api.orders.cancel_order"]["service"] == "=call:deps.get_order_service"
    assert api["app.api.orders"]["router"] == "=call:APIRouter"
    assert api["app.api.orders.PlaceOrderRequest"]["user_id"] == "int"


def test_self_fields_outside_init_are_types_not_fields() -> None:
    result = snippet(
        "class A:\n"
        "    x: int = 0\n"
        "    def __init__(self, repo: 'Repo'):\n"
        "        self.repo = repo\n"
        "        self.repo = None\n"
        "    def load(self):\n"
        "        self.cache = Cache()\n"
    )
    fields = [s.fqn for s in result.symbols if s.kind == "FIELD"]
    assert fields == ["pkg.mod.A.x", "pkg.mod.A.repo"]
    assert result.var_types["pkg.mod.A"] == {"x": "int", "repo": "Repo", "cache": "=call:Cache"}


def test_nested_functions_and_classes() -> None:
    result = snippet(
        "def outer():\n"
        "    def inner():\n"
        "        return helper()\n"
        "    class Local:\n"
        "        def m(self):\n"
        "            pass\n"
        "    return inner()\n"
    )
    inner = sym(result, "pkg.mod.outer.inner")
    assert (inner.kind, inner.parent) == ("FUNCTION", "pkg.mod.outer")
    assert sym(result, "pkg.mod.outer.Local.m").kind == "METHOD"
    assert [(c.caller, c.name) for c in result.calls] == [
        ("pkg.mod.outer.inner", "helper"), ("pkg.mod.outer", "inner")]


def test_syntax_errors_keep_what_parsed() -> None:
    result = snippet(
        "def good(a: int) -> int:\n"
        "    return a\n"
        "\n"
        "def broken(:\n"
        "    return\n"
        "\n"
        "class Fine:\n"
        "    def ok(self):\n"
        "        return good(1)\n"
    )
    assert result.error_count > 0
    fqns = {s.fqn for s in result.symbols}
    assert {"pkg.mod.good", "pkg.mod.Fine", "pkg.mod.Fine.ok"} <= fqns


def test_non_ascii_char_offsets() -> None:
    code = '"""Modul für Bücher — ünïcode."""\n\ndef g():\n    """Grüße."""\n'
    result = snippet(code)
    g = sym(result, "pkg.mod.g")
    assert g.char_start == code.index("def g")
    assert g.char_end == len(code.rstrip("\n"))
    assert g.doc_comment == "Grüße."


@pytest.mark.parametrize(("annotation", "expected"), [
    ("Optional[User]", "User"),
    ('"User"', "User"),
    ("list[User]", "list"),
    ("User | None", "User"),
    ("Annotated[UserService, Depends(x)]", "UserService"),
    ("models.User", "models.User"),
])
def test_clean_type(annotation: str, expected: str) -> None:
    assert clean_type(annotation) == expected


def test_overload_stubs_attach_to_the_implementation() -> None:
    result = parsed("app/utils/pricing.py")
    impl = sym(result, "app.utils.pricing.to_money")  # exactly one symbol for the name
    assert impl.line_start == line_of("app/utils/pricing.py", "def to_money(amount: float | str)")
    assert impl.meta["overloads"] == ["def to_money(amount: float) -> Decimal",
                                      "def to_money(amount: str) -> Decimal"]
    # without an implementation (a Protocol) the first stub stands for the name
    stubs = snippet("from typing import overload\nclass P:\n    @overload\n"
                    "    def f(self, a: int) -> int: ...\n    @overload\n"
                    "    def f(self, a: str) -> str: ...\n")
    assert sym(stubs, "pkg.mod.P.f").line_start == 3


def test_type_checking_definitions_attach_to_the_runtime_one() -> None:
    """Under ``if TYPE_CHECKING:`` a definition is for type checkers: the runtime one is
    the symbol (and the call target); the typing-only signatures are listed on it."""
    result = snippet(
        "import typing as t\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    def helper(x: int) -> str: ...\n"
        "    class Thing:\n        def run(self) -> int: ...\n"
        "else:\n"
        "    def helper(x):\n        return str(x)\n"
        "    class Thing:\n        def run(self):\n            return 1\n"
        "class K:\n"
        "    if t.TYPE_CHECKING:\n        def m(self) -> int: ...\n"
        "    def m(self):\n        return helper(2)\n"
        "if TYPE_CHECKING:\n    def typed_only() -> None: ...\n")
    helper = sym(result, "pkg.mod.helper")
    assert helper.line_start == 8 and helper.meta["overloads"] == ["def helper(x: int) -> str"]
    assert sym(result, "pkg.mod.Thing").line_start == 10
    assert sym(result, "pkg.mod.Thing.run").line_start == 11
    m = sym(result, "pkg.mod.K.m")
    assert m.line_start == 16 and m.meta["overloads"] == ["def m(self) -> int"]
    assert [c.caller for c in result.calls if c.name == "helper"] == ["pkg.mod.K.m"]
    # with no runtime definition the typing-only one stays (a name still has a node)
    assert sym(result, "pkg.mod.typed_only").meta.get("type_checking") is True


def test_local_flow_types_with_for_and_chained_calls() -> None:
    result = snippet(
        "def f(users: list[User], maybe: Optional[Iterable['Order']], n: int):\n"
        "    names: t.Sequence[Name] = load()\n"
        "    for u in users:\n        u.greet()\n"
        "    for o in maybe:\n        o.ship()\n"
        "    for x in names:\n        pass\n"
        "    for i in range(n):\n        pass\n"
        "    with Session(db) as s, open(p) as fh:\n        s.commit()\n"
        "    store = self.repo().find(1)\n"
        "    self.repo().find(2).save()\n")
    types = result.var_types["pkg.mod.f"]
    assert {k: types[k] for k in ("u", "o", "x", "s", "fh", "store")} == {
        "u": "User", "o": "Order", "x": "Name", "s": "=call:Session", "fh": "=call:open",
        "store": "=call:self.repo().find"}
    # the resolver types a call's or a field's elements (`=iter:`); `cast(T, x)` is a T
    assert types["i"] == "=iter:=call:range"
    more = snippet("def g(self):\n    for p in self.params:\n        p.run()\n"
                   "    for q in self.get().items():\n        pass\n"
                   "    m = t.cast(Multi, self.cmd)\n").var_types["pkg.mod.g"]
    assert more == {"p": "=iter:self.params", "q": "=iter:=call:self.get().items",
                    "m": "Multi"}
    cond = snippet("class C:\n    def __init__(self, console: Optional[Console] = None):\n"
                   "        self.console = console if console is not None else make()\n")
    assert cond.var_types["pkg.mod.C"]["console"] == "Console"
    (save,) = [c for c in result.calls if c.name == "save"]
    assert save.receiver == ["self", "repo()", "find()"]


def test_union_annotations_keep_every_class() -> None:
    result = snippet("def f(a: A | B, b: Union[C, D, None], c: Optional[E], d: 'F | None'):\n"
                     "    pass\n")
    assert result.var_types["pkg.mod.f"] == {"a": "A | B", "b": "C | D", "c": "E", "d": "F"}


def test_router_mounts_are_registrations() -> None:
    """``include_router(prefix=)`` and ``register_blueprint(url_prefix=)`` name the mounted
    router and the mounting one; routes say which router they are registered on."""
    result = snippet(
        "from fastapi import APIRouter\n"
        "from app.api import users\n"
        "from app.web.admin import admin_bp\n"
        "api = APIRouter(prefix='/api')\n"
        "api.include_router(users.router, prefix='/v1')\n"
        "site.register_blueprint(admin_bp, url_prefix='/back')\n"
        "site.register_blueprint(admin_bp)\n"
        "@api.get('/ping')\n"
        "def ping():\n"
        "    return 1\n")
    mounts = [(r.handler_receiver, r.handler_name, r.route, r.router, r.base, r.replaces_base)
              for r in result.registrations if r.http_method == "USE"]
    assert mounts == [(["users"], "router", "/api/v1", "api", "/api", False),
                      (None, "admin_bp", "/back", "site", "", True),
                      (None, "admin_bp", "", "site", "", False)]
    (route,) = [r for r in result.registrations if r.http_method == "GET"]
    assert (route.route, route.router, route.base, route.inline_fqn) == \
        ("/api/ping", "api", "/api", "pkg.mod.ping")


def test_decorators_applied_as_calls_and_added_routes() -> None:
    """``router.get("/")(f)`` registers ``f`` like ``@router.get("/")``; so do
    ``add_api_route`` and Flask's ``add_url_rule``; any decorator call references ``f``."""
    result = snippet(
        "router = APIRouter(prefix='/items')\n"
        "cached = lru_cache(maxsize=1)(load)\n"
        "router.get('/')(list_items)\n"
        "router.add_api_route('/new', create_item, methods=['POST'])\n"
        "app.add_url_rule('/old', 'old', view_func=views.old)\n")
    assert [(r.http_method, r.route, r.handler_name, r.handler_receiver, r.router)
            for r in result.registrations] == [
        ("GET", "/items/", "list_items", None, "router"),
        ("POST", "/items/new", "create_item", None, "router"),
        ("GET", "/old", "old", ["views"], "app")]
    refs = {(c.name, tuple(c.receiver or ())) for c in result.calls if c.kind == "ref"}
    assert refs == {("load", ()), ("list_items", ()), ("create_item", ()), ("old", ("views",))}


def test_signatures_leave_out_comments() -> None:
    """``# noqa`` after the colon or a comment per parameter is not part of a signature."""
    result = snippet(
        "class A(B):  # noqa: D101\n"
        "    def f(self, a: int,  # the first\n"
        "          b: str = '#x') -> str:  # noqa: E501\n"
        "        return a\n")
    assert sym(result, "pkg.mod.A").signature == "class A(B)"
    assert sym(result, "pkg.mod.A.f").signature == "def f(self, a: int, b: str = '#x') -> str"
