"""Overload choice: which of several same-named callables a call (or an override) means.

In a language that overloads by parameter list (spec ``overloads_in_fqn``) every
overload is its own node (fqn ``Parser.parse(String,int)``). A call picks the overload
by arity (varargs and default parameters widen it) and, where the extractor could read
them, argument types (literals, ``new T()``, casts, locals/fields/parameters of declared
type), converted by the language's rules (spec ``conversions``: widening, boxing). Ties
keep declaration order, so the result is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable

from graphrag.graph.model import GraphNode
from graphrag.graph.types import clean_type
from graphrag.parsing.model import Call
from graphrag.parsing.registry import find, hook
from graphrag.parsing.vocabulary import NO_CONVERSIONS


def param_types(node: GraphNode) -> list[str | None]:
    """Declared parameter types of a callable node, as written."""
    params = node.meta.get("params") or []
    return [p[1] if len(p) > 1 else None for p in params]


def _varargs(node: GraphNode) -> bool:
    types = param_types(node)
    return bool(node.meta.get("varargs")) or bool(types and (types[-1] or "").endswith("..."))


def accepts(node: GraphNode, count: int) -> bool:
    """Can ``node`` be called with ``count`` arguments?"""
    total = len(param_types(node))
    low = node.meta.get("min_args", total)
    if _varargs(node):
        return count >= total - 1
    return low <= count <= total


def _exact(node: GraphNode, count: int) -> bool:
    return len(param_types(node)) == count and not _varargs(node)


def _base(text: str | None, lang: str | None) -> str | None:
    if not text:
        return None
    name = clean_type(text.replace("...", ""), lang)
    return name.rsplit(".", 1)[-1] if name else None


def _match(arg: str | None, param: str | None, supers: dict[str, set[str]],
           lang: str | None) -> int | None:
    """3 exact, 2 known subtype, 1 widening or catch-all, 0 unknown, None incompatible."""
    if arg is None or param is None:
        return 0
    a, p = _base(arg, lang), _base(param, lang)
    if not a or not p:
        return 0
    spec = find(lang)
    rules = spec.conversions if spec is not None else NO_CONVERSIONS
    canonical = rules.canonical
    if a == p or canonical.get(a, a) == canonical.get(p, p):
        return 3
    if p in supers.get(a, ()):
        return 2
    if p in rules.top or len(p) == 1:  # the top type or a type variable takes anything
        return 1
    ca, cp = canonical.get(a), canonical.get(p)
    if ca is not None and cp is not None:
        return 1 if cp in rules.widens.get(ca, ()) else None
    if cp is not None:
        return None  # value types and the final library types: no other class is one
    if ca is not None and ca in rules.boxed and p not in rules.boxes:
        return None  # a value type boxes to a library type, never to another class
    return 0  # two class names: maybe a subtype, we do not know


def choose(candidates: list[GraphNode], call: Call | None,
           arg_types: list[str | None] | None = None,
           caller: GraphNode | None = None,
           supers: dict[str, set[str]] | None = None,
           type_members: Callable[[str], frozenset[str] | None] | None = None
           ) -> GraphNode | None:
    """The overload ``call`` means among ``candidates`` (declaration order, nonempty).

    ``arg_types`` are the call's argument types with ``=var:`` names already typed by the
    resolver (None entries unknown); ``supers`` maps an argument type to the names of its
    known supertypes. Among equally good overloads the caller itself comes
    last: an overload that calls a same-named method mostly delegates to a sibling.
    A language with its own rules (spec ``overload_choice``) decides alone, and says
    None when the call does not single one out; ``type_members(type)`` tells it the
    member names of a repository type (None: no repository type)."""
    spec = find(candidates[0].lang)
    if spec is not None and spec.overload_choice and call is not None:
        lang = candidates[0].lang
        return hook(spec.overload_choice)(
            candidates, call, arg_types,
            lambda arg, param: _match(arg, param, supers or {}, lang),
            type_members or (lambda _text: None))
    if len(candidates) == 1 or call is None or call.args is None:
        return candidates[0]
    fitting = [c for c in candidates if accepts(c, call.args)] or candidates
    # where the language says so (``exact_arity_first``): the overload with as many type
    # parameters as the call gives type arguments (none: a non-generic one), then one
    # taking exactly the arguments given, beats one that fills defaults or collects varargs
    if spec is not None and spec.exact_arity_first:
        fitting.sort(key=lambda c: (c.meta.get("type_params", 0) != (call.type_args or 0),
                                    not _exact(c, call.args)))
    if caller is not None and caller in fitting and len(fitting) > 1:
        fitting = [c for c in fitting if c is not caller] + [caller]
    if len(fitting) == 1 or not arg_types:
        return fitting[0]
    best: GraphNode | None = None
    best_score = -1
    for cand in fitting:
        params = param_types(cand)
        score = 0
        for i, arg in enumerate(arg_types):
            param = params[i] if i < len(params) else (params[-1] if params else None)
            got = _match(arg, param, supers or {}, cand.lang)
            if got is None:
                score = -1
                break
            score += got
        if score > best_score:
            best, best_score = cand, score
    return best if best is not None else fitting[0]


def same_signature(a: GraphNode, b: GraphNode) -> bool:
    """Same parameter list (type names compared without package and generics)."""
    ta, tb = param_types(a), param_types(b)
    if len(ta) != len(tb):
        return False
    return all(_base(x, a.lang) == _base(y, b.lang) for x, y in zip(ta, tb, strict=True))
