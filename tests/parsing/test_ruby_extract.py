"""Ruby extractor against the ruby_rails sample and small inline snippets, and the
resolver on snippets of several files (what a Ruby user's graph holds)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from graphrag.graph.resolve import build_graph
from graphrag.parsing.extract import repo_context
from graphrag.parsing.languages.ruby import constant_of, extract, repo_facts
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "ruby_rails"


@cache
def parsed(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, RepoContext())


def snippet(code: str, rel: str = "lib/a.rb") -> ParseResult:
    return extract(code.encode(), rel, RepoContext())


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def graph_of(tmp_path: Path, files: dict[str, str]):
    """The graph of a repository made of ``files`` (written under ``tmp_path``, with its
    repository facts), and its nodes by key."""
    for rel, code in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code)
    ctx = repo_context(tmp_path, list(files))
    graph = build_graph([extract(code.encode(), rel, ctx) for rel, code in files.items()])
    return graph, graph.node_by_key()


def calls_of(tmp_path: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    graph, nodes = graph_of(tmp_path, files)
    return {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
            if e.kind == "CALLS"}


@pytest.mark.parametrize(("path", "expected"), [
    ("app/models/book.rb", "Book"),
    ("app/controllers/admin/reports_controller.rb", "Admin.ReportsController"),
    ("app/models/concerns/trackable.rb", "Trackable"),
    ("lib/sinatra/base.rb", "Sinatra.Base"),
    ("sinatra-contrib/lib/sinatra/json.rb", "Sinatra.Json"),
    ("sinatra/base.rb", "Sinatra.Base"),  # a gem's lib/ indexed as the root
    ("test/base_test.rb", None),
    ("config/routes.rb", None),
])
def test_constant_of(path: str, expected: str | None) -> None:
    assert constant_of(path) == expected


def test_sample_files_parse_cleanly() -> None:
    for path in sorted(SAMPLE.rglob("*.rb")):
        rel = path.relative_to(SAMPLE).as_posix()
        assert parsed(rel).error_count == 0, rel


def test_declarations_and_their_kinds() -> None:
    book = parsed("app/models/book.rb")
    assert book.package == "main" and book.module == "app/models/book"
    cls = sym(book, "Book")
    assert (cls.kind, cls.doc_comment) == ("CLASS", "A book of the library.")
    assert sym(book, "Book.initialize").kind == "CONSTRUCTOR"
    assert sym(book, "Book.title").kind == "FIELD"  # attr_reader
    assert sym(book, "Book.summary").signature == "def summary"
    policy = parsed("lib/lending/policy.rb")
    assert sym(policy, "Lending").kind == "OBJECT"
    due = sym(policy, "Lending.Policy.due_date")
    assert due.kind == "METHOD" and due.meta["static"] is True
    assert sym(parsed("lib/lending.rb"), "Lending.LOAN_DAYS").kind == "FIELD"
    assert [(h.base, h.relation) for h in book.heritage] == [("Trackable", "embeds")]
    status = parsed("lib/status_app.rb")
    assert [(h.cls, h.base, h.relation) for h in status.heritage] == [
        ("StatusApp", "Sinatra.Base", "extends")]
    assert [(i.alias, i.target) for i in parsed("lib/lending.rb").imports] == [
        ("lending/policy", "lib/lending/policy")]


def test_receivers_instance_variables_and_locals() -> None:
    result = snippet("""
class Shop
  def initialize(repo)
    @repo = repo
    @mailer = Mail::Sender.new(:smtp)
  end

  def place(id)
    order = Order.new(id)
    order.save
    @mailer.deliver(order)
    self.class.helper
    Shop::Util.fmt(total)
    Report.new.render
    record.updated_at = now
    super
  end

  class << self
    def helper; end
  end
end
""")
    calls = {(c.name, tuple(c.receiver or ()), c.kind) for c in result.calls}
    assert {("Sender", ("Mail",), "new"), ("Order", (), "new"), ("save", ("order",), "call"),
            ("deliver", ("self", "mailer"), "call"), ("helper", ("self",), "call"),
            ("fmt", ("Shop", "Util"), "call"), ("total", ("self",), "call"),
            ("render", ("Report()",), "call"), ("updated_at=", ("record()",), "call"),
            ("now", ("self",), "call"), ("place", ("super",), "call")} <= calls
    assert result.var_types == {"Shop": {"mailer": "Mail.Sender"},
                                "Shop.place": {"order": "Order"}}
    assert sym(result, "Shop.helper").meta["static"] is True


def test_mixins_come_before_the_superclass(tmp_path: Path) -> None:
    calls = calls_of(tmp_path, {
        "lib/base.rb": "class Base\n  def log; end\nend\n",
        "lib/loud.rb": "module Loud\n  def log; end\nend\n",
        "lib/item.rb": "class Item < Base\n  include Loud\n  def run\n    log\n  end\nend\n",
    })
    assert calls == {("Item.run", "Loud.log")}


def test_the_module_included_last_is_searched_first(tmp_path: Path) -> None:
    # Ruby's ancestors of Speaker: Speaker, Polite, Loud, Base; Quiet is prepended, so
    # it comes before the class itself for `quiet`, which only it defines
    files = {
        "lib/base.rb": "class Base\n  def greet; 'base'; end\nend\n",
        "lib/loud.rb": "module Loud\n  def greet; 'LOUD'; end\nend\n",
        "lib/polite.rb": "module Polite\n  def greet; 'please'; end\nend\n",
        "lib/speaker.rb": "class Speaker < Base\n  include Loud\n  include Polite\n"
                          "  def greet\n    super\n  end\nend\n",
        "lib/plain.rb": "class Plain < Base\n  include Loud, Polite\n  def talk\n    greet\n"
                        "  end\nend\n",
    }
    graph, nodes = graph_of(tmp_path, files)
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    overrides = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
                 if e.kind == "OVERRIDES"}
    assert ("Speaker.greet", "Polite.greet") in calls
    # `include Loud, Polite` inserts Loud above Polite: Loud's `greet` is found first
    assert ("Plain.talk", "Loud.greet") in calls
    assert ("Speaker.greet", "Polite.greet") in overrides
    assert not {c for c in calls if c[1] in ("Base.greet",)}


def test_a_reopened_class_is_one_node(tmp_path: Path) -> None:
    graph, nodes = graph_of(tmp_path, {
        "app/models/book.rb": "class Book\n  def title; 't'; end\nend\n",
        "app/models/book_search.rb": "class Book\n  def matches?(q)\n    title\n  end\nend\n",
        "app/services/finder.rb": "class Finder\n  def run\n    Book.new.matches?('x')\n"
                                  "  end\nend\n",
    })
    books = [n for n in graph.nodes if n.fqn == "Book"]
    assert len(books) == 1 and books[0].file_path == "app/models/book.rb"
    matches = next(n for n in graph.nodes if n.fqn == "Book.matches?")
    assert matches.parent_key == books[0].key
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert calls == {("Book.matches?", "Book.title"), ("Finder.run", "Book.matches?")}


def test_the_first_declaration_of_a_body_keeps_its_doc_comment() -> None:
    """tree-sitter starts a class or module body at its first statement, so the comment
    above the first declaration belongs to the enclosing class; it is still that
    declaration's doc. A comment after code on its line is none."""
    result = snippet(
        "module Shop\n"
        "  # A cart: the items chosen and their total.\n"
        "  class Cart\n"
        "    # Sum of the prices.\n"
        "    def total; end\n"
        "  end\n\n"
        "  class Order < Base # :nodoc:\n"
        "    def lines; end\n"
        "  end\nend\n")
    assert sym(result, "Shop.Cart").doc_comment == "A cart: the items chosen and their total."
    assert sym(result, "Shop.Cart.total").doc_comment == "Sum of the prices."
    assert sym(result, "Shop.Order.lines").doc_comment is None


def test_a_class_reopened_without_a_home_file_is_one_node(tmp_path: Path) -> None:
    """`Web::Application` has no file of its own: the file that names its superclass
    declares it (though another comes first by path), the other adds its methods."""
    graph, nodes = graph_of(tmp_path, {
        "web/base.rb": "module Web\n  class Base\n    def route; end\n  end\n\n"
                       "  class Application < Base\n    def start\n      route\n"
                       "    end\n  end\nend\n",
        "web/aaa_main.rb": "module Web\n  class Application\n    include Logging\n"
                           "    def run!\n      start\n    end\n  end\nend\n",
        "web/logging.rb": "module Logging\n  def log; end\nend\n",
    })
    apps = [n for n in graph.nodes if n.fqn == "Web.Application"]
    assert len(apps) == 1 and apps[0].file_path == "web/base.rb"
    members = {n.fqn for n in graph.nodes if n.parent_key == apps[0].key}
    assert members == {"Web.Application.start", "Web.Application.run!"}
    heritage = {(nodes[e.src_key].fqn, e.kind, nodes[e.dst_key].fqn) for e in graph.edges
                if e.kind in ("EXTENDS", "IMPLEMENTS", "EMBEDS")}
    assert ("Web.Application", "EXTENDS", "Web.Base") in heritage
    assert any(src == "Web.Application" and dst == "Logging" for src, _k, dst in heritage)
    # the other file's part is where search finds the rest of the class; the namespace
    # module both files wrap themselves in is no reopening worth finding
    reopens = {n.file_path: n.meta.get("reopens") for n in graph.nodes if n.kind == "FILE"}
    assert reopens == {"web/aaa_main.rb": {"Web.Application": 2}, "web/base.rb": None,
                       "web/logging.rb": None}
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert {("Web.Application.run!", "Web.Application.start"),
            ("Web.Application.start", "Web.Base.route")} <= calls


def test_a_reopening_without_superclass_is_declared_by_the_first_file(tmp_path: Path
                                                                      ) -> None:
    graph, _nodes = graph_of(tmp_path, {
        "tools/b.rb": "class Runner\n  def b; end\nend\n",
        "tools/a.rb": "class Runner\n  def a; end\nend\n",
        "tools/c.rb": "class Runner::Step\nend\n",  # only implies Runner
    })
    runners = [n for n in graph.nodes if n.fqn == "Runner"]
    assert [n.file_path for n in runners] == ["tools/a.rb"]
    assert {n.fqn for n in graph.nodes if n.parent_key == runners[0].key} == {
        "Runner.a", "Runner.b", "Runner.Step"}


def test_repo_facts_name_homes_and_features(tmp_path: Path) -> None:
    files = {"lib/gem.rb": "require 'gem/core'\n",  # an entry file: no home of Gem
             "lib/gem/core.rb": "module Gem\n  class Core; end\nend\n",
             "app/models/shop.rb": "module Shop\nend\n",
             "app/models/shop/order.rb": "class Shop::Order\nend\n"}
    for rel, code in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code)
    facts = repo_facts(RepoFiles(tmp_path, list(files)))
    # `Gem` has no file of its own that declares it: the first file inside lib/gem/ does
    assert facts["constants"] == {"Gem.Core": "lib/gem/core.rb", "Shop": "app/models/shop.rb",
                                  "Shop.Order": "app/models/shop/order.rb",
                                  "Gem": "lib/gem/core.rb"}
    assert facts["features"] == {"gem": "lib/gem", "gem/core": "lib/gem/core"}


def test_rails_routes_resources_namespaces_and_members() -> None:
    routes = snippet("""
Rails.application.routes.draw do
  root to: 'pages#home'
  resources :photos, except: %i[destroy new edit] do
    resources :comments, only: :index
    collection { get :search }
    get :preview, on: :member
  end
  resource :session, only: [:create, :destroy]
  namespace :admin do
    scope 'v2', module: 'legacy' do
      get 'stats' => 'reports#stats'
    end
  end
  match 'hook', to: 'hooks#receive', via: [:get, :post]
  get '/old', to: redirect('/new')
  resources :tags, param: :slug, only: :show
end
""", "config/routes.rb")
    found = {(r.http_method, r.route, ".".join(r.handler_receiver or []), r.handler_name)
             for r in routes.registrations}
    assert found == {
        ("GET", "/", "PagesController", "home"),
        ("GET", "/photos", "PhotosController", "index"),
        ("POST", "/photos", "PhotosController", "create"),
        ("GET", "/photos/:id", "PhotosController", "show"),
        ("PATCH,PUT", "/photos/:id", "PhotosController", "update"),
        ("GET", "/photos/:photo_id/comments", "CommentsController", "index"),
        ("GET", "/photos/search", "PhotosController", "search"),
        ("GET", "/photos/:id/preview", "PhotosController", "preview"),
        ("POST", "/session", "SessionsController", "create"),
        ("DELETE", "/session", "SessionsController", "destroy"),
        ("GET", "/admin/v2/stats", "Admin.Legacy.ReportsController", "stats"),
        ("GET,POST", "/hook", "HooksController", "receive"),
        ("GET", "/tags/:slug", "TagsController", "show"),
    }
    # the routing DSL declares routes, it calls nothing of the repository
    assert {c.name for c in routes.calls} == {"draw", "routes", "application"}


def test_sinatra_blocks_are_endpoints_holding_their_calls() -> None:
    result = snippet("""
require 'sinatra'
helpers do
  def greet(name) = "hi #{name}"
end
get '/hello/:name' do
  greet(params[:name])
end
class Api < Sinatra::Base
  post('/items') { Store.add(request.body) }
end
""", "app.rb")
    hello = sym(result, "app.GET /hello/:name")
    assert (hello.kind, hello.meta["route"]) == ("ENDPOINT", "/hello/:name")
    assert sym(result, "Api.POST /items").parent == "Api"
    assert {(c.caller, c.name) for c in result.calls} >= {
        ("app.GET /hello/:name", "greet"), ("Api.POST /items", "add")}


def test_broken_ruby_keeps_what_parses() -> None:
    result = snippet("class A\n  def f(\n    g(\n  end\nend\nclass B\n  def ok; h; end\nend\n")
    assert result.error_count > 0
    assert "B.ok" in {s.fqn for s in result.symbols}


def test_a_folder_namespace_written_only_qualified_is_still_the_repositorys(tmp_path: Path
                                                                           ) -> None:
    # `app/controllers/admin/` makes `Admin` a namespace of the repository: the first
    # file in it writes `class Admin::AController`, which must not mark `Admin` as a
    # gem's namespace the repository only reopens
    graph, _nodes = graph_of(tmp_path, {
        "app/controllers/admin/a_controller.rb": "class Admin::AController\nend\n",
        "app/controllers/admin/b_controller.rb": "module Admin\n  class BController\n"
                                                 "  end\nend\n",
        "lib/ext.rb": "class Rack::Builder\nend\n",
    })
    metas = {n.fqn: n.meta for n in graph.nodes if n.fqn in ("Admin", "Rack")}
    assert metas["Admin"].get("implied") is None and metas["Rack"]["implied"] is True


def test_a_class_opened_twice_in_its_own_file_is_no_reopening(tmp_path: Path) -> None:
    graph, _nodes = graph_of(tmp_path, {
        "lib/thing.rb": "class Helper\nend\n\nclass Helper\n  def go; end\nend\n"})
    helpers = [n for n in graph.nodes if n.fqn == "Helper"]
    assert len(helpers) == 1 and helpers[0].file_path == "lib/thing.rb"
    assert [n.meta.get("reopens") for n in graph.nodes if n.kind == "FILE"] == [None]
