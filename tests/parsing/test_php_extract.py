"""PHP extractor against the php_laravel sample and small inline snippets, and the
resolver on snippets of several files (what a PHP user's graph holds)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from graphrag.graph.resolve import build_graph
from graphrag.parsing.languages.php import extract, psr4_namespace, repo_facts
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "php_laravel"
HELPERS = RepoContext({"php": {"psr4": {"app": "App"}, "files": ["app/helpers.php"]}})


@cache
def parsed(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, RepoContext())


def snippet(code: str, rel: str = "src/A.php", ctx: RepoContext | None = None) -> ParseResult:
    return extract(code.encode(), rel, ctx or RepoContext())


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def graph_sets(files: dict[str, str], ctx: RepoContext | None = None
               ) -> dict[str, set[tuple[str, ...]]]:
    """CALLS, EXTENDS and IMPLEMENTS (src fqn, dst fqn) and ENDPOINTs (fqn, method,
    route) of a repository made of ``files``."""
    graph = build_graph([extract(code.encode(), rel, ctx or RepoContext())
                         for rel, code in files.items()])
    nodes = graph.node_by_key()
    out: dict[str, set[tuple[str, ...]]] = {"CALLS": set(), "EXTENDS": set(),
                                             "IMPLEMENTS": set()}
    for e in graph.edges:
        if e.kind in out:
            out[e.kind].add((nodes[e.src_key].fqn, nodes[e.dst_key].fqn))
    out["ENDPOINT"] = {(n.fqn, n.meta["http_method"], n.meta["route"]) for n in graph.nodes
                       if n.kind == "ENDPOINT"}
    return out


def test_sample_files_parse_cleanly() -> None:
    for path in sorted(SAMPLE.rglob("*.php")):
        rel = path.relative_to(SAMPLE).as_posix()
        assert parsed(rel).error_count == 0, rel


def test_declarations_and_their_kinds() -> None:
    order = parsed("app/Models/Order.php")
    assert order.package == order.module == "App.Models"
    cls = sym(order, "App.Models.Order")
    assert cls.kind == "CLASS" and cls.doc_comment == "An order of one product by a customer."
    assert sym(order, "App.Models.Order.__construct").kind == "CONSTRUCTOR"
    # a promoted constructor parameter is a typed property
    product = sym(order, "App.Models.Order.product")
    assert product.kind == "FIELD" and product.meta["type"] == "App.Models.Product"
    assert sym(order, "App.Models.Order.status").meta["type"] == "App.Models.OrderStatus"
    status = parsed("app/Models/OrderStatus.php")
    assert sym(status, "App.Models.OrderStatus").kind == "ENUM"
    assert sym(status, "App.Models.OrderStatus.Paid").kind == "FIELD"
    trait = sym(parsed("app/Support/HasTimestamps.php"), "App.Support.HasTimestamps")
    assert trait.kind == "CLASS" and trait.meta["trait"] is True
    money = parsed("app/Support/Money.php")
    from_cents = sym(money, "App.Support.Money.fromCents")
    assert from_cents.meta["static"] is True
    assert from_cents.meta["return_type"] == "App.Support.Money"  # `static` is the class
    assert from_cents.signature == "public static function fromCents(int $cents): static"
    repo = parsed("app/Repositories/ProductRepository.php")
    assert sym(repo, "App.Repositories.ProductRepository").kind == "INTERFACE"
    # a docblock's `@return Product[]` types what `array` does not
    assert sym(repo, "App.Repositories.ProductRepository.all").meta["return_type"] == \
        "App.Models.Product[]"
    helper = sym(parsed("app/helpers.php"), "format_cents")  # the global namespace
    assert helper.kind == "FUNCTION" and helper.parent is None


def test_use_imports_groups_aliases_and_functions() -> None:
    result = snippet("""<?php
namespace App\\Http;
use App\\Models\\{User, Team as Squad};
use App\\Services\\Billing as Bills;
use function App\\Support\\money;
use const App\\LIMIT;
""")
    assert [(i.alias, i.target) for i in result.imports] == [
        ("User", "App.Models.User"), ("Squad", "App.Models.Team"),
        ("Bills", "App.Services.Billing"), ("money", "App.Support.money")]


def test_calls_through_this_self_static_parent_and_types() -> None:
    result = snippet("""<?php
namespace App;
use App\\Models\\User as Member;
class Svc extends Base {
    public function __construct(private Repo $repo) {}
    public function run(Member $m, ?\\Other\\Thing $t): void {
        $this->repo->find(1)->name();
        self::helper(); static::make(); parent::run($m, $t);
        $m->save(); $t?->go();
        $x = new Member(); $x->touch();
        Sub\\Tool::use();
    }
}
""")
    calls = {(c.name, tuple(c.receiver or ()), c.kind) for c in result.calls}
    assert {("find", ("this", "repo"), "call"), ("name", ("this", "repo", "find()"), "call"),
            ("helper", ("self",), "call"), ("make", ("self",), "call"),
            ("run", ("super",), "call"), ("save", ("m",), "call"), ("go", ("t",), "call"),
            ("Member", (), "new"), ("touch", ("x",), "call"),
            ("use", ("App", "Sub", "Tool"), "call")} <= calls
    assert result.var_types["App.Svc.run"] == {"m": "App.Models.User", "t": "Other.Thing",
                                              "x": "App.Models.User"}
    assert result.var_types["App.Svc"] == {"repo": "App.Repo"}


def test_trait_methods_come_before_inherited_ones_and_interfaces_are_implemented() -> None:
    sets = graph_sets({
        "src/Base.php": "<?php\nnamespace L;\nclass Base { public function log() {} }\n",
        "src/Logs.php": "<?php\nnamespace L;\ntrait Logs { public function log() {} }\n",
        "src/Named.php": "<?php\nnamespace L;\ninterface Named { public function name(); }\n",
        "src/Item.php": """<?php
namespace L;
final class Item extends Base implements Named {
    use Logs;
    public function name() { $this->log(); return static::class; }
}
""",
    })
    assert ("L.Item.name", "L.Logs.log") in sets["CALLS"]
    assert ("L.Item.name", "L.Base.log") not in sets["CALLS"]
    assert {("L.Item", "L.Base"), ("L.Item", "L.Logs")} <= sets["EXTENDS"]
    assert sets["IMPLEMENTS"] == {("L.Item", "L.Named")}


def test_chained_calls_follow_declared_and_docblock_return_types() -> None:
    sets = graph_sets({
        "src/Fmt.php": "<?php\nnamespace M;\ninterface Fmt { public function format($r); }\n",
        "src/Handler.php": """<?php
namespace M;
abstract class Handler {
    /** @var Fmt[] */
    protected array $formatters = [];
    abstract public function getFormatter(): Fmt;
    public function setLevel(int $l): static { return $this; }
    public function handle($r) {
        $this->getFormatter()->format($r);
        $this->setLevel(1)->handle($r);
        foreach ($this->formatters as $f) { $f->format($r); }
    }
}
""",
    })
    assert {("M.Handler.handle", "M.Fmt.format"), ("M.Handler.handle", "M.Handler.setLevel"),
            ("M.Handler.handle", "M.Handler.handle"),
            ("M.Handler.handle", "M.Handler.getFormatter")} == sets["CALLS"]


def test_laravel_routes_groups_resources_and_controllers() -> None:
    sets = graph_sets({
        "app/Http/Controllers/PostController.php": """<?php
namespace App\\Http\\Controllers;
class PostController {
    public function index() {} public function create() {} public function store() {}
    public function show() {} public function edit() {} public function update() {}
    public function destroy() {} public function feed() {} public function __invoke() {}
}
""",
        "routes/web.php": """<?php
use App\\Http\\Controllers\\PostController;
use Illuminate\\Support\\Facades\\Route;
Route::resource('photos.posts', PostController::class)->only(['index', 'show']);
Route::middleware('web')->prefix('admin')->group(function () {
    Route::apiResource('posts', PostController::class)->except(['destroy', 'index']);
    Route::controller(PostController::class)->group(function () {
        Route::match(['get', 'head'], '/feed', 'feed');
    });
});
Route::get('/ping', PostController::class);
Route::any('/hook', fn () => hook());
""",
    })
    assert sets["ENDPOINT"] == {
        ("App.Http.Controllers.PostController.index", "GET", "/photos/{photo}/posts"),
        ("App.Http.Controllers.PostController.show", "GET", "/photos/{photo}/posts/{post}"),
        ("App.Http.Controllers.PostController.store", "POST", "/admin/posts"),
        ("App.Http.Controllers.PostController.update", "PUT,PATCH", "/admin/posts/{post}"),
        ("App.Http.Controllers.PostController.feed", "GET,HEAD", "/admin/feed"),
        ("App.Http.Controllers.PostController.__invoke", "GET", "/ping"),
        ("routes.web.ANY /hook", "ANY", "/hook"),
    }


def test_symfony_attribute_routes_join_the_class_prefix() -> None:
    result = snippet("""<?php
namespace App\\Controller;
use Symfony\\Component\\Routing\\Attribute\\Route;
#[Route('/blog', name: 'blog_')]
class BlogController {
    #[Route('/{slug}', name: 'show', methods: ['GET'])]
    public function show(string $slug) {}
    #[Route(path: '/feed')]
    public function feed() {}
    public function helper() {}
}
""")
    show = sym(result, "App.Controller.BlogController.show")
    assert (show.kind, show.meta["http_method"], show.meta["route"]) == \
        ("ENDPOINT", "GET", "/blog/{slug}")
    feed = sym(result, "App.Controller.BlogController.feed")
    assert (feed.meta["http_method"], feed.meta["route"]) == ("ANY", "/blog/feed")
    assert sym(result, "App.Controller.BlogController.helper").kind == "METHOD"


def test_symfony_annotation_routes_in_doc_comments() -> None:
    result = snippet("""<?php
namespace App\\Controller;
/**
 * @Route("/shop")
 */
class ShopController {
    /**
     * Lists the products.
     * @Route("/products/{id}", name="product", methods={"GET","HEAD"})
     */
    public function show($id) {}
}
""")
    show = sym(result, "App.Controller.ShopController.show")
    assert (show.kind, show.meta["http_method"], show.meta["route"]) == \
        ("ENDPOINT", "GET,HEAD", "/shop/products/{id}")


def test_composer_autoload_facts(tmp_path: Path) -> None:
    (tmp_path / "composer.json").write_text(
        '{"autoload": {"psr-4": {"App\\\\": "app/", "Lib\\\\Core\\\\": ["src/"]},'
        ' "files": ["app/helpers.php"]}, "autoload-dev": {"psr-4": {"Tests\\\\": "tests"}}}')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "composer.json").write_text("{not json")
    facts = repo_facts(RepoFiles(tmp_path, ["composer.json", "pkg/composer.json"]))
    assert facts == {"psr4": {"app": "App", "src": "Lib.Core", "tests": "Tests"},
                     "files": ["app/helpers.php"], "roots": ["", "pkg"]}
    assert psr4_namespace("src/Http/Client.php", facts["psr4"]) == "Lib.Core.Http"
    # a class file that declares no namespace is named by PSR-4
    ctx = RepoContext({"php": facts})
    result = snippet("<?php\nclass Client {}\n", "src/Http/Client.php", ctx)
    assert sym(result, "Lib.Core.Http.Client").kind == "CLASS"


def test_closure_route_is_named_from_its_composer_root(tmp_path: Path) -> None:
    """An application indexed inside a larger folder names its closure routes as when
    indexed alone (the graph's fqns must not change with where the index starts)."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "composer.json").write_text("{}")
    ctx = RepoContext({"php": repo_facts(RepoFiles(tmp_path, ["shop/composer.json"]))})
    result = snippet("<?php\nRoute::get('/', function () { return home(); });\n",
                     "shop/routes/web.php", ctx)
    assert sym(result, "routes.web.GET /").kind == "ENDPOINT"
    assert [c.caller for c in result.calls if c.name == "home"] == ["routes.web.GET /"]


def test_global_helper_functions_are_found_from_every_namespace() -> None:
    files = {
        "app/helpers.php": "<?php\nfunction money($c) { return $c; }\n",
        "app/Svc.php": "<?php\nnamespace App;\nclass Svc { public function f() { money(1);"
                       " \\money(2); local(); }\n}\nfunction local() {}\n",
    }
    sets = graph_sets(files, HELPERS)
    assert sets["CALLS"] == {("App.Svc.f", "money"), ("App.Svc.f", "App.local")}
    # without composer's autoloaded files a namespaced call names no global function
    assert ("App.Svc.f", "money") not in graph_sets(files)["CALLS"]


def test_broken_and_hostile_php_keeps_what_parses() -> None:
    result = snippet("<?php\nnamespace X;\nclass A { public function f( { $this->g(); }\n"
                     "function ok(): int { return 1; }\n")
    assert result.error_count > 0
    assert {"X.A", "X.A.f"} <= {s.fqn for s in result.symbols}
    assert [(c.caller, c.name) for c in result.calls] == [("X.A.f", "g")]
    templated = snippet("<html><?php foreach ($rows as $r): ?><td><?= e($r->name) ?></td>"
                        "<?php endforeach; ?></html>\n", "views/list.php")
    assert [c.name for c in templated.calls] == ["e"]
