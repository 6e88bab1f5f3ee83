"""Declarations of a TS/JS file: symbols, heritage, class/function/file variable types."""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from graphrag.parsing.languages.ecmascript.common import (
    JSDOC_PARAM,
    JSDOC_RETURNS,
    JSDOC_TYPE,
    MAX_SIGNATURE,
    FileContext,
    clean_jsdoc,
    dotted,
    node_text,
    receiver_chain,
    simple_type,
    var_type,
    walk,
)

_PARAMETER_NODES = {"required_parameter", "optional_parameter"}
_PROPERTY_MODIFIERS = {"accessibility_modifier", "readonly", "override"}
_MEMBER_BODIES = {"class_body", "interface_body"}
_IDENTIFIER = re.compile(r"^[\w$]+$")


def collect(ctx: FileContext, definitions: list[tuple[str, Node]]) -> None:
    """Emit a symbol for every declaration capture (outer declarations first)."""
    handlers = {
        "definition.class": _class,
        "definition.interface": _interface,
        "definition.enum": _enum,
        "definition.function": _function_declaration,
        "definition.function_variable": _function_variable,
        "definition.function_export": _function_export,
        "definition.function_default": _function_default,
        "definition.method": _method,
        "definition.field": _field,
        "definition.overload_signature": _overload_signature,
        "definition.object_literal": _object_literal,
        "definition.namespace": _namespace,
        "definition.object_function": _object_function,
    }
    for name, node in definitions:
        handler = handlers.get(name)
        if handler is not None:
            handler(ctx, node)
    for task in ctx.deferred:  # work that needs every declaration of the file
        task()
    ctx.deferred.clear()


def collect_variable_types(ctx: FileContext, definitions: list[tuple[str, Node]]) -> None:
    """Types of local and module variables: ``const x: Foo``, ``new Foo()``, ``makeFoo()``,
    and of the parameters of callbacks that are no symbol (see :func:`_callback_params`);
    then of ``for ... of`` loop variables, where no declaration named them a type."""
    loops: list[Node] = []
    for name, node in definitions:
        if name == "definition.callback":
            _callback_params(ctx, node)
            continue
        if name == "definition.loop":
            loops.append(node)
            continue
        if name != "definition.variable":
            continue
        scope = ctx.owner_of(node)
        if scope in ctx.class_fqns:
            continue  # a local inside a field initializer is not a field
        declared = node.child_by_field_name("type")
        type_ = var_type(node_text(declared)) if declared else None
        ctx.set_var_type(scope, node_text(node.child_by_field_name("name")),
                         type_ or infer_type(node.child_by_field_name("value")))
    for node in loops:
        _loop_variable(ctx, node)


def _callback_params(ctx: FileContext, node: Node) -> None:
    """Parameters of an inline callback (``arr.map((x: Foo) => x.run())``,
    ``operate((source, subscriber) => ...)``) name values in the enclosing symbol, where its
    calls are attributed: a declared type is kept as written; an untyped parameter of a
    callback passed as an argument gets ``=arg:<callee>#<argument>#<parameter>`` (the
    resolver reads the callee's parameter type, a function type, for that position)."""
    if node.id in ctx.owners:
        return  # the function of a symbol: its parameters are its own
    scope = ctx.owner_of(node)
    if scope is None or scope in ctx.class_fqns:
        return  # module variables and class fields are exported names: never a parameter
    contextual = _argument_position(node)
    declared = [p for p in params(node, None) if p[0] != "this"]  # `this:` is no parameter
    for index, (name, type_) in enumerate(declared):
        if not name or not _IDENTIFIER.match(name):
            continue  # destructuring
        if type_:
            ctx.set_var_type(scope, name, var_type(type_))
        elif contextual is not None:
            ctx.set_var_type(scope, name, f"{contextual}#{index}")


def _argument_position(node: Node) -> str | None:
    """``=arg:<callee>#<argument index>`` (``=arg-new:`` for ``new X(...)``) when ``node``
    is an argument of a call whose callee is a name or a member chain."""
    holder = node.parent
    if holder is None or holder.type != "arguments" or holder.parent is None:
        return None
    call = holder.parent
    args = [c for c in holder.named_children if c.type != "comment"]
    index = next(i for i, a in enumerate(args) if a.id == node.id)
    if call.type == "call_expression":
        callee, prefix = call.child_by_field_name("function"), "=arg:"
    elif call.type == "new_expression":
        callee, prefix = call.child_by_field_name("constructor"), "=arg-new:"
    else:
        return None
    chain = receiver_chain(callee, calls=True) if callee is not None else ["?"]
    if chain == ["?"] or any(part in ("this", "super") for part in chain[1:]):
        return None
    return f"{prefix}{'.'.join(chain)}#{index}"


def _overload_signature(ctx: FileContext, node: Node) -> None:
    """A TypeScript overload signature (``function f(a: string): T;`` or a bodiless
    method in a class) is no node of its own: there is one body, so the implementation
    is the call target and lists the signatures in ``meta["overloads"]``."""
    name = node_text(node.child_by_field_name("name"))
    fqn = ctx.child_fqn(ctx.owner_of(node), name)
    text = " ".join(node_text(node).split()).rstrip(";")
    doc = doc_comment(outer_node(node))

    def attach() -> None:
        sym = ctx.by_fqn.get(fqn)
        if sym is not None and sym.kind in ("FUNCTION", "METHOD", "CONSTRUCTOR", "ENDPOINT"):
            sym.meta.setdefault("overloads", []).append(text)
            if sym.doc_comment is None:  # the doc usually sits on the first signature
                sym.doc_comment = doc

    ctx.deferred.append(attach)


# ---------------------------------------------------------------- shared helpers
def outer_node(node: Node) -> Node:
    """The statement that carries ``node``'s doc comment and span: its ``export``
    wrapper, or for a lone variable declarator its declaration."""
    if node.type == "variable_declarator":
        decl = node.parent
        if decl is None or len(decl.named_children) != 1:
            return node
        node = decl
    parent = node.parent
    return parent if parent is not None and parent.type == "export_statement" else node


def is_default_export(outer: Node) -> bool:
    return outer.type == "export_statement" and any(c.type == "default" for c in outer.children)


def doc_comment(node: Node) -> str | None:
    """JSDoc ``/** */`` directly above ``node`` (decorators in between are skipped)."""
    first, prev = node, node.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        first, prev = prev, prev.prev_named_sibling
    if prev is None or prev.type != "comment":
        return None
    text = node_text(prev)
    if not text.startswith("/**") or text.startswith("/**/"):
        return None
    if prev.end_point[0] < first.start_point[0] - 1:
        return None  # separated by a blank line: not this declaration's doc
    return clean_jsdoc(text)


def signature(node: Node, body: Node | None) -> str:
    """Header of ``node`` up to ``body`` (decorators excluded), whitespace normalised."""
    start = node.start_byte
    for child in node.children:
        if child.type not in ("decorator", "comment"):
            start = child.start_byte
            break
    end = body.start_byte if body is not None else node.end_byte
    raw = node.text[start - node.start_byte:end - node.start_byte].decode("utf-8", "replace")
    text = " ".join(raw.split()).rstrip(" {;")
    text = text.replace("( ", "(").replace(", )", ")").replace(" )", ")")
    text = text.removesuffix("=>").rstrip(" =")
    return text if len(text) <= MAX_SIGNATURE else text[:MAX_SIGNATURE] + "..."


def decorators(node: Node, outer: Node | None = None) -> list[str]:
    """Decorators as written: preceding sibling decorators (TS class members) and
    decorator children of the node and its export wrapper."""
    found: list[Node] = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        found.insert(0, prev)
        prev = prev.prev_named_sibling
    holders = [node] if outer is None or outer is node else [outer, node]
    for holder in holders:
        found.extend(c for c in holder.children if c.type == "decorator")
    seen: list[str] = []
    for dec in found:
        text = " ".join(node_text(dec).split())
        if text not in seen:
            seen.append(text)
    return seen


def function_meta(fn: Node, doc: str | None) -> dict[str, Any]:
    """``params``, ``return_type`` and ``async`` of a function-like node (TS types,
    falling back to JSDoc ``@param {T}``/``@returns {T}``)."""
    meta: dict[str, Any] = {"params": params(fn, doc)}
    returns = fn.child_by_field_name("return_type")
    if returns is not None:
        meta["return_type"] = node_text(returns).lstrip(":").strip()
    else:
        match = JSDOC_RETURNS.search(doc or "")
        meta["return_type"] = match.group(1).strip() if match else None
    if any(c.type == "async" for c in fn.children):
        meta["async"] = True
    return meta


def params(fn: Node, doc: str | None) -> list[list[str | None]]:
    """``[[name, type-or-None], ...]`` of a function-like node."""
    documented = {m.group(2): m.group(1).strip() for m in JSDOC_PARAM.finditer(doc or "")}
    holder = fn.child_by_field_name("parameters")
    if holder is None:
        single = fn.child_by_field_name("parameter")  # `x => ...`
        items = [single] if single is not None else []
    else:
        items = [c for c in holder.named_children if c.type != "comment"]
    result: list[list[str | None]] = []
    for item in items:
        name, type_ = _param(item)
        result.append([name, type_ or documented.get(name)])
    return result


def _param(item: Node) -> tuple[str, str | None]:
    if item.type in _PARAMETER_NODES:
        type_node = item.child_by_field_name("type")
        type_ = node_text(type_node).lstrip(":").strip() if type_node else None
        if type_ is None:
            default = infer_type(item.child_by_field_name("value"))
            type_ = default if default and not default.startswith("=") else None
        return node_text(item.child_by_field_name("pattern")), type_
    if item.type == "assignment_pattern":  # JS `repo = new Repo()`: the default names a type
        default = infer_type(item.child_by_field_name("right"))
        type_ = default if default and not default.startswith("=") else None
        return node_text(item.child_by_field_name("left")), type_
    return node_text(item), None


def record_param_types(ctx: FileContext, scope: str, param_list: list[list[str | None]]) -> None:
    for name, type_ in param_list:
        if name and type_ and _IDENTIFIER.match(name):  # destructured params have no name
            ctx.set_var_type(scope, name, var_type(type_))


def infer_type(node: Node | None) -> str | None:
    """Type of a variable from its initializer: ``new Foo()`` -> ``Foo``,
    ``makeFoo()`` -> ``=call:makeFoo``, ``x as Foo`` -> ``Foo``; else None."""
    if node is None:
        return None
    kind = node.type
    inner = [c for c in node.named_children if c.type != "comment"]
    if kind == "new_expression":
        return simple_type(dotted(node.child_by_field_name("constructor")))
    if kind == "call_expression":
        callee = dotted(node.child_by_field_name("function"))
        return f"=call:{callee}" if callee and callee != "require" else None
    if kind in ("await_expression", "parenthesized_expression", "non_null_expression"):
        return infer_type(inner[0]) if inner else None
    if kind in ("as_expression", "satisfies_expression") and len(inner) == 2:
        return simple_type(node_text(inner[1]))
    if kind == "type_assertion" and inner:
        return simple_type(node_text(inner[0]).strip("<>"))
    if kind == "subscript_expression":  # `xs[i]`, `this.byName[k]`: an item
        chain = receiver_chain(node.child_by_field_name("object"), calls=True)
        if chain != ["?"] and not any(p.endswith("()") or p == "[]" for p in chain):
            return "=item:" + ".".join(chain)
    return None


def _loop_variable(ctx: FileContext, node: Node) -> None:
    """``for (const x of xs)``: ``x`` is an element of ``xs`` (``=iter:``, typed by the
    resolver from the declared type of a variable, parameter or property)."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier" or not any(
            c.type == "of" for c in node.children):
        return
    scope = ctx.owner_of(node)
    if scope in ctx.class_fqns:
        return
    if right.type == "call_expression":
        callee = dotted(right.child_by_field_name("function"))
        source = f"=call:{callee}" if callee else None
    else:
        chain = receiver_chain(right, calls=True)
        source = None if chain == ["?"] or any(p.endswith("()") or p == "[]" for p in chain) \
            else ".".join(chain)
    if source:
        ctx.set_var_type(scope, node_text(left), "=iter:" + source)


def _base_name(node: Node) -> str | None:
    if node.type in ("type_arguments", "comment"):
        return None
    if node.type == "generic_type":
        node = node.child_by_field_name("name") or node
    return simple_type(node_text(node))


# ---------------------------------------------------------------- declarations
def _class(ctx: FileContext, node: Node) -> None:
    name = node_text(node.child_by_field_name("name"))
    outer = outer_node(node)
    parent = ctx.owner_of(node)
    fqn = ctx.child_fqn(parent, name)
    meta: dict[str, Any] = {"exported": outer.type == "export_statement"}
    if node.type == "abstract_class_declaration":
        meta["abstract"] = True
    if is_default_export(outer):
        meta["export_default"] = True
    found = decorators(node, outer)
    if found:
        meta["decorators"] = found
    ctx.add_symbol("CLASS", name, fqn, parent, outer,
                   signature=signature(node, node.child_by_field_name("body")),
                   doc=doc_comment(outer), meta=meta, owner_node=node)
    ctx.class_fqns.add(fqn)
    for heritage in (c for c in node.named_children if c.type == "class_heritage"):
        _class_heritage(ctx, fqn, heritage)


def _class_heritage(ctx: FileContext, fqn: str, heritage: Node) -> None:
    for clause in heritage.named_children:
        if clause.type in ("extends_clause", "implements_clause"):
            relation = "extends" if clause.type == "extends_clause" else "implements"
            _add_bases(ctx, fqn, clause.named_children, relation)
        else:  # JavaScript: `class A extends <expression>`
            _add_bases(ctx, fqn, [clause], "extends")


def _add_bases(ctx: FileContext, fqn: str, bases: list[Node], relation: str) -> None:
    """``fqn`` extends (or implements) each of ``bases`` that names a type."""
    for base in bases:
        name = _base_name(base)
        if name:
            ctx.add_heritage(fqn, name, relation, base)


def _interface(ctx: FileContext, node: Node) -> None:
    name = node_text(node.child_by_field_name("name"))
    outer = outer_node(node)
    parent = ctx.owner_of(node)
    fqn = ctx.child_fqn(parent, name)
    ctx.add_symbol("INTERFACE", name, fqn, parent, outer,
                   signature=signature(node, node.child_by_field_name("body")),
                   doc=doc_comment(outer),
                   meta={"exported": outer.type == "export_statement"}, owner_node=node)
    ctx.class_fqns.add(fqn)
    for clause in (c for c in node.named_children if c.type == "extends_type_clause"):
        _add_bases(ctx, fqn, clause.named_children, "extends")


def _enum(ctx: FileContext, node: Node) -> None:
    name = node_text(node.child_by_field_name("name"))
    outer = outer_node(node)
    parent = ctx.owner_of(node)
    members = [node_text(c.child_by_field_name("name") or c)
               for c in (node.child_by_field_name("body") or node).named_children
               if c.type != "comment"]
    ctx.add_symbol("ENUM", name, ctx.child_fqn(parent, name), parent, outer,
                   signature=signature(node, node.child_by_field_name("body")),
                   doc=doc_comment(outer),
                   meta={"exported": outer.type == "export_statement", "members": members},
                   owner_node=node)


def _add_function(ctx: FileContext, name: str, fn: Node, span: Node, sig_node: Node,
                  owner_node: Node, extra: dict[str, Any] | None = None) -> None:
    """A FUNCTION symbol for the function-like node ``fn``."""
    parent = ctx.owner_of(span)
    fqn = ctx.child_fqn(parent, name)
    doc = doc_comment(span)
    meta = function_meta(fn, doc)
    meta.update(extra or {})
    ctx.add_symbol("FUNCTION", name, fqn, parent, span,
                   signature=signature(sig_node, fn.child_by_field_name("body")),
                   doc=doc, meta=meta, owner_node=owner_node)
    record_param_types(ctx, fqn, meta["params"])


def _export_meta(outer: Node) -> dict[str, Any]:
    meta: dict[str, Any] = {"exported": outer.type == "export_statement"}
    if is_default_export(outer):
        meta["export_default"] = True
    return meta


def _function_declaration(ctx: FileContext, node: Node) -> None:
    outer = outer_node(node)
    _add_function(ctx, node_text(node.child_by_field_name("name")), node, outer, node, node,
                  _export_meta(outer))


def _is_top_level(statement: Node) -> bool:
    parent = statement.parent
    if parent is not None and parent.type == "export_statement":
        parent = parent.parent
    return parent is not None and parent.type == "program"


def _function_variable(ctx: FileContext, node: Node) -> None:
    """``const f = (...) => ...`` at the top level of the file, or inside a function (a
    nested function ``outer.f``, like a nested ``function f() {}``)."""
    decl = node.parent
    if decl is None:
        return
    if not _is_top_level(decl):
        owner = ctx.owner_of(decl)
        if owner is None or owner in ctx.class_fqns or decl.type != "lexical_declaration":
            return
    outer = outer_node(node)
    sig_node = decl if outer is not node else node
    _add_function(ctx, node_text(node.child_by_field_name("name")),
                  node.child_by_field_name("value"), outer, sig_node, node, _export_meta(outer))


def _function_export(ctx: FileContext, node: Node) -> None:
    """CommonJS ``exports.f = function () {}`` / ``module.exports.f = (...) => ...``;
    ``Cart.prototype.add = function () {}`` (see :func:`_prototype_method`)."""
    if not _is_top_level(node):
        return
    assignment = node.named_children[0]
    left = assignment.child_by_field_name("left")
    target = left.child_by_field_name("object")
    if target is not None and target.type == "member_expression" and \
            node_text(target.child_by_field_name("property")) == "prototype":
        ctx.deferred.append(lambda: _prototype_method(ctx, node, target, left, assignment))
        return
    if node_text(left.child_by_field_name("object")) not in ("exports", "module.exports"):
        return
    name = node_text(left.child_by_field_name("property"))
    _add_function(ctx, name, assignment.child_by_field_name("right"), node, node, node,
                  {"exported": True})


def _prototype_method(ctx: FileContext, node: Node, target: Node, left: Node,
                      assignment: Node) -> None:
    """``Cart.prototype.add = function () {}`` where ``Cart`` is a top-level function of
    this file: ``Cart`` is a constructor function, so it becomes a CLASS
    (``meta.constructor_function``) and ``add`` its METHOD (``this.x()`` and calls on
    ``new Cart()`` values resolve like those of a class)."""
    owner = ctx.by_fqn.get(ctx.child_fqn(None, node_text(target.child_by_field_name("object"))))
    if owner is None or owner.parent is not None or owner.kind not in ("FUNCTION", "CLASS"):
        return
    if owner.kind == "FUNCTION":
        decl = _top_level_function(ctx, owner.name)
        if decl is None:
            return
        owner.kind = "CLASS"
        owner.meta["constructor_function"] = True
        ctx.class_fqns.add(owner.fqn)
        # its body is the constructor: `new Cart()` links to it, `this.x = ...` are fields
        body = decl.child_by_field_name("body")
        ctor = ctx.child_fqn(owner.fqn, "constructor")
        meta = function_meta(decl, owner.doc_comment)
        ctx.add_symbol("CONSTRUCTOR", "constructor", ctor, owner.fqn, decl,
                       signature=owner.signature, doc=None, meta=meta, owner_node=body)
        record_param_types(ctx, ctor, meta["params"])
        if body is not None:
            _constructor_assignments(ctx, body, owner.fqn, ctor)
    fn = assignment.child_by_field_name("right")
    name = node_text(left.child_by_field_name("property"))
    fqn = ctx.child_fqn(owner.fqn, name)
    doc = doc_comment(node)
    meta = function_meta(fn, doc)
    meta["static"] = False
    ctx.add_symbol("METHOD", name, fqn, owner.fqn, node,
                   signature=signature(node, fn.child_by_field_name("body")), doc=doc,
                   meta=meta, owner_node=fn)
    record_param_types(ctx, fqn, meta["params"])


def _top_level_function(ctx: FileContext, name: str) -> Node | None:
    for child in ctx.root.named_children:
        decl = child.child_by_field_name("declaration") \
            if child.type == "export_statement" else child
        if decl is not None and decl.type == "function_declaration" and \
                node_text(decl.child_by_field_name("name")) == name:
            return decl
    return None


def _function_default(ctx: FileContext, node: Node) -> None:
    """``export default function () {}``: a FUNCTION named ``default``."""
    _add_function(ctx, "default", node.child_by_field_name("value"), node, node, node,
                  {"exported": True, "export_default": True})


def _object_literal(ctx: FileContext, node: Node) -> None:
    """``const api = { list() {...}, show: (id) => ... }`` at the top level: an OBJECT
    named ``api`` whose function members are METHODs (``api.list()`` resolves to them,
    in this module and where ``api`` is imported). Objects without functions are data;
    a variable with a declared type is seen through that type."""
    decl = node.parent
    value = node.child_by_field_name("value")
    if node.child_by_field_name("type") is not None:
        # `const p: Provider = {...}`: callers see the declared type (as the compiler
        # resolves `p.f()`), so the literal is no OBJECT of its own
        return
    if decl is None or not _is_top_level(decl) or not any(
            c.type == "method_definition" or (c.type == "pair" and _pair_function(c))
            for c in value.named_children):
        return
    outer = outer_node(node)
    name = node_text(node.child_by_field_name("name"))
    ctx.object_literals[value.id] = ctx.child_fqn(None, name)
    ctx.add_symbol("OBJECT", name, ctx.child_fqn(None, name), None, outer,
                   signature=" ".join(node_text(decl).split("{", 1)[0].split()) + " {...}",
                   doc=doc_comment(outer), meta={**_export_meta(outer), "object_literal": True},
                   owner_node=value)


def _namespace(ctx: FileContext, node: Node) -> None:
    """TS ``namespace Money { ... }``: an OBJECT whose declarations are its members
    (``Money.cents()`` resolves like a static call); nested namespaces nest."""
    body = node.child_by_field_name("body")
    if body is None:
        return
    outer = outer_node(node)
    if outer.type == "expression_statement":  # the grammar wraps a namespace statement
        outer = outer_node(outer)
    parent = ctx.owner_of(outer)
    if parent is not None and (ctx.by_fqn.get(parent) is None
                               or not ctx.by_fqn[parent].meta.get("namespace")):
        return  # only at the top level or inside another namespace
    name = node_text(node.child_by_field_name("name"))
    ctx.add_symbol("OBJECT", name, ctx.child_fqn(parent, name), parent, outer,
                   signature=f"namespace {name}", doc=doc_comment(outer),
                   meta={**_export_meta(outer), "namespace": True}, owner_node=body)


def _pair_function(pair: Node) -> Node | None:
    value = pair.child_by_field_name("value")
    key = pair.child_by_field_name("key")
    return value if key is not None and key.type == "property_identifier" and \
        value is not None and value.type in ("arrow_function", "function_expression") \
        else None


def _literal_owner(ctx: FileContext, node: Node) -> str | None:
    """fqn of the OBJECT whose literal directly holds ``node`` (a member)."""
    return ctx.object_literals.get(node.parent.id) if node.parent is not None else None


def _object_function(ctx: FileContext, node: Node) -> None:
    """``show: (id) => ...`` in an OBJECT literal: a METHOD of it."""
    fn = _pair_function(node)
    parent = _literal_owner(ctx, node) if fn is not None else None
    if parent is None or node.parent is None or node.parent.type != "object":
        return
    name = node_text(node.child_by_field_name("key"))
    fqn = ctx.child_fqn(parent, name)
    doc = doc_comment(node)
    meta = function_meta(fn, doc)
    meta["static"] = False
    ctx.add_symbol("METHOD", name, fqn, parent, node,
                   signature=signature(node, fn.child_by_field_name("body")), doc=doc,
                   meta=meta, owner_node=fn)
    record_param_types(ctx, fqn, meta["params"])


def _method(ctx: FileContext, node: Node) -> None:
    in_literal = node.parent is not None and node.parent.type == "object"
    if node.parent is None or (node.parent.type not in _MEMBER_BODIES and not in_literal):
        return
    parent = _literal_owner(ctx, node) if in_literal else ctx.owner_of(node)
    if parent is None:
        return
    name = node_text(node.child_by_field_name("name"))
    in_class = node.parent.type == "class_body"
    kind = "CONSTRUCTOR" if in_class and name == "constructor" else "METHOD"
    fqn = ctx.child_fqn(parent, name)
    first = ctx.by_fqn.get(fqn)
    if node.type == "method_signature" and first is not None and first.kind == "METHOD":
        # an interface's overload signatures: one node, the others listed on it
        first.meta.setdefault("overloads", []).append(" ".join(node_text(node).split()))
        return
    doc = doc_comment(node)
    meta = function_meta(node, doc)
    meta["static"] = any(c.type == "static" for c in node.children)
    if node.type == "abstract_method_signature":
        meta["abstract"] = True
    accessor = next((c.type for c in node.children if c.type in ("get", "set")), None)
    if accessor:
        meta["accessor"] = accessor
    found = decorators(node)
    if found:
        meta["decorators"] = found
    body = node.child_by_field_name("body")
    ctx.add_symbol(kind, name, fqn, parent, node, signature=signature(node, body), doc=doc,
                   meta=meta, owner_node=node if body is not None else None)
    if body is not None:
        record_param_types(ctx, fqn, meta["params"])
    if kind == "CONSTRUCTOR":
        _parameter_properties(ctx, node, parent)
        if body is not None:
            ctx.deferred.append(lambda: _constructor_assignments(ctx, body, parent, fqn))


def _field(ctx: FileContext, node: Node) -> None:
    if node.parent is None or node.parent.type not in _MEMBER_BODIES:
        return
    parent = ctx.owner_of(node)
    if parent is None:
        return
    name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
    name = node_text(name_node)
    type_node = node.child_by_field_name("type")
    value = node.child_by_field_name("value")
    doc = doc_comment(node)
    declared = node_text(type_node).lstrip(":").strip() if type_node else None
    if declared is None:
        match = JSDOC_TYPE.search(doc or "")
        declared = match.group(1).strip() if match else None
    meta: dict[str, Any] = {"type": declared,
                            "static": any(c.type == "static" for c in node.children)}
    found = decorators(node)
    if found:
        meta["decorators"] = found
    body = value.child_by_field_name("body") if value is not None else None
    ctx.add_symbol("FIELD", name, ctx.child_fqn(parent, name), parent, node,
                   signature=signature(node, body), doc=doc, meta=meta)
    ctx.set_var_type(parent, name, var_type(declared) or infer_type(value))


def _parameter_properties(ctx: FileContext, ctor: Node, cls: str) -> None:
    """``constructor(private readonly repo: UserRepo)`` declares field ``repo``."""
    holder = ctor.child_by_field_name("parameters")
    for param in holder.named_children if holder is not None else []:
        if param.type not in _PARAMETER_NODES:
            continue
        if not any(c.type in _PROPERTY_MODIFIERS for c in param.children):
            continue
        name, type_ = _param(param)
        ctx.add_symbol("FIELD", name, ctx.child_fqn(cls, name), cls, param,
                       signature=" ".join(node_text(param).split()),
                       meta={"type": type_, "static": False, "parameter_property": True})
        ctx.set_var_type(cls, name, var_type(type_))


def _constructor_assignments(ctx: FileContext, body: Node, cls: str, ctor_fqn: str) -> None:
    """``this.x = ...`` in a constructor declares field ``x`` (JS style) and gives its
    type from ``new X()``, a call, or a typed constructor parameter."""
    ctor_types = ctx.result.var_types.get(ctor_fqn, {})
    for node in walk(body):
        if node.type != "assignment_expression":
            continue
        left = node.child_by_field_name("left")
        if left is None or left.type != "member_expression":
            continue
        if node_text(left.child_by_field_name("object")) != "this":
            continue
        name = node_text(left.child_by_field_name("property"))
        right = node.child_by_field_name("right")
        statement = node.parent if node.parent.type == "expression_statement" else node
        doc = doc_comment(statement)
        match = JSDOC_TYPE.search(doc or "")
        type_ = simple_type(match.group(1)) if match else infer_type(right)
        if type_ is None and right is not None and right.type == "identifier":
            type_ = ctor_types.get(node_text(right))
        fqn = ctx.child_fqn(cls, name)
        if fqn not in ctx.by_fqn:
            ctx.add_symbol("FIELD", name, fqn, cls, statement,
                           signature=re.sub(r"\s+", " ", node_text(left)), doc=doc,
                           meta={"type": type_, "static": False, "assigned_in_constructor":
                                 True})
        ctx.set_var_type(cls, name, type_)
