"""Unit tests of the cross-file resolver on hand-built ParseResults."""

from __future__ import annotations

import json
import random
from dataclasses import asdict

import pytest

from graphrag.graph.model import Graph
from graphrag.graph.resolve import build_graph
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol

_line = iter(range(1, 1_000_000))


def sym(kind: str, fqn: str, parent: str | None = None, name: str | None = None,
        **meta: object) -> Symbol:
    """A symbol with a fresh line number; name defaults to the last fqn part."""
    line = next(_line)
    short = name or fqn.replace(":", ".").rsplit(".", 1)[-1]
    return Symbol(kind=kind, name=short, fqn=fqn, parent=parent, line_start=line,
                  line_end=line, char_start=0, char_end=1, meta=dict(meta))


def call(caller: str | None, name: str, receiver: list[str] | None = None,
         line: int = 1, kind: str = "call") -> Call:
    return Call(caller=caller, name=name, receiver=receiver, line=line, kind=kind)


def edges(graph: Graph, kind: str) -> set[tuple[str, str]]:
    """(src fqn, dst fqn) of the edges of one kind."""
    nodes = graph.node_by_key()
    return {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
            if e.kind == kind}


def edge(graph: Graph, kind: str, src: str, dst: str):
    nodes = graph.node_by_key()
    return next(e for e in graph.edges if e.kind == kind and nodes[e.src_key].fqn == src
                and nodes[e.dst_key].fqn == dst)


def node(graph: Graph, fqn: str):
    return next(n for n in graph.nodes if n.fqn == fqn)


# --------------------------------------------------------------------- python
def python_repo() -> list[ParseResult]:
    models = ParseResult(
        path="app/models.py", lang="python", module="app.models", package=None,
        symbols=[sym("CLASS", "app.models.Base"),
                 sym("METHOD", "app.models.Base.save", "app.models.Base"),
                 sym("CLASS", "app.models.User"),
                 sym("CONSTRUCTOR", "app.models.User.__init__", "app.models.User"),
                 sym("METHOD", "app.models.User.validate", "app.models.User"),
                 sym("METHOD", "app.models.User.save", "app.models.User")],
        heritage=[Heritage("app.models.User", "Base", "extends", 3)],
        calls=[call("app.models.User.save", "__init__", ["super"], 20),
               call("app.models.User.save", "save", ["super"], 21),
               call("app.models.User.save", "validate", ["self"], 22)],
    )
    repo = ParseResult(
        path="app/repo.py", lang="python", module="app.repo", package=None,
        symbols=[sym("CLASS", "app.repo.UserRepo"),
                 sym("METHOD", "app.repo.UserRepo.find", "app.repo.UserRepo",
                     return_type="User"),
                 sym("FUNCTION", "app.repo.make_repo", return_type="UserRepo")],
        imports=[Import("User", "app.models.User", 1), Import("os", "os", 2)],
        calls=[call("app.repo.UserRepo.find", "User", None, 30),
               call("app.repo.UserRepo.find", "getenv", ["os"], 31)],
    )
    service = ParseResult(
        path="app/service.py", lang="python", module="app.service", package=None,
        symbols=[sym("CLASS", "app.service.UserService"),
                 sym("CONSTRUCTOR", "app.service.UserService.__init__",
                     "app.service.UserService"),
                 sym("METHOD", "app.service.UserService.get", "app.service.UserService"),
                 sym("FUNCTION", "app.service.outer"),
                 sym("FUNCTION", "app.service.outer.inner", "app.service.outer"),
                 sym("FUNCTION", "app.service.helper")],
        imports=[Import("repo_mod", "app.repo", 1), Import("UserRepo", "app.repo.UserRepo", 2),
                 Import("requests", "requests", 3)],
        var_types={"app.service.UserService": {"repo": "=call:repo_mod.make_repo"},
                   "app.service.UserService.get": {"user": "=call:self.repo.find"}},
        calls=[call("app.service.UserService.__init__", "make_repo", ["repo_mod"], 40),
               call("app.service.UserService.get", "find", ["self", "repo"], 41),
               call("app.service.UserService.get", "find", ["self", "repo"], 43),
               call("app.service.UserService.get", "save", ["user"], 42),
               call("app.service.UserService.get", "helper", None, 44),
               call("app.service.UserService.get", "get", ["requests"], 45),
               call("app.service.outer", "inner", None, 46),
               call(None, "UserService", None, 47),
               call(None, "UserRepo", None, 48)],
    )
    return [models, repo, service]


def test_python_calls_cover_each_rule():
    graph = build_graph(python_repo())
    calls = edges(graph, "CALLS")
    assert calls == {
        ("app.models.User.save", "app.models.Base.save"),            # super
        ("app.models.User.save", "app.models.User.validate"),        # self
        ("app.repo.UserRepo.find", "app.models.User.__init__"),      # constructor via import
        ("app.service.UserService.__init__", "app.repo.make_repo"),  # module alias
        ("app.service.UserService.get", "app.repo.UserRepo.find"),   # field typed by =call
        ("app.service.UserService.get", "app.models.User.save"),     # =call return type
        ("app.service.UserService.get", "app.service.helper"),       # same module
        ("app.service.outer", "app.service.outer.inner"),            # nested function
        ("app/service.py", "app.service.UserService.__init__"),      # constructor, local
    }
    find = edge(graph, "CALLS", "app.service.UserService.get", "app.repo.UserRepo.find")
    assert find.lines == [41, 43] and find.resolution == "type" and find.confidence == 1.0
    assert edge(graph, "CALLS", "app.models.User.save", "app.models.Base.save"
                ).resolution == "super"
    assert edges(graph, "EXTENDS") == {("app.models.User", "app.models.Base")}
    assert ("app.models.User.save", "app.models.Base.save") in edges(graph, "OVERRIDES")


def test_external_calls_make_no_edge_and_are_recorded():
    graph = build_graph(python_repo())
    targets = {dst for _src, dst in edges(graph, "CALLS")}
    assert not any("requests" in t or "getenv" in t for t in targets)
    assert node(graph, "app.service.UserService.get").meta["unresolved_calls"] == \
        ["requests.get"]
    assert node(graph, "app/service.py").meta["external_imports"] == ["requests"]


def test_structure_and_imports():
    graph = build_graph(python_repo())
    contains = edges(graph, "CONTAINS")
    assert ("", "app/models.py") in contains
    assert ("app/models.py", "app.models.User") in contains
    assert ("app.models.User", "app.models.User.save") in contains
    assert edges(graph, "IMPORTS") == {
        ("app/repo.py", "app.models.User"),
        ("app/service.py", "app/repo.py"),
        ("app/service.py", "app.repo.UserRepo"),
    }
    assert node(graph, "app/models.py").key == "file:app/models.py"
    assert node(graph, "app.models.User").key == "sym:python:app.models.User"
    assert node(graph, "app/models.py").meta["module"] == "app.models"


def test_build_graph_is_deterministic():
    results = python_repo() + java_repo() + go_repo() + ts_repo()
    expected = _dump(build_graph(results))
    for seed in range(3):
        shuffled = list(results)
        random.Random(seed).shuffle(shuffled)
        assert _dump(build_graph(shuffled)) == expected


def _dump(graph: Graph) -> str:
    return json.dumps(asdict(graph), sort_keys=False)


# ----------------------------------------------------------------------- java
def java_repo() -> list[ParseResult]:
    repo_iface = ParseResult(
        path="src/com/acme/Repo.java", lang="java", module="com.acme", package="com.acme",
        symbols=[sym("INTERFACE", "com.acme.Repo"),
                 sym("METHOD", "com.acme.Repo.find", "com.acme.Repo")],
    )
    base = ParseResult(
        path="src/com/acme/BaseService.java", lang="java", module="com.acme",
        package="com.acme",
        symbols=[sym("CLASS", "com.acme.BaseService"),
                 sym("METHOD", "com.acme.BaseService.log", "com.acme.BaseService")],
    )
    jdbc = ParseResult(
        path="src/com/acme/db/JdbcRepo.java", lang="java", module="com.acme.db",
        package="com.acme.db",
        symbols=[sym("CLASS", "com.acme.db.JdbcRepo"),
                 sym("CONSTRUCTOR", "com.acme.db.JdbcRepo.<init>", "com.acme.db.JdbcRepo",
                     name="<init>"),
                 sym("METHOD", "com.acme.db.JdbcRepo.find", "com.acme.db.JdbcRepo"),
                 sym("METHOD", "com.acme.db.JdbcRepo.connect", "com.acme.db.JdbcRepo",
                     static=True)],
        imports=[Import("Repo", "com.acme.Repo", 1), Import("List", "java.util.List", 2)],
        heritage=[Heritage("com.acme.db.JdbcRepo", "Repo", "implements", 3)],
    )
    overloads = [sym("METHOD", "com.acme.Service.run", "com.acme.Service"),
                 sym("METHOD", "com.acme.Service.run", "com.acme.Service")]
    overloads[1].key_suffix = ""
    service = ParseResult(
        path="src/com/acme/Service.java", lang="java", module="com.acme", package="com.acme",
        symbols=[sym("CLASS", "com.acme.Service"),
                 sym("METHOD", "com.acme.Service.handle", "com.acme.Service"),
                 *overloads],
        imports=[Import("JdbcRepo", "com.acme.db.JdbcRepo", 1),
                 Import("*", "com.acme.db", 2)],
        heritage=[Heritage("com.acme.Service", "BaseService", "extends", 3)],
        var_types={"com.acme.Service": {"repo": "Repo"},
                   "com.acme.Service.handle": {"local": "JdbcRepo", "names": "List<String>"}},
        calls=[call("com.acme.Service.handle", "run", None, 50),            # implicit this
               call("com.acme.Service.handle", "log", None, 51),            # inherited
               call("com.acme.Service.handle", "find", ["this", "repo"], 52),  # interface
               call("com.acme.Service.handle", "find", ["local"], 53),      # typed local
               call("com.acme.Service.handle", "connect", ["JdbcRepo"], 54),  # static
               call("com.acme.Service.handle", "JdbcRepo", None, 55, "new"),  # constructor
               call("com.acme.Service.handle", "size", ["names"], 56),      # external type
               call("com.acme.Service.handle", "println", ["System", "out"], 57)],
    )
    return [repo_iface, base, jdbc, service]


def test_java_resolution():
    graph = build_graph(java_repo())
    calls = edges(graph, "CALLS")
    assert calls == {
        ("com.acme.Service.handle", "com.acme.Service.run"),
        ("com.acme.Service.handle", "com.acme.BaseService.log"),
        ("com.acme.Service.handle", "com.acme.Repo.find"),
        ("com.acme.Service.handle", "com.acme.db.JdbcRepo.find"),
        ("com.acme.Service.handle", "com.acme.db.JdbcRepo.connect"),
        ("com.acme.Service.handle", "com.acme.db.JdbcRepo.<init>"),
    }
    assert edge(graph, "CALLS", "com.acme.Service.handle", "com.acme.BaseService.log"
                ).confidence == 0.9
    assert edges(graph, "IMPLEMENTS") == {("com.acme.db.JdbcRepo", "com.acme.Repo")}
    assert edges(graph, "EXTENDS") == {("com.acme.Service", "com.acme.BaseService")}
    assert edges(graph, "OVERRIDES") == {("com.acme.db.JdbcRepo.find", "com.acme.Repo.find")}
    keys = [n.key for n in graph.nodes if n.fqn == "com.acme.Service.run"]
    assert keys == ["sym:java:com.acme.Service.run", "sym:java:com.acme.Service.run#2"]
    contains = edges(graph, "CONTAINS")
    assert ("", "com.acme") in contains and ("com.acme", "src/com/acme/Service.java") in contains
    assert node(graph, "com.acme").key == "package:java:com.acme"
    assert ("src/com/acme/Service.java", "com.acme.db") in edges(graph, "IMPORTS")


def _overload(fqn: str, parent: str, *params: str, kind: str = "METHOD", **meta):
    name = fqn.split("(", 1)[0].rsplit(".", 1)[-1]
    return sym(kind, fqn, parent, name=name, params=[[f"p{i}", t] for i, t in
                                                   enumerate(params)], **meta)


def _args(c: Call, *types: str | None) -> Call:
    c.args, c.arg_types = len(types), list(types)
    return c


def test_overloads_are_chosen_by_arity_and_argument_types():
    p = "com.acme.Parser"
    base = ParseResult(
        path="src/com/acme/Base.java", lang="java", module="com.acme", package="com.acme",
        symbols=[sym("CLASS", "com.acme.Base"), sym("CLASS", "com.acme.Source"),
                 sym("CLASS", "com.acme.FileSource"),
                 _overload("com.acme.Base.parse(Source)", "com.acme.Base", "Source"),
                 _overload("com.acme.Base.parse(int)", "com.acme.Base", "int")],
        heritage=[Heritage("com.acme.FileSource", "Source", "extends", 1)],
    )
    parser = ParseResult(
        path="src/com/acme/Parser.java", lang="java", module="com.acme", package="com.acme",
        symbols=[sym("CLASS", p),
                 _overload(f"{p}.<init>(String)", p, "String", kind="CONSTRUCTOR"),
                 _overload(f"{p}.<init>(String,int)", p, "String", "int", kind="CONSTRUCTOR"),
                 _overload(f"{p}.parse(String)", p, "String"),
                 _overload(f"{p}.parse(String,String)", p, "String", "String"),
                 _overload(f"{p}.parse(int)", p, "int"),
                 _overload(f"{p}.log(Object...)", p, "Object..."),
                 _overload(f"{p}.log(String)", p, "String"),
                 sym("METHOD", f"{p}.run", p)],
        heritage=[Heritage(p, "Base", "extends", 1)],
        var_types={f"{p}.run": {"name": "String", "src": "FileSource"},
                   f"{p}.parse(String)": {}},
        calls=[_args(call(f"{p}.run", "parse", None, 10), "String"),            # literal
               _args(call(f"{p}.run", "parse", None, 11), "=var:name", None),   # arity
               _args(call(f"{p}.run", "parse", None, 12), "short"),             # widening
               _args(call(f"{p}.run", "parse", None, 13), "=var:src"),          # subtype
               _args(call(f"{p}.run", "log", None, 14), "int", "int", "int"),   # varargs
               _args(call(f"{p}.run", "Parser", None, 15, "new"), "String", "int"),
               # an overload calling its own name means a sibling, not itself
               _args(call(f"{p}.parse(String)", "parse", None, 16), None, None)],
    )
    graph = build_graph([base, parser])
    calls = edges(graph, "CALLS")
    assert calls == {
        (f"{p}.run", f"{p}.parse(String)"),
        (f"{p}.run", f"{p}.parse(String,String)"),
        (f"{p}.run", f"{p}.parse(int)"),
        (f"{p}.run", "com.acme.Base.parse(Source)"),
        (f"{p}.run", f"{p}.log(Object...)"),
        (f"{p}.run", f"{p}.<init>(String,int)"),
        (f"{p}.parse(String)", f"{p}.parse(String,String)"),
    }
    # a bare call is on the caller's own instance: only overrides below Parser can run
    assert edge(graph, "CALLS", f"{p}.run", "com.acme.Base.parse(Source)").resolution \
        == "self-inherited"
    # only the overload with the same parameter list is overridden
    assert edges(graph, "OVERRIDES") == {(f"{p}.parse(int)", "com.acme.Base.parse(int)")}
    # each overload keeps the stable key it had as `fqn + key suffix`
    assert node(graph, f"{p}.parse(int)").key == f"sym:java:{p}.parse(int)"


# --------------------------------------------------------------------- kotlin
def test_kotlin_unknown_heritage_and_companion():
    shapes = ParseResult(
        path="src/Shapes.kt", lang="kotlin", module="geo", package="geo",
        symbols=[sym("INTERFACE", "geo.Shape"),
                 sym("METHOD", "geo.Shape.area", "geo.Shape"),
                 sym("CLASS", "geo.Base"),
                 sym("CLASS", "geo.Circle"),
                 sym("METHOD", "geo.Circle.area", "geo.Circle"),
                 sym("OBJECT", "geo.Circle.Companion", "geo.Circle", companion=True),
                 sym("METHOD", "geo.Circle.Companion.unit", "geo.Circle.Companion"),
                 sym("OBJECT", "geo.Registry"),
                 sym("METHOD", "geo.Registry.register", "geo.Registry"),
                 sym("FUNCTION", "geo.main")],
        heritage=[Heritage("geo.Circle", "Base", "extends", 1),
                  Heritage("geo.Circle", "Shape", "unknown", 1)],
        var_types={"geo.main": {"c": "=call:Circle.unit", "s": "Shape"}},
        calls=[call("geo.main", "unit", ["Circle"], 60),
               call("geo.main", "register", ["Registry"], 61),
               call("geo.main", "area", ["c"], 62),
               call("geo.main", "area", ["s"], 63),
               call("geo.Circle.area", "unit", None, 64)],
    )
    shapes.symbols[6].meta["return_type"] = "Circle"
    graph = build_graph([shapes])
    assert edges(graph, "IMPLEMENTS") == {("geo.Circle", "geo.Shape")}
    assert edges(graph, "EXTENDS") == {("geo.Circle", "geo.Base")}
    assert edges(graph, "CALLS") == {
        ("geo.main", "geo.Circle.Companion.unit"),
        ("geo.main", "geo.Registry.register"),
        ("geo.main", "geo.Circle.area"),
        ("geo.main", "geo.Shape.area"),
        ("geo.Circle.area", "geo.Circle.Companion.unit"),
    }
    assert edge(graph, "CALLS", "geo.main", "geo.Registry.register").resolution == "static"


# ------------------------------------------------------------------------- ts
def ts_repo() -> list[ParseResult]:
    svc = ParseResult(
        path="src/services/index.ts", lang="typescript", module="src/services/index",
        package=None,
        symbols=[sym("CLASS", "src/services/index:UserService"),
                 sym("METHOD", "src/services/index:UserService.getUser",
                     "src/services/index:UserService"),
                 sym("METHOD", "src/services/index:UserService.load",
                     "src/services/index:UserService"),
                 sym("FUNCTION", "src/services/index:createApp", export_default=True)],
        calls=[call("src/services/index:UserService.getUser", "load", ["this"], 70)],
    )
    app = ParseResult(
        path="src/app.tsx", lang="tsx", module="src/app", package=None,
        symbols=[sym("FUNCTION", "src/app:main")],
        imports=[Import("UserService", "src/services:UserService", 1),
                 Import("createApp", "src/services:default", 2),
                 Import("express", "express", 3)],
        var_types={"src/app:main": {"svc": "UserService"}},
        calls=[call("src/app:main", "getUser", ["svc"], 71),
               call("src/app:main", "createApp", None, 72),
               call("src/app:main", "listen", ["app"], 73)],
    )
    return [svc, app]


def test_typescript_index_default_and_this():
    graph = build_graph(ts_repo())
    assert edges(graph, "CALLS") == {
        ("src/services/index:UserService.getUser", "src/services/index:UserService.load"),
        ("src/app:main", "src/services/index:UserService.getUser"),
        ("src/app:main", "src/services/index:createApp"),
    }
    assert edges(graph, "IMPORTS") == {
        ("src/app.tsx", "src/services/index:UserService"),
        ("src/app.tsx", "src/services/index:createApp"),
    }
    assert node(graph, "src/app:main").key == "sym:js:src/app:main"


# ------------------------------------------------------------------------- go
def go_repo() -> list[ParseResult]:
    store = ParseResult(
        path="store/store.go", lang="go", module="example.com/shop/store",
        package="example.com/shop/store",
        symbols=[sym("INTERFACE", "example.com/shop/store.Finder"),
                 sym("METHOD", "example.com/shop/store.Finder.Find",
                     "example.com/shop/store.Finder"),
                 sym("CLASS", "example.com/shop/store.Base"),
                 sym("METHOD", "example.com/shop/store.Base.Find",
                     "example.com/shop/store.Base"),
                 sym("CLASS", "example.com/shop/store.Store"),
                 sym("FUNCTION", "example.com/shop/store.NewStore",
                     return_type="(*Store, error)")],
        heritage=[Heritage("example.com/shop/store.Store", "Base", "embeds", 5)],
    )
    extra = ParseResult(
        path="store/extra.go", lang="go", module="example.com/shop/store",
        package="example.com/shop/store",
        symbols=[sym("METHOD", "example.com/shop/store.Store.Close",
                     "example.com/shop/store.Store")],
    )
    main = ParseResult(
        path="main.go", lang="go", module="example.com/shop", package="example.com/shop",
        symbols=[sym("FUNCTION", "example.com/shop.main"),
                 sym("FUNCTION", "example.com/shop.handleUsers"),
                 sym("ENDPOINT", "example.com/shop.GET /health", "example.com/shop",
                     name="GET /health", http_method="GET", route="/health")],
        imports=[Import("store", "example.com/shop/store", 1),
                 Import("http", "net/http", 2)],
        var_types={"example.com/shop.main": {"s": "=call:store.NewStore"}},
        calls=[call("example.com/shop.main", "NewStore", ["store"], 80),
               call("example.com/shop.main", "Find", ["s"], 81),
               call("example.com/shop.main", "Close", ["s"], 82),
               call("example.com/shop.main", "handleUsers", None, 83, "ref"),
               call("example.com/shop.main", "HandleFunc", ["http"], 83)],
        registrations=[
            Registration("GET", "/users", 83, "example.com/shop.main", "handleUsers"),
            Registration("GET", "/health", 84, "example.com/shop.main",
                         inline_fqn="example.com/shop.GET /health")],
    )
    return [store, extra, main]


def test_go_packages_embedding_method_sets_and_endpoints():
    graph = build_graph(go_repo())
    pkg = "example.com/shop/store"
    assert edges(graph, "CALLS") == {
        ("example.com/shop.main", f"{pkg}.NewStore"),
        ("example.com/shop.main", f"{pkg}.Base.Find"),
        ("example.com/shop.main", f"{pkg}.Store.Close"),
        ("example.com/shop.main", "example.com/shop.handleUsers"),
    }
    assert edge(graph, "CALLS", "example.com/shop.main", f"{pkg}.Base.Find"
                ).resolution == "inherited"
    extends = edge(graph, "EXTENDS", f"{pkg}.Store", f"{pkg}.Base")
    assert extends.resolution == "embedding"
    implements = {(s, d) for s, d in edges(graph, "IMPLEMENTS")}
    assert implements == {(f"{pkg}.Base", f"{pkg}.Finder"), (f"{pkg}.Store", f"{pkg}.Finder")}
    method_set = edge(graph, "IMPLEMENTS", f"{pkg}.Store", f"{pkg}.Finder")
    assert (method_set.resolution, method_set.confidence) == ("method-set", 0.8)
    handler = node(graph, "example.com/shop.handleUsers")
    assert handler.kind == "ENDPOINT"
    assert (handler.meta["http_method"], handler.meta["route"]) == ("GET", "/users")
    assert ("store/extra.go", f"{pkg}.Store.Close") not in edges(graph, "CONTAINS")
    assert (f"{pkg}.Store", f"{pkg}.Store.Close") in edges(graph, "CONTAINS")
    assert edges(graph, "IMPORTS") == {("main.go", pkg)}
    assert node(graph, pkg).key == f"package:go:{pkg}"


# ----------------------------------------------------------------- fallback
def test_unique_name_fallback_only_for_rare_untyped_names():
    mod = ParseResult(
        path="a.py", lang="python", module="a", package=None,
        symbols=[sym("CLASS", "a.Cache"),
                 sym("METHOD", "a.Cache.invalidate_all", "a.Cache"),
                 sym("METHOD", "a.Cache.get", "a.Cache"),
                 sym("FUNCTION", "a.run")],
        var_types={"a.run": {"typed": "dict"}},
        calls=[call("a.run", "invalidate_all", ["?"], 90),
               call("a.run", "get", ["?"], 91),
               call("a.run", "invalidate_all", ["typed"], 92)],
    )
    assert not edges(build_graph([mod]), "CALLS")  # off by default
    graph = build_graph([mod], unique_name_fallback=True)
    found = edge(graph, "CALLS", "a.run", "a.Cache.invalidate_all")
    assert (found.resolution, found.confidence, found.lines) == ("unique-name", 0.5, [90])
    assert ("a.run", "a.Cache.get") not in edges(graph, "CALLS")


@pytest.mark.parametrize("count", [2000])
def test_scales_linearly(count: int):
    results = []
    for i in range(count):
        results.append(ParseResult(
            path=f"m{i}.py", lang="python", module=f"m{i}", package=None,
            symbols=[sym("FUNCTION", f"m{i}.f"), sym("CLASS", f"m{i}.C"),
                     sym("METHOD", f"m{i}.C.g", f"m{i}.C")],
            imports=[Import("f", f"m{(i + 1) % count}.f", 1)],
            var_types={f"m{i}.f": {"c": "C"}},
            calls=[call(f"m{i}.f", "f", None, 2), call(f"m{i}.f", "g", ["c"], 3)],
        ))
    graph = build_graph(results)
    assert len(edges(graph, "CALLS")) == 2 * count


def test_router_mount_prefix_is_joined_across_modules():
    routes = ParseResult(
        path="src/routes/users.js", lang="javascript", module="src/routes/users",
        package=None,
        symbols=[sym("FUNCTION", "src/routes/users:list"),
                 sym("ENDPOINT", "src/routes/users:GET /:id", name="GET /:id",
                     http_method="GET", route="/:id"),
                 sym("CLASS", "src/routes/users:Plain")],
        registrations=[
            Registration("GET", "/", 5, None, "list"),
            Registration("GET", "/:id", 6, None, inline_fqn="src/routes/users:GET /:id")],
        calls=[call(None, "Plain", None, 7, "new")],
    )
    app = ParseResult(
        path="src/app.js", lang="javascript", module="src/app", package=None,
        imports=[Import("users", "src/routes/users:default", 1)],
        registrations=[Registration("USE", "/api/users", 3, None, "users")],
    )
    graph = build_graph([routes, app])
    endpoints = {(n.fqn, n.meta["http_method"], n.meta["route"])
                 for n in graph.nodes if n.kind == "ENDPOINT"}
    assert endpoints == {("src/routes/users:list", "GET", "/api/users"),
                         ("src/routes/users:GET /:id", "GET", "/api/users/:id")}
    # The default export is a variable (no symbol): the import links the module's file.
    assert edges(graph, "IMPORTS") == {("src/app.js", "src/routes/users.js")}
    assert "external_imports" not in node(graph, "src/app.js").meta
    # `new Plain()` without a declared constructor: no edge, but not unresolved either.
    assert "unresolved_calls" not in node(graph, "src/routes/users.js").meta


def test_python_classmethod_receiver_and_static_call():
    mod = ParseResult(
        path="m.py", lang="python", module="m", package=None,
        symbols=[sym("CLASS", "m.Config"),
                 sym("METHOD", "m.Config.load", "m.Config"),
                 sym("METHOD", "m.Config.default", "m.Config"),
                 sym("FUNCTION", "m.main")],
        calls=[call("m.Config.load", "default", ["cls"], 100),
               call("m.main", "load", ["Config"], 101)],
    )
    graph = build_graph([mod])
    assert edges(graph, "CALLS") == {("m.Config.load", "m.Config.default"),
                                     ("m.main", "m.Config.load")}
    assert edge(graph, "CALLS", "m.main", "m.Config.load").resolution == "static"


def test_receivers_typed_by_return_types_and_callback_parameters():
    """`a.b().c()` follows declared return types (`return-type`); an untyped callback
    parameter takes its type from the callee's declared function type (`callback-param`);
    an unknown or generic return type gives no edge."""
    m = "src/lib"
    lib = ParseResult(
        path="src/lib.ts", lang="typescript", module=m, package=None,
        symbols=[sym("CLASS", f"{m}:Repo"),
                 sym("METHOD", f"{m}:Repo.find", f"{m}:Repo", return_type="Item | undefined"),
                 sym("METHOD", f"{m}:Repo.raw", f"{m}:Repo", return_type="T"),
                 sym("CLASS", f"{m}:Item"),
                 sym("METHOD", f"{m}:Item.save", f"{m}:Item"),
                 sym("FUNCTION", f"{m}:repo", return_type="Repo"),
                 sym("FUNCTION", f"{m}:each", params=[
                     ["items", "Item[]"], ["fn", "(this: Window, item: Item, i: number) => void"]]),
                 sym("FUNCTION", f"{m}:main")],
        var_types={f"{m}:main": {"it": "=arg:each#1#0", "idx": "=arg:each#1#1"}},
        calls=[call(f"{m}:main", "save", ["repo()", "find()"], 80),
               call(f"{m}:main", "save", ["repo()", "raw()"], 81),
               call(f"{m}:main", "save", ["it"], 82),
               call(f"{m}:main", "toFixed", ["idx"], 83)],
    )
    graph = build_graph([lib])
    assert edges(graph, "CALLS") == {(f"{m}:main", f"{m}:Item.save")}
    (save,) = [e for e in graph.edges if e.kind == "CALLS"]
    assert save.lines == [80, 82]
    # the best resolution of the merged edge wins: both are below plain `type`
    assert save.resolution == "return-type" and save.confidence == 0.95


def test_calls_in_a_redeclared_function_belong_to_the_declaration_holding_them():
    first, second = sym("FUNCTION", "app.compat.getchar"), sym("FUNCTION", "app.compat.getchar")
    first.line_start, first.line_end, second.line_start, second.line_end = 10, 20, 30, 40
    compat = ParseResult(
        path="app/compat.py", lang="python", module="app.compat", package=None,
        symbols=[first, second, sym("FUNCTION", "app.compat.win_read"),
                 sym("FUNCTION", "app.compat.posix_read")],
        calls=[call("app.compat.getchar", "win_read", None, 15),
               call("app.compat.getchar", "posix_read", None, 35)],
    )
    graph = build_graph([compat])
    keys = {e.dst_key: e.src_key for e in graph.edges if e.kind == "CALLS"}
    assert keys == {"sym:python:app.compat.win_read": "sym:python:app.compat.getchar",
                    "sym:python:app.compat.posix_read": "sym:python:app.compat.getchar#2"}


def test_for_loop_elements_of_fields_and_call_results():
    m = "app.cmd"
    mod = ParseResult(
        path="app/cmd.py", lang="python", module=m, package=None,
        symbols=[sym("CLASS", f"{m}.Param"), sym("METHOD", f"{m}.Param.run", f"{m}.Param"),
                 sym("CLASS", f"{m}.Command"),
                 sym("FIELD", f"{m}.Command.params", f"{m}.Command", type="t.List['Param']"),
                 sym("METHOD", f"{m}.Command.get_params", f"{m}.Command",
                     return_type="list[Param]"),
                 sym("METHOD", f"{m}.Command.names", f"{m}.Command", return_type="list[str]"),
                 sym("METHOD", f"{m}.Command.main", f"{m}.Command"),
                 # an iterable repository class: its __iter__ gives the elements
                 sym("CLASS", f"{m}.Params"),
                 sym("METHOD", f"{m}.Params.__iter__", f"{m}.Params",
                     return_type="Iterator['Param']"),
                 sym("METHOD", f"{m}.Command.all", f"{m}.Command", return_type="Params"),
                 sym("METHOD", f"{m}.Command.make", f"{m}.Command", decorators=["classmethod"])],
        var_types={f"{m}.Command.main": {"a": "=iter:self.params",
                                         "b": "=iter:=call:self.get_params",
                                         "c": "=iter:=call:self.names",
                                         "d": "=iter:=call:self.all"},
                   f"{m}.Command.make": {"made": "=call:cls"}},
        calls=[call(f"{m}.Command.main", "run", ["a"], 90),
               call(f"{m}.Command.main", "run", ["b"], 91),
               call(f"{m}.Command.main", "run", ["c"], 92),
               call(f"{m}.Command.main", "run", ["d"], 93),
               call(f"{m}.Command.make", "main", ["made"], 94)],
    )
    graph = build_graph([mod])
    run, main = sorted((e for e in graph.edges if e.kind == "CALLS"), key=lambda e: e.lines)
    assert (run.lines, run.resolution) == ([90, 91, 93], "type")
    assert (main.lines, main.resolution) == ([94], "type")  # `cls(...)` is an instance


def test_union_receiver_links_each_class_with_lower_confidence():
    m = "app.notify"
    mod = ParseResult(
        path="app/notify.py", lang="python", module=m, package=None,
        symbols=[sym("CLASS", f"{m}.Email"), sym("METHOD", f"{m}.Email.send", f"{m}.Email"),
                 sym("CLASS", f"{m}.Log"), sym("METHOD", f"{m}.Log.send", f"{m}.Log"),
                 sym("METHOD", f"{m}.Log.flush", f"{m}.Log"),
                 sym("FUNCTION", f"{m}.main")],
        var_types={f"{m}.main": {"ch": "Email | Log", "one": "Email | Missing"}},
        calls=[call(f"{m}.main", "send", ["ch"], 95), call(f"{m}.main", "flush", ["ch"], 96),
               call(f"{m}.main", "send", ["one"], 97)],
    )
    graph = build_graph([mod])
    nodes = graph.node_by_key()
    found = {(nodes[e.dst_key].fqn, tuple(e.lines), e.resolution, e.confidence)
             for e in graph.edges if e.kind == "CALLS"}
    assert found == {(f"{m}.Email.send", (95, 97), "union", 0.6),
                     (f"{m}.Log.send", (95,), "union", 0.6),
                     (f"{m}.Log.flush", (96,), "union", 0.6)}


def test_kotlin_extension_functions_match_the_receiver_class() -> None:
    """``x.label()`` links to ``fun Book.label()`` only when x is a Book (or a subclass)
    or of a class the repository does not define; a member of the same name wins."""
    from graphrag.parsing.extract import parse_file
    from graphrag.parsing.registry import RepoContext

    ext = (b"package a\nopen class Book(val t: String)\nclass Comic(t: String) : Book(t)\n"
           b"class Shelf {\n    fun label(): String = \"s\"\n}\n"
           b"fun Book.label(): String = t\nfun String.shout(): String = this\n")
    use = (b"package b\nimport a.Book\nimport a.Comic\nimport a.Shelf\nimport a.label\n"
           b"import a.shout\n"
           b"fun f(b: Book, c: Comic, s: Shelf, n: Other) = b.label() + c.label() + "
           b"s.label() + n.label() + \"x\".shout()\nclass Other\n")
    results = [parse_file(ext, "a/Ext.kt", RepoContext()), parse_file(use, "b/Use.kt",
                                                                       RepoContext())]
    graph = build_graph(results)
    assert edges(graph, "CALLS") == {("b.f", "a.label"), ("b.f", "a.Shelf.label"),
                                     ("b.f", "a.shout")}
    assert edge(graph, "CALLS", "b.f", "a.label").resolution == "extension"
