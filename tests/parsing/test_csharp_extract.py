"""The C# extractor on the sample service and on small snippets: what each declaration,
import, call and route becomes, and hostile input (generated code, a 1 MB file,
preprocessor branches, broken syntax) parsed in bounded time."""

from __future__ import annotations

import time
from pathlib import Path

from graphrag.graph.resolve import build_graph
from graphrag.parsing.languages.csharp import extract
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext

ROOT = Path(__file__).resolve().parents[2] / "sample_repos" / "csharp_aspnet"


def _sample(rel: str) -> ParseResult:
    return extract((ROOT / rel).read_bytes(), rel, RepoContext())


def _code(text: str, rel: str = "src/A.cs") -> ParseResult:
    return extract(text.encode(), rel, RepoContext())


def _symbols(result: ParseResult) -> dict[str, tuple[str, str | None]]:
    return {s.fqn: (s.kind, s.parent) for s in result.symbols}


def test_declarations_of_a_namespace_become_symbols_with_fqns() -> None:
    result = _sample("src/Shop.Core/Models/Entity.cs")
    assert result.package == "Shop.Core.Models"
    assert result.module == "src/Shop.Core/Models/Entity"
    symbols = _symbols(result)
    assert symbols["Shop.Core.Models.Entity"] == ("CLASS", None)
    assert symbols["Shop.Core.Models.Entity.Validate"] == ("METHOD",
                                                          "Shop.Core.Models.Entity")
    assert symbols["Shop.Core.Models.User.Email"] == ("FIELD", "Shop.Core.Models.User")
    assert symbols["Shop.Core.Models.OrderStatus"] == ("ENUM", None)
    assert symbols["Shop.Core.Models.OrderStatus.Shipped"] == ("FIELD",
                                                              "Shop.Core.Models.OrderStatus")
    # a record's positional parameters are its properties
    assert symbols["Shop.Core.Models.OrderRequest.Quantity"] == (
        "FIELD", "Shop.Core.Models.OrderRequest")
    entity = next(s for s in result.symbols if s.fqn == "Shop.Core.Models.Entity")
    assert entity.doc_comment == "Base of every stored entity: an id and a validation hook."
    assert entity.signature == "public abstract class Entity"
    assert ("Shop.Core.Models.User", "Entity", "unknown", 17) in {
        (h.cls, h.base, h.relation, h.line) for h in result.heritage}


def test_members_overloads_extensions_and_imports() -> None:
    result = _code("""
using System.Text;
using Store = Shop.Data.Store;
using static System.Math;

namespace Shop.Util
{
    namespace Inner
    {
        public static class Text
        {
            /// <summary>Pads <paramref name="s"/>.</summary>
            public static string Pad(this string s, int width = 4) => s.PadLeft(width);
            public static int Sum(params int[] values) => values.Length;
            public static int Sum(int a, int b) => a + b;
        }
    }

    public struct Point
    {
        public Point(int x) : this(x, 0) { }
        public Point(int x, int y) { X = x; Y = y; }
        public int X { get; }
        public int Y { get; }
    }
}
""")
    symbols = _symbols(result)
    assert symbols["Shop.Util.Inner.Text.Pad"] == ("METHOD", "Shop.Util.Inner.Text")
    assert "Shop.Util.Inner.Text.Sum(int[])" in symbols
    assert "Shop.Util.Inner.Text.Sum(int,int)" in symbols
    assert "Shop.Util.Point.<init>(int)" in symbols and "Shop.Util.Point.<init>(int,int)" \
        in symbols
    by_fqn = {s.fqn: s for s in result.symbols}
    pad = by_fqn["Shop.Util.Inner.Text.Pad"].meta
    assert pad["receiver_type"] == "string" and pad["package_member"] is True
    assert pad["min_args"] == 1 and pad["params"] == [["s", "string"], ["width", "int"]]
    assert pad["receiver_in_params"] is True
    assert by_fqn["Shop.Util.Inner.Text.Sum(int[])"].meta["varargs"] is True
    assert by_fqn["Shop.Util.Inner.Text.Pad"].doc_comment == "Pads ."
    assert by_fqn["Shop.Util.Point"].meta["struct"] is True
    imports = {(i.alias, i.target) for i in result.imports}
    assert {("*", "System.Text"), ("Store", "Shop.Data.Store"), ("*", "System.Math"),
            ("*", "Shop")} <= imports
    # `: this(x, 0)` calls the other constructor
    assert any(c.name == "this" and c.receiver is None and c.args == 2
               and c.caller == "Shop.Util.Point.<init>(int)" for c in result.calls)


def test_calls_record_receivers_argument_types_and_local_types() -> None:
    result = _code("""
namespace N;
class C<T> where T : IRepo
{
    private T _repo;
    void M(Order order)
    {
        var total = Compute(1, "x", 2.5, new Item(), (Box)o, order);
        this.Save();
        base.Save();
        _repo.Items[0].Flush();
        order?.Lines.First().Ship();
        foreach (var line in order.Lines) { line.Check(); }
        if (o is Invoice inv) { inv.Send(); }
        using var scope = Factory.Open();
        int Local(int q) => Twice(q);
    }
}
""")
    calls = {(c.caller, ".".join([*(c.receiver or []), c.name])) for c in result.calls}
    assert {("N.C.M", "Compute"), ("N.C.M", "this.Save"), ("N.C.M", "base.Save"),
            ("N.C.M", "_repo.Items.[].Flush"), ("N.C.M", "order.Lines.First"),
            ("N.C.M", "order.Lines.First().Ship"), ("N.C.M", "line.Check"),
            ("N.C.M", "inv.Send"), ("N.C.M", "Factory.Open"), ("N.C.M", "Item"),
            ("N.C.M.Local", "Twice")} <= calls
    compute = next(c for c in result.calls if c.name == "Compute")
    assert compute.args == 6
    assert compute.arg_types == ["int", "string", "double", "Item", "Box", "=var:order"]
    assert next(c for c in result.calls if c.name == "Item").kind == "new"
    local = result.var_types["N.C.M"]
    assert local["order"] == "Order" and local["inv"] == "Invoice"
    assert local["line"] == "=iter:order.Lines" and local["scope"] == "=call:Factory.Open"
    assert local["total"] == "=call:Compute"
    assert result.var_types["N.C"]["_repo"] == "IRepo"  # a type parameter's constraint
    assert _symbols(result)["N.C.M.Local"] == ("FUNCTION", "N.C.M")


def test_controller_routes_use_the_prefix_and_tokens() -> None:
    result = _sample("src/Shop.Api/Controllers/UsersController.cs")
    routes = {s.fqn: (s.meta["http_method"], s.meta["route"])
              for s in result.symbols if s.kind == "ENDPOINT"}
    assert routes == {
        "Shop.Api.Controllers.UsersController.Get": ("GET", "/api/Users/{id:int}"),
        "Shop.Api.Controllers.UsersController.Register": ("POST", "/api/Users"),
        "Shop.Api.Controllers.UsersController.Deactivate": ("DELETE", "/api/Users/{id:int}"),
        # `/...` ignores the controller prefix; [action] is the method's name
        "Shop.Api.Controllers.UsersController.Count": ("GET", "/admin/users/Count"),
    }


def test_minimal_api_routes_join_group_prefixes() -> None:
    result = _sample("src/Shop.Api/Program.cs")
    regs = {(r.http_method, r.route, r.handler_name, r.inline_fqn)
            for r in result.registrations}
    assert regs == {
        ("GET", "/health", None, "Program.GET /health"),
        ("GET", "/api/products/{id:int}", "GetProduct", None),
        ("GET", "/api/products", "ListProducts", None),
        ("POST", "/api/orders", None, "Program.POST /api/orders"),
        ("POST,DELETE", "/api/orders/{id}/cancel", "Cancel", None),
    }
    # calls inside an inline handler belong to it
    assert any(c.caller == "Program.POST /api/orders" and c.name == "Place"
               for c in result.calls)


def test_partial_parts_and_extension_methods_resolve_across_files() -> None:
    parts = [_sample("src/Shop.Core/Services/OrderService.cs"),
             _sample("src/Shop.Core/Services/OrderService.Pricing.cs"),
             _sample("src/Shop.Core/Data/Repository.cs"),
             _sample("src/Shop.Core/Models/Entity.cs")]
    graph = build_graph(parts)
    classes = [n for n in graph.nodes if n.fqn == "Shop.Core.Services.OrderService"]
    assert len(classes) == 1
    by_key = graph.node_by_key()
    members = {n.name for n in graph.nodes if n.parent_key == classes[0].key}
    assert {"Place", "StatusOf", "Quote", "Discounted", "_products"} <= members
    calls = {(by_key[e.src_key].fqn, by_key[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    # a field of one part types a call in the other
    assert ("Shop.Core.Services.OrderService.Quote",
            "Shop.Core.Data.ProductRepository.ById") in calls


def test_generated_and_huge_files_parse_in_bounded_time() -> None:
    generated = ["// <auto-generated/>\nnamespace Gen;\npublic partial class Resources\n{\n"]
    i = 0
    while sum(map(len, generated)) < 1_000_000:
        generated.append(f"    public static string Key{i} => Lookup(\"k{i}\", {i});\n")
        i += 1
    generated.append("}\n")
    started = time.perf_counter()
    result = _code("".join(generated), "src/Resources.Designer.cs")
    assert time.perf_counter() - started < 20
    assert len(result.symbols) == i + 1 and len(result.calls) == i


def test_preprocessor_branches_and_broken_syntax_keep_the_rest() -> None:
    result = _code("""
namespace N;
#if NET8_0
public class Clock { public long Now() => 1; }
#else
public class Clock { public long Now() => 2; }
#endif
public class Broken { void M( { int x = ; }
public class After { public void Run() => new Clock().Now(); }
""")
    fqns = [s.fqn for s in result.symbols]
    assert "N.After.Run" in fqns and result.error_count >= 1
    # one node per declaration: the first branch's
    assert fqns.count("N.Clock") == 1 and fqns.count("N.Clock.Now") == 1
    now = next(s for s in result.symbols if s.fqn == "N.Clock.Now")
    assert now.line_start == 4


def test_extension_methods_apply_by_their_receiver_type() -> None:
    ext = _code("""
namespace Data;
public static class Mapper
{
    public static int Query(this IDbConnection cnn, string sql) => 1;
    public static int ExecuteScalar(this IDbConnection cnn, string sql) => 2;
    public static List<T> AsList<T>(this IEnumerable<T> source) => null;
}
""", "src/Mapper.cs")
    use = _code("""
using Data;
namespace App;
class Repo
{
    void Run(DbConnection conn, DbCommand cmd, List<int> ids)
    {
        conn.Query("select 1");
        cmd.ExecuteScalar();
        ids.AsList();
    }
}
""", "src/Repo.cs")
    graph = build_graph([ext, use])
    by_key = graph.node_by_key()
    calls = {by_key[e.dst_key].name for e in graph.edges if e.kind == "CALLS"}
    # a DbConnection is an IDbConnection; a DbCommand's own ExecuteScalar is no extension
    assert calls == {"Query", "AsList"}


def test_overloads_of_extensions_and_defaults_are_chosen_like_the_compiler() -> None:
    result = _code("""
namespace N;
public class Cmd { }
public record Row(int A, string B)
{
    public Row() : this(0, "") { }
}
public class Id
{
    public Id(string sql, int grid = 0) { }
    public Id(string sql) { }
    protected void Dispose(bool disposing) { }
}
public static class Mapper
{
    public static int Run(this IConn cnn, Cmd command) => 1;
    public static int Run(this IConn cnn, string sql, object param = null) => 2;
    public static int Static(IConn cnn) => Run(cnn, new Cmd());
    public static int Instance(IConn cnn) => cnn.Run(new Cmd());
    public static int Text(IConn cnn) => cnn.Run("select 1");
    public static Id Make() => new Id("x");
    public static Row Fill() => new Row(1, "b");
    public static void Close(Id id) => id.Dispose();
}
""")
    graph = build_graph([result])
    by_key = graph.node_by_key()
    calls = {(by_key[e.src_key].name, by_key[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert calls == {
        # called as a static method, the receiver is written as the first argument
        ("Static", "N.Mapper.Run(IConn,Cmd)"),
        # called on its receiver, that receiver is the first argument
        ("Instance", "N.Mapper.Run(IConn,Cmd)"),
        ("Text", "N.Mapper.Run(IConn,string,object)"),
        # the overload that needs no default value
        ("Make", "N.Id.<init>(string)"),
        # a record's parameter list is its primary constructor
        ("Fill", "N.Row.<init>(int,string)"), ("<init>", "N.Row.<init>(int,string)"),
        # no `Dispose` here takes no argument: an inherited outside one is called
    }
