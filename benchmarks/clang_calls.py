"""The exact C/C++ call reference of ``benchmarks/call_recall.py``: clang (the ``libclang``
wheel, offline) parses each translation unit of a pinned code base; every call expression
written in the file (not produced by a macro expansion: graphrag records macros, it does
not expand them) whose ``referenced`` cursor is a function, method, constructor or
function template gives a site. Its target is the definition of that function (by USR,
across every translation unit), else its declaration when that is in the repository,
else it is outside (a libc or standard library call)."""

from __future__ import annotations

import glob
from dataclasses import dataclass
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

    def files(self, root: Path, patterns: tuple[str, ...]) -> list[str]:
        out: set[str] = set()
        for pattern in patterns:
            out.update(Path(p).relative_to(root).as_posix()
                       for p in glob.glob(str(root / pattern), recursive=True))
        return sorted(out)


_CALLABLE = ("FUNCTION_DECL", "CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR",
             "FUNCTION_TEMPLATE", "CONVERSION_FUNCTION")


def clang_sites(root: Path, base: CodeBase, site_type):
    """Every resolved call site of ``base`` (checkout ``root``) as ``site_type`` records
    (``Site``); also returns the number of call expressions left out as macro-made."""
    import clang.cindex as ci

    kinds = {getattr(ci.CursorKind, k) for k in _CALLABLE}
    index = ci.Index.create()
    root = root.resolve()
    definitions: dict[str, tuple[str, int, str]] = {}
    raw: list[tuple[str, int, str, str | None, int, str]] = []
    from_macros = 0
    for rel in base.files(root, base.sources):
        path = root / rel
        text = path.read_bytes()
        args = [a.replace("{root}", str(root)) for a in base.args]
        tu = index.parse(str(path), args=args,
                         options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)

        def in_repo(cursor) -> str | None:
            loc = cursor.location
            if loc.file is None:
                return None
            try:
                return Path(loc.file.name).resolve().relative_to(root).as_posix()
            except ValueError:
                return None

        stack = [tu.cursor]
        while stack:
            cur = stack.pop()
            kind = cur.kind
            if kind in kinds and cur.is_definition():
                where = in_repo(cur)
                if where is not None and (where != rel or _spelled(
                        ci, cur, path, text, cur.spelling.split("<")[0]) != -1):
                    definitions.setdefault(cur.get_usr(), (where, cur.location.line,
                                                           cur.spelling))
            if kind == ci.CursorKind.CALL_EXPR:
                ref = cur.referenced
                if ref is not None and ref.kind in kinds:
                    name = ref.spelling.split("<")[0]
                    where = _spelled(ci, cur, path, text, name)
                    if where == -1:
                        from_macros += 1  # made by a macro's body: not written here
                    elif where is not None:
                        raw.append((rel, where, ref.get_usr(), in_repo(ref),
                                    ref.location.line, name))
            stack.extend(cur.get_children())
    sites = []
    for rel, line, usr, declared, decl_line, name in raw:
        target = definitions.get(usr)
        if target is not None:
            sites.append(site_type(rel, line, "call", target[0], target[1], name))
        elif declared is not None:
            sites.append(site_type(rel, line, "call", declared, decl_line, name))
        else:
            sites.append(site_type(rel, line, "call", None, 0, name))
    return sites, from_macros


def _spelled(ci, cursor, path: Path, text: bytes, name: str) -> int | None:
    """The line where the call's callee name is written in ``path`` (a call in a macro's
    argument too); -1 when it is written in a macro's body, None in another file."""
    import ctypes

    file, line, col, offset = ci.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), \
        ctypes.c_uint()
    ci.conf.lib.clang_getSpellingLocation(cursor.location, ctypes.byref(file),
                                          ctypes.byref(line), ctypes.byref(col),
                                          ctypes.byref(offset))
    spelled_in = ci.File(file).name if file else None
    if spelled_in is None or Path(str(spelled_in)).resolve() != path.resolve():
        return -1 if cursor.location.file is not None and Path(
            cursor.location.file.name).resolve() == path.resolve() else None
    at = offset.value
    start = text.rfind(b"\n", 0, at) + 1
    previous = text[:max(start - 1, 0)].rsplit(b"\n", 1)[-1]
    if text[start:at].lstrip().startswith(b"#") or previous.rstrip().endswith(b"\\"):
        return -1
    return line.value if text[at:at + len(name)] == name.encode() else -1


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
