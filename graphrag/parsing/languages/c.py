"""C and C++ extractor: one ``.c``/``.h`` (C) or ``.cc``/``.cpp``/``.cxx``/``.hpp``/``.hh``
(C++) file -> :class:`ParseResult`.

Covers functions (FUNCTION; a prototype is a declaration, ``meta["declaration"]``, that the
graph step folds into the one definition of that name elsewhere), structs, unions and
classes (CLASS), enums (ENUM, enumerators as FIELD), fields (FIELD), C++ namespaces (OBJECT
with ``meta["namespace"]``), methods defined in or out of their class (``A::f``), templates
by name, macros (a function-like ``#define`` is a FUNCTION, an object-like one with a value
a FIELD, both with ``meta["macro"]``; they are recorded, never expanded), ``#include``
(quoted includes resolved against the including file's directory and the repository's
include directories, see :func:`include_target`), calls with their argument count, and
base classes (EXTENDS; ``virtual`` and ``override`` in ``meta``).

fqns: C++ names joined with ``::`` (``geo::Shape::area``); a C function or a C++ free
function at file scope is its bare name (the one namespace of the linker); a ``static``
function, variable or macro is file-local: ``<path>:<name>``. Preprocessor branches
(``#if``/``#else``) are read like the code around them, and a name defined in two
branches is one symbol (the first).

A ``.h`` header is C unless its text holds C++ constructs (``class``, ``namespace``,
``template``, ``::``): then it is read with the C++ grammar (it stays a C file; both
languages share one resolution namespace).
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from bisect import bisect_right
from typing import TYPE_CHECKING

from tree_sitter import Node

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import count_errors, normalize, opening
from graphrag.parsing.languages._common import node_text as _text
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

if TYPE_CHECKING:
    from graphrag.parsing.repofacts import RepoFiles

LANG = "c"
# Headers a C++ compiler reads: `.h` too when its text is C++.
# Files only C++ is written in (a repository without one is taken for C: its `.h`
# headers define no namespace macros).
CPP_EXTENSIONS = (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp",
                  ".tcc")
HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".ipp", ".tcc")
_CPP_HINT = re.compile(rb"^\s*(?:class|namespace|template\s*<|using\s+namespace)\b|::|"
                       rb"^\s*(?:public|private|protected):", re.MULTILINE)
# Names that look like calls but are operators or keywords of the language.
_NOT_CALLS = frozenset({"sizeof", "alignof", "_Alignof", "offsetof", "typeof", "__typeof__",
                        "decltype", "static_assert", "_Static_assert", "defined",
                        "__attribute__", "__declspec", "va_arg", "va_start", "va_end"})
_PREPROC_BRANCHES = frozenset({"preproc_if", "preproc_ifdef", "preproc_else",
                               "preproc_elif", "preproc_elifdef"})
_TYPE_SPECIFIERS = {"struct_specifier": "struct", "union_specifier": "union",
                    "class_specifier": "class"}
_MAX_DEPTH = 200
_PURE = re.compile(r"=\s*0\s*;?\s*$")
# Wrappers whose methods are called through to the wrapped class (`p->draw()`).
_SMART = re.compile(r"^(?:std::)?(?:unique_ptr|shared_ptr|weak_ptr|optional|"
                    r"reference_wrapper)\s*<\s*(.*?)\s*(?:,[^<>]*)?>$")
_NAME = re.compile(r"~?[A-Za-z_]\w*|operator\W.{0,8}|operator \w[\w:]*")
_OWNER = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_NAMED_BODY = rb"(?=\s+[A-Za-z_]\w*\s*(?:final\s*)?[:{])"
# (one or more, with or without arguments: `class ABSL_LOCKABLE ABSL_ATTRIBUTE_WARN_UNUSED
# Mutex {`, `class FMT_SO_VISIBILITY("default") format_error :`)
_MACRO_ARGS = rb"(?:\([^()\n]*\))?"  # `FMT_SO_VISIBILITY("default")`
_MACRO = rb"[A-Z][A-Z0-9_]+" + _MACRO_ARGS
_MACRO_RUN = _MACRO + rb"(?:[ \t]+" + _MACRO + rb")*"
# A run of specifier macros (`FMT_CONSTEXPR`, `FMT_API`, `ABSL_MUST_USE_RESULT`: an
# underscore in each name, so no all-caps type such as `DWORD`) starting a declaration,
# before a keyword or a constructor/destructor name followed by `(`: the grammar reads
# the macro as the declaration's type, and a constructor with an initializer list then
# swallows the rest of its class and the file (fmt's `FMT_CONSTEXPR write_int_data(...) :`).
_SPEC_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*" + _MACRO_ARGS
_SPECIFIER_RUN = re.compile(
    rb"(?m)(?:^[ \t]*|(?<=\bexplicit )|(?<=\bstatic )|(?<=\binline )|(?<=\bvirtual )"
    rb"|(?<=\bfriend ))(" + _SPEC_MACRO + rb"(?:[ \t]+" + _SPEC_MACRO + rb")*)[ \t]+"
    rb"(?=(?:void|bool|char|short|int|long|unsigned|signed|float|double|auto|const|"
    rb"constexpr|consteval|constinit|inline|static|virtual|explicit|friend|extern|typename|"
    rb"template|struct|class|enum|union|decltype)\b|~?([A-Za-z_]\w*)[ \t]*\()")
_CLASS_NAME = re.compile(rb"\b(?:class|struct)[ \t]+(?:" + _MACRO_RUN + rb"[ \t]+)?([A-Za-z_]\w*)")


def _blank_specifiers(source: bytes) -> bytes:
    """``source`` with the specifier macros of :data:`_SPECIFIER_RUN` blanked; before a
    name followed by ``(`` only when that name is a class or struct of the file (a
    constructor: ``MY_TYPE x(5);`` in a function body stays a declaration)."""
    classes = {m.group(1) for m in _CLASS_NAME.finditer(source)}

    def blank(m: re.Match[bytes]) -> bytes:
        if m.group(2) is not None and m.group(2) not in classes:
            return m.group()
        return _blank_group(m)

    return _SPECIFIER_RUN.sub(blank, source)
_EXPORT_MACRO = re.compile(rb"(?<=\bclass )" + _MACRO_RUN + _NAMED_BODY +
                           rb"|(?<=\bstruct )" + _MACRO_RUN + _NAMED_BODY)
# `extern "C" {` and its `}` each alone between `#ifdef __cplusplus` and `#endif` (the usual
# way a C header lets C++ include it): one brace per preprocessor branch is a syntax error.
_EXTERN_C = re.compile(rb'(?m)^[ \t]*#[ \t]*if(?:def[ \t]+__cplusplus|[ \t]+defined[ \t]*\(?'
                       rb'[ \t]*__cplusplus[ \t]*\)?)[ \t]*\n'
                       rb'([ \t]*(?:extern[ \t]+"C"[ \t]*\{|\})[ \t]*)\n[ \t]*#[ \t]*endif')
_MACRO_LINE = re.compile(rb"(?m)^(?:[A-Z_][A-Z0-9_]*[ \t]*\([^;{}\n]*\)[ \t]*)+$(?!\n[ \t]*\{)"
                         # a lone `FMT_BEGIN_NAMESPACE`, `ABSL_NAMESPACE_BEGIN`, `API_INLINE`
                         rb"|^[ \t]*[A-Z_][A-Z0-9_]{2,}[ \t]*$(?!\n[ \t]*\})")


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one C file (a C++-looking ``.h`` with the C++ grammar)."""
    cpp = rel_path.lower().endswith(".h") and _CPP_HINT.search(source) is not None
    return extract_as(source, rel_path, ctx, LANG, "cpp" if cpp else "c")


def extract_as(source: bytes, rel_path: str, ctx: RepoContext, lang: str,
               grammar: str) -> ParseResult:
    """Parse ``source`` with the grammar of ``grammar`` (``c`` or ``cpp``) into a result of
    language ``lang``."""
    parser = registry.parser(grammar)
    tree = parser.parse(source)
    errors = count_errors(tree.root_node)
    if errors:
        # A line of nothing but macro invocations (`DECLARE(x) BODY(y)`, `RB_GENERATE(...)`)
        # or one macro name (`FMT_BEGIN_NAMESPACE`) reads as the head of a function that
        # swallows the declarations after it: such lines are blanked (offsets kept) when
        # that parses with fewer errors.
        # So does an export macro between `class` and the name (`class API Status {`), and
        # a specifier macro starting a declaration (`FMT_CONSTEXPR void f(`).
        # So do the braces of `extern "C"` written in `#ifdef __cplusplus` branches.
        blanked = _EXPORT_MACRO.sub(lambda m: b" " * len(m.group()), _MACRO_LINE.sub(
            lambda m: re.sub(rb"[^\n]", b" ", m.group()), source))
        blanked = _EXTERN_C.sub(_blank_group, blanked)
        blanked = _blank_specifiers(blanked)
        if blanked != source:
            again = parser.parse(blanked)
            fewer = count_errors(again.root_node)
            if fewer < errors:
                # what was blanked is no part of the file left unparsed
                tree, errors = again, fewer
    result = ParseResult(path=rel_path, lang=lang, module=rel_path, package=None)
    extractor = _Extractor(source, tree.root_node, rel_path, ctx, result, grammar == "cpp")
    if grammar == "cpp":
        extractor.macro_regions = macro_namespaces(source, ctx)
        extractor.macro_starts = [start for start, _end, _ns in extractor.macro_regions]
    extractor.run()
    # A header's leading comment describes the interface it declares; a source file's is
    # mostly a note on the code right below it ("Needs to be defined before ...").
    if rel_path.lower().endswith(_HEADER_SUFFIXES):
        result.doc = file_doc(tree.root_node)
    result.error_count = errors
    return result


_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")
# A paragraph of a file's leading comment that is its licence or copyright notice, not a
# description of the file.
_NOTICE = re.compile(r"copyright|licen[cs]e|permission is hereby granted|warrant|"
                     r"all rights reserved|spdx-", re.IGNORECASE)
_RULE = re.compile(r"^[\s\-=*/#_~+]*$")  # a line of nothing but a rule (`// ------`)


def file_doc(root: Node) -> str | None:
    """What a file says about itself: the comments at its top, without the licence and
    copyright paragraphs and rule lines (a header's ``// File: str_cat.h`` block and the
    description after it), their opening (:func:`opening`) when long; None when nothing
    else is there."""
    lines: list[str] = []
    last_row = None
    for child in root.children:
        if child.type != "comment":
            break
        if last_row is not None and child.start_point[0] > last_row + 1:
            lines.append("")  # comments apart are paragraphs apart
        last_row = child.end_point[0]
        text = _text(child)
        if text.startswith("/*"):
            body = [re.sub(r"^\s*\*(?!/) ?", "", line) for line in text[2:-2].splitlines()]
            lines.extend(textwrap.dedent("\n".join(body)).splitlines())
        else:
            lines.append(text[2:].removeprefix(" "))
    paragraphs: list[str] = []
    current: list[str] = []
    for line in [*lines, ""]:
        if line.strip() and not _RULE.match(line):
            current.append(line.rstrip())
        elif not line.strip() and current:
            paragraphs.append("\n".join(current).strip())
            current = []
    kept = [p for p in paragraphs if not _NOTICE.search(p)]
    return opening("\n\n".join(kept)) or None


def _blank_group(m: re.Match[bytes]) -> bytes:
    """The match with its first group blanked (offsets kept)."""
    start, end = m.start(1) - m.start(), m.end(1) - m.start()
    return m.group()[:start] + b" " * (end - start) + m.group()[end:]


def include_target(including: str, written: str, ctx: RepoContext) -> str | None:
    """The repository file a quoted ``#include "written"`` of file ``including`` names:
    relative to the including file's directory, then to each include directory of the
    repository (``include/`` folders, the root), then the one header whose path ends
    with it; None when none is in the repository (a system or generated header)."""
    facts = ctx.of(LANG) or {}
    headers = facts.get("headers")
    if not headers:
        return None
    here = posixpath.dirname(including)
    candidate = posixpath.normpath(posixpath.join(here, written))
    if candidate in headers:
        return candidate
    for directory in facts["include_dirs"]:
        candidate = posixpath.normpath(posixpath.join(directory, written))
        if candidate in headers:
            return candidate
    suffix = "/" + written.lstrip("./")
    found = [h for h in facts["by_name"].get(posixpath.basename(written), ())
             if h.endswith(suffix) or h == written]
    return found[0] if len(found) == 1 else None


def repo_facts(files: RepoFiles) -> dict:
    """The spec's repository facts :func:`include_target` reads: every header, the include
    directories (each ``include`` folder, then the root) and the headers by file name;
    and the namespace macros the headers define (:func:`namespace_macros`; none, and no
    header read, in a repository without a C++ file)."""
    headers = sorted(p for p in files.paths if p.lower().endswith(HEADER_EXTENSIONS))
    dirs = sorted({p[: p.index("/include/") + len("/include")] if "/include/" in p
                   else "include" for p in headers
                   if p.startswith("include/") or "/include/" in p})
    by_name: dict[str, list[str]] = {}
    for path in headers:
        by_name.setdefault(posixpath.basename(path), []).append(path)
    # namespace macros open C++ namespaces: a C repository (libuv) reads none of its headers
    cpp = any(p.lower().endswith(CPP_EXTENSIONS) for p in files.paths)
    return {"headers": frozenset(headers), "include_dirs": [*dirs, ""], "by_name": by_name,
            **namespace_macros(files, headers if cpp else [])}


# `#define FMT_BEGIN_NAMESPACE namespace fmt { inline namespace v10 {` (its body continued
# over `\` lines), and `#define FMT_END_NAMESPACE } }`.
_DEFINE = re.compile(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+((?:[^\n]*\\\n)*[^\n]*)")
_OPENS = re.compile(r"(?:(?:inline\s+)?namespace\s+[A-Za-z_][\w:]*\s*\{\s*)+")
_OPENED = re.compile(r"(inline\s+)?namespace\s+([A-Za-z_][\w:]*)")
_CLOSES = re.compile(r"(?:\}\s*)+")
_MACRO_FILE_MAX_BYTES = 1 << 20


def namespace_macros(files: RepoFiles, headers: list[str]) -> dict:
    """``namespace_begin``: each object-like macro of the headers whose value opens named
    namespaces (``FMT_BEGIN_NAMESPACE`` -> ``fmt``; inline namespaces left out, as a
    qualified name leaves them out); ``namespace_end``: the macros whose value is only
    closing braces. A name defined to open different namespaces is neither (which one
    the compiler sees is not known)."""
    begin: dict[str, str | None] = {}
    end: set[str] = set()
    for rel in headers:
        text = files.read(rel, _MACRO_FILE_MAX_BYTES)
        # the closing macro is defined beside the opening one, which says `namespace`
        if text is None or "namespace" not in text:
            continue
        for m in _DEFINE.finditer(text):
            value = m.group(2).replace("\\\n", " ").split("//")[0].strip()
            if _CLOSES.fullmatch(value):
                end.add(m.group(1))
            elif _OPENS.fullmatch(value):
                opened = "::".join(o.group(2) for o in _OPENED.finditer(value)
                                   if not o.group(1))
                if opened:
                    begin[m.group(1)] = opened if begin.get(m.group(1), opened) == opened \
                        else None
    return {"namespace_begin": {k: v for k, v in sorted(begin.items()) if v},
            "namespace_end": frozenset(end - begin.keys())}


# A line of nothing but one macro name (one way only to match the blanks after it: two
# optional runs side by side make a long line of blanks quadratic).
_LONE_NAME = re.compile(rb"(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*(?:;[ \t]*)?$")


def macro_namespaces(source: bytes, ctx: RepoContext) -> list[tuple[int, int, str]]:
    """(start byte, end byte, namespace) of the stretches of ``source`` after a line
    holding only a namespace macro of the repository (:func:`namespace_macros`) up to the
    line holding only its closing macro (or the end of the file): the namespace the
    preprocessor puts the declarations there in (the innermost: the stretches are apart,
    in order). Read beside the parse, which sees the macro lines as blanks, so error
    recovery is the same with or without them."""
    facts = ctx.of(LANG) or {}
    begin, end = facts.get("namespace_begin"), facts.get("namespace_end") or ()
    if not begin:
        return []
    stretches: list[tuple[int, int, str]] = []
    opened: list[str] = []
    since = 0
    for m in _LONE_NAME.finditer(source):
        name = m.group(1).decode()
        if name not in begin and not (name in end and opened):
            continue
        if opened and since < m.start():
            stretches.append((since, m.start(), opened[-1]))
        # the macro's own line is in the namespace it opens (the grammar may read the
        # name as the start of the declaration after it) and in none it closes
        if name in begin:  # nested in another: its namespace is inside the other's
            opened.append(f"{opened[-1]}::{begin[name]}" if opened else begin[name])
            since = m.start()
        else:
            opened.pop()
            since = m.end()
    if opened:
        stretches.append((since, len(source), opened[-1]))
    return stretches


def _declarator_name(node: Node | None) -> tuple[Node | None, Node | None]:
    """(name node, function_declarator) of a declarator: pointers, references and
    parentheses unwrapped."""
    depth = 0
    while node is not None and depth < 32:
        depth += 1
        if node.type == "function_declarator":
            inner, _ = _declarator_name(node.child_by_field_name("declarator"))
            return inner, node
        if node.type in ("pointer_declarator", "reference_declarator",
                         "parenthesized_declarator", "attributed_declarator",
                         "array_declarator", "init_declarator"):
            nxt = node.child_by_field_name("declarator")
            if nxt is None:
                nxt = next((c for c in node.named_children if c.type.endswith("declarator")
                            or c.type in ("identifier", "field_identifier",
                                          "qualified_identifier")), None)
            node = nxt
            continue
        return node, None
    return None, None


def _is_static(node: Node) -> bool:
    return any(c.type == "storage_class_specifier" and _text(c) == "static"
               for c in node.children)


def _params(fdecl: Node | None) -> list[list[str | None]]:
    out: list[list[str | None]] = []
    plist = fdecl.child_by_field_name("parameters") if fdecl is not None else None
    if plist is None:
        return out
    for p in plist.children:
        if p.type in ("variadic_parameter", "..."):
            out.append(["...", "..."])
            continue
        if not p.type.endswith("parameter_declaration"):
            continue
        type_node = p.child_by_field_name("type")
        name, _ = _declarator_name(p.child_by_field_name("declarator"))
        type_text = normalize(_text(type_node))
        if type_text == "void" and name is None:
            continue  # `f(void)`: no parameters
        out.append([_text(name) if name is not None else "_", type_text])
    return out


def _defaults(fdecl: Node | None) -> int:
    """How many parameters of a C++ declarator have a default value."""
    plist = fdecl.child_by_field_name("parameters") if fdecl is not None else None
    return sum(1 for p in plist.named_children if p.type.startswith("optional_")) \
        if plist is not None else 0


def _signature_key(params: list[list[str | None]]) -> str:
    """The parameter types of an overload, as its fqn carries them: ``int,const Shape&``."""
    return ",".join((t or "").replace(" ", "") for _n, t in params)


def nominal(text: str) -> str:
    """The spec's type prepass: a C/C++ type as written -> the class it names, with
    ``::`` as ``.``: ``const geo::Shape&`` -> ``geo.Shape``, ``std::unique_ptr<Shape>``
    -> ``Shape``, ``struct kv_entry *`` -> ``kv_entry``."""
    t = re.sub(r"\b(const|volatile|struct|class|union|enum|typename|mutable|static|"
               r"inline|constexpr)\b", " ", text)
    t = t.replace("&", " ").replace("*", " ").strip()
    wrapped = _SMART.match(t)
    while wrapped:
        t = wrapped.group(1).strip()
        wrapped = _SMART.match(t)
    t = re.sub(r"<.*>", "", t).strip()
    return t.replace("::", ".").lstrip(".")


def doc_comment(node: Node) -> str | None:
    """The ``//`` or ``/* */`` comment block on the lines right above ``node``."""
    lines: list[str] = []
    row = node.start_point[0]
    cur = node.prev_sibling
    while cur is not None and cur.type == "comment" and cur.end_point[0] >= row - 1:
        text = _text(cur)
        if text.startswith("//"):
            body = [text.lstrip("/")]
        else:
            body = [re.sub(r"^\s*\*+ ?", "", ln) for ln in text[2:-2].splitlines()]
        lines[:0] = body
        row = cur.start_point[0]
        cur = cur.prev_sibling
    doc = "\n".join(ln.rstrip() for ln in lines).strip()
    return doc or None


class _Extractor(FileExtractor):
    """Single-use worker filling ``result`` for one file."""

    def __init__(self, source: bytes, root: Node, path: str, ctx: RepoContext,
                 result: ParseResult, cpp: bool) -> None:
        super().__init__(source, root, result)
        self.path = path
        self.ctx = ctx
        self.cpp = cpp
        self.header = path.lower().endswith(HEADER_EXTENSIONS)
        self.by_fqn: dict[str, Symbol] = {}  # "<fqn>\0<overload>" -> symbol
        self.overloads: dict[str, dict[str, Symbol]] = {}  # C++: fqn -> overload -> symbol
        self.caller_of: list[tuple[Call, Symbol]] = []
        self.scope_key: dict[int, str] = {}  # id(symbol) -> its by_fqn key
        # stretches of the file a namespace macro puts in a namespace (macro_namespaces)
        self.macro_regions: list[tuple[int, int, str]] = []
        self.macro_starts: list[int] = []

    # -- helpers -----------------------------------------------------------------------

    def _add(self, kind: str, name: str, fqn: str, parent: str | None, node: Node,
             signature: str | None, meta: dict | None = None, doc_node: Node | None = None,
             overload: str = "") -> Symbol | None:
        """Add a symbol; of a name declared twice in the file (a prototype and its
        definition, ``#if``/``#else`` branches) the definition, else the first, stays.
        C++ overloads (``overload``: their parameter types) are symbols of their own."""
        meta = meta or {}
        key = f"{fqn}\0{overload}"
        known = self.by_fqn.get(key)
        if known is not None:
            if known.meta.get("declaration") and not meta.get("declaration"):
                meta = {**meta, "declared_line": known.line_start}
                self.result.symbols.remove(known)
            else:
                return None
        sym = Symbol(kind=kind, name=name, fqn=fqn, parent=parent, signature=signature,
                     doc_comment=doc_comment(doc_node or node), meta=meta, **self.span(node))
        self.by_fqn[key] = sym
        self.scope_key[id(sym)] = key
        self.result.symbols.append(sym)
        if overload is not None and self.cpp and kind in ("FUNCTION", "METHOD",
                                                           "CONSTRUCTOR"):
            self.overloads.setdefault(fqn, {})[overload] = sym
        return sym

    def _child_fqn(self, scope: str | None, name: str) -> str:
        return f"{scope}::{name}" if scope else name

    def _local_fqn(self, name: str) -> str:
        """A file-local name of a source file: ``<path>:<name>``; in a header it is the
        bare name (every file that includes the header sees it)."""
        return name if self.header else f"{self.path}:{name}"

    # -- walking -----------------------------------------------------------------------

    def run(self) -> ParseResult:
        self._items(self.root, None, None, 0)
        for fqn, variants in self.overloads.items():
            if len(variants) > 1:  # overloads carry their parameter types
                for overload, sym in variants.items():
                    sym.fqn = f"{fqn}({overload})"
        for call, sym in self.caller_of:
            call.caller = sym.fqn
        for key in [k for k in self.result.var_types if "\0" in k]:
            fqn, _, overload = key.partition("\0")
            target = self.overloads.get(fqn, {}).get(overload)
            self.result.var_types[target.fqn if target else fqn] = \
                self.result.var_types.pop(key)
        return self.finished()

    def _items(self, node: Node, scope: str | None, cls: str | None, depth: int) -> None:
        """Declarations directly in ``node`` (a file, namespace, class body, ``extern
        "C"`` block or preprocessor branch) inside namespace/class ``scope``."""
        if depth > _MAX_DEPTH:
            return
        for child in node.named_children:
            self._item(child, scope, cls, depth + 1, child)

    def _item(self, node: Node, scope: str | None, cls: str | None, depth: int,
              outer: Node, template: bool = False) -> None:
        kind = node.type
        if scope is None and cls is None and self.macro_regions:
            scope = self._macro_scope(node)
        if kind == "function_definition":
            self._function(node, scope, cls, outer, template, definition=True)
        elif kind in ("declaration", "field_declaration"):
            self._declaration(node, scope, cls, outer, template)
        elif kind in _TYPE_SPECIFIERS or kind == "enum_specifier":
            self._type(node, scope, outer, template)
        elif kind == "type_definition":
            self._typedef(node, scope, outer)
        elif kind == "alias_declaration":
            name_node = node.child_by_field_name("name")
            if name_node is not None:
                self._alias(_text(name_node), _text(node.child_by_field_name("type")),
                            "using", scope, outer, template)
        elif kind == "using_declaration":
            self._using(node, scope, cls)
        elif kind == "template_declaration":
            inner = next((c for c in node.named_children if c.type not in (
                "template_parameter_list", "requires_clause")), None)
            if inner is not None:
                self._item(inner, scope, cls, depth + 1, outer, template=True)
        elif kind == "namespace_definition":
            self._namespace(node, scope, depth)
        elif kind in _PREPROC_BRANCHES or kind in ("linkage_specification",
                                                    "declaration_list"):
            body = node.child_by_field_name("body") if kind == "linkage_specification" \
                else None
            if body is not None and body.type != "declaration_list":
                self._item(body, scope, cls, depth + 1, body)
            else:
                self._items(body or node, scope, cls, depth)
        elif kind in ("preproc_def", "preproc_function_def"):
            self._macro(node, scope)
        elif kind == "preproc_include":
            self._include(node)
        elif kind == "expression_statement" or kind == "ERROR":
            self._items(node, scope, cls, depth)

    def _macro_scope(self, node: Node) -> str | None:
        """The namespace a namespace macro opened where file-level ``node`` starts,
        declared on first use."""
        at = bisect_right(self.macro_starts, node.start_byte) - 1
        if at < 0 or node.start_byte >= self.macro_regions[at][1]:
            return None
        start, end, namespace = self.macro_regions[at]
        fqn = None
        for part in namespace.split("::"):
            parent, fqn = fqn, self._child_fqn(fqn, part)
            if f"{fqn}\0" not in self.by_fqn:
                sym = self._add("OBJECT", part, fqn, parent, node, f"namespace {fqn}",
                                {"namespace": True, "declaration": True})
                if sym is not None:  # it spans the stretch, not its first declaration
                    sym.doc_comment = None
                    sym.line_start = self.source.count(b"\n", 0, start) + 1
                    sym.line_end = self.source.count(b"\n", 0, end) + 1
                    sym.char_start, sym.char_end = self.offsets(start), self.offsets(end)
        return fqn

    def _namespace(self, node: Node, scope: str | None, depth: int) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if body is None:
            return
        if name_node is None or any(c.type == "inline" for c in node.children):
            # an anonymous namespace: its names are the file's own; an inline one
            # (`inline namespace v10`, a library's version): its names are the enclosing
            # namespace's, as callers write them (`fmt::format`)
            self._items(body, scope, None, depth)
            return
        fqn = scope
        for part in _text(name_node).replace(" ", "").split("::"):
            if part == "inline" or not part:
                continue
            parent, fqn = fqn, self._child_fqn(fqn, part)
            # every file reopening a namespace declares it: the graph keeps one node
            self._add("OBJECT", part, fqn, parent, node, f"namespace {fqn}",
                      {"namespace": True, "declaration": True})
        self._items(body, fqn, None, depth)

    # -- functions ---------------------------------------------------------------------

    def _function(self, node: Node, scope: str | None, cls: str | None, outer: Node,
                  template: bool, definition: bool, fdecl: Node | None = None,
                  name_node: Node | None = None) -> None:
        if fdecl is None:
            name_node, fdecl = _declarator_name(node.child_by_field_name("declarator"))
        if name_node is None or fdecl is None:
            return
        written = _text(name_node).replace(" ", "")
        name, owner = written, scope
        if name_node.type == "qualified_identifier":  # `A::f` defined out of its class
            head, _, name = written.rpartition("::")
            owner = self._qualified_owner(scope, head)
        name = _plain_name(name)  # a specialisation `f<int>` is `f`
        if not _NAME.fullmatch(name) or (owner and not _OWNER.fullmatch(owner)):
            return  # what error recovery made of macros: no name to find
        params = _params(fdecl)
        in_type = owner is not None and (owner == cls or name_node.type ==
                                         "qualified_identifier")
        is_static = _is_static(node)
        if in_type:
            kind = "CONSTRUCTOR" if name == owner.rsplit("::", 1)[-1] else "METHOD"
            fqn = self._child_fqn(owner, name)
        elif is_static and owner is None:
            kind, fqn = "FUNCTION", self._local_fqn(name)
        else:
            kind, fqn = "FUNCTION", self._child_fqn(owner, name)
        ret = node.child_by_field_name("type")
        meta: dict = {"params": params}
        defaults = _defaults(fdecl)
        if defaults:
            meta["min_args"] = len(params) - defaults
        if ret is not None:
            meta["return_type"] = normalize(_text(ret))
        if is_static:
            meta["static"] = True
        if template:
            meta["template"] = True
        if not definition:
            meta["declaration"] = True
        if any(c.type == "virtual" for c in node.children):
            meta["virtual"] = True
        if any(c.type == "virtual_specifier" for c in fdecl.children):
            meta["override"] = True
        if not definition and meta.get("virtual") and _PURE.search(_text(node)):
            meta["abstract"] = True  # `= 0`: calls through it reach the overrides
        body = node.child_by_field_name("body")
        head = _text(node)[: body.start_byte - node.start_byte] if body is not None \
            else _text(node)
        overload = _signature_key(params) if self.cpp else ""
        sym = self._add(kind, name, fqn, owner, outer, normalize(head).rstrip(";"), meta,
                        overload=overload)
        known = self.by_fqn.get(f"{fqn}\0{overload}")
        if sym is None and body is not None and known is not None \
                and not known.meta.get("declaration"):
            # the other branch of an `#if`: the same node, its lines and calls are too
            sym = known
            sym.meta.setdefault("branches", []).append([outer.start_point[0] + 1,
                                                        outer.end_point[0] + 1])
        if sym is None or body is None:
            return
        if self.cpp:
            scope_key = f"{fqn}\0{overload}"
            local = self.result.var_types.setdefault(scope_key, {})
            local.update({n: t for n, t in params if n and n not in ("_", "...") and t})
        self._calls(body, sym)
        for init in node.named_children:
            if init.type == "field_initializer_list":
                self._calls(init, sym)

    def _qualified_owner(self, scope: str | None, head: str) -> str:
        """The class of an out-of-class definition ``A::f`` inside namespace ``scope``."""
        head = _strip_templates(head)
        return self._child_fqn(scope, head) if scope and not head.startswith(
            scope + "::") else head

    def _declaration(self, node: Node, scope: str | None, cls: str | None, outer: Node,
                     template: bool) -> None:
        type_node = node.child_by_field_name("type")
        if type_node is not None and type_node.type in (*_TYPE_SPECIFIERS, "enum_specifier") \
                and type_node.child_by_field_name("body") is not None:
            self._type(type_node, scope, type_node, template)
        for decl in node.children_by_field_name("declarator"):
            name_node, fdecl = _declarator_name(decl)
            if name_node is None:
                continue
            if fdecl is not None:
                self._function(node, scope, cls, outer, template, definition=False,
                               fdecl=fdecl, name_node=name_node)
            elif cls is not None and node.type == "field_declaration":
                name = _text(name_node)
                written = normalize(_text(type_node)) if type_node is not None else ""
                self._add("FIELD", name, self._child_fqn(cls, name), cls, outer,
                          normalize(_text(node)).rstrip(";"),
                          {"type": written} if written else {})
                if written and self.cpp:
                    self.result.var_types.setdefault(cls, {})[name] = written
            if decl.type == "init_declarator":
                value = decl.child_by_field_name("value")
                if value is not None:
                    self._calls(value, None)

    # -- types -------------------------------------------------------------------------

    def _type(self, node: Node, scope: str | None, outer: Node, template: bool,
              alias: str | None = None) -> str | None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        name = _plain_name(_text(name_node).replace(" ", "")) if name_node is not None \
            else alias
        if body is None or not name or not _OWNER.fullmatch(name):
            return None
        if "::" in name:
            fqn = name
            name = name.rsplit("::", 1)[-1]
        else:
            fqn = self._child_fqn(scope, name)
        enum = node.type == "enum_specifier"
        keyword = "enum" if enum else _TYPE_SPECIFIERS[node.type]
        meta: dict = {"keyword": keyword}
        if template:
            meta["template"] = True
        sym = self._add("ENUM" if enum else "CLASS", name, fqn, scope, outer,
                        f"{keyword} {fqn}", meta)
        if sym is None:
            return fqn
        if enum:
            for item in body.named_children:
                if item.type == "enumerator":
                    item_name = _text(item.child_by_field_name("name"))
                    self._add("FIELD", item_name, self._child_fqn(fqn, item_name), fqn,
                              item, normalize(_text(item)))
            return fqn
        for base in node.named_children:
            if base.type == "base_class_clause":
                self._bases(fqn, base)
        self._items(body, fqn, fqn, 0)
        return fqn

    def _bases(self, fqn: str, clause: Node) -> None:
        for base in clause.named_children:
            if base.type in ("type_identifier", "qualified_type_identifier",
                             "template_type"):
                written = re.sub(r"<.*>", "", _text(base)).replace(" ", "")
                self.result.heritage.append(Heritage(cls=fqn, base=written,
                                                     relation="extends",
                                                     line=base.start_point[0] + 1))

    def _typedef(self, node: Node, scope: str | None, outer: Node) -> None:
        """``typedef struct { ... } name;``: the anonymous struct is ``name``; any other
        name a ``typedef`` declares (``typedef struct uv_loop_s uv_loop_t;``,
        ``typedef int (*cb)(void*);``) is an alias of what it names."""
        type_node = node.child_by_field_name("type")
        if type_node is None:
            return
        named = type_node.child_by_field_name("name")
        tagged = type_node.type in (*_TYPE_SPECIFIERS, "enum_specifier")
        # (name, the type it stands for: `Shape*` of `typedef Shape* ShapeRef;`); the
        # names after an anonymous struct's first stand for that first name
        names: list[tuple[str, str]] = []
        base = _text(type_node)
        bodied = tagged and named is not None and type_node.child_by_field_name(
            "body") is not None
        if bodied:  # `typedef struct foo_s {...} foo_t;`: foo_t stands for `struct foo_s`
            base = f"{type_node.children[0].type} {_text(named)}"
        declarators = {}
        for declarator in node.children_by_field_name("declarator"):
            name_node, _ = _declarator_name(declarator)
            if name_node is not None and name_node.type in ("type_identifier",
                                                            "identifier"):
                start = name_node.start_byte - declarator.start_byte
                written = _text(declarator)
                rest = written[:start] + written[start + len(_text(name_node)):]
                names.append((_text(name_node), f"{base} {rest}"))
                declarators[_text(name_node)] = declarator
                if tagged and named is None and len(names) == 1:
                    base = names[0][0]
        if tagged and named is None:
            self._type(type_node, scope, outer, False, alias=names[0][0] if names else None)
            names = names[1:]
        elif tagged:
            self._type(type_node, scope, type_node, False)
        tag = _text(named) if named is not None else None
        for name, aliased in names:
            if name != tag:  # `typedef struct Foo Foo;` names the struct itself
                # after a struct's body the alias is its own line, not a second copy of
                # the struct's lines (one chunk of the body, the struct's)
                self._alias(name, aliased, "typedef", scope,
                            declarators[name] if bodied else outer, False,
                            f"typedef {base} {_text(declarators[name])}" if bodied else None)

    def _alias(self, name: str, aliased: str, keyword: str, scope: str | None,
               outer: Node, template: bool, signature: str | None = None) -> None:
        """A type alias (``using Hash = ...;``, an alias template, a ``typedef``): a
        CLASS node whose ``meta.alias`` is the type it stands for, as written (the graph
        reads a variable of the alias's type as one of that type)."""
        if not _NAME.fullmatch(name) or not aliased.strip():
            return
        meta: dict = {"keyword": keyword, "alias": normalize(aliased)[:200]}
        if template:
            meta["template"] = True
        self._add("CLASS", name, self._child_fqn(scope, name), scope, outer,
                  normalize(signature or _text(outer)).rstrip(";")[:200], meta)

    def _using(self, node: Node, scope: str | None, cls: str | None) -> None:
        """``using std::string_view;`` at namespace scope binds the name in the file;
        in a header it also publishes it from the enclosing namespace (``absl::
        string_view``), so the header is where a user finds a name defined elsewhere.
        ``using namespace`` and a class's ``using Base::f;`` bind no name of the file."""
        target = next((c for c in node.named_children
                       if c.type in ("qualified_identifier", "identifier")), None)
        if cls is not None or target is None or any(c.type == "namespace"
                                                    for c in node.children):
            return
        written = _strip_templates(_text(target)).replace(" ", "").lstrip(":")
        name = written.rsplit("::", 1)[-1]
        if "::" not in written or not _NAME.fullmatch(name):
            return
        self.result.imports.append(Import(
            alias=name, target=written, line=node.start_point[0] + 1,
            exported=self.header, published=self._child_fqn(scope, name)))

    # -- preprocessor ------------------------------------------------------------------

    def _macro(self, node: Node, scope: str | None) -> None:
        name = _text(node.child_by_field_name("name"))
        value = node.child_by_field_name("value")
        function_like = node.type == "preproc_function_def"
        if not name or (value is None and not function_like):
            return  # include guards and feature flags: no value, nothing to find
        if function_like:
            params = node.child_by_field_name("parameters")
            names = [_text(p) for p in params.named_children] if params is not None else []
            meta: dict = {"macro": True, "params": [[n, None] for n in names]}
            signature = f"#define {name}{_text(params) if params is not None else '()'}"
            self._add("FUNCTION", name, self._local_fqn(name), None, node, signature,
                      meta)
        else:
            self._add("FIELD", name, self._local_fqn(name), None, node,
                      normalize(f"#define {name} {_text(value)}")[:200], {"macro": True})

    def _include(self, node: Node) -> None:
        path_node = node.child_by_field_name("path")
        if path_node is None or path_node.type != "string_literal":
            return  # `<stdio.h>`: a system header
        written = _text(path_node).strip('"')
        target = include_target(self.path, written, self.ctx)
        if target is not None:
            self.result.imports.append(Import(alias=f'#include "{written}"', target=target,
                                              line=node.start_point[0] + 1))

    # -- calls -------------------------------------------------------------------------

    def _calls(self, body: Node, caller: Symbol | None) -> None:
        """Calls in ``body`` (a lambda's are its function's); in C++ also the types of
        the function's local variables."""
        stack = [body]
        found: list[Node] = []
        while stack:
            cur = stack.pop()
            if cur.type in ("call_expression", "new_expression"):
                found.append(cur)
            elif cur.type == "declaration" and self.cpp and caller is not None:
                self._local(cur, caller)
            elif cur.type == "for_range_loop" and self.cpp and caller is not None:
                self._range_variable(cur, caller)
            stack.extend(cur.named_children)
        for call in sorted(found, key=lambda n: n.start_byte):
            self._call(call, caller)

    def _range_variable(self, loop: Node, caller: Symbol) -> None:
        """``for (const auto& s : shapes_)``: an item of what the loop walks (the resolver
        reads the container's declared item type); a declared type as written."""
        name, _ = _declarator_name(loop.child_by_field_name("declarator"))
        type_node = loop.child_by_field_name("type")
        if name is None or name.type != "identifier" or type_node is None:
            return
        local = self.result.var_types.setdefault(self.scope_key[id(caller)], {})
        if type_node.type != "placeholder_type_specifier":
            local[_text(name)] = normalize(_text(type_node))
            return
        walked = _receiver_chain(loop.child_by_field_name("right"))
        if "?" not in walked:
            local[_text(name)] = "=iter:" + ".".join(walked)

    def _local(self, decl: Node, caller: Symbol) -> None:
        """``Shape& s = ...;``, ``auto c = new Circle(1);``, ``auto p = make();``."""
        type_node = decl.child_by_field_name("type")
        if type_node is None:
            return
        written = normalize(_text(type_node))
        local = self.result.var_types.setdefault(self.scope_key[id(caller)], {})
        for declarator in decl.children_by_field_name("declarator"):
            name, _ = _declarator_name(declarator)
            if name is None or name.type != "identifier":
                continue
            typed: str | None = written
            if type_node.type == "placeholder_type_specifier":  # `auto`
                value = declarator.child_by_field_name("value") \
                    if declarator.type == "init_declarator" else None
                typed = _initialiser_type(value)
            if typed:
                local[_text(name)] = typed

    def _call(self, node: Node, caller: Symbol | None) -> None:
        before = len(self.result.calls)
        self._call_site(node, caller.fqn if caller is not None else None)
        if caller is not None:
            self.caller_of.extend((c, caller) for c in self.result.calls[before:])

    def _call_site(self, node: Node, caller: str | None) -> None:
        """One call; its line is the line of the called name (``b`` of ``a\n.b()``)."""
        args = node.child_by_field_name("arguments")
        count = sum(1 for a in args.named_children if a.type != "comment") \
            if args is not None else 0
        named = node.child_by_field_name("type") or node.child_by_field_name("function")
        if named is not None and named.type == "field_expression":
            named = named.child_by_field_name("field") or named
        line = (named or node).end_point[0] + 1
        if node.type == "new_expression":
            type_node = node.child_by_field_name("type")
            name = re.sub(r"<.*>", "", _text(type_node)).replace(" ", "")
            if name:
                *head, last = name.split("::")
                self.result.calls.append(Call(caller=caller, name=last,
                                              receiver=head or None, line=line,
                                              kind="new", args=count))
            return
        func = node.child_by_field_name("function")
        if func is None:
            return
        if func.type == "template_function":
            func = func.child_by_field_name("name") or func
        if func.type == "identifier":
            name = _text(func)
            if name in _NOT_CALLS:
                return
            self.result.calls.append(Call(caller=caller, name=name, receiver=None,
                                          line=line, args=count))
        elif func.type == "qualified_identifier":
            written = re.sub(r"<[^<>]*>", "", _text(func)).replace(" ", "")
            *head, last = written.split("::")
            head = [h for h in head if h]
            self.result.calls.append(Call(caller=caller, name=last, receiver=head or None,
                                          line=line, args=count))
        elif func.type == "field_expression" and self.cpp:
            field = func.child_by_field_name("field")
            name = re.sub(r"<.*>$", "", _text(field))
            chain = _receiver_chain(func.child_by_field_name("argument"))
            self.result.calls.append(Call(caller=caller, name=name, receiver=chain,
                                          line=line, args=count))


def _initialiser_type(value: Node | None) -> str | None:
    """The type an ``auto`` variable gets from its initialiser: ``new T(...)`` -> ``T``,
    ``make_unique<T>(...)`` -> ``T``, ``f(...)`` -> ``=call:f`` (f's declared result)."""
    if value is None:
        return None
    if value.type == "new_expression":
        return normalize(_text(value.child_by_field_name("type")))
    if value.type != "call_expression":
        return None
    func = value.child_by_field_name("function")
    if func is not None and func.type in ("template_function", "qualified_identifier"):
        written = _text(func).replace(" ", "")
        maker = re.match(r"^(?:std::)?make_(?:unique|shared)<(.+)>$", written)
        if maker:
            return maker.group(1)
    if func is not None and func.type in ("identifier", "qualified_identifier"):
        return "=call:" + re.sub(r"<.*?>", "", _text(func)).replace("::", ".")
    if func is not None and func.type == "field_expression":
        chain = _receiver_chain(func.child_by_field_name("argument"))
        if "?" not in chain:
            return "=call:" + ".".join([*chain, _text(func.child_by_field_name("field"))])
    return None


def _plain_name(written: str) -> str:
    """A name without its template arguments (``Box<T, U>`` -> ``Box``); operators keep
    theirs (``operator<<``)."""
    if "operator" in written:
        return written
    return re.sub(r"<[^<>]*>", "", written.split("<", 1)[0] if "::" not in written
                  else _strip_templates(written))


def _strip_templates(written: str) -> str:
    out, depth = [], 0
    for ch in written:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _receiver_chain(node: Node | None) -> list[str]:
    """``a.b`` / ``this->x`` -> ``["a", "b"]`` / ``["this", "x"]``; ``["?"]`` otherwise."""
    parts: list[str] = []
    while node is not None and len(parts) < 16:
        if node.type in ("identifier", "this"):
            parts.insert(0, _text(node))
            return parts
        if node.type == "field_expression":
            parts.insert(0, _text(node.child_by_field_name("field")))
            node = node.child_by_field_name("argument")
            continue
        if node.type == "pointer_expression" or node.type == "parenthesized_expression":
            node = node.named_children[-1] if node.named_children else None
            continue
        break
    return ["?"]

