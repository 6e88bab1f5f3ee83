"""Swift's overload choice: which of several same-named functions a call means.

Swift names a function by its argument labels (``upload(_:to:)``), so a call first
binds its arguments to the parameters by label, in order: a parameter with a default
(or a variadic one) may be left out, an unlabelled trailing closure takes the next
parameter that can take it (SE-0286's forward scan). Then the arguments' kinds must fit:
a closure literal goes to a function type of its arity (one returning a value not to a
``-> Void``; or to a name that may alias one, never a ``String`` or a protocol-bound
type parameter), ``nil`` only to an optional, a
literal only to a type it can be (an integer literal is a ``Double`` too), an implicit
member (``.get``) only to a type that has it. Of the overloads left
the best typed one wins (the shared scoring: exact, subtype, unknown); among equally
typed ones Swift prefers one not marked ``@_disfavoredOverload``, a non-generic one and
the one leaving out the fewest defaults (one better by every rule, else no choice).

When that still leaves several, or what would tell them apart is an argument of unknown
type or its generic arguments (``encoder.encode(x)`` of overloads differing in their
return type only; ``Response<URL?>`` against ``Response<Value>``), the call is no edge:
a wrong edge costs more than a missing one.

The extractor (:mod:`graphrag.parsing.languages.swift`) records per callable
``meta["labels"]`` and ``meta["param_flags"]`` (``d`` default, ``v`` variadic, ``g``
type parameter, ``t`` a type with a type parameter among its arguments, ``n`` no
function, ``o`` optional, ``f`` and its arity a function type (``x`` before it: one
returning nothing), ``a`` array, ``m`` dictionary type) beside ``meta["params"]``, and
per call ``arg_labels`` and ``arg_types`` with the ``=lit:`` kinds below.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from graphrag.parsing.model import TRAILING, Call
from graphrag.parsing.vocabulary import words

# argument kinds of literals the extractor writes into `Call.arg_types`; a closure's
# arity follows where it shows (`=lit:closure/2`), after `r` when it returns a value
CLOSURE = "=lit:closure"
NIL = "=lit:nil"

_INTEGERS = words("Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64")
_FLOATS = words("Double Float Float16 Float80 CGFloat TimeInterval Decimal")
_TEXTS = frozenset({"String", "Substring", "Character", "StaticString"})
# value types no literal of another kind (nor a closure, nor nil) can be
_KNOWN = _INTEGERS | _FLOATS | _TEXTS | words(
    "Bool Data Date URL URLRequest UUID Array Dictionary Set")
# what each literal kind is exactly, and what it can also be
_LITERALS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "=lit:String": (frozenset({"String"}), _TEXTS),
    "=lit:Int": (frozenset({"Int"}), _INTEGERS | _FLOATS),
    "=lit:Double": (frozenset({"Double"}), _FLOATS),
    "=lit:Bool": (frozenset({"Bool"}), frozenset()),
}

Match = Callable[[str | None, str | None], int | None]
Members = Callable[[str], frozenset[str] | None]


class _Param(NamedTuple):
    label: str          # "_" for none, "?" when not recorded (matches any)
    nominal: str | None
    flags: str

    @property
    def optional(self) -> bool:
        """May be left out of a call (a default, or variadic)."""
        return "d" in self.flags or "v" in self.flags

    def closure_like(self, members: Members) -> bool:
        """Might take a closure: a function type, or a name that may alias one (no
        value type, no class, struct, enum or protocol of the repository)."""
        if "f" in self.flags:
            return True
        if {"a", "m", "n"} & set(self.flags) or _short(self.nominal) in _KNOWN:
            return False
        return self.nominal is None or members(self.nominal) is None


class _Fit(NamedTuple):
    node: Any
    params: list[_Param]
    bound: list[int]      # parameter index per argument
    left_out: int         # parameters left to their default
    scores: list[int]     # per argument: 3 exact ... 0 unknown


def _short(name: str | None) -> str | None:
    return name.rsplit(".", 1)[-1] if name else None


# a callable's parameters by its meta (kept with the meta itself, so that a reused id
# is told apart); a resolver run asks for the same few overloads over and over
_PARAMS: dict[int, tuple[dict, list[_Param]]] = {}
_PARAMS_MAX = 20_000


def _params(meta: dict) -> list[_Param]:
    hit = _PARAMS.get(id(meta))
    if hit is not None and hit[0] is meta:
        return hit[1]
    declared = meta.get("params") or []
    labels = meta.get("labels") or ["?"] * len(declared)
    flags = meta.get("param_flags") or [""] * len(declared)
    out = [_Param(label, p[1] if len(p) > 1 else None, flag)
           for label, p, flag in zip(labels, declared, flags, strict=False)]
    if len(_PARAMS) >= _PARAMS_MAX:
        _PARAMS.clear()
    _PARAMS[id(meta)] = (meta, out)
    return out


def bind(params: list[_Param], labels: Sequence[str | None], members: Members
         ) -> tuple[list[int], int] | None:
    """The parameter each argument goes to and how many parameters keep their
    default, or None when the arguments' labels do not fit the parameters."""
    bound: list[int] = []
    left_out = 0
    i = 0
    arg = 0
    while arg < len(labels):
        label = labels[arg]
        if label == TRAILING:
            # the forward scan: a parameter that may be left out is skipped when it cannot
            # take a closure or a later one must be given
            while i < len(params) and params[i].optional and (
                    not params[i].closure_like(members)
                    or any(not p.optional for p in params[i + 1:])):
                i += 1
                left_out += 1
        else:
            wanted = label or "_"
            while i < len(params) and params[i].label not in (wanted, "?"):
                if not params[i].optional:
                    return None
                i += 1
                left_out += 1
        if i == len(params):
            return None
        bound.append(i)
        arg += 1
        if "v" in params[i].flags:  # a variadic parameter takes the unlabelled ones after
            while arg < len(labels) and labels[arg] is None:
                bound.append(i)
                arg += 1
        i += 1
    rest = params[i:]
    if any(not p.optional for p in rest):
        return None
    return bound, left_out + len(rest)


def _literal(kind: str, param: _Param, members: Members) -> int | None:
    """How well a literal (or closure, or nil) fits a parameter; None: it cannot."""
    flags, nominal = param.flags, _short(param.nominal)
    if kind == NIL:
        if "o" in flags:
            return 2
        return None if "f" in flags or nominal in _KNOWN or {"a", "m"} & set(flags) else 0
    if kind.startswith(CLOSURE):
        if "f" in flags:
            returns, _, arity = kind[len(CLOSURE):].partition("/")
            takes = flags[flags.index("f") + 1:]
            if (arity and takes and arity != takes) or (returns and "x" in flags):
                return None  # another arity, or a value returned to a `-> Void`
            return 3
        return 0 if param.closure_like(members) else None
    if "f" in flags:
        return None  # a value is no function
    if kind == "=lit:array":
        return 3 if "a" in flags else (2 if nominal in ("Set", "Array") else (
            None if nominal in _KNOWN or "m" in flags else 0))
    if kind == "=lit:dict":
        return 3 if "m" in flags else (
            None if nominal in _KNOWN or "a" in flags else 0)
    exact, also = _LITERALS.get(kind, (frozenset(), frozenset()))
    if nominal in exact:
        return 3
    if nominal in also:
        return 2
    return None if nominal in _KNOWN or {"a", "m"} & set(flags) else 0


def _member(name: str, param: _Param, members: Members) -> int | None:
    """How an implicit member (``.get``) fits: it is one of the parameter's type's."""
    if "f" in param.flags:
        return None
    if "o" in param.flags and name in ("none", "some"):
        return 2
    found = members(param.nominal) if param.nominal else None
    return 0 if found is None else (3 if name in found else None)


def _score(raw: str | None, typed: str | None, param: _Param, match: Match,
           members: Members) -> int | None:
    if raw is not None and raw.startswith("=lit:"):
        return _literal(raw, param, members)
    if raw is not None and raw.startswith("=member:"):
        return _member(raw[len("=member:"):], param, members)
    if raw is not None and not raw.startswith("=") and "f" in param.flags:
        return None  # an initialised value (`Foo(...)`) is no closure
    return match(typed, param.nominal)


def _fit(node: Any, call: Call, typed: Sequence[str | None], match: Match,
         members: Members) -> _Fit | None:
    params = _params(node.meta)
    labels = call.arg_labels if call.arg_labels is not None else [None] * (call.args or 0)
    found = bind(params, labels, members)
    if found is None:
        return None
    bound, left_out = found
    raw = call.arg_types or [None] * len(labels)
    scores: list[int] = []
    for arg, index in enumerate(bound):
        score = _score(raw[arg] if arg < len(raw) else None,
                       typed[arg] if arg < len(typed) else None, params[index], match,
                       members)
        if score is None:
            return None
        scores.append(score)
    return _Fit(node, params, bound, left_out, scores)


def _rank(fit: _Fit) -> tuple[bool, bool, int]:
    meta = fit.node.meta
    return bool(meta.get("disfavored")), bool(meta.get("type_params")), fit.left_out


def choose(candidates: Sequence[Any], call: Call, arg_types: Sequence[str | None] | None,
           match: Match, members: Members) -> Any | None:
    """The overload (graph node) ``call`` means among ``candidates``, or None when none
    fits or the call does not single one out (see the module's docstring).
    ``arg_types`` are the call's argument types as the resolver typed them; ``match``
    scores one against a parameter's type, ``members(type)`` names a repository type's
    members (an implicit member argument ``.get`` must be one; no such type is a
    function)."""
    typed = list(arg_types or [])
    cache: dict[str, frozenset[str] | None] = {}

    def known(name: str) -> frozenset[str] | None:
        if name not in cache:
            cache[name] = members(name)
        return cache[name]

    fits = [f for f in (_fit(c, call, typed, match, known) for c in candidates)
            if f is not None]
    if len(fits) < 2:
        return fits[0].node if fits else None
    best = max(sum(f.scores) for f in fits)
    fits = [f for f in fits if sum(f.scores) == best]
    if len(fits) == 1:
        return fits[0].node
    for arg in range(len(fits[0].bound)):
        bound = [f.params[f.bound[arg]] for f in fits]
        kinds = {(p.nominal, p.flags.replace("d", "")) for p in bound}
        if len(kinds) > 1 and (any(f.scores[arg] == 0 for f in fits)
                               or any({"g", "t"} & set(p.flags) for p in bound)):
            # what would tell them apart is an argument of unknown type, or its generic
            # arguments (a name says `Response`, not `Response<URL?>`)
            return None
    # the winner is at least as good as every other by each rule and better by one:
    # where the rules disagree (a generic one leaving out fewer defaults) Swift's choice
    # is not read off so simply
    ranks = [_rank(f) for f in fits]
    for i, rank in enumerate(ranks):
        if all(j == i or (rank != other and all(map(operator.le, rank, other)))
               for j, other in enumerate(ranks)):
            return fits[i].node
    return None
