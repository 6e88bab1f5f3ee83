"""Route recognisers are their own registry: a web framework is one module under
``graphrag/parsing/routes/`` registered through the ``graphrag.route_frameworks`` entry
point (the built-ins through the same ``register(register)`` hook), and the language
extractors name no framework's words. A plugin package installed the way ``pip`` leaves
one adds the ENDPOINTs of a framework graphrag has never heard of."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text

import graphrag.parsing.languages
import graphrag.parsing.queries
from graphrag.config import load_settings
from graphrag.indexing import index_repository
from graphrag.parsing.extract import parse_file
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.routes import BUILTIN_MODULES, frameworks

LANGUAGES = Path(graphrag.parsing.languages.__file__).parent
QUERIES = Path(graphrag.parsing.queries.__file__).parent

PLUGIN = '''
from graphrag.parsing.routes import CalledRoute, CalledRoutes, Router


def zap_call(call):
    """A made-up framework: ``Zap(base="/v2")`` makes a router,
    ``@api.expose("/x", verb="DELETE")`` declares the function it decorates a route,
    ``api.attach(handler, at="/x")`` registers a handler for POST."""
    if call.name == "Zap":
        base = call.keyword("base")
        return Router((base[0] if base else None) or "")
    if call.name == "expose" and call.args and call.args[0] is not None:
        verb = call.keyword("verb")
        return CalledRoute(((verb[0] if verb else None) or "GET").upper(), call.args[0], None)
    at = call.keyword("at")
    if call.name == "attach" and at and at[0] is not None:
        return CalledRoute("POST", at[0], 0)
    return None


def register_routes(register):
    register("zap", CalledRoutes(("python",), ("Zap", "expose", "attach"), zap_call))
'''

SERVICE = '''\
from zap import Zap

api = Zap(base="/v2")


@api.expose("/orders/{order_id}", verb="delete")
def cancel_order(order_id: int) -> None:
    """Cancel an order."""
    audit(order_id)


def create_order() -> dict:
    return {}


def audit(order_id: int) -> None:
    pass


api.attach(create_order, at="/orders")
'''


def _install(site: Path) -> None:
    """What ``pip install graphrag-zap`` leaves in site-packages."""
    (site / "graphrag_zap.py").write_text(textwrap.dedent(PLUGIN))
    info = site / "graphrag_zap-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: graphrag-zap\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[graphrag.route_frameworks]\nzap = graphrag_zap:register_routes\n")


@pytest.fixture
def zap_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    frameworks().reload()
    yield
    monkeypatch.undo()
    sys.modules.pop("graphrag_zap", None)
    importlib.invalidate_caches()
    frameworks().unregister("zap")
    frameworks().reload()


def _endpoints(engine, app: str) -> set[tuple[str, str, str]]:
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT n.fqn, n.meta->>'http_method', n.meta->>'route' FROM nodes n"
            " JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :a AND n.kind = 'ENDPOINT'"), {"a": app}).all()
    return {tuple(r) for r in rows}


def test_a_plugin_framework_adds_endpoints_to_the_graph(
        zap_installed, tmp_path: Path, engine, app_name: str) -> None:
    repo = tmp_path / "repo"
    (repo / "svc").mkdir(parents=True)
    (repo / "svc" / "api.py").write_text(SERVICE)
    result = parse_file(SERVICE.encode(), "svc/api.py", RepoContext())
    assert result is not None
    routes = {(r.http_method, r.route, r.handler_name or r.inline_fqn)
              for r in result.registrations}
    assert routes == {("DELETE", "/v2/orders/{order_id}", "svc.api.cancel_order"),
                      ("POST", "/v2/orders", "create_order")}

    index_repository(engine, load_settings(), repo, app_name)
    assert _endpoints(engine, app_name) == {
        ("svc.api.cancel_order", "DELETE", "/v2/orders/{order_id}"),
        ("svc.api.create_order", "POST", "/v2/orders")}


def test_without_the_plugin_the_made_up_framework_declares_nothing() -> None:
    assert "zap" not in frameworks()
    result = parse_file(SERVICE.encode(), "svc/api.py", RepoContext())
    assert result is not None and not result.registrations
    assert not [s for s in result.symbols if s.kind == "ENDPOINT"]


def test_every_builtin_framework_registers_through_the_plugin_hook() -> None:
    """The built-ins are modules whose ``register(register)`` is the plugins' hook: what
    they register is exactly the registry's content when no plugin is installed."""
    seen: dict[str, object] = {}
    for name in BUILTIN_MODULES:
        importlib.import_module(f"graphrag.parsing.routes.{name}").register(seen.__setitem__)
    assert list(seen) == frameworks().names()
    assert {"spring", "aspnetcore", "minimal-apis", "laravel", "express", "fastapi",
            "flask", "chi"} <= set(seen)


# Words only a web framework's recogniser needs: one in an extractor module (code, not
# its docs) or a query file means a framework's knowledge went back into a language.
FRAMEWORK_MARKERS = {
    "ASP.NET Core": ("MapGet", "MapPost", "MapGroup", "MapMethods", "HttpGet", "HttpPost",
                     "AcceptVerbs", "[controller]"),
    "Spring / JAX-RS": ("GetMapping", "PostMapping", "RequestMapping"),
    "Symfony / Laravel / Slim": ("Route::", "@Route", "apiresource", "apiResource",
                                 "routes/api.php", "Http\\Controllers"),
    "net/http / gorilla / chi": ("HandleFunc", "HandlerFunc", "PathPrefix", "Subrouter",
                                 "MethodGet"),
    "FastAPI / Flask": ("APIRouter", "Blueprint", "include_router", "register_blueprint",
                        "add_api_route", "add_url_rule", "api_route", "url_prefix",
                        "Depends"),
    "Express": ("express.Router", "express"),
    "Rails": ("resources", "config/routes.rb", "Controller"),
    "Vapor": ("grouped",),
    "http4s / Play": ("Root", "conf"),
    "axum / actix-web": ("nest_service", "route_layer", "with_state", "app_data"),
}


def _code_words(path: Path) -> set[str]:
    """String constants of a module, docstrings left out (a framework's words are
    data: a local variable ``grouped`` is no Vapor)."""
    tree = ast.parse(path.read_text())
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs}


def _query_text(path: Path) -> str:
    return "\n".join(line for line in path.read_text().splitlines()
                     if not line.lstrip().startswith(";"))


def _named(words: set[str], marker: str) -> bool:
    """A name is matched whole (``express`` is no ``expression``); a marker with
    punctuation (``Route::``) anywhere in a string."""
    return any(marker == w or (not marker.isidentifier() and marker in w) for w in words)


def test_language_extractors_name_no_web_framework() -> None:
    found = []
    for path in sorted(LANGUAGES.rglob("*.py")):
        words = _code_words(path)
        found += [f"{path.relative_to(LANGUAGES)}: {framework} {marker!r}"
                  for framework, markers in FRAMEWORK_MARKERS.items()
                  for marker in markers if _named(words, marker)]
    for path in sorted(QUERIES.glob("*.scm")):
        query = _query_text(path)
        found += [f"{path.name}: {framework} {marker!r}"
                  for framework, markers in FRAMEWORK_MARKERS.items()
                  for marker in markers
                  if re.search(rf"(?<![\w.]){re.escape(marker)}(?![\w])", query)]
    assert not found, "framework words outside parsing/routes/:\n" + "\n".join(found)


def test_the_marker_check_sees_a_framework_word(tmp_path: Path) -> None:
    """The check above reads code, not docs: a word in a docstring or comment passes, the
    same word as a constant fails."""
    module = tmp_path / "m.py"
    module.write_text('"""Routes of FastAPI\'s APIRouter."""\n# include_router\n'
                      'X = 1\n')
    assert not any(_named(_code_words(module), m) for m in FRAMEWORK_MARKERS["FastAPI / Flask"])
    module.write_text('_FACTORIES = {"APIRouter": "prefix"}\n')
    assert _named(_code_words(module), "APIRouter")
