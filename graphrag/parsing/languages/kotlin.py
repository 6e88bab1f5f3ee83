"""Kotlin extractor: one ``.kt``/``.kts`` file -> :class:`ParseResult`.

Node names follow tree-sitter-kotlin 1.1.0 (``call_expression``/``navigation_expression``
without field names, ``class_parameter``, ``companion_object``...). Queries in
``queries/kotlin-*.scm`` find declarations, imports, calls and locals; Python decides
scopes. Primary constructors are not symbols (their ``val``/``var`` parameters are
FIELDs); explicit ``constructor(...)`` declarations are CONSTRUCTOR ``<init>``.
Instantiation ``Foo(...)`` is an ordinary ``call``: the resolver decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node, QueryCursor

from graphrag.parsing import registry
from graphrag.parsing.languages._common import decl_starts, outermost_captures
from graphrag.parsing.languages._jvm import (
    Annotation,
    JvmFile,
    collapse,
    declared_type,
    doc_comment_before,
    dotted_call_target,
    header_text,
    literal_type,
    node_key,
    overload_fqn,
    simple_type,
    text_of,
)
from graphrag.parsing.model import Call, Heritage, ParseResult, Symbol
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.routes import RouteSite, declared_endpoint

LANG = "kotlin"

_TYPE_DECLS = frozenset({"class_declaration", "object_declaration", "companion_object"})
# Nodes between a member and its type declaration; anything else means "local".
_MEMBER_CONTAINERS = frozenset({
    "class_body", "enum_class_body", "primary_constructor", "class_parameters", "ERROR",
})
_TYPE_NODES = frozenset({
    "user_type", "nullable_type", "function_type", "parenthesized_type",
    "non_nullable_type", "type_identifier",
})
_ANNOTATION_TYPES = frozenset({"annotation"})
_DECL_START = decl_starts(
    "public private internal protected open abstract final sealed data enum annotation "
    "inline value expect actual fun class interface object val var const typealias "
    "suspend operator infix tailrec external lateinit")
_PREFIX_OPERATORS = frozenset({"!", "-", "+", "++", "--"})
_BODY_TYPES = frozenset({"class_body", "enum_class_body", "function_body", "block"})
# Children that end a property/parameter header (initialiser, delegate, accessors).
_PROPERTY_TAIL = frozenset({"=", "property_delegate", "getter", "setter"})


def extract(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult:
    """Parse one Kotlin file (:meth:`JvmFile.extract`; syntax the grammar does not know,
    such as ``$$"..."`` or guard conditions in ``when``, loses only its declaration)."""
    return _KotlinFile.extract(source, rel_path)


class _KotlinFile(JvmFile):
    """Extraction state for one file."""

    lang = LANG
    decl_start = _DECL_START
    root_type = "source_file"
    type_decls = _TYPE_DECLS
    member_containers = _MEMBER_CONTAINERS
    callable_kinds = ("function", "constructor")  # the captures' names stand for kinds
    constructor_kind = "constructor"

    def __init__(self, source: bytes, rel_path: str, root: Node) -> None:
        super().__init__(source, rel_path, root)
        self.ctor_params: dict[str, dict[str, str]] = {}  # class fqn -> plain ctor params

    def _constants(self) -> dict[str, str]:
        return _string_constants(self.root)

    # --- header -------------------------------------------------------------

    def _import(self, node: Node) -> tuple[str, str] | None:
        path = next((c for c in node.named_children if c.type == "qualified_identifier"), None)
        if path is None:
            return None
        target = text_of(path).replace(" ", "")
        children = node.children
        types = [c.type for c in children]
        if "*" in types:
            return "*", target
        if "as" in types:
            return text_of(children[types.index("as") + 1]), target
        return target.rsplit(".", 1)[-1], target

    # --- declarations -------------------------------------------------------

    def _definition_matches(self) -> list[tuple[Node, Node | None, str]]:
        matches: list[tuple[Node, Node | None, str]] = []
        for capture, caps in self._definition_captures():
            node = caps[capture][0]
            # a companion object's name is optional, so the query does not capture it
            name_node = caps["name"][0] if "name" in caps else node.child_by_field_name("name")
            matches.append((node, name_node, capture.split(".", 1)[1]))
        matches.sort(key=lambda m: m[0].start_byte)
        return matches

    def _kind(self, node: Node, capture: str, parent: str | None) -> str:
        if capture == "class":
            if any(c.type == "interface" for c in node.children):
                return "INTERFACE"
            return "ENUM" if _modifier_words(node) & {"enum"} else "CLASS"
        if capture in ("object", "companion"):
            return "OBJECT"
        if capture == "function":
            return "METHOD" if parent else "FUNCTION"
        return {"constructor": "CONSTRUCTOR", "field": "FIELD"}[capture]

    def _add_symbol(
        self, node: Node, name_node: Node | None, capture: str, parent: str | None,
    ) -> None:
        kind = self._kind(node, capture, parent)
        if kind == "CONSTRUCTOR":
            name = "<init>"
        elif name_node is None:
            name = "Companion"  # unnamed companion object
        else:
            name = text_of(name_node)
        fqn = f"{parent}.{name}" if parent else f"{self.prefix}{name}"
        annotations = self._annotations(node)
        meta: dict = {
            "annotations": [collapse(text_of(a)) for a in annotations],
            "static": self._in_object(node),
        }
        if capture == "companion":
            meta["companion"] = True
        if kind == "FIELD":
            meta["type"] = self._property_type(node, parent)
        elif kind in ("METHOD", "FUNCTION", "CONSTRUCTOR"):
            meta["params"] = self._params(node, meta)
            ret = self._return_type(node) if kind != "CONSTRUCTOR" else None
            meta["return_type"] = collapse(text_of(ret)) if ret is not None else None
            receiver = _extension_receiver(node) if capture == "function" else None
            if receiver:
                meta["receiver_type"] = receiver
            kind = self._endpoint_kind(node, kind, annotations, meta)
            if (self._owner_key(node), name) in self.overloaded:
                fqn = overload_fqn(fqn, meta["params"])
        sym = Symbol(
            kind=kind, name=name, fqn=fqn, parent=parent, **self.span(node),
            signature=self._signature(node), doc_comment=doc_comment_before(node), meta=meta,
        )
        self.result.symbols.append(sym)
        if kind == "FIELD":
            if meta["type"]:
                self.result.var_types.setdefault(parent or self.result.module, {})[name] = (
                    meta["type"])
            return
        self.scopes[node_key(node)] = fqn
        if kind in ("CLASS", "INTERFACE", "ENUM", "OBJECT"):
            self._heritage(node, fqn, kind)
            self._remember_ctor_params(node, fqn)
        else:
            self.callables.add(fqn)
            scope = self.result.var_types.setdefault(fqn, {})
            for pname, ptype in meta["params"]:
                simple = declared_type(ptype)
                if simple:
                    scope[pname] = simple

    def _in_object(self, node: Node) -> bool:
        """Members of ``object``/``companion object`` are called without an instance."""
        owner = node.parent
        while owner is not None and owner.type in _MEMBER_CONTAINERS:
            owner = owner.parent
        return owner is not None and owner.type in ("object_declaration", "companion_object")

    def _endpoint_kind(self, node: Node, kind: str, annotations: list[Node], meta: dict) -> str:
        if kind != "METHOD":
            return kind
        owner = node.parent
        while owner is not None and owner.type not in _TYPE_DECLS:
            owner = owner.parent
        class_anns = self._annotations(owner) if owner is not None else []
        site = RouteSite([_parse_annotation(a, self.constants) for a in annotations],
                         [_parse_annotation(a, self.constants) for a in class_anns])
        found = declared_endpoint(LANG, site)
        if found is None:
            return kind
        meta["http_method"], meta["route"] = found
        return "ENDPOINT"

    def _signature(self, node: Node) -> str:
        end = node.end_byte
        for child in node.children:
            if child.type in _BODY_TYPES or child.type in _PROPERTY_TAIL:
                end = child.start_byte
                break
        return header_text(self.source, node, end, _ANNOTATION_TYPES)

    def _annotations(self, node: Node) -> list[Node]:
        mods = next((c for c in node.children if c.type == "modifiers"), None)
        return [c for c in mods.children if c.type == "annotation"] if mods else []

    def _property_type(self, node: Node, parent: str | None) -> str | None:
        """Declared type; else ``=call:Foo`` for ``= Foo(...)``; else the type of a plain
        constructor parameter the property is initialised from (``val r = repo``)."""
        if node.type == "enum_entry":
            return None
        decl = node if node.type == "class_parameter" else _child(node, "variable_declaration")
        declared = _declared_type(decl) if decl is not None else None
        if declared is not None:
            return declared_type(text_of(declared))
        value = _initializer(node)
        if value is None:
            return None
        if value.type == "identifier" and parent:
            return self.ctor_params.get(parent, {}).get(text_of(value))
        return _call_type(value)

    def _remember_ctor_params(self, node: Node, fqn: str) -> None:
        ctor = _child(node, "primary_constructor")
        params = _child(ctor, "class_parameters") if ctor is not None else None
        if params is None:
            return
        plain = {}
        for param in params.named_children:
            if param.type != "class_parameter":
                continue
            name, declared = _child(param, "identifier"), _declared_type(param)
            simple = declared_type(text_of(declared)) if declared is not None else None
            if name is not None and simple:
                plain[text_of(name)] = simple
        self.ctor_params[fqn] = plain

    def _params(self, node: Node, meta: dict) -> list[list[str | None]]:
        """``[name, type]`` per parameter; ``meta`` gets ``min_args`` when some have
        defaults and ``varargs`` for a ``vararg`` parameter (overload choice by arity)."""
        params_node = _child(node, "function_value_parameters")
        if params_node is None:
            return []
        params: list[list[str | None]] = []
        required = 0
        children = params_node.children
        for i, param in enumerate(children):
            if param.type != "parameter":
                continue
            name, declared = _child(param, "identifier"), _declared_type(param)
            params.append([
                text_of(name) if name is not None else None,
                collapse(text_of(declared)) if declared is not None else None,
            ])
            vararg = i > 0 and children[i - 1].type == "parameter_modifiers" and \
                "vararg" in text_of(children[i - 1])
            default = i + 1 < len(children) and children[i + 1].type == "="
            if vararg:
                meta["varargs"] = True
            elif not default:
                required += 1
        if required < len(params) and not meta.get("varargs"):
            meta["min_args"] = required
        return params

    @staticmethod
    def _return_type(node: Node) -> Node | None:
        seen_params = False
        children = node.children
        for i, child in enumerate(children):
            if child.type == "function_value_parameters":
                seen_params = True
            elif seen_params and child.type == ":" and i + 1 < len(children):
                return children[i + 1]
            elif child.type in ("function_body", "type_constraints"):
                break
        return None

    def _heritage(self, node: Node, fqn: str, kind: str) -> None:
        specs = _child(node, "delegation_specifiers")
        if specs is None:
            return
        for spec in specs.named_children:
            inner = spec.named_children[0] if spec.named_children else None
            if inner is None:
                continue
            if inner.type == "constructor_invocation":
                relation, type_node = "extends", _child(inner, "user_type")
            elif inner.type == "explicit_delegation":  # `Iface by impl`: interfaces only
                relation, type_node = "implements", _child(inner, "user_type")
            else:
                # an interface's supertypes are interfaces; elsewhere `: Name` is ambiguous
                relation = "extends" if kind == "INTERFACE" else "unknown"
                type_node = inner
            base = simple_type(text_of(type_node)) if type_node is not None else None
            if not base:
                continue
            if relation == "extends" or fqn not in self.superclass:
                self.superclass.setdefault(fqn, base.rsplit(".", 1)[-1])
            self.result.heritage.append(Heritage(fqn, base, relation, spec.start_point[0] + 1))

    # --- references ---------------------------------------------------------

    def _call_handlers(self) -> dict[str, Callable[[Node, str | None], Call | None]]:
        return {
            "reference.call": self._call,
            "reference.ref": self._callable_ref,
            "reference.delegation": self._delegation_call,
        }

    def _call(self, node: Node, caller: str | None) -> Call | None:
        target = callee(node)
        if target is None:
            return None
        name, receiver, line = target
        call = Call(caller, name, receiver, line)
        args = _child(node, "value_arguments")
        values = [a.named_children[-1] if a.named_children else a
                  for a in (args.named_children if args is not None else [])
                  if a.type == "value_argument"]
        arg_types = [_arg_type(v) for v in values]
        parent = node.parent
        if parent is not None and parent.type == "call_expression" and \
                _child(parent, "annotated_lambda") is not None:
            arg_types.append(None)  # trailing lambda
        call.args = len(arg_types)
        call.arg_types = arg_types
        return call

    def _callable_ref(self, node: Node, caller: str | None) -> Call | None:
        name_node = node.named_children[-1] if node.named_children else None
        if name_node is None or name_node.type != "identifier" or text_of(name_node) == "class":
            return None
        receiver = None
        if node.type == "navigation_expression" and len(node.named_children) > 1:
            receiver = receiver_chain(node.named_children[0])
        return Call(caller, text_of(name_node), receiver, node.start_point[0] + 1, "ref")

    def _delegation_call(self, node: Node, caller: str | None) -> Call | None:
        """``: this(...)``/``: super(...)`` of a secondary constructor: a constructor call
        of this class or of the superclass, recorded like Java's ``this(...)``."""
        if caller is None:
            return None
        cls = caller.split("(", 1)[0].rsplit(".", 1)[0]
        keyword = node.children[0].type
        name = cls.rsplit(".", 1)[-1] if keyword == "this" else self.superclass.get(cls)
        if not name:
            return None
        return Call(caller, name, None, node.start_point[0] + 1, "new")

    # --- locals -------------------------------------------------------------

    def _locals(self) -> None:
        query = registry.query(LANG, "kotlin-locals")
        for _, caps in QueryCursor(query).matches(self.root):
            node = caps["local"][0]
            scope = self._caller(node)
            if scope not in self.callables:
                continue
            decl = _child(node, "variable_declaration")
            declared = _declared_type(decl) if decl is not None else None
            if declared is not None:
                inferred = declared_type(text_of(declared))
            else:
                value = _initializer(node)
                inferred = _call_type(value) if value is not None else None
            if inferred:
                self.result.var_types.setdefault(scope, {})[text_of(caps["name"][0])] = inferred


def callee(node: Node) -> tuple[str, list[str] | None, int] | None:
    """``(name, receiver, line)`` of a ``call_expression``; None when the callee is not a
    name (``foo()()``, a lambda...)."""
    target = node.named_children[0] if node.named_children else None
    # the grammar parses `!isValid(x)` as a call of `!isValid`: unwrap prefix operators
    while target is not None and target.type == "unary_expression" and (
            target.children[0].type in _PREFIX_OPERATORS):
        target = target.child_by_field_name("argument")
    if target is None:
        return None
    if target.type == "identifier":
        return text_of(target), None, target.start_point[0] + 1
    if target.type != "navigation_expression" or any(c.type == "::" for c in target.children):
        return None
    name = target.named_children[-1]
    if name.type != "identifier" or len(target.named_children) < 2:
        return None
    return text_of(name), receiver_chain(target.named_children[0]), name.start_point[0] + 1


_KOTLIN_LITERALS = {"int": "Int", "long": "Long", "double": "Double", "float": "Float",
                    "boolean": "Boolean", "char": "Char", "String": "String"}


def _arg_type(node: Node) -> str | None:
    """Static type of a call argument: a literal's type, ``=var:x`` for a plain name."""
    if node.type == "identifier":
        return "=var:" + text_of(node)
    text = text_of(node)
    if node.type == "number_literal":
        if text[-1:] in ("L", "l"):
            return "Long"
        if text[-1:] in ("f", "F"):
            return "Float"
        return "Double" if "." in text or "e" in text.lower() and "x" not in text.lower() \
            else "Int"
    found = literal_type(node.type, text)
    return _KOTLIN_LITERALS.get(found) if found else None


def receiver_chain(node: Node) -> list[str]:
    """``this`` -> ["this"], ``this.repo`` -> ["this", "repo"], ``x!!`` -> ["x"],
    ``repo().find`` -> ["repo()", "find"]; any other expression -> ["?"]."""
    if node.type == "this_expression":
        return ["this"]
    if node.type == "super_expression":
        return ["super"]
    if node.type == "identifier":
        return [text_of(node)]
    if node.type == "unary_expression" and node.children[-1].type == "!!":
        return receiver_chain(node.named_children[0])
    if node.type == "call_expression":  # a call result names its call: `repo().find`
        target = callee(node)
        if target is None or target[1] == ["?"]:
            return ["?"]
        return [*(target[1] or []), target[0] + "()"]
    if node.type == "navigation_expression" and len(node.named_children) == 2:
        if any(c.type == "::" for c in node.children):
            return ["?"]
        head = receiver_chain(node.named_children[0])
        last = node.named_children[1]
        if head == ["?"] or last.type != "identifier":
            return ["?"]
        return [*head, text_of(last)]
    return ["?"]


def _call_type(value: Node) -> str | None:
    """``=call:...`` type of an initialiser when it is a statically knowable call."""
    if value.type != "call_expression":
        return None
    target = callee(value)
    if target is None:
        return None
    name, receiver, _ = target
    return dotted_call_target(name, receiver)


def _child(node: Node | None, type_name: str) -> Node | None:
    if node is None:
        return None
    return next((c for c in node.children if c.type == type_name), None)


def _declared_type(decl: Node) -> Node | None:
    """The type after ``:`` in a variable declaration, parameter or class parameter."""
    after_colon = False
    for child in decl.children:
        if child.type == ":":
            after_colon = True
        elif after_colon and child.type in _TYPE_NODES:
            return child
        elif child.type == "=":
            break
    return None


def _initializer(node: Node) -> Node | None:
    """The expression after ``=`` in a property declaration or class parameter."""
    children = node.children
    for i, child in enumerate(children):
        if child.type == "=" and i + 1 < len(children):
            return children[i + 1]
    return None


def _modifier_words(node: Node) -> set[str]:
    mods = _child(node, "modifiers")
    if mods is None:
        return set()
    return {leaf.type for group in mods.named_children for leaf in group.children}


def _parse_annotation(node: Node, constants: dict[str, str] | None = None) -> Annotation:
    """``@Name`` or ``@Name(args)`` -> :class:`Annotation` (positional args under "")."""
    invocation = _child(node, "constructor_invocation")
    type_node = _child(invocation or node, "user_type")
    name = text_of(type_node).rsplit(".", 1)[-1] if type_node is not None else ""
    ann = Annotation(name)
    args = _child(invocation, "value_arguments") if invocation is not None else None
    for arg in args.named_children if args is not None else []:
        if arg.type != "value_argument" or not arg.named_children:
            continue
        key = ""
        if len(arg.children) > 2 and arg.children[1].type == "=":
            key = text_of(arg.children[0])
        ann.args[key] = _annotation_values(arg.named_children[-1], constants or {})
    return ann


def _annotation_values(node: Node, constants: dict[str, str] | None = None) -> list[str]:
    """Values of an annotation argument; ``const val`` strings of this file (``BASE``,
    ``Paths.ITEMS``, ``"$BASE/x"``, ``BASE + "/x"``) are replaced by their values."""
    if node.type == "collection_literal":
        return [v for child in node.named_children
                for v in _annotation_values(child, constants)]
    value = _string_value(node, constants or {})
    if value is None and node.type == "string_literal":  # a template of unknown values
        value = "".join(text_of(c) for c in node.named_children if c.type == "string_content")
    return [value if value is not None else collapse(text_of(node))]


_TEMPLATE = re.compile(r"\$\{([A-Za-z_][\w.]*)\}|\$([A-Za-z_]\w*)")


def _string_value(node: Node, constants: dict[str, str]) -> str | None:
    """The compile-time string of a literal (templates of known constants filled in),
    a known constant or a ``+`` of them."""
    if node.type == "string_literal":
        raw = "".join(text_of(c) for c in node.named_children
                      if c.type in ("string_content", "interpolation"))
        missing = [a or b for a, b in _TEMPLATE.findall(raw) if (a or b) not in constants]
        return None if missing else _TEMPLATE.sub(
            lambda m: constants[m.group(1) or m.group(2)], raw)
    if node.type in ("identifier", "simple_identifier", "navigation_expression"):
        return constants.get(collapse(text_of(node)))
    if node.type == "parenthesized_expression" and node.named_children:
        return _string_value(node.named_children[0], constants)
    if node.type in ("binary_expression", "additive_expression") and \
            len(node.named_children) == 2 and any(c.type == "+" for c in node.children):
        left = _string_value(node.named_children[0], constants)
        right = _string_value(node.named_children[1], constants)
        return left + right if left is not None and right is not None else None
    return None


def _string_constants(root: Node) -> dict[str, str]:
    """``const val NAME = "..."`` of this file (top level, objects, companions), by
    ``NAME`` and ``Object.NAME``, in declaration order."""
    constants: dict[str, str] = {}
    # the outermost declarations (one inside another's initializer is not visited)
    for node in outermost_captures(registry.query(LANG, "kotlin-constants"), root):
        mods = _child(node, "modifiers")
        const = mods is not None and "const" in text_of(mods).split()
        decl = _child(node, "variable_declaration")
        value = node.named_children[-1] if node.named_children else None
        if const and decl is not None and value is not None and value is not decl:
            text = _string_value(value, constants)
            if text is not None:
                name = text_of(decl.named_children[0]) if decl.named_children else ""
                constants[name] = text
                owner = node.parent.parent if node.parent is not None else None
                if owner is not None and owner.type in ("object_declaration",
                                                        "companion_object"):
                    oname = _child(owner, "identifier") or _child(owner, "type_identifier")
                    if oname is not None:
                        constants[f"{text_of(oname)}.{name}"] = text
    return constants


def _extension_receiver(node: Node) -> str | None:
    """``Book`` of ``fun Book.label()`` / ``fun <T> List<T>?.second()`` (an extension
    function's receiver type, generics and ``?`` stripped); None for other functions."""
    for child, nxt in zip(node.children, node.children[1:], strict=False):
        if nxt.type == "." and child.type in ("user_type", "nullable_type", "type"):
            return simple_type(text_of(child)) or None
        if child.type == "function_value_parameters":
            return None
    return None
