"""Lookup results (:class:`Ent`), lookup positions (:class:`Ctx`) and the reduction of
a type as written to a plain name.

An Ent's ``kind`` says what a name or expression denotes:

* ``node``      a symbol (function, class, ...), with the resolution rule that found it
* ``module`` / ``package``   a module (a file, or a package of a dotted namespace) or a package
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

from dataclasses import dataclass

from graphrag.graph.model import GraphNode
from graphrag.graph.symbols import FileScope
from graphrag.parsing import registry
from graphrag.parsing.typetext import nominal_name


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
