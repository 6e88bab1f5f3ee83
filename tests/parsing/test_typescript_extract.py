"""TypeScript/TSX extractor: concrete facts from small sources and the ts_express sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.parsing.languages.typescript import extract
from graphrag.parsing.model import Call, Import, ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "ts_express"


def parse(source: str, path: str = "src/a.ts") -> ParseResult:
    return extract(source.encode(), path, RepoContext())


def sample(rel: str) -> ParseResult:
    return extract((SAMPLE / rel).read_bytes(), rel, RepoContext())


def symbol(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert matches, f"{fqn} not in {[s.fqn for s in result.symbols]}"
    return matches[0]


def calls_of(result: ParseResult, caller: str | None) -> list[Call]:
    return [c for c in result.calls if c.caller == caller]


CLASS_SOURCE = """\
import { Injectable } from './di';

/**
 * Reads users.
 * @typeParam T entity type
 */
@Injectable()
export default abstract class Reader<T> extends Base<T> implements Source, Other<T> {
  /** Cached count. */
  private readonly count: number = 0;
  static instances = new Registry();

  constructor(private readonly repo: UserRepo, public name: string, plain: number) {
    super(plain);
  }

  /** Finds one. */
  async find(id: string, opts?: Options<T>): Promise<T[]> {
    return this.repo.find(id);
  }

  static make(): Reader<unknown> {
    return new Impl(null);
  }

  protected abstract check(item: T): void;
}
"""


def test_class_symbols_kinds_lines_and_fqns() -> None:
    result = parse(CLASS_SOURCE)
    assert result.module == "src/a" and result.package is None and result.lang == "typescript"
    cls = symbol(result, "src/a:Reader")
    assert cls.kind == "CLASS" and cls.parent is None
    assert (cls.line_start, cls.line_end) == (7, 27)
    assert cls.meta["abstract"] is True and cls.meta["export_default"] is True
    assert cls.meta["decorators"] == ["@Injectable()"]
    assert cls.doc_comment == "Reads users.\n@typeParam T entity type"
    assert cls.signature == ("abstract class Reader<T> extends Base<T> "
                             "implements Source, Other<T>")
    kinds = {s.fqn: s.kind for s in result.symbols}
    assert kinds["src/a:Reader.constructor"] == "CONSTRUCTOR"
    assert kinds["src/a:Reader.find"] == "METHOD"
    assert kinds["src/a:Reader.count"] == "FIELD"
    assert kinds["src/a:Reader.repo"] == "FIELD"          # constructor parameter property
    assert kinds["src/a:Reader.name"] == "FIELD"
    assert "src/a:Reader.plain" not in kinds              # a plain parameter is no field


def test_method_meta_signature_and_char_offsets() -> None:
    result = parse(CLASS_SOURCE)
    find = symbol(result, "src/a:Reader.find")
    assert find.parent == "src/a:Reader"
    assert find.signature == "async find(id: string, opts?: Options<T>): Promise<T[]>"
    assert find.doc_comment == "Finds one."
    assert find.meta["params"] == [["id", "string"], ["opts", "Options<T>"]]
    assert find.meta["return_type"] == "Promise<T[]>"
    assert find.meta["static"] is False
    assert CLASS_SOURCE[find.char_start:find.char_end].startswith("async find(")
    assert CLASS_SOURCE[find.char_start:find.char_end].endswith("}")
    assert symbol(result, "src/a:Reader.make").meta["static"] is True
    assert symbol(result, "src/a:Reader.check").meta["abstract"] is True


def test_heritage_calls_and_class_var_types() -> None:
    result = parse(CLASS_SOURCE)
    assert {(h.base, h.relation) for h in result.heritage} == {
        ("Base", "extends"), ("Source", "implements"), ("Other", "implements")}
    find_calls = calls_of(result, "src/a:Reader.find")
    assert [(c.name, c.receiver, c.kind) for c in find_calls] == [
        ("find", ["this", "repo"], "call")]
    assert [(c.name, c.kind) for c in calls_of(result, "src/a:Reader.make")] == [
        ("Impl", "new")]
    assert [(c.name, c.receiver) for c in calls_of(result, "src/a:Reader.constructor")] == [
        ("constructor", ["super"])]
    # a field initializer's call is attributed to the class
    assert [(c.name, c.kind) for c in calls_of(result, "src/a:Reader")] == [
        ("Registry", "new")]
    assert result.var_types["src/a:Reader"] == {"repo": "UserRepo",
                                                "instances": "Registry"}
    assert result.var_types["src/a:Reader.find"] == {"opts": "Options"}


def test_interfaces_enums_and_function_forms() -> None:
    result = parse("""\
/** A data source. */
export interface Source extends Base { load(id: number): Item; size: number; }
export enum Color { Red, Green }
/** Arrow function. */
export const double = (x: number): number => x * 2;
const legacy = function (y) { return y; };
export function outer(): void { const inner = () => helper(); inner(); }
""")
    kinds = {s.fqn: s.kind for s in result.symbols}
    assert kinds == {
        "src/a:Source": "INTERFACE", "src/a:Source.load": "METHOD",
        "src/a:Source.size": "FIELD", "src/a:Color": "ENUM", "src/a:double": "FUNCTION",
        "src/a:legacy": "FUNCTION", "src/a:outer": "FUNCTION",
        "src/a:outer.inner": "FUNCTION"}
    double = symbol(result, "src/a:double")
    assert double.doc_comment == "Arrow function."
    assert double.signature == "const double = (x: number): number"
    assert double.meta["exported"] is True
    assert symbol(result, "src/a:Color").meta["members"] == ["Red", "Green"]
    assert ("Base", "extends") in {(h.base, h.relation) for h in result.heritage}
    # a function bound to a local const is a nested function, like `function inner() {}`
    assert {c.name for c in calls_of(result, "src/a:outer")} == {"inner"}
    assert {c.name for c in calls_of(result, "src/a:outer.inner")} == {"helper"}


def test_imports_es_and_commonjs_resolved_to_modules() -> None:
    result = parse("""\
import express, { Router as R } from 'express';
import * as log from '../utils/logger';
import Service, { helper as h } from './services/user.js';
import config from '.';
const fs = require('fs');
const lib = require('./lib');
const { a, b: c } = require('../shared/tools');
export { thing as other } from './things';
""", "src/app/main.ts")
    assert {(i.alias, i.target) for i in result.imports} == {
        ("express", "express:default"), ("R", "express:Router"),
        ("log", "src/utils/logger"),
        ("Service", "src/app/services/user:default"),
        ("h", "src/app/services/user:helper"),
        ("config", "src/app:default"),
        ("fs", "fs"), ("lib", "src/app/lib"),
        ("a", "src/shared/tools:a"), ("c", "src/shared/tools:b"),
        ("other", "src/app/things:thing"),
    }
    assert Import("lib", "src/app/lib", 6) in result.imports
    assert not [c for c in result.calls if c.name == "require"]


def test_receiver_chains() -> None:
    result = parse("""\
function f(svc: Service) {
  svc.list();
  ns.fn();
  this.repo.find();
  super.x();
  make().run();
  a.b.c.d();
}
""")
    assert [(c.name, c.receiver) for c in calls_of(result, "src/a:f")] == [
        ("list", ["svc"]), ("fn", ["ns"]), ("find", ["this", "repo"]), ("x", ["super"]),
        ("run", ["make()"]), ("make", None), ("d", ["a", "b", "c"])]


def test_function_var_types() -> None:
    result = parse("""\
export function handle(repo: Repo<User> | null, id: number): void {
  const svc: UserService = build();
  const other = new Other<string>();
  const made = makeFoo();
  const fetched = await this.client.get(id);
}
const app = express();
""")
    assert result.var_types["src/a:handle"] == {
        "repo": "Repo", "svc": "UserService", "other": "Other", "made": "=call:makeFoo",
        "fetched": "=call:this.client.get"}
    assert result.var_types["src/a.ts"] == {"app": "=call:express"}


def test_express_registrations_prefixes_and_inline_endpoint() -> None:
    result = parse("""\
import express from 'express';
import userRoutes from './routes/users';
const app = express();
const api = express.Router();
api.get('/users/:id', auth, ctrl.show);
api.post('/users', asyncHandler(ctrl.create));
/** Health check. */
app.get('/health', (req, res) => { res.json(status()); });
app.use('/api/v1', api);
app.use('/accounts', userRoutes);
app.get('env');
""", "src/server.ts")
    regs = {(r.http_method, r.route): r for r in result.registrations}
    show = regs[("GET", "/api/v1/users/:id")]
    assert (show.handler_name, show.handler_receiver, show.caller) == ("show", ["ctrl"], None)
    assert regs[("POST", "/api/v1/users")].handler_name == "create"
    mount = regs[("USE", "/accounts")]
    assert mount.handler_name == "userRoutes"
    health = regs[("GET", "/health")]
    assert health.inline_fqn == "src/server:GET /health"
    endpoint = symbol(result, "src/server:GET /health")
    assert endpoint.kind == "ENDPOINT" and endpoint.doc_comment == "Health check."
    assert endpoint.meta["http_method"] == "GET" and endpoint.meta["route"] == "/health"
    assert {c.name for c in calls_of(result, "src/server:GET /health")} == {"json", "status"}
    refs = {(c.name, tuple(c.receiver or ())) for c in result.calls if c.kind == "ref"}
    assert {("auth", ()), ("show", ("ctrl",)), ("create", ("ctrl",)),
            ("userRoutes", ())} <= refs
    assert len(result.registrations) == 4  # `app.get('env')` reads a setting


def test_tsx_file_parses_with_tsx_grammar() -> None:
    result = parse("""\
/** A button. */
export function Button({ label }: Props): JSX.Element {
  return <button onClick={() => track(label)}>{label}</button>;
}
""", "src/ui/Button.tsx")
    assert result.lang == "tsx" and result.error_count == 0
    button = symbol(result, "src/ui/Button:Button")
    assert button.kind == "FUNCTION" and button.doc_comment == "A button."
    assert [c.name for c in calls_of(result, "src/ui/Button:Button")] == ["track"]


def test_syntax_error_gives_partial_result() -> None:
    result = parse("""\
export class Good {
  ok(): void { helper(); }
}
export class Broken {
  bad( {
}
""")
    assert result.error_count > 0
    assert symbol(result, "src/a:Good.ok").kind == "METHOD"
    assert calls_of(result, "src/a:Good.ok")[0].name == "helper"


def test_non_ascii_char_offsets() -> None:
    source = "const s = 'héllo wörld';\nexport function f(): void {}\n"
    f = symbol(parse(source), "src/a:f")
    assert source[f.char_start:f.char_end] == "export function f(): void {}"


@pytest.mark.parametrize("rel", ["src/routes/orders.ts", "src/services/orderService.ts"])
def test_sample_files_parse_cleanly(rel: str) -> None:
    assert sample(rel).error_count == 0


def test_sample_routes_and_injection() -> None:
    routes = sample("src/routes/orders.ts")
    assert routes.module == "src/routes/orders"
    assert ("POST", "/:id/cancel", "cancel", ["orders"]) in [
        (r.http_method, r.route, r.handler_name, r.handler_receiver)
        for r in routes.registrations]
    assert routes.var_types["src/routes/orders.ts"]["orders"] == "OrderController"
    inline = symbol(routes, "src/routes/orders:GET /meta/statuses")
    assert inline.doc_comment == "Lists the order statuses clients can filter by."
    service = sample("src/services/orderService.ts")
    assert service.var_types["src/services/orderService:OrderService"] == {
        "orders": "OrderRepository", "users": "Repository"}
    fields = [s for s in service.symbols if s.kind == "FIELD"]
    assert {s.fqn for s in fields} == {"src/services/orderService:OrderService.orders",
                                       "src/services/orderService:OrderService.users",
                                       "src/services/orderService:NewOrder.userId",
                                       "src/services/orderService:NewOrder.items"}
    index = sample("src/index.ts")
    assert symbol(index, "src/index:GET /health/live").meta["route"] == "/health/live"
    assert ("log", "src/utils/logger") in {(i.alias, i.target) for i in index.imports}
    assert ("errorHandler", "src/middleware:errorHandler") in {
        (i.alias, i.target) for i in index.imports}


def test_syntax_errors_keep_every_declaration_outside_them() -> None:
    """Variance annotations and `export type *` (newer than tree-sitter-typescript 0.23.2,
    the newest wheel) and a plain syntax error lose nothing around them."""
    result = parse("export class A {\n  m(): number { return helper(); }\n}\n"
                   "export type * from './types';\n"
                   "interface Box<in T, out U> {\n  get(): U;\n}\n"
                   "const broken = (a, b => ;\n"
                   "export function after(): number { return other(); }\n"
                   "export class Z {\n  n(): void {}\n}\n")
    assert result.error_count > 0
    assert {s.fqn for s in result.symbols} == {
        "src/a:A", "src/a:A.m", "src/a:Box", "src/a:Box.get", "src/a:after", "src/a:Z",
        "src/a:Z.n"}
    assert [(c.caller, c.name) for c in result.calls] == [
        ("src/a:A.m", "helper"), ("src/a:after", "other")]


def test_overload_signatures_attach_to_the_implementation() -> None:
    result = parse("/** Doc on the first signature. */\n"
                   "export function f(a: string): string;\n"
                   "export function f(a: number): number;\n"
                   "export function f(a: any) { return g(a); }\n"
                   "class C {\n  m(a: string): void;\n  m(a: any) {}\n}\n")
    (impl,) = [s for s in result.symbols if s.name == "f"]
    assert (impl.fqn, impl.line_start, impl.doc_comment) == (
        "src/a:f", 4, "Doc on the first signature.")
    assert impl.meta["overloads"] == ["function f(a: string): string",
                                      "function f(a: number): number"]
    assert symbol(result, "src/a:C.m").meta["overloads"] == ["m(a: string): void"]
    assert [s.fqn for s in result.symbols if s.name == "m"] == ["src/a:C.m"]
    assert calls_of(result, "src/a:f")[0].name == "g"


def test_union_types_keep_every_named_member() -> None:
    from graphrag.parsing.languages.ecmascript.common import simple_type

    assert simple_type("Subscriber<T> | Observer<T>") == "Subscriber | Observer"
    assert simple_type("Repo<User> | null") == "Repo"
    assert simple_type("string | Foo") == "Foo"
    assert simple_type("Foo[] | Foo") == "Foo"


def test_callback_parameters_are_typed_in_the_enclosing_function() -> None:
    result = parse("export function run(s: Sched) {\n"
                   "  s.schedule(function (this: Action, state) { state.go(); });\n"
                   "  each(items, (item, i) => item.save());\n"
                   "  items.map((x: Item) => x.id);\n"
                   "  const f = (y) => y;\n}\n")
    assert result.var_types["src/a:run"] == {
        "s": "Sched", "state": "=arg:s.schedule#0#0", "item": "=arg:each#1#0",
        "i": "=arg:each#1#1", "x": "Item"}
    # a nested function's own parameters are its own, never the enclosing function's
    assert "y" not in result.var_types["src/a:run"]
    assert symbol(result, "src/a:run.f").kind == "FUNCTION"


def test_object_literal_with_functions_is_an_object_with_methods() -> None:
    """``const api = { list() {}, show: () => ... }``: an OBJECT whose function members
    are METHODs; nested literals and data-only objects are no symbols."""
    result = parse(
        "export const api = {\n"
        "  /** list them */\n"
        "  list(page: number) { return helper(page); },\n"
        "  show: (id: string) => api.list(1),\n"
        "  inner: { deep() { return 1; } },\n"
        "  port: 3,\n"
        "};\n"
        "const data = { a: 1 };\n"
        "function helper(p: number) { return p; }\n")
    assert [(s.kind, s.fqn, s.parent) for s in result.symbols] == [
        ("OBJECT", "src/a:api", None), ("METHOD", "src/a:api.list", "src/a:api"),
        ("METHOD", "src/a:api.show", "src/a:api"), ("FUNCTION", "src/a:helper", None)]
    assert [(c.caller, c.name, c.receiver) for c in result.calls] == [
        ("src/a:api.list", "helper", None), ("src/a:api.show", "list", ["api"])]


def test_namespace_is_an_object_holding_its_declarations() -> None:
    result = parse(
        "export namespace Money {\n"
        "  export function cents(x: number) { return round(x); }\n"
        "  function round(x: number) { return x; }\n"
        "  export namespace Inner { export class Fmt { show() { return 1; } } }\n"
        "}\n")
    assert [(s.kind, s.fqn, s.parent) for s in result.symbols] == [
        ("OBJECT", "src/a:Money", None), ("FUNCTION", "src/a:Money.cents", "src/a:Money"),
        ("FUNCTION", "src/a:Money.round", "src/a:Money"),
        ("OBJECT", "src/a:Money.Inner", "src/a:Money"),
        ("CLASS", "src/a:Money.Inner.Fmt", "src/a:Money.Inner"),
        ("METHOD", "src/a:Money.Inner.Fmt.show", "src/a:Money.Inner.Fmt")]
    assert result.symbols[0].meta["namespace"] is True


def test_object_literal_of_a_declared_type_is_no_object() -> None:
    """``const p: Provider = {...}``: callers see ``Provider`` (as the compiler resolves
    ``p.now()``), so the literal gives no OBJECT of its own."""
    result = parse("export const p: Provider = { now() { return 1; } };\n")
    assert [s.kind for s in result.symbols] == []
