"""Lookup results (:class:`Ent`), lookup positions (:class:`Ctx`) and the reduction of
a type as written to a plain name.

An Ent's ``kind`` says what a name or expression denotes:

* ``node``      a symbol (function, class, ...), with the resolution rule that found it
* ``module`` / ``package``   a module (file or Java/Kotlin package) or Go package
* ``instance``  a value whose type is the class/interface in ``node`` (resolution
                ``union``: or one of ``alts``, from a declared ``A | B``)
* ``static``    the class in ``node`` used as a value (static access, companion)
* ``super``     ``super`` inside the class in ``node``
* ``bound``     a local name whose type we cannot resolve (parameter of a function type,
                external type): never guessed
* ``external``  something outside the repository
* ``unknown``   nothing known (an untyped receiver): the unique-name fallback may apply
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag.graph.model import GraphNode
from graphrag.graph.symbols import FileScope
from graphrag.parsing import registry
from graphrag.parsing.typetext import nominal_name, split_top_level

_THIS_PARAM = re.compile(r"^this\s*:")


@dataclass(frozen=True)
class Ent:
    """What a name or expression denotes (see module docstring)."""

    kind: str
    node: GraphNode | None = None
    name: str = ""
    resolution: str = ""
    # `union` instances and targets: the other classes / methods it may be
    alts: tuple[GraphNode, ...] = ()


UNKNOWN = Ent("unknown")
EXTERNAL = Ent("external")
BOUND = Ent("bound")


@dataclass(frozen=True)
class Ctx:
    """Lookup position: a file and the innermost enclosing symbol (None = file level)."""

    file: FileScope
    scope: GraphNode | None


def clean_type(text: str, lang: str | None = None) -> str:
    """Reduce a type as written (in a file of ``lang``) to a plain (possibly dotted)
    name: the language's own prepass from its spec, then the shared reduction."""
    return nominal_name(text, registry.type_prepass(lang) if lang else None)


def function_type_param(text: str, index: int) -> str | None:
    """Type of parameter ``index`` of a function type as written:
    ``(this: A, x: Foo<T>, y?: Bar) => void`` with index 0 -> ``Foo<T>`` (``this`` is no
    parameter); None when ``text`` is no function type or has no such parameter."""
    text = text.strip()
    while text.startswith("((") and ")" in text:  # `((x: A) => void) | undefined`
        text = text[1:]
    if not text.startswith("("):
        return None
    depth = 0
    items: list[str] = []
    current: list[str] = []
    for pos, char in enumerate(text):
        if char in "([{<":
            depth += 1
            if depth == 1:
                continue
        elif char in ")]}>" and not (char == ">" and text[pos - 1:pos] == "="):
            depth -= 1
            if depth == 0:
                items.append("".join(current))
                if not text[pos + 1:].lstrip().startswith("=>"):
                    return None
                break
        elif char == "," and depth == 1:
            items.append("".join(current))
            current = []
            continue
        current.append(char)
    params = [i.strip() for i in items if i.strip() and not _THIS_PARAM.match(i.strip())]
    if index >= len(params) or ":" not in params[index]:
        return None
    return params[index].split(":", 1)[1].strip() or None


_NONE_MEMBERS = frozenset({"None", "null", "undefined", "void", ""})


def union_members(text: str) -> list[str]:
    """Members of a declared union with two or more real members (``A | B``,
    ``Union[A, B]``, ``A | B | None``); [] for anything else."""
    text = text.strip().strip("'\"")
    match = re.match(r"^(?:typing\.|t\.)?Union\[(.*)\]$", text)
    parts = split_top_level(match.group(1), ",") if match else split_top_level(text, "|")
    members = [p.strip().strip("'\"") for p in parts]
    members = [m for m in members if m not in _NONE_MEMBERS]
    return members if len(members) >= 2 else []


