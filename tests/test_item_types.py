"""The resolver follows the item types of typed containers (a mapping's values, a
sequence's or array's elements: by subscript, ``get``, iteration) and an explicit
instance parameter of any name, in Python, Java, Kotlin and TypeScript: small real
repositories, parsed by the extractors and resolved."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.graph.resolve import build_graph
from graphrag.parsing.extract import parse_file, repo_context

PYTHON = '''import typing as t


class Option:
    def process(self, value): ...


class Parser:
    def __init__(self) -> None:
        self._long_opt: t.Dict[str, Option] = {}
        self._short_opt: t.Dict[str, Option] = {}
        self.order: t.List[Option] = []

    def _make(self):
        return 1

    def by_subscript(self, opt):
        option = self._long_opt[opt]
        option.process(1)

    def by_get(self, opt):
        option = self._short_opt.get(opt)
        option.process(2)

    def chained(self, opts: t.Dict[str, Option], k):
        opts[k].process(3)
        opts.get(k).process(4)
        self.order[0].process(5)

    def explicit(__self, k):
        __self._make()
        __self._long_opt[k].process(6)
'''

JAVA = '''package com.acme;

import java.util.*;

public class Registry {
    private final Map<String, Handler> handlers = new HashMap<>();
    private final List<Handler> ordered = new ArrayList<>();
    private Handler[] slots;

    public void dispatch(String key, List<Handler> extra, Map<String, Handler> byName) {
        handlers.get(key).handle();
        ordered.get(0).handle();
        slots[1].handle();
        extra.get(2).handle();
        byName.get(key).handle();
        this.handlers.get(key).handle();
    }
}

class Handler {
    void handle() {}
}
'''

KOTLIN = '''package com.acme

class Handler {
    fun handle() {}
}

class Registry(private val handlers: Map<String, Handler>) {
    private val ordered: List<Handler> = listOf()

    fun dispatch(key: String, extra: List<Handler>) {
        handlers.get(key)?.handle()
        ordered.get(0).handle()
        extra.get(1).handle()
    }
}
'''

TYPESCRIPT = '''export class Item {
  run(): void {}
}

export class Doc {
  items: Map<string, Item> = new Map();
  list: Item[] = [];
}

export function gen(doc: Doc, xs: Item[], m: Map<string, Item>, r: Record<string, Item>): void {
  xs[0].run();
  m.get("a")!.run();
  r["k"].run();
  doc.items.get("z")?.run();
  doc.list[1].run();
  for (const it of xs) {
    it.run();
  }
  const first = xs[0];
  first.run();
}
'''


def _calls(tmp_path: Path, files: dict[str, str]) -> dict[str, set[int]]:
    """``caller -> callee`` of every CALLS edge, with its call-site lines."""
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = repo_context(tmp_path, list(files))
    results = [parse_file((tmp_path / rel).read_bytes(), rel, ctx) for rel in files]
    graph = build_graph([r for r in results if r is not None])
    nodes = graph.node_by_key()
    return {f"{nodes[e.src_key].fqn} -> {nodes[e.dst_key].fqn}": set(e.lines)
            for e in graph.edges if e.kind == "CALLS"}


def test_python_mapping_values_sequence_items_and_explicit_self(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {"opts.py": PYTHON})
    assert calls["opts.Parser.by_subscript -> opts.Option.process"] == {19}
    assert calls["opts.Parser.by_get -> opts.Option.process"] == {23}
    assert calls["opts.Parser.chained -> opts.Option.process"] == {26, 27, 28}
    assert calls["opts.Parser.explicit -> opts.Parser._make"] == {31}
    assert calls["opts.Parser.explicit -> opts.Option.process"] == {32}


def test_java_map_list_and_array_items(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {"src/com/acme/Registry.java": JAVA})
    assert calls["com.acme.Registry.dispatch -> com.acme.Handler.handle"] == set(range(11, 17))


def test_kotlin_map_and_list_items(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {"src/com/acme/Registry.kt": KOTLIN})
    assert calls["com.acme.Registry.dispatch -> com.acme.Handler.handle"] == {11, 12, 13}


@pytest.mark.parametrize("ext", ["ts"])
def test_typescript_declared_containers_and_for_of(tmp_path: Path, ext: str) -> None:
    calls = _calls(tmp_path, {f"src/gen.{ext}": TYPESCRIPT})
    assert calls["src/gen:gen -> src/gen:Item.run"] == {11, 12, 13, 14, 15, 17, 20}


def test_python_field_assigned_from_a_typed_parameter_is_iterated(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {"cmd.py": '''class Param:
    def add(self): ...


class Command:
    def __init__(self, params: list[Param]) -> None:
        self.params = params

    def make(self):
        for p in self.params:
            p.add()
'''})
    assert calls["cmd.Command.make -> cmd.Param.add"] == {11}


def test_typescript_namespace_import_of_a_star_re_exporting_index(tmp_path: Path) -> None:
    """zod's `import * as core from "../core/index.js"` where the index says
    `export * from "./api.js"`: `core._coercedString()` is api's function."""
    calls = _calls(tmp_path, {
        "src/core/index.ts": 'export * from "./errors.js";\nexport * from "./api.js";\n',
        "src/core/errors.ts": "export function fail(): void {}\n",
        "src/core/api.ts": "export function _coercedString(p: string): string {\n"
                           "  return p;\n}\n",
        "src/classic/coerce.ts": 'import * as core from "../core/index.js";\n'
                                 "export function string(p: string): string {\n"
                                 "  core.fail();\n  return core._coercedString(p);\n}\n"})
    assert calls["src/classic/coerce:string -> src/core/api:_coercedString"] == {4}
    assert calls["src/classic/coerce:string -> src/core/errors:fail"] == {3}


GO = '''package app

type Handler interface {
	Serve()
}

type Route struct{}

func (r *Route) Match() bool { return true }

type Registry struct {
	handlers []Handler
	routes   map[string]*Route
}

func (g *Registry) All() []*Route { return nil }

func (g *Registry) Dispatch(key string, extra []Handler, named map[string]*Route, more ...Handler) {
	for _, h := range g.handlers {
		h.Serve()
	}
	for _, h := range extra {
		h.Serve()
	}
	g.handlers[0].Serve()
	extra[1].Serve()
	named[key].Match()
	g.routes[key].Match()
	r := named[key]
	r.Match()
	v, ok := g.routes[key]
	if ok {
		v.Match()
	}
	for _, r2 := range g.routes {
		r2.Match()
	}
	for _, r3 := range g.All() {
		r3.Match()
	}
	local := make(map[string]*Route)
	local[key].Match()
	list := []Handler{}
	for _, h := range list {
		h.Serve()
	}
	more[0].Serve()
	all := g.All()
	all[0].Match()
	for _, r4 := range all {
		r4.Match()
	}
}
'''


def test_go_slice_and_map_items_by_index_and_range(tmp_path: Path) -> None:
    """Go slices and maps of a repository type (a struct field, a parameter, a variadic
    parameter, a local, a function's result, a local holding it): ``xs[i]``, ``m[k]`` and
    ``range`` bind their items, so calls on them reach the item type's method."""
    calls = _calls(tmp_path, {"go.mod": "module example.com/app\n\ngo 1.22\n",
                              "registry.go": GO})
    serve = "example.com/app.Registry.Dispatch -> example.com/app.Handler.Serve"
    match = "example.com/app.Registry.Dispatch -> example.com/app.Route.Match"
    assert calls[serve] == {20, 23, 25, 26, 45, 47}
    assert calls[match] == {27, 28, 30, 33, 36, 39, 42, 49, 51}


def test_typescript_member_of_a_factory_made_value_beside_its_interface(tmp_path: Path) -> None:
    """zod: ``interface $ZodString`` and ``const $ZodString = core.$constructor(...)``
    share a name; ``core.$ZodString.init(inst, def)`` (through a star re-exporting index)
    uses the value, whose type is the factory's declared result, the ``$constructor``
    interface with its ``init`` member."""
    calls = _calls(tmp_path, {
        "src/core/core.ts":
            "export interface $constructor<T> {\n"
            "  init(inst: T, def: unknown): void;\n}\n"
            "export function $constructor<T>(name: string, init: (inst: T) => void"
            "): $constructor<T> {\n  return init as any;\n}\n",
        "src/core/schemas.ts":
            'import * as core from "./core.js";\n'
            "export interface $ZodString {\n  kind: string;\n}\n"
            "export const $ZodString: core.$constructor<$ZodString> = "
            'core.$constructor("$ZodString", (inst) => {});\n'
            'export const $ZodEmail = core.$constructor("$ZodEmail", (inst) => {});\n'
            "export interface $ZodEmail {\n  kind: string;\n}\n",
        "src/core/index.ts": 'export * from "./core.js";\nexport * from "./schemas.js";\n',
        "src/classic/schemas.ts":
            'import * as core from "../core/index.js";\n'
            "export function initString(inst: any, def: any): void {\n"
            "  core.$ZodString.init(inst, def);\n"
            "  core.$ZodEmail.init(inst, def);\n}\n"})
    assert calls["src/classic/schemas:initString -> src/core/core:$constructor.init"] == {3, 4}


def test_a_local_typed_by_an_item_of_itself_ends(tmp_path: Path) -> None:
    """``rest = rest[n:].lstrip("/")`` in a nested function types ``rest`` by a call on an
    item of ``rest``: resolving it must end (it recursed without bound, which stopped the
    index of werkzeug's ``http_proxy.py``), and the other calls still resolve."""
    calls = _calls(tmp_path, {"loop.py": (
        "def helper() -> None:\n    pass\n\n\n"
        "def outer(path: str, prefix: str, opts: dict[str, bool]) -> None:\n"
        "    def application() -> None:\n"
        "        rest = path\n"
        "        if opts['cut']:\n"
        "            rest = rest[len(prefix) :].lstrip('/')\n"
        "            rest = f'/{rest}'\n"
        "        helper()\n"
        "    return application\n")})
    assert calls["loop.outer.application -> loop.helper"] == {11}
