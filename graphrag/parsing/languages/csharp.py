"""C# extractor (tree-sitter-c-sharp).

Namespaces are packages (block or file-scoped; the first one of a file is its package,
PACKAGE nodes, names resolve namespace-wide): ``<namespace>.<Type>.<member>``, nested
types ``<namespace>.<Outer>.<Inner>``. Classes, records and structs are CLASS nodes
(``meta.record``/``meta.struct``), interfaces INTERFACE, enums ENUM with their members
as FIELDs; properties, fields and events are FIELDs (``meta.property``); constructors
are ``<Type>.<init>``; an overloaded method or constructor carries its parameter types
(``Parse(string,int)``). A ``partial`` type is marked ``meta.partial``: its parts in
other files are one node. An extension method (``this T x`` first parameter) carries
``meta.receiver_type``. Local functions are FUNCTIONs inside their method.

``using N;`` is a wildcard import of namespace ``N`` (code in ``A.B.C`` also sees ``A.B``
and ``A``), ``using X = A.B.C;`` an alias, ``using static A.B.C;`` a wildcard of the
class. Calls record their receiver chain (``this``, ``base``, ``a.b().c``, ``xs[i]``),
their argument count and the types of literal, ``new``, cast and plain-name arguments
(overload choice); ``: base(...)``/``: this(...)`` call constructors.

Routes, as the route frameworks (:mod:`graphrag.parsing.routes`) recognise them: ASP.NET
Core attribute routing (``[Route]`` on the controller with ``[controller]``/``[action]``
tokens, ``[HttpGet("...")]``..., ``[AcceptVerbs]``) and minimal APIs
(``app.MapGet("/x", handler)``, ``MapMethods``, prefixes of ``MapGroup`` variables and
chains); an inline lambda handler is an ENDPOINT symbol ``<module>.<METHOD> <route>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import PurePosixPath

from tree_sitter import Node

from graphrag.parsing import registry
from graphrag.parsing.languages._base import FileExtractor
from graphrag.parsing.languages._common import count_errors, normalize
from graphrag.parsing.languages._jvm import declared_type as _declared_type
from graphrag.parsing.languages._jvm import (
    dotted_call_target,
    overload_fqn,
    overload_names,
    simple_type,
)
from graphrag.parsing.model import Call, Heritage, Import, ParseResult, Registration, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.routes import (
    Annotation,
    CalledRoute,
    RouteCall,
    Router,
    RouteSite,
    argument,
    called_route,
    declared_endpoint,
    join_segments,
    route_call_names,
)

LANG = "csharp"
_TYPE_PARAMETER = re.compile(r"T|T[A-Z]\w*")
_ASYNC_RESULT = re.compile(r"^(?:System\.Threading\.Tasks\.)?(?:Task|ValueTask)<(.+)>$")

_TYPE_DECLS = {
    "class_declaration": "CLASS", "struct_declaration": "CLASS",
    "record_declaration": "CLASS", "record_struct_declaration": "CLASS",
    "interface_declaration": "INTERFACE", "enum_declaration": "ENUM",
}
# Nodes under which no code runs: the walk of a body does not descend into them.
_NO_CALLS = frozenset({
    "identifier", "predefined_type", "generic_name", "qualified_name", "integer_literal",
    "real_literal", "string_literal", "verbatim_string_literal", "raw_string_literal",
    "character_literal", "boolean_literal", "null_literal", "comment", "modifier",
    "attribute_list", "type_argument_list", "array_type", "nullable_type", "tuple_type",
    "pointer_type", "implicit_type", "type_parameter_list",
    "type_parameter_constraints_clause",
})
_NAMESPACES = ("namespace_declaration", "file_scoped_namespace_declaration")
# Code that runs inside a type but belongs to no method: calls there are the type's.
_TYPE_CODE = ("operator_declaration", "conversion_operator_declaration",
              "destructor_declaration", "indexer_declaration")
_LITERALS = {
    "string_literal": "string", "verbatim_string_literal": "string",
    "raw_string_literal": "string", "interpolated_string_expression": "string",
    "character_literal": "char", "boolean_literal": "bool",
}
_STRINGS = frozenset({"string_literal", "verbatim_string_literal", "raw_string_literal",
                      "interpolated_string_expression", "binary_expression"})
_XML_TAG = re.compile(r"<[^>]+>")


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one C# file into symbols, imports, calls, heritage, routes and var types."""
    root = registry.parser(LANG).parse(source).root_node
    return _CSharpFile(source, rel_path, root).run()


@lru_cache(maxsize=4096)
def declared_type(text: str | None) -> str | None:
    """A declared type for the resolver (the shared JVM-style reduction), memoized: a
    file repeats its few types thousands of times."""
    return _declared_type(text)


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def _name_of(node: Node | None) -> str:
    """Simple name of a name node: ``A.B.C`` -> ``C``, ``List<T>`` -> ``List``."""
    if node is None:
        return ""
    if node.type == "qualified_name":
        return _name_of(node.child_by_field_name("name"))
    if node.type == "generic_name":
        return _text(node.named_children[0]) if node.named_children else ""
    if node.type == "alias_qualified_name":
        return _name_of(node.child_by_field_name("name"))
    return _text(node)


def _dotted(node: Node | None) -> str:
    """A (qualified) name without type arguments and ``global::``."""
    text = re.sub(r"\s+", "", _text(node)).removeprefix("global::")
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"<[^<>]*>", "", text)
    return text


def _type_text(node: Node | None) -> str | None:
    """A type as written (whitespace collapsed), nullable ``?`` dropped."""
    if node is None or node.type == "implicit_type":
        return None
    return re.sub(r"\s+", " ", _text(node)).strip().rstrip("?") or None


def _modifiers(node: Node) -> set[str]:
    return {_text(c) for c in node.children if c.type == "modifier"}


def _string_value(node: Node) -> str | None:
    """The content of a string literal (regular, verbatim or raw), else None."""
    if node.type == "string_literal":
        return "".join(_text(c) for c in node.named_children
                       if c.type in ("string_literal_content", "escape_sequence"))
    if node.type == "verbatim_string_literal":
        return _text(node)[2:-1].replace('""', '"')
    if node.type == "raw_string_literal":
        return _text(node).strip('"').strip()
    return None


def _doc_comment(node: Node) -> str | None:
    """The ``///`` XML doc comment (tags dropped) or ``/** */`` block right above ``node``."""
    lines: list[str] = []
    prev = node.prev_sibling
    expected_row = node.start_point[0] - 1
    while prev is not None and prev.type == "comment" and prev.end_point[0] >= expected_row:
        text = _text(prev)
        if not text.startswith(("///", "/**")):
            break
        lines.insert(0, text)
        expected_row = prev.start_point[0] - 1
        prev = prev.prev_sibling
    if not lines:
        return None
    body = []
    for line in "\n".join(lines).splitlines():
        line = line.strip().removeprefix("///").removeprefix("/**").removesuffix("*/")
        body.append(_XML_TAG.sub("", line.strip().lstrip("*")).strip())
    text = "\n".join(b for b in body if b).strip()
    return text or None


def _attribute(node: Node) -> Annotation:
    """``[Name(args)]`` -> :class:`Annotation` (``Attribute`` suffix dropped, positional
    arguments under ``""``, named ones under their name)."""
    name = _name_of(node.child_by_field_name("name")).removesuffix("Attribute")
    ann = Annotation(name)
    args = next((c for c in node.named_children if c.type == "attribute_argument_list"),
                None)
    for arg in args.named_children if args is not None else ():
        key_node = arg.child_by_field_name("name")
        key = _text(key_node) if key_node is not None else ""
        value = arg.named_children[-1] if arg.named_children else None
        if value is None:
            continue
        text = _string_value(value)
        ann.args.setdefault(key, []).append(text if text is not None else _text(value))
    return ann


def _attributes(node: Node | None) -> list[Node]:
    if node is None:
        return []
    return [a for lst in node.children if lst.type == "attribute_list"
            for a in lst.named_children if a.type == "attribute"]


def _params(plist: Node | None) -> tuple[list[list[str | None]], dict]:
    """``[[name, type], ...]`` of a parameter list and its facts: ``varargs``
    (``params T[]``), ``min_args`` (parameters without a default) and ``receiver_type``
    (an extension method's ``this T`` parameter)."""
    params: list[list[str | None]] = []
    facts: dict = {}
    if plist is None:
        return params, facts
    required = 0
    params_type: Node | None = None  # `params T[] xs` is no `parameter` node
    for index, child in enumerate(plist.children):
        field = plist.field_name_for_child(index)
        if child.type == "parameter":
            type_ = _type_text(child.child_by_field_name("type"))
            params.append([_text(child.child_by_field_name("name")), type_])
            mods = _modifiers(child)
            if "params" in mods:
                facts["varargs"] = True
            elif not any(c.type == "=" for c in child.children):
                required += 1
            if "this" in mods and len(params) == 1:
                # an extension method: `conn.Query(sql)` passes `conn` as its first
                # argument, `SqlMapper.Query(conn, sql)` calls it as written
                facts["receiver_type"] = simple_type(type_) or type_
                facts["receiver_in_params"] = True
                facts["package_member"] = True
        elif field == "type":
            params_type = child
        elif field == "name":
            params.append([_text(child), _type_text(params_type)])
            facts["varargs"] = True
    if required != len(params) and not facts.get("varargs"):
        facts["min_args"] = required
    elif facts.get("varargs"):
        facts["min_args"] = len(params) - 1
    return params, facts


class _CSharpFile(FileExtractor):
    """Extraction state for one file."""

    def __init__(self, source: bytes, rel_path: str, root: Node) -> None:
        self.source, self.root = source, root  # the namespace is read first
        package = _first_namespace(root)
        # The module is the file (its path without `.cs`): names resolve namespace-wide
        # through the package, and a namespace of hundreds of files is not one module.
        super().__init__(source, root, ParseResult(
            path=rel_path, lang=LANG, module=rel_path.removesuffix(".cs"),
            package=package, error_count=count_errors(root)))
        self.home = package or PurePosixPath(rel_path).stem  # prefix of inline handlers
        self.groups: dict[str, str] = {}  # a router variable (`MapGroup`) -> its prefix
        self.route_names = route_call_names(LANG)
        self.inline: dict[int, str] = {}  # lambda node id -> its ENDPOINT fqn
        self.emitted: set[str] = set()  # fqns of the symbols made so far
        # (enclosing type or namespace, name) of the non-generic types of the file
        self.plain_types = _plain_types(root)
        self.alternative = False  # walking an `#else`/`#elif` branch

    def run(self) -> ParseResult:
        self._usings(self.root)
        self._declarations(self.root, "", None, [])
        self.result.calls.sort(key=lambda c: c.line)
        self.result.var_types = {k: v for k, v in self.result.var_types.items() if v}
        return self.finished()

    # -- imports -----------------------------------------------------------------------

    def _usings(self, root: Node) -> None:
        seen = set()
        stack = [root]
        while stack:
            node = stack.pop()
            for child, _alternative in _flat(node):
                if child.type == "using_directive":
                    self._using(child)
                elif child.type in _NAMESPACES:
                    name = _dotted(child.child_by_field_name("name"))
                    parts = name.split(".")
                    for end in range(len(parts) - 1, 0, -1):  # outer namespaces are seen
                        outer = ".".join(parts[:end])
                        if outer not in seen:
                            seen.add(outer)
                            self.result.imports.append(
                                Import("*", outer, child.start_point[0] + 1))
                    body = child.child_by_field_name("body")
                    if body is not None:
                        stack.append(body)

    def _using(self, node: Node) -> None:
        alias = node.child_by_field_name("name")
        target = next((c for c in node.named_children
                       if (alias is None or c.start_byte != alias.start_byte)
                       and c.type in ("qualified_name", "identifier", "generic_name",
                                      "alias_qualified_name")), None)
        if target is None:
            return
        line = node.start_point[0] + 1
        if alias is not None:
            self.result.imports.append(Import(_text(alias), _dotted(target), line))
        else:
            self.result.imports.append(Import("*", _dotted(target), line))

    # -- declarations ------------------------------------------------------------------

    def _declarations(self, node: Node, ns: str, owner: str | None,
                      outer: list[Annotation]) -> None:
        """Types and namespaces directly under ``node``; top-level statements."""
        for child, alternative in _flat(node):
            self.alternative = alternative
            kind = child.type
            if kind == "namespace_declaration":
                name = _dotted(child.child_by_field_name("name"))
                body = child.child_by_field_name("body")
                if body is not None:
                    self._declarations(body, f"{ns}.{name}" if ns else name, None, [])
            elif kind == "file_scoped_namespace_declaration":
                ns = _dotted(child.child_by_field_name("name"))
            elif kind in _TYPE_DECLS:
                self._type(child, ns, owner, outer)
            elif kind == "global_statement":
                self._body(child, None)

    def _type(self, node: Node, ns: str, owner: str | None,
              outer: list[Annotation]) -> None:
        name = _text(node.child_by_field_name("name"))
        if not name:
            return
        generics = _type_parameters(node)
        if generics and (owner or ns, name) in self.plain_types:
            # `Identity<T1..T7>` beside `Identity`: its arity keeps the two apart
            name = f"{name}`{generics}"
        fqn = f"{owner}.{name}" if owner else (f"{ns}.{name}" if ns else name)
        if self._repeated(fqn):
            return
        kind = _TYPE_DECLS[node.type]
        mods = _modifiers(node)
        meta: dict = {"annotations": [normalize(_text(a)) for a in _attributes(node)],
                      "static": "static" in mods}
        if "partial" in mods:
            meta["partial"] = True
        if "abstract" in mods:
            meta["abstract"] = True
        if node.type.startswith("record"):
            meta["record"] = True
        if node.type.startswith("struct") or node.type == "record_struct_declaration" \
                or any(c.type == "struct" for c in node.children):
            meta["struct"] = True
        attrs = [*outer, *(_attribute(a) for a in _attributes(node))]
        self._symbol(kind, name, fqn, owner, node, meta)
        self._heritage(node, fqn, kind)
        constraints = self._constraints(node)
        fields = self.scope_vars(fqn)
        plist = next((c for c in node.named_children if c.type == "parameter_list"), None)
        if plist is not None:  # primary constructor (records: also properties)
            params, _facts = _params(plist)
            for (pname, ptype), pnode in zip(params, plist.named_children, strict=False):
                typed = self._declared(ptype, constraints)
                if typed and pname:
                    fields[pname] = typed
                if meta.get("record") and pname:
                    self._symbol("FIELD", pname, f"{fqn}.{pname}", fqn, pnode,
                                 {"type": ptype, "property": True},
                                 signature=normalize(_text(pnode)))
        body = node.child_by_field_name("body")
        if body is None:
            body = next((c for c in node.named_children if c.type in (
                "declaration_list", "enum_member_declaration_list")), None)
        members = list(_flat(body)) if body is not None else []
        if kind == "ENUM":
            for member, _alternative in members:
                if member.type == "enum_member_declaration":
                    mname = _text(member.child_by_field_name("name"))
                    self._symbol("FIELD", mname, f"{fqn}.{mname}", fqn, member,
                                 {"static": True}, signature=mname)
            return
        overloaded = overload_names([
            *((fqn, "<init>") for _ in ([plist] if plist is not None else [])),
            *((fqn, "<init>" if m.type == "constructor_declaration" else _member_name(m))
              for m, alternative in members
              if m.type in ("method_declaration", "constructor_declaration")
              and not alternative)])
        if plist is not None:
            ctor = self._primary_constructor(fqn, plist, overloaded)
            for base in node.named_children:  # `: Base(args)` of a primary constructor
                if base.type == "base_list":
                    for item in base.named_children:
                        if item.type == "primary_constructor_base_type":
                            self._ctor_call("base", item, ctor)
        for member, alternative in members:
            self.alternative = alternative
            self._member(member, ns, fqn, overloaded, constraints, fields, attrs, kind)

    def _member(self, member: Node, ns: str, owner: str, overloaded: set,
                constraints: dict[str, str], fields: dict[str, str],
                attrs: list[Annotation], owner_kind: str) -> None:
        kind = member.type
        if kind in _TYPE_DECLS:
            self._type(member, ns, owner, attrs)
        elif kind in ("method_declaration", "constructor_declaration"):
            self._callable(member, owner, overloaded, constraints, attrs, owner_kind)
        elif kind in ("field_declaration", "event_field_declaration"):
            decl = next((c for c in member.named_children
                         if c.type == "variable_declaration"), None)
            if decl is None:
                return
            type_ = _type_text(decl.child_by_field_name("type"))
            mods = [_text(c) for c in member.children if c.type == "modifier"]
            declarators = [v for v in decl.named_children if v.type == "variable_declarator"]
            for var in declarators:
                vname = _text(var.child_by_field_name("name"))
                if self._repeated(f"{owner}.{vname}"):
                    continue
                typed = self._declared(type_, constraints) or _value_type(
                    var.named_children[-1] if len(var.named_children) > 1 else None)
                if typed:
                    fields[vname] = typed
                self._symbol("FIELD", vname, f"{owner}.{vname}", owner,
                             member if len(declarators) == 1 else var,
                             {"type": type_, "static": bool({"static", "const"} & set(mods))},
                             signature=normalize(" ".join([*mods, type_ or "", vname])))
                self._body(var, f"{owner}.{vname}")  # an initializer's calls are the field's
        elif kind in ("property_declaration", "event_declaration"):
            pname = _member_name(member)
            if self._repeated(f"{owner}.{pname}"):
                return
            type_ = _type_text(member.child_by_field_name("type"))
            typed = self._declared(type_, constraints)
            if typed:
                fields[pname] = typed
            self._symbol("FIELD", pname, f"{owner}.{pname}", owner, member,
                         {"type": type_, "property": True,
                          "static": "static" in _modifiers(member)},
                         signature=self._header(member))
            self._body(member, f"{owner}.{pname}")  # accessors' calls are the property's
        elif kind in _TYPE_CODE:
            self._body(member, owner)

    def _primary_constructor(self, owner: str, plist: Node, overloaded: set) -> str:
        """``record P(int X)`` / ``class C(IRepo repo)``: a constructor whose parameters
        are the type's parameter list."""
        params, facts = _params(plist)
        fqn = f"{owner}.<init>"
        if (owner, "<init>") in overloaded:
            fqn = overload_fqn(fqn, params)
        self._symbol("CONSTRUCTOR", "<init>", fqn, owner, plist,
                     {"static": False, "params": params, "return_type": None,
                      "primary": True, **facts}, signature=normalize(_text(plist)))
        self._param_types(fqn, params)
        return fqn

    def _callable(self, node: Node, owner: str, overloaded: set,
                  constraints: dict[str, str], attrs: list[Annotation],
                  owner_kind: str) -> None:
        ctor = node.type == "constructor_declaration"
        name = "<init>" if ctor else _member_name(node)
        params, facts = _params(node.child_by_field_name("parameters"))
        constraints = {**constraints, **self._constraints(node)}
        fqn = f"{owner}.{name}"
        generics = _type_parameters(node)
        if (owner, name) in overloaded:
            # `Query<T>(string)` beside `Query(string)`: the generic arity tells them apart
            fqn = overload_fqn(f"{fqn}`{generics}" if generics else fqn, params)
        if self._repeated(fqn):
            return
        mods = _modifiers(node)
        annotations = _attributes(node)
        meta: dict = {"annotations": [normalize(_text(a)) for a in annotations],
                      "static": "static" in mods, "params": params,
                      "return_type": None if ctor else _type_text(
                          node.child_by_field_name("returns")), **facts}
        if "abstract" in mods or (owner_kind == "INTERFACE"
                                  and node.child_by_field_name("body") is None):
            meta["abstract"] = True
        if "override" in mods:
            meta["override"] = True
        if generics:
            meta["type_params"] = generics
        kind = "CONSTRUCTOR" if ctor else "METHOD"
        if not ctor:
            found = declared_endpoint(LANG, RouteSite(
                [_attribute(a) for a in annotations], attrs,
                class_name=owner.rsplit(".", 1)[-1], method_name=name)) \
                if annotations else None
            if found is not None:
                kind = "ENDPOINT"
                meta["http_method"], meta["route"] = found
        self._symbol(kind, name, fqn, owner, node, meta, signature=self._header(node))
        local = self.scope_vars(fqn)
        for pname, ptype in params:
            typed = self._declared(ptype, constraints)
            if typed and pname:
                local[pname] = typed
        for child in node.named_children:
            if child.type == "constructor_initializer":
                keyword = next((c.type for c in child.children if c.type in ("base", "this")),
                               "base")
                self._ctor_call(keyword, child, fqn)
        self._body(node, fqn)

    def _heritage(self, node: Node, fqn: str, kind: str) -> None:
        relation = "extends" if kind == "INTERFACE" else (
            "implements" if node.type in ("struct_declaration", "record_struct_declaration",
                                          "enum_declaration") else "unknown")
        for base in node.named_children:
            if base.type != "base_list":
                continue
            for item in base.named_children:
                target = item.child_by_field_name("type") \
                    if item.type == "primary_constructor_base_type" else item
                name = _dotted(target)
                if name and kind != "ENUM":
                    self.result.heritage.append(
                        Heritage(fqn, name, relation, item.start_point[0] + 1))

    def _constraints(self, node: Node) -> dict[str, str]:
        """``where T : IRepo`` -> ``{"T": "IRepo"}`` (the first class or interface)."""
        found: dict[str, str] = {}
        for clause in node.named_children:
            if clause.type != "type_parameter_constraints_clause":
                continue
            names = [c for c in clause.named_children if c.type == "identifier"]
            for constraint in clause.named_children:
                target = constraint.child_by_field_name("type") \
                    if constraint.type == "type_parameter_constraint" else None
                if names and target is not None and _text(names[0]) not in found:
                    found[_text(names[0])] = _type_text(target) or ""
        return {k: v for k, v in found.items() if v}

    def _declared(self, type_: str | None, constraints: dict[str, str]) -> str | None:
        """A declared type for the resolver; a type parameter is its constraint."""
        if not type_:
            return None
        bare = type_.rstrip("?")
        if bare in constraints:
            return declared_type(constraints[bare])
        return declared_type(type_)

    def _header(self, node: Node) -> str:
        """Declaration text up to its body, attributes left out."""
        end = node.end_byte
        for child in node.children:
            if child.type in ("block", "arrow_expression_clause", "accessor_list",
                              "declaration_list", "constructor_initializer", ";") or \
                    node.field_name_for_child(node.children.index(child)) == "value":
                end = child.start_byte
                break
        start = node.start_byte
        for child in node.children:
            if child.type == "attribute_list":
                start = child.end_byte
        return normalize(self.source[start:end].decode("utf-8", "replace"))

    def _repeated(self, fqn: str) -> bool:
        """A declaration in an ``#else``/``#elif`` branch that an earlier branch already
        made: one node per declaration, the first branch's."""
        return self.alternative and fqn in self.emitted

    def _symbol(self, kind: str, name: str, fqn: str, parent: str | None, node: Node,
                meta: dict, signature: str | None = "") -> None:
        self.emitted.add(fqn)
        if signature == "":
            signature = self._header(node)
        self.result.symbols.append(Symbol(
            kind=kind, name=name, fqn=fqn, parent=parent, signature=signature,
            doc_comment=_doc_comment(node), meta=meta, **self.span(node)))

    # -- bodies ------------------------------------------------------------------------

    def _body(self, node: Node, scope: str | None) -> None:
        """Calls, locals and routes in the code under ``node``, attributed to ``scope``
        (a callable or type fqn; None at file level)."""
        stack: list[tuple[Node, str | None]] = [(node, scope)]
        inline_handlers = self.inline
        push = stack.append
        while stack:
            current, here = stack.pop()
            kind = current.type
            if kind in _NO_CALLS:
                continue  # names, literals, types: nothing under them runs
            if kind in _TYPE_DECLS and current is not node:
                continue  # a local type is no symbol; its code is not this scope's
            if kind == "invocation_expression":
                self._invocation(current, here)
            elif kind == "object_creation_expression":
                self._creation(current, here)
            elif kind in ("local_declaration_statement", "using_statement", "for_statement"):
                self._locals(current, here)
            elif kind == "foreach_statement":
                self._foreach(current, here)
            elif kind == "declaration_pattern":
                self._pattern(current, here)
            elif kind == "local_function_statement" and here is not None:
                here = self._local_function(current, here)
            if inline_handlers:
                here = inline_handlers.get(current.id, here)
            if current.named_child_count:
                for child in reversed(current.named_children):
                    push((child, here))

    def _local_function(self, node: Node, scope: str) -> str:
        name = _text(node.child_by_field_name("name"))
        fqn = f"{scope}.{name}"
        params, facts = _params(node.child_by_field_name("parameters"))
        self._symbol("FUNCTION", name, fqn, scope, node,
                     {"params": params, "return_type": _type_text(
                         node.child_by_field_name("type")), "static": False, **facts})
        self._param_types(fqn, params)
        return fqn

    def _param_types(self, fqn: str, params: list[list[str | None]]) -> None:
        """The declared types of a callable's parameters as the variable types of its
        scope (a scope left empty is dropped at the end of :meth:`run`)."""
        local = self.scope_vars(fqn)
        for pname, ptype in params:
            typed = declared_type(ptype)
            if typed and pname:
                local[pname] = typed

    def _locals(self, node: Node, scope: str | None) -> None:
        decl = next((c for c in node.named_children if c.type == "variable_declaration"),
                    None)
        if decl is None:
            return
        type_ = declared_type(_type_text(decl.child_by_field_name("type")))
        target = self.scope_vars(scope or self.result.module)
        for var in decl.named_children:
            if var.type != "variable_declarator":
                continue
            name = _text(var.child_by_field_name("name"))
            value = var.named_children[-1] if len(var.named_children) > 1 else None
            typed = type_ or _value_type(value)
            if typed and name:
                target.setdefault(name, typed)
            prefix = self._group_prefix(value) if value is not None and name else None
            if prefix is not None:
                self.groups[name] = prefix

    def _foreach(self, node: Node, scope: str | None) -> None:
        left = node.child_by_field_name("left")
        if left is None or left.type != "identifier":
            return
        declared = declared_type(_type_text(node.child_by_field_name("type")))
        right = node.child_by_field_name("right")
        source = None
        if declared is None and right is not None:
            chain = _chain(right)
            if right.type == "invocation_expression":
                callee = _callee(right)
                if callee is not None and "?" not in (callee[1] or []):
                    source = "=call:" + ".".join([*(callee[1] or []), callee[0]])
            elif "?" not in chain and "[]" not in chain and not any(
                    p.endswith("()") for p in chain):
                source = ".".join(chain)
        typed = declared or (f"=iter:{source}" if source else None)
        if typed:
            self.scope_vars(scope or self.result.module).setdefault(_text(left), typed)

    def _pattern(self, node: Node, scope: str | None) -> None:
        name = node.child_by_field_name("name")
        typed = declared_type(_type_text(node.child_by_field_name("type")))
        if name is not None and name.type == "identifier" and typed:
            self.scope_vars(scope or self.result.module).setdefault(_text(name), typed)

    def _invocation(self, node: Node, scope: str | None) -> None:
        callee = _callee(node)
        if callee is None:
            return
        name, receiver = callee
        if receiver is None and name in ("nameof", "typeof", "sizeof", "default"):
            return
        args = node.child_by_field_name("arguments")
        call = Call(caller=scope, name=name, receiver=receiver,
                    line=node.start_point[0] + 1, type_args=_type_args(node))
        _set_args(call, args)
        self.result.calls.append(call)
        if name in self.route_names:
            self._map_route(node, name, receiver, args, scope)

    def _creation(self, node: Node, scope: str | None) -> None:
        type_ = _dotted(node.child_by_field_name("type"))
        if not type_:
            return
        *head, name = type_.split(".")
        call = Call(caller=scope, name=name, receiver=head or None,
                    line=node.start_point[0] + 1, kind="new")
        _set_args(call, node.child_by_field_name("arguments"))
        self.result.calls.append(call)

    def _ctor_call(self, keyword: str, node: Node, caller: str) -> None:
        args = next((c for c in node.named_children if c.type == "argument_list"), None)
        call = Call(caller=caller, name=keyword, receiver=None,
                    line=node.start_point[0] + 1)
        _set_args(call, args)
        self.result.calls.append(call)

    # -- minimal APIs ------------------------------------------------------------------

    def _group_prefix(self, node: Node) -> str | None:
        """The route prefix of a chain that makes a router (``app.MapGroup("/a")
        .MapGroup("/b")``, as a route framework says) or of a variable bound to one;
        None when it makes none."""
        if node.type == "identifier":
            return self.groups.get(_text(node))
        if node.type != "invocation_expression":
            return None
        func = node.child_by_field_name("function")
        if func is None or func.type != "member_access_expression":
            return None
        inner = self._group_prefix(func.child_by_field_name("expression"))
        name = _text(func.child_by_field_name("name"))
        found = called_route(LANG, self._route_call(
            name, None, node.child_by_field_name("arguments"))[0]) \
            if name in self.route_names else None
        if not isinstance(found, Router):
            return inner  # `.WithTags(...)` and friends keep the group
        return join_segments(inner or "", found.prefix) if found.prefix else inner or ""

    @staticmethod
    def _route_call(name: str, receiver: list[str] | None, args: Node | None,
                    ) -> tuple[RouteCall, list[Node]]:
        """A call as the route frameworks read it, and its argument values."""
        items = [a.named_children[-1] for a in (args.named_children if args else ())
                 if a.named_children]
        return RouteCall(name, tuple(receiver or ()), tuple(_string_value(i) for i in items),
                         tuple(_text(i) for i in items)), items

    def _map_route(self, node: Node, name: str, receiver: list[str] | None,
                   args: Node | None, scope: str | None) -> None:
        call, items = self._route_call(name, receiver, args)
        found = called_route(LANG, call)
        handler = argument(found.handler, items) if isinstance(found, CalledRoute) else None
        if handler is None:
            return
        route, method = found.route, found.method
        func = node.child_by_field_name("function")
        target = func.child_by_field_name("expression") if func is not None and \
            func.type == "member_access_expression" else None
        prefix = (self._group_prefix(target) if target is not None else None) or ""
        full = join_segments(prefix, route) if prefix else join_segments(route)
        line = node.start_point[0] + 1
        if handler.type in ("lambda_expression", "anonymous_method_expression"):
            fqn = self._inline_endpoint(handler, node, method, full, scope)
            self.result.registrations.append(Registration(
                http_method=method, route=full, line=line, caller=scope, inline_fqn=fqn))
            return
        chain = _chain(handler)
        if handler.type in ("identifier", "member_access_expression") and "?" not in chain:
            self.result.registrations.append(Registration(
                http_method=method, route=full, line=line, caller=scope,
                handler_name=chain[-1], handler_receiver=chain[:-1] or None))

    def _inline_endpoint(self, lam: Node, call: Node, method: str, route: str,
                         scope: str | None) -> str:
        name = f"{method} {route}"
        fqn = f"{self.home}.{name}"
        params, _facts = _params(lam.child_by_field_name("parameters"))
        body = lam.child_by_field_name("body")
        end = body.start_byte if body is not None else lam.end_byte
        self.result.symbols.append(Symbol(
            kind="ENDPOINT", name=name, fqn=fqn, parent=scope,
            signature=normalize(self.source[lam.start_byte:end].decode("utf-8", "replace")),
            doc_comment=None,
            meta={"http_method": method, "route": route, "params": params,
                  "return_type": None, "inline": True}, **self.span(lam)))
        self.inline[lam.id] = fqn
        self._param_types(fqn, params)
        return fqn


def _flat(node: Node, alternative: bool = False) -> Iterator[tuple[Node, bool]]:
    """The named children of ``node`` with those of preprocessor conditionals in their
    place, each with whether it lies in an ``#else``/``#elif`` branch."""
    for index, child in enumerate(node.children):
        if not child.is_named or node.field_name_for_child(index) == "condition":
            continue
        if child.type == "preproc_if":
            yield from _flat(child, alternative)
        elif child.type in ("preproc_elif", "preproc_else"):
            yield from _flat(child, True)
        else:
            yield child, alternative


def _member_name(node: Node) -> str:
    """A member's name; an explicit interface implementation (``bool IDictionary<K,
    V>.Remove(K key)``) is ``IDictionary.Remove``: no call by the simple name reaches it."""
    name = _text(node.child_by_field_name("name"))
    explicit = next((c for c in node.named_children
                     if c.type == "explicit_interface_specifier"), None)
    if explicit is not None and explicit.named_children:
        return f"{_name_of(explicit.named_children[0])}.{name}"
    return name


def _plain_types(root: Node) -> set[tuple[str, str]]:
    """(enclosing type or namespace as written, name) of every non-generic type of a
    file, found by a cheap walk of declarations only."""
    found: set[tuple[str, str]] = set()
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, scope = stack.pop()
        for child, _alternative in _flat(node):
            kind = child.type
            if kind == "file_scoped_namespace_declaration":
                scope = _dotted(child.child_by_field_name("name"))
            elif kind == "namespace_declaration":
                name = _dotted(child.child_by_field_name("name"))
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append((body, f"{scope}.{name}" if scope else name))
            elif kind in _TYPE_DECLS:
                name = _text(child.child_by_field_name("name"))
                if not _type_parameters(child):
                    found.add((scope, name))
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append((body, f"{scope}.{name}" if scope else name))
    return found


def _type_parameters(node: Node) -> int:
    """How many type parameters a declaration has (``Query<T>`` 1)."""
    plist = next((c for c in node.named_children if c.type == "type_parameter_list"), None)
    return sum(1 for c in plist.named_children if c.type == "type_parameter") if plist else 0


def _type_args(node: Node) -> int | None:
    """How many type arguments an invocation gives its callee (``x.Query<int>()`` 1)."""
    func = node.child_by_field_name("function")
    if func is None:
        return None
    if func.type == "member_access_expression":
        func = func.child_by_field_name("name")
    elif func.type == "conditional_access_expression":
        binding = next((c for c in func.named_children
                        if c.type == "member_binding_expression"), None)
        func = binding.child_by_field_name("name") if binding is not None else None
    if func is None or func.type != "generic_name":
        return None
    args = next((c for c in func.named_children if c.type == "type_argument_list"), None)
    return len(args.named_children) if args is not None else None


def _first_namespace(root: Node) -> str | None:
    for child, _alternative in _flat(root):
        if child.type in _NAMESPACES:
            return _dotted(child.child_by_field_name("name")) or None
    return None


def _callee(node: Node) -> tuple[str, list[str] | None] | None:
    """(name, receiver chain) of an invocation; None when the callee is no name."""
    func = node.child_by_field_name("function")
    if func is None:
        return None
    if func.type in ("identifier", "generic_name"):
        return _name_of(func), None
    if func.type == "member_access_expression":
        return _name_of(func.child_by_field_name("name")), \
            _chain(func.child_by_field_name("expression"))
    if func.type == "conditional_access_expression":  # `a?.M()`
        binding = next((c for c in func.named_children
                        if c.type == "member_binding_expression"), None)
        if binding is None:
            return None
        return _name_of(binding.child_by_field_name("name")), \
            _chain(func.child_by_field_name("condition"))
    return None


def _chain(node: Node | None) -> list[str]:
    """Receiver chain of an expression: ``this.repo`` -> ``["this", "repo"]``,
    ``a.B()`` -> ``["a", "B()"]``, ``xs[i]`` -> ``["xs", "[]"]``; ``["?"]`` for what
    cannot be named."""
    if node is None:
        return ["?"]
    kind = node.type
    if kind in ("identifier", "this", "base", "predefined_type", "generic_name"):
        return [_name_of(node) if kind != "this" and kind != "base" else kind]
    if kind == "qualified_name":
        return _dotted(node).split(".")
    if kind == "alias_qualified_name":
        return _dotted(node).split("::")[-1].split(".")
    if kind == "member_access_expression":
        head = _chain(node.child_by_field_name("expression"))
        return head if head == ["?"] else [*head, _name_of(node.child_by_field_name("name"))]
    if kind == "invocation_expression":
        callee = _callee(node)
        if callee is None or (callee[1] is not None and "?" in callee[1]):
            return ["?"]
        return [*(callee[1] or []), callee[0] + "()"]
    if kind == "element_access_expression":
        head = _chain(node.child_by_field_name("expression"))
        return head if head == ["?"] else [*head, "[]"]
    if kind in ("parenthesized_expression", "postfix_unary_expression",
                "await_expression") and node.named_children:
        return _chain(node.named_children[0])  # `(x)`, `x!`, `await x`
    if kind == "conditional_access_expression":
        binding = next((c for c in node.named_children
                        if c.type == "member_binding_expression"), None)
        head = _chain(node.child_by_field_name("condition"))
        if binding is None or head == ["?"]:
            return ["?"]
        return [*head, _name_of(binding.child_by_field_name("name"))]
    return ["?"]


def _set_args(call: Call, args: Node | None) -> None:
    """Argument count and readable argument types (overload choice)."""
    if args is None:
        call.args = 0
        return
    items = [a for a in args.named_children if a.type == "argument"]
    call.args = len(items)
    types: list[str | None] = []
    for arg in items:
        value = arg.named_children[-1] if arg.named_children else None
        types.append(_arg_type(value) if value is not None and
                     arg.child_by_field_name("name") is None else None)
    if any(t is not None for t in types):
        call.arg_types = types


def _value_type(value: Node | None) -> str | None:
    """The type of an expression where it is written down: ``new T(...)``, a cast, ``x as
    T``, the declared result of a call (``Make()``, ``repo.Find()``), either side of ``a
    ?? b`` and of ``c ? a : b``."""
    if value is None:
        return None
    while value.type in ("await_expression", "parenthesized_expression") \
            and value.named_children:
        value = value.named_children[-1]
    if value.type == "object_creation_expression":
        return declared_type(_type_text(value.child_by_field_name("type")))
    if value.type == "cast_expression":
        return declared_type(_type_text(value.child_by_field_name("type")))
    if value.type in _LITERALS:
        return _LITERALS[value.type]
    if value.type == "binary_expression" and _text(
            value.child_by_field_name("operator")) == "+" and any(
            value.child_by_field_name(side).type in _STRINGS for side in ("left", "right")):
        return "string"  # a concatenation with a string
    if value.type == "binary_expression" and _text(
            value.child_by_field_name("operator")) == "??":
        return _value_type(value.child_by_field_name("right")) or \
            _value_type(value.child_by_field_name("left"))
    if value.type == "conditional_expression":
        return _value_type(value.child_by_field_name("consequence")) or \
            _value_type(value.child_by_field_name("alternative"))
    if value.type == "as_expression":
        return declared_type(_type_text(value.child_by_field_name("right")))
    if value.type == "invocation_expression":
        callee = _callee(value)
        if callee is None:
            return None
        name, receiver = callee
        if receiver is None or receiver in (["this"], ["base"]):
            return "=call:" + ".".join([*(receiver or []), name])
        if "?" in receiver or "[]" in receiver:
            return None
        return dotted_call_target(name, receiver) or \
            "=call:" + ".".join([*receiver, name])
    return None


def _arg_type(node: Node) -> str | None:
    kind = node.type
    if kind in _LITERALS:
        return _LITERALS[kind]
    if kind == "integer_literal":
        text = _text(node).lower()
        return "long" if text.endswith("l") else "uint" if text.endswith("u") else "int"
    if kind == "real_literal":
        text = _text(node).lower()
        return "float" if text.endswith("f") else "decimal" if text.endswith("m") \
            else "double"
    if kind in ("object_creation_expression", "cast_expression"):
        return simple_type(_type_text(node.child_by_field_name("type")))
    if kind == "identifier":
        return f"=var:{_text(node)}"
    return _value_type(node)


def unwrap_task(text: str) -> str:
    """The spec's type prepass: an awaited ``Task<T>``/``ValueTask<T>`` is a ``T``."""
    match = _ASYNC_RESULT.match(text.strip())
    return match.group(1).strip() if match else text


def extension_applies(wanted: str, actual: str) -> bool:
    """Whether an extension method on ``wanted`` (its ``this`` parameter's type) may be
    called on a value of the outside type ``actual`` (names as written, generics
    dropped): the same type, ``object`` or a type parameter, any enumerable for
    ``IEnumerable``, or an interface ``IX`` for a type named ``...X`` (``DbConnection``
    is an ``IDbConnection``). Without the types' declarations this is a name rule:
    it keeps ``cmd.ExecuteScalarAsync()`` on a ``DbCommand`` from an extension of
    ``IDbConnection``."""
    wanted = wanted.rsplit(".", 1)[-1]
    actual = actual.rsplit(".", 1)[-1]
    if wanted == actual or wanted in ("object", "Object", "dynamic"):
        return True
    if _TYPE_PARAMETER.fullmatch(wanted) or wanted.endswith("Enumerable"):
        return True
    return wanted[:1] == "I" and wanted[1:2].isupper() and actual.endswith(wanted[1:])


