"""The exact C/C++ call reference of ``benchmarks/call_recall.py``: clang (the ``libclang``
wheel, offline) parses each translation unit of a pinned code base; every call expression
written in the repository (in the unit or a header of the repository it includes; not
produced by a macro expansion: graphrag records macros, it does not expand them) whose
``referenced`` cursor is a function, method, constructor or function template gives a
site. Its target is the definition of that function (by USR,
across every translation unit), else its declaration when that is in the repository,
else it is outside (a libc or standard library call)."""

from __future__ import annotations

import glob
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path


@dataclass
class CodeBase:
    """A pinned code base: its translation units and headers (globs under the checkout;
    the graph is built over the same files), and the compiler arguments."""

    name: str
    commit: str
    lang: str
    sources: tuple[str, ...]
    headers: tuple[str, ...]
    args: tuple[str, ...]
    exclude: tuple[str, ...] = ()

    def files(self, root: Path, patterns: tuple[str, ...]) -> list[str]:
        out: set[str] = set()
        for pattern in patterns:
            out.update(Path(p).relative_to(root).as_posix()
                       for p in glob.glob(str(root / pattern), recursive=True))
        return sorted(p for p in out if not any(fnmatch(p, x) for x in self.exclude))

    def include(self, root: Path) -> list[str]:
        """The files the graph is built from: the sources and headers (as paths)."""
        return [*self.files(root, self.sources), *self.files(root, self.headers)]


_CALLABLE = ("FUNCTION_DECL", "CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR",
             "FUNCTION_TEMPLATE", "CONVERSION_FUNCTION")


def clang_sites(root: Path, base: CodeBase, site_type):
    """Every resolved call site of ``base`` (checkout ``root``) as ``site_type`` records
    (``Site``): calls written in a translation unit or in a repository header it includes
    (each once); also returns the number of call expressions left out because their
    callee's name is not written at the call (a macro's body, an operator, a conversion)."""
    import clang.cindex as ci

    kinds = {getattr(ci.CursorKind, k) for k in _CALLABLE}
    index = ci.Index.create()
    root = root.resolve()
    texts: dict[str, bytes] = {}
    definitions: dict[str, tuple[str, int, str]] = {}
    raw: dict[tuple[str, int, str], tuple[str | None, int, str]] = {}
    left_out: set[tuple[str, int, int]] = set()

    def repo_path(name: str | None) -> str | None:
        if not name:
            return None
        try:
            return Path(name).resolve().relative_to(root).as_posix()
        except ValueError:
            return None

    def text_of(rel: str) -> bytes:
        if rel not in texts:
            texts[rel] = (root / rel).read_bytes()
        return texts[rel]

    for rel in base.files(root, base.sources):
        args = [a.replace("{root}", str(root)) for a in base.args]
        tu = index.parse(str(root / rel), args=args)
        stack = [tu.cursor]
        while stack:
            cur = stack.pop()
            kind = cur.kind
            if kind in kinds and cur.is_definition():
                spelled = _spelled(ci, cur, repo_path, text_of)
                if spelled is not None and spelled[1] > 0:
                    definitions.setdefault(cur.get_usr(), (spelled[0], cur.location.line,
                                                           cur.spelling))
            if kind == ci.CursorKind.CALL_EXPR:
                ref = cur.referenced
                if ref is not None and ref.kind in kinds:
                    name = _plain(ref.spelling)
                    spelled = _spelled(ci, _callee_name(ci, cur, ref.spelling), repo_path,
                                       text_of, name)
                    if spelled is not None and spelled[1] < 0:
                        left_out.add((spelled[0], -spelled[1], cur.location.column))
                    elif spelled is not None:
                        declared = repo_path(ref.location.file.name
                                             if ref.location.file else None)
                        raw.setdefault((spelled[0], spelled[1], ref.get_usr()),
                                       (declared, ref.location.line, name))
            stack.extend(cur.get_children())
    sites = []
    for (rel, line, usr), (declared, decl_line, name) in sorted(raw.items()):
        target = definitions.get(usr)
        if target is not None:
            sites.append(site_type(rel, line, "call", target[0], target[1], name))
        elif declared is not None:
            sites.append(site_type(rel, line, "call", declared, decl_line, name))
        else:
            sites.append(site_type(rel, line, "call", None, 0, name))
    return sites, len(left_out)


def _callee_name(ci, call, spelling: str):
    """The cursor of the callee's name in a call (``b`` of ``a.b()``, ``f`` of ``ns::f()``):
    a member call's own location is the start of its object expression."""
    wanted = (ci.CursorKind.MEMBER_REF_EXPR, ci.CursorKind.DECL_REF_EXPR,
              ci.CursorKind.OVERLOADED_DECL_REF)
    frontier = list(call.get_children())[:1]
    for _ in range(3):
        nxt = []
        for cur in frontier:
            if cur.kind in wanted and cur.spelling == spelling:
                return cur
            nxt.extend(cur.get_children())
        frontier = nxt[:4]
    return call


def _plain(spelling: str) -> str:
    """``f<int>`` -> ``f``; ``operator+`` stays."""
    return spelling if spelling.startswith("operator") else spelling.split("<")[0]


def _spelled(ci, cursor, repo_path, text_of, name: str | None = None
             ) -> tuple[str, int] | None:
    """(repository file, line) where the cursor's name is written; the line negated when
    it is not written there as the name (a macro's body, an operator, a conversion);
    None outside the repository."""
    import ctypes

    file, line, col, offset = ci.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), \
        ctypes.c_uint()
    ci.conf.lib.clang_getSpellingLocation(cursor.location, ctypes.byref(file),
                                          ctypes.byref(line), ctypes.byref(col),
                                          ctypes.byref(offset))
    rel = repo_path(ci.File(file).name if file else None)
    if rel is None:
        return None
    text = text_of(rel)
    at = offset.value
    start = text.rfind(b"\n", 0, at) + 1
    previous = text[:max(start - 1, 0)].rsplit(b"\n", 1)[-1]
    name = name if name is not None else _plain(cursor.spelling)
    if text[start:at].lstrip().startswith(b"#") or previous.rstrip().endswith(b"\\") \
            or text[at:at + len(name)] != name.encode():
        return rel, -line.value
    return rel, line.value


_LIBUV_UNIX = ("async", "core", "dl", "fs", "getaddrinfo", "getnameinfo", "loop-watcher",
               "loop", "pipe", "poll", "process", "random-devurandom", "signal", "stream",
               "tcp", "thread", "tty", "udp", "linux", "procfs-exepath", "proctitle",
               "random-getrandom", "random-sysctl-linux")
# libuv's Linux build (its CMakeLists.txt): the common sources, the Unix ones and Linux's.
LIBUV = CodeBase(
    "libuv", "40178b916e5937ed43c557aa051bdb3f86f6ca93", "c",
    sources=("src/*.c", *(f"src/unix/{n}.c" for n in _LIBUV_UNIX)),
    headers=("include/**/*.h", "src/*.h", "src/unix/*.h"),
    args=("-std=gnu11", "-D_GNU_SOURCE", "-D_FILE_OFFSET_BITS=64", "-I{root}/include",
          "-I{root}/src", "-I/usr/lib/gcc/x86_64-linux-gnu/12/include"))

_CXX = ("-I/usr/include/c++/12", "-I/usr/include/x86_64-linux-gnu/c++/12",
        "-I/usr/lib/gcc/x86_64-linux-gnu/12/include")
# fmt's library sources and the tests that need no test framework beyond its own headers.
FMTLIB = CodeBase(
    "fmtlib", "382609a920d2c43c00f2951233bc0d578a783982", "cpp",
    sources=("src/format.cc", "src/os.cc"),
    headers=("include/fmt/*.h",),
    args=("-x", "c++", "-std=c++17", "-I{root}/include", *_CXX))

_LEVELDB = ("db/*.cc", "table/*.cc", "util/*.cc", "helpers/memenv/memenv.cc")
# leveldb's library (its POSIX build): every source but tests, benchmarks and Windows.
LEVELDB = CodeBase(
    "leveldb", "78a352f47ed6c1e9d750545e9b242289185b87e1", "cpp",
    sources=_LEVELDB,
    headers=("include/leveldb/*.h", "db/*.h", "table/*.h", "util/*.h", "port/*.h",
             "helpers/memenv/*.h"),
    args=("-x", "c++", "-std=c++17", "-I{root}", "-I{root}/include",
          "-DLEVELDB_PLATFORM_POSIX=1", *_CXX),
    exclude=("*_test.cc", "*_bench.cc", "util/env_windows.cc", "util/testutil.cc",
             "db/leveldbutil.cc", "db/dumpfile.cc", "db/c.cc"))
