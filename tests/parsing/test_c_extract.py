"""C extractor against the c_kvstore sample, small inline snippets and hostile C."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from graphrag.graph.resolve import build_graph
from graphrag.parsing.extract import parse_file, repo_context
from graphrag.parsing.model import ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "c_kvstore"
sys.path.insert(0, str(SAMPLE.parents[1] / "tests"))
from test_expected_graphs import graph_of  # noqa: E402


def snippet(code: str, rel: str = "src/x.c", ctx: RepoContext | None = None) -> ParseResult:
    result = parse_file(code.encode(), rel, ctx or RepoContext())
    assert result is not None
    return result


def sym(result: ParseResult, fqn: str) -> Symbol:
    matches = [s for s in result.symbols if s.fqn == fqn]
    assert len(matches) == 1, [s.fqn for s in result.symbols]
    return matches[0]


def test_functions_structs_and_macros_of_a_file() -> None:
    result = snippet(
        "#define LIMIT 8\n#define GUARD_H\n#define SQUARE(x) ((x) * (x))\n"
        "/* A point. */\ntypedef struct { int x; int y; } point;\n"
        "union number { int i; double d; };\nenum color { RED, GREEN };\n"
        "static int helper(int a) { return SQUARE(a); }\n"
        "int area(point p) { return helper(p.x) * p.y; }\n")
    assert {s.fqn: s.kind for s in result.symbols} == {
        "src/x.c:LIMIT": "FIELD", "src/x.c:SQUARE": "FUNCTION", "point": "CLASS",
        "point::x": "FIELD", "point::y": "FIELD", "number": "CLASS", "number::i": "FIELD",
        "number::d": "FIELD", "color": "ENUM", "color::RED": "FIELD",
        "color::GREEN": "FIELD", "src/x.c:helper": "FUNCTION", "area": "FUNCTION"}
    assert sym(result, "point").doc_comment == "A point."
    assert sym(result, "src/x.c:SQUARE").meta["macro"] is True  # recorded, not expanded
    assert sym(result, "area").meta["params"] == [["p", "point"]]
    assert [(c.caller, c.name, c.args) for c in result.calls] == [
        ("src/x.c:helper", "SQUARE", 1), ("area", "helper", 1)]


def test_a_header_names_its_static_functions_and_macros_for_every_includer() -> None:
    result = snippet("#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
                     "static inline int clamp(int v) { return MAX(v, 0); }\n", "inc/util.h")
    assert {s.fqn for s in result.symbols} == {"MAX", "clamp"}


def test_preprocessor_branches_never_duplicate_a_node() -> None:
    result = snippet("#ifdef _WIN32\nint now(void) { return win_ticks(); }\n"
                     "#else\nint now(void) { return unix_ticks(); }\n#endif\n"
                     "int later(void);\nint later(void) { return now() + 1; }\n")
    now = sym(result, "now")
    assert (now.line_start, now.meta["branches"]) == (2, [[4, 4]])
    later = sym(result, "later")
    assert "declaration" not in later.meta and later.meta["declared_line"] == 6
    assert {(c.caller, c.name) for c in result.calls} == {
        ("now", "win_ticks"), ("now", "unix_ticks"), ("later", "now")}


def test_quoted_includes_resolve_against_the_file_and_the_include_directories() -> None:
    paths = ["include/kv/store.h", "src/log.h", "src/store.c", "src/cli/main.c",
             "third/deep/only.h"]
    ctx = repo_context(SAMPLE, paths)
    result = snippet('#include <stdio.h>\n#include "kv/store.h"\n#include "../log.h"\n'
                     '#include "only.h"\n#include "missing.h"\n', "src/cli/main.c", ctx)
    assert [(i.target, i.line) for i in result.imports] == [
        ("include/kv/store.h", 2), ("src/log.h", 3), ("third/deep/only.h", 4)]


def test_a_declaration_and_its_definition_are_one_node_with_both_locations() -> None:
    graph = graph_of(SAMPLE)
    by_fqn: dict[str, list] = {}
    for node in graph.nodes:
        by_fqn.setdefault(node.fqn, []).append(node)
    (kv_open,) = by_fqn["kv_open"]
    assert (kv_open.file_path, kv_open.line_start) == ("src/store.c", 29)
    assert kv_open.meta["declarations"] == [["include/kv/store.h", 26, 26]]
    # declared once, defined per platform: the declaration stays, calls go to it
    kv_now = sorted(by_fqn["kv_now"], key=lambda n: n.file_path)
    assert [(n.file_path, n.meta.get("definitions")) for n in kv_now] == [
        ("include/kv/store.h", 2), ("src/unix/clock.c", None), ("src/win/clock.c", None)]
    nodes = graph.node_by_key()
    includes = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
                if e.kind == "IMPORTS"}
    assert ("src/cli/main.c", "src/log.h") in includes
    assert ("src/store.c", "include/kv/hash.h") in includes


def test_a_declared_outside_function_is_not_a_call_target() -> None:
    header = snippet("int snprintf(char *s, unsigned long n, const char *f, ...);\n"
                     "int helper(int x);\n", "compat.h")
    source = snippet("#include \"compat.h\"\nint helper(int x) { return x; }\n"
                     "int run(void) { char b[4]; snprintf(b, 4, \"x\"); return helper(1); }\n",
                     "run.c")
    graph = build_graph([header, source])
    nodes = graph.node_by_key()
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert calls == {("run", "helper")}
    assert [(u.name, u.reason) for u in graph.unresolved] == [("snprintf", "external")]


def test_macro_heavy_and_generated_c_parse_in_bounded_time() -> None:
    # unknown macros at the top level must not swallow the functions after them
    macros = "#define DECL(name) int name(void)\n" + "".join(
        f"DECL(fn{i}) BODY({i})\nstatic int use{i}(void) {{ return CALL(fn{i}, {i}); }}\n"
        for i in range(3000))
    started = time.perf_counter()
    result = snippet(macros, "gen/macros.c")
    assert time.perf_counter() - started < 10
    assert sum(s.name.startswith("use") for s in result.symbols) == 3000
    # a 1 MB generated header: prototypes, macros and structs
    parts: list[str] = []
    while sum(map(len, parts)) < 1_000_000:
        i = len(parts)
        parts.append(f"#define GEN_{i}(a) ((a) * {i})\nextern int gen_{i}(int a, char *b);\n"
                     f"typedef struct {{ int f{i}; }} gen_struct_{i};\n")
    started = time.perf_counter()
    header = snippet("".join(parts), "gen/big.h")
    assert time.perf_counter() - started < 20
    assert sum(s.kind == "CLASS" for s in header.symbols) == len(parts)



def test_extern_c_braces_in_cplusplus_branches_leave_no_error() -> None:
    # How nearly every C header lets C++ include it: each brace sits alone in its own
    # `#ifdef __cplusplus` branch, which the grammar reads as an unbalanced brace.
    source = (b'#ifdef __cplusplus\nextern "C" {\n#endif\n\nint kv_get(const char *k);\n'
              b'#if defined(__cplusplus)\n}\n#endif\n')
    ctx = repo_context(Path("."), ["kv.h"])
    result = parse_file(source, "kv.h", ctx)
    assert [s.fqn for s in result.symbols] == ["kv_get"]
    assert result.error_count == 0


def test_a_files_leading_comment_without_its_licence_is_its_doc() -> None:
    header = (
        "//\n// Copyright 2017 The Authors.\n//\n// Licensed under the Apache License.\n"
        "// you may not use this file except in compliance with the License.\n//\n"
        "// ------------------------------------------------------------------\n"
        "// File: str_cat.h\n"
        "// ------------------------------------------------------------------\n//\n"
        "// This package contains functions for efficiently concatenating\n"
        "// strings: `StrCat()` and `StrAppend()`.\n\n"
        "#ifndef STR_CAT_H_\n#define STR_CAT_H_\n// not at the top\nint f(void);\n#endif\n")
    doc = snippet(header, "absl/strings/str_cat.h").doc
    assert doc == ("File: str_cat.h\n\nThis package contains functions for efficiently "
                   "concatenating\nstrings: `StrCat()` and `StrAppend()`.")
    block = ("/* Copyright Joyent, Inc. All rights reserved.\n *\n * Permission is hereby "
             "granted, free of charge.\n */\n\n/* This file contains both the async "
             "infrastructure\n * and the user-facing functions.\n */\n#include <x.h>\n")
    assert snippet(block, "src/async.h").doc == (
        "This file contains both the async infrastructure\nand the user-facing functions.")
    # a source file's leading comment is mostly a note on the code below it
    assert snippet(block, "src/async.c").doc is None
    assert snippet("/* MIT License, Copyright (c) 2012 */\nint x;\n", "a.h").doc is None
    assert snippet("int x; /* trailing */\n", "a.h").doc is None


def test_a_long_leading_comment_gives_its_opening_as_the_doc() -> None:
    # abseil's raw_hash_set.h: one sentence saying what the file is, then 7,000
    # characters of implementation notes
    notes = "".join(f"// note {n}: how the control bytes of group {n} are laid out.\n"
                    for n in range(100))
    header = ("// An open-addressing\n// hashtable with quadratic probing.\n//\n"
              + notes + "#pragma once\nint f(void);\n")
    doc = snippet(header, "absl/container/internal/raw_hash_set.h").doc
    assert doc.startswith("An open-addressing\nhashtable with quadratic probing.\n\nnote 0:")
    assert 1800 < len(doc) <= 2000 and doc.endswith("are laid out.")


def test_a_typedef_is_a_node_standing_for_the_type_it_names() -> None:
    result = snippet("typedef struct uv_loop_s uv_loop_t;\ntypedef struct tree tree;\n"
                     "typedef void (*uv_close_cb)(uv_loop_t* loop);\n"
                     "typedef struct { int n; } counter_t, *counter_p;\n", "include/uv.h")
    aliases = {s.fqn: s.meta["alias"] for s in result.symbols if "alias" in s.meta}
    # `typedef struct tree tree;` names the struct itself; an anonymous struct is its
    # first name, and the other names are aliases
    assert aliases == {"uv_loop_t": "struct uv_loop_s",
                       "uv_close_cb": "void (*)(uv_loop_t* loop)",
                       "counter_p": "counter_t *"}
    assert sym(result, "counter_t").kind == "CLASS"


def test_a_typedef_after_a_named_struct_body_stands_for_the_struct() -> None:
    # `typedef struct foo_s {...} foo_t;`: foo_t is `struct foo_s`, on its own line (no
    # second copy of the body), and calls through a foo_t variable reach the struct
    header = snippet("typedef struct Foo {\n  int a;\n  void (*go)(int);\n} Foo_t, *FooP;\n",
                     "foo.h")
    aliases = {s.fqn: (s.meta["alias"], s.line_start, s.line_end, s.signature)
               for s in header.symbols if "alias" in s.meta}
    assert aliases == {"Foo_t": ("struct Foo", 4, 4, "typedef struct Foo Foo_t"),
                       "FooP": ("struct Foo *", 4, 4, "typedef struct Foo *FooP")}
    assert sym(header, "Foo").line_start == 1 and sym(header, "Foo").line_end == 4
    cpp = snippet("typedef struct Box {\n  void m();\n} Box_t;\n"
                  "void run() { Box_t x; x.m(); }\n", "box.cpp")
    graph = build_graph([cpp])
    nodes = graph.node_by_key()
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert calls == {("run", "Box::m")}
