"""C++ extractor and resolution against the cpp_shapes sample and small snippets."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from graphrag.graph.resolve import build_graph
from graphrag.parsing.extract import parse_file, repo_context
from graphrag.parsing.languages.c import repo_facts as c_repo_facts
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import RepoFiles

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "cpp_shapes"
sys.path.insert(0, str(SAMPLE.parents[1] / "tests"))
from test_expected_graphs import graph_of  # noqa: E402


def snippet(code: str, rel: str = "src/x.cpp") -> ParseResult:
    result = parse_file(code.encode(), rel, RepoContext())
    assert result is not None
    return result


def test_classes_methods_overloads_and_templates() -> None:
    result = snippet(
        "namespace geo { namespace detail {\n"
        "template <typename T> class Box : public Base<T> {\n"
        " public:\n  explicit Box(T v) : v_(v) {}\n  T get() const { return v_; }\n"
        "  void put(T v);\n  void put(T v, int times);\n private:\n  T v_;\n};\n"
        "template <typename T> void Box<T>::put(T v) { put(v, 1); }\n} }\n")
    kinds = {s.fqn: s.kind for s in result.symbols}
    assert kinds == {
        "geo": "OBJECT", "geo::detail": "OBJECT", "geo::detail::Box": "CLASS",
        "geo::detail::Box::Box": "CONSTRUCTOR", "geo::detail::Box::get": "METHOD",
        "geo::detail::Box::put(T)": "METHOD", "geo::detail::Box::put(T,int)": "METHOD",
        "geo::detail::Box::v_": "FIELD"}
    box = next(s for s in result.symbols if s.fqn == "geo::detail::Box")
    assert box.meta["template"] is True
    put = next(s for s in result.symbols if s.fqn == "geo::detail::Box::put(T)")
    assert put.line_start == 11 and put.meta["declared_line"] == 6  # in and out of class
    assert [(h.cls, h.base) for h in result.heritage] == [("geo::detail::Box", "Base")]
    assert [(c.caller, c.name, c.args) for c in result.calls] == [
        ("geo::detail::Box::put(T)", "put", 2)]


def test_a_header_with_cpp_in_it_is_read_as_cpp() -> None:
    result = snippet("#pragma once\nnamespace geo {\nclass Shape { public: virtual double"
                     " area() const = 0; };\n}\n", "include/shape.h")
    assert result.lang == "c"  # listed by its extension, read with the C++ grammar
    assert {s.fqn for s in result.symbols} == {"geo", "geo::Shape", "geo::Shape::area"}
    area = next(s for s in result.symbols if s.fqn == "geo::Shape::area")
    assert area.meta["abstract"] is True  # pure virtual: calls dispatch to overrides


def test_namespaces_and_out_of_class_methods_are_one_node_each() -> None:
    graph = graph_of(SAMPLE)
    by_fqn: dict[str, list] = {}
    for node in graph.nodes:
        by_fqn.setdefault(node.fqn, []).append(node)
    (geo,) = by_fqn["geo"]  # reopened by seven files
    assert len(geo.meta["declarations"]) == 6
    (area,) = by_fqn["geo::Circle::area"]
    assert (area.file_path, area.meta["declarations"]) == (
        "src/circle.cpp", [["include/geo/circle.hpp", 11, 11]])
    nodes = graph.node_by_key()
    overrides = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
                 if e.kind == "OVERRIDES"}
    assert overrides == {("geo::Circle::area", "geo::Shape::area"),
                         ("geo::Circle::name", "geo::Shape::name")}


def test_calls_choose_the_overload_by_argument_count_and_see_through_smart_pointers(
        ) -> None:
    header = snippet("namespace n {\nclass W {\n public:\n  void go(int a);\n"
                     "  void go(int a, int b);\n  void go(int a, int b, int c = 0, ...);\n};\n"
                     "}\n", "w.hpp")
    source = snippet("#include <memory>\nnamespace n {\nvoid W::go(int a) {}\n"
                     "void W::go(int a, int b) {}\n}\n"
                     "void run() {\n  auto w = std::make_unique<n::W>();\n"
                     "  std::shared_ptr<n::W> s;\n  w->go(1);\n  s->go(1, 2);\n"
                     "  w->go(1, 2, 3, 4);\n}\n", "run.cpp")
    graph = build_graph([header, source])
    nodes = graph.node_by_key()
    calls = sorted((nodes[e.dst_key].fqn, e.lines) for e in graph.edges if e.kind == "CALLS")
    assert calls == [("n::W::go(int)", [9]), ("n::W::go(int,int)", [10]),
                     ("n::W::go(int,int,int,...)", [11])]


def test_lines_of_one_macro_name_do_not_hide_the_declarations_after_them() -> None:
    # fmt's `FMT_BEGIN_NAMESPACE` / `FMT_EXPORT` lines: the class after them is kept
    result = snippet("FMT_BEGIN_NAMESPACE\nFMT_EXPORT\ntemplate <typename T> class Box {\n"
                     " public:\n  T get() const { return v; }\n  T v;\n};\n"
                     "FMT_CONSTEXPR inline auto twice(int x) -> int { return x + x; }\n"
                     "FMT_END_NAMESPACE\n", "include/box.hpp")
    assert [s.fqn for s in result.symbols] == ["Box", "Box::get", "Box::v", "twice"]


def test_attribute_macros_between_class_and_its_name_do_not_hide_it() -> None:
    # abseil's `class ABSL_NULLABILITY_COMPATIBLE ABSL_ATTRIBUTE_OWNER AnyInvocable`
    result = snippet("namespace absl {\nABSL_NAMESPACE_BEGIN\ntemplate <class Sig>\n"
                     "class ABSL_NULLABILITY_COMPATIBLE ABSL_ATTRIBUTE_OWNER AnyInvocable\n"
                     "    : private Impl<Sig> {\n public:\n  void swap(AnyInvocable& o) {}\n"
                     "};\nclass ABSL_LOCKABLE Mutex {\n public:\n  void Lock();\n};\n"
                     "ABSL_NAMESPACE_END\n}  // namespace absl\n", "absl/any_invocable.h")
    classes = [s.fqn for s in result.symbols if s.kind == "CLASS"]
    assert classes == ["absl::AnyInvocable", "absl::Mutex"]
    assert "absl::AnyInvocable::swap" in {s.fqn for s in result.symbols}


def test_type_aliases_are_nodes_and_using_declarations_publish_outside_names() -> None:
    result = snippet(
        "namespace absl {\nusing std::string_view;\n"
        "template <typename T> using Hash = hash_internal::Hash<T>;\n"
        "typedef void (*Visit)(int);\ntypedef struct node node;\n"
        "class Map {\n  using Base::find;\n  using size_type = int;\n};\n"
        "void f() { using std::swap; }\n}\n", "absl/hash.h")
    aliases = {s.fqn: (s.kind, s.meta["alias"], s.meta.get("template"))
               for s in result.symbols if "alias" in s.meta}
    assert aliases == {
        "absl::Hash": ("CLASS", "hash_internal::Hash<T>", True),
        "absl::Visit": ("CLASS", "void (*)(int)", None),
        "absl::Map::size_type": ("CLASS", "int", None)}  # `typedef struct node node` no
    # only the namespace's using-declaration binds and publishes a name
    assert [(i.alias, i.target, i.exported, i.published) for i in result.imports] == [
        ("string_view", "std::string_view", True, "absl::string_view")]
    source = snippet("namespace n {\nusing std::string_view;\n}\n", "src/x.cc")
    assert [i.exported for i in source.imports] == [False]  # a source file publishes none


def test_sample_publishes_its_using_declaration_and_calls_go_through_aliases() -> None:
    graph = graph_of(SAMPLE)
    registry = next(n for n in graph.nodes if n.fqn == "include/geo/registry.hpp")
    assert registry.meta["external_exports"] == {"geo::unique_ptr": 10}
    nodes = graph.node_by_key()
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    # `for (const auto& shape : shapes_)` over a `ShapeList`, `largest_` a `ShapeRef`
    assert ("geo::Registry::total", "geo::Shape::area") in calls


def test_specifier_macros_before_a_declaration_do_not_nest_the_rest_of_the_file() -> None:
    # fmt's `FMT_CONSTEXPR write_int_data(...) : size(...) {` read `FMT_CONSTEXPR` as a
    # type: the constructor's error swallowed 2,000 lines into the struct
    result = snippet(
        "namespace fmt {\nclass FMT_SO_VISIBILITY(\"default\") format_error\n"
        "    : public std::runtime_error {\n public:\n  using std::runtime_error::runtime_error;\n"
        "};\nnamespace detail {\ntemplate <typename Char> struct write_int_data {\n"
        "  size_t size;\n  FMT_CONSTEXPR write_int_data(int n, unsigned prefix)\n"
        "      : size((prefix >> 24) + n) {\n    if (n > 1) {\n      size = n;\n    }\n  }\n"
        "};\nFMT_API void format_error_code(int error_code);\n"
        "FMT_CONSTEXPR FMT_INLINE void write(int x) { if (x) { format_error_code(x); } }\n"
        "}  // namespace detail\n}  // namespace fmt\n", "include/fmt/format.h")
    spans = {s.fqn: (s.kind, s.line_start, s.line_end) for s in result.symbols}
    assert spans["fmt::format_error"] == ("CLASS", 2, 6)
    assert spans["fmt::detail::write_int_data"] == ("CLASS", 8, 16)
    assert spans["fmt::detail::write_int_data::write_int_data"][0] == "CONSTRUCTOR"
    assert spans["fmt::detail::format_error_code"][0] == "FUNCTION"
    assert spans["fmt::detail::write"] == ("FUNCTION", 18, 18)
    assert not any(f.startswith("fmt::detail::write_int_data::") and "format" in f
                   for f in spans)


def test_an_all_caps_type_before_a_variable_stays_a_declaration() -> None:
    # a caps name before `x(5)` is a specifier only when `x` is a class of the file
    result = snippet("struct Point {\n  FMT_CONSTEXPR Point(int n) : v(n) { if (n) { v = 1; } }\n"
                     "  int v;\n};\nvoid run() {\n  MY_TYPE x(5);\n  x.go();\n}\n",
                     "src/run.cpp")
    assert {s.fqn for s in result.symbols} >= {"Point", "Point::Point", "Point::v", "run"}
    assert not [c for c in result.calls if c.name == "x"]


def test_a_namespace_opened_by_a_macro_of_the_repository_holds_what_follows_it(
        tmp_path: Path) -> None:
    # fmt's `FMT_BEGIN_NAMESPACE` (`namespace fmt { inline namespace v10 {`) written on a
    # line of its own: what follows is `fmt::format`, as callers write it
    files = {
        "include/fmt/core.h": "#ifndef FMT_BEGIN_NAMESPACE\n#  define FMT_BEGIN_NAMESPACE \\\n"
                              "    namespace fmt {           \\\n    inline namespace v10 {\n"
                              "#  define FMT_END_NAMESPACE \\\n    }  \\\n    }\n#endif\n"
                              "#define OTHER_BEGIN namespace a { namespace b {\n",
        "include/fmt/format.h": "#include \"core.h\"\nFMT_BEGIN_NAMESPACE\n"
                                "namespace detail {\ninline int count(int n) { return n; }\n}\n"
                                "template <typename T> class formatter {};\n"
                                "inline int format(int n) { return detail::count(n); }\n"
                                "FMT_END_NAMESPACE\nint outside();\n",
        "src/use.cc": "#include \"fmt/format.h\"\nint use() { return fmt::format(1); }\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = repo_context(tmp_path, list(files))
    assert ctx.of("c")["namespace_begin"] == {"FMT_BEGIN_NAMESPACE": "fmt",
                                              "OTHER_BEGIN": "a::b"}
    results = [parse_file((tmp_path / rel).read_bytes(), rel, ctx) for rel in files]
    fqns = [s.fqn for s in results[1].symbols]
    assert fqns == ["fmt", "fmt::detail", "fmt::detail::count", "fmt::formatter",
                    "fmt::format", "outside"]
    namespace = results[1].symbols[0]
    assert (namespace.line_start, namespace.line_end) == (2, 8)
    graph = build_graph(results)
    nodes = graph.node_by_key()
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert calls == {("use", "fmt::format"), ("fmt::format", "fmt::detail::count")}


def test_a_namespace_macro_inside_another_opens_a_namespace_inside_its() -> None:
    ctx = RepoContext({"c": {"namespace_begin": {"LIB_BEGIN": "lib", "DETAIL_BEGIN": "detail"},
                             "namespace_end": frozenset({"LIB_END", "DETAIL_END"})}})
    result = parse_file(b"LIB_BEGIN\nint a();\nDETAIL_BEGIN\nint b();\nDETAIL_END\n"
                        b"int c();\nLIB_END\nint d();\n", "include/lib.hpp", ctx)
    assert [s.fqn for s in result.symbols if s.kind == "FUNCTION"] == [
        "lib::a", "lib::detail::b", "lib::c", "d"]
    # a file of nothing else parses the macro name as the start of the declaration after
    # it: that declaration is in the namespace the macro opens, not in one it closes
    ctx = RepoContext({"c": {"namespace_begin": {"B": "n"}, "namespace_end": frozenset({"E"})}})
    result = parse_file(b"B\nint f();\nE\nint g();\n", "x.hpp", ctx)
    assert [s.fqn for s in result.symbols if s.kind == "FUNCTION"] == ["n::f", "g"]


def test_an_inline_namespace_is_no_part_of_the_names_in_it() -> None:
    result = snippet("namespace fmt {\ninline namespace v10 {\nvoid print(int x);\n}\n}\n",
                     "include/print.h")
    assert [s.fqn for s in result.symbols] == ["fmt", "fmt::print"]


def test_a_macro_defined_to_open_different_namespaces_opens_none(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text("#if X\n#define NS_BEGIN namespace one {\n#else\n"
                                  "#define NS_BEGIN namespace two {\n#endif\n")
    (tmp_path / "b.h").write_text("NS_BEGIN\nclass K {};\n")
    ctx = repo_context(tmp_path, ["a.h", "b.h"])
    assert ctx.of("c")["namespace_begin"] == {}
    result = parse_file(b"NS_BEGIN\nclass K {};\n", "b.h", ctx)
    assert [s.fqn for s in result.symbols] == ["K"]


def test_a_long_line_of_blanks_after_a_name_parses_at_once(tmp_path: Path) -> None:
    # a macro name, then a long run of blanks and something else: one way only to read the
    # blanks, so the file parses in well under a second (not in minutes)
    (tmp_path / "ns.h").write_text("#define X_BEGIN_NAMESPACE namespace x {\n"
                                   "#define X_END_NAMESPACE }\n")
    code = b"X_BEGIN_NAMESPACE\nFOO" + b" " * 50_000 + b"x\nint f();\nX_END_NAMESPACE\n"
    (tmp_path / "a.cpp").write_bytes(code)
    ctx = repo_context(tmp_path, ["ns.h", "a.cpp"])
    started = time.perf_counter()
    result = parse_file(code, "a.cpp", ctx)
    assert time.perf_counter() - started < 1.0
    assert "x::f" in [s.fqn for s in result.symbols]


def test_a_c_repository_reads_no_header_for_namespace_macros(tmp_path: Path) -> None:
    # every run reads the repository facts, no-change runs too: a C repository (no C++
    # file) has no namespace to open, and its headers are not read for one
    files = {"include/uv.h": "#ifdef __cplusplus\n#define UV_BEGIN namespace uv {\n"
                             "#define UV_END }\n#endif\nint uv_run(void);\n",
             "src/uv.c": "#include \"uv.h\"\nint uv_run(void) { return 0; }\n"}
    for rel, code in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code)
    read: list[str] = []

    class Counted(RepoFiles):
        def read(self, rel: str, max_bytes: int) -> str | None:
            read.append(rel)
            return super().read(rel, max_bytes)

    facts = c_repo_facts(Counted(tmp_path, list(files)))
    assert facts["namespace_begin"] == {} and read == []
    assert facts["headers"] == {"include/uv.h"}
    # one C++ file makes it a C++ repository: the macros are read
    (tmp_path / "src/bind.cc").write_text("#include \"uv.h\"\n")
    facts = c_repo_facts(Counted(tmp_path, [*files, "src/bind.cc"]))
    assert facts["namespace_begin"] == {"UV_BEGIN": "uv"} and read == ["include/uv.h"]
