"""The names a symbol is known by besides its fqn: re-exports, per language.

A user writes the name a package publishes, not the module that defines it:
``click.Command`` (re-exported by ``click/__init__.py``, defined in ``click.core``),
``src/middleware:requestLogger`` (a TypeScript barrel ``src/middleware/index.ts``).
The graph already holds the facts -- an IMPORTS edge from the package's file to the
symbol -- and this module holds the language conventions that turn such an edge into a
public name. Java and Kotlin have no re-exports; their simple class names are found by
the lookup's suffix step.
"""

from __future__ import annotations

from pathlib import PurePosixPath

_BARREL_STEMS = frozenset({"index"})
_ECMASCRIPT = frozenset({"typescript", "tsx", "javascript"})


def reexported_name(lang: str | None, file_path: str | None, module: str | None,
                    name: str) -> str | None:
    """The public name under which the file at ``file_path`` (module ``module``)
    re-exports the symbol ``name`` it imports; None when the file is no package front.

    - Python: ``pkg/__init__.py`` importing ``Name`` publishes ``pkg.Name``;
    - TypeScript/JavaScript: a barrel ``dir/index.ts`` importing or re-exporting ``Name``
      publishes ``dir:Name`` (the module a directory import resolves to);
    - Rust: a module's ``pub use a::Name`` publishes ``<module>.Name`` (``axum.Router``
      for ``axum::routing::Router``); a private ``use`` is not told apart, and names a
      symbol only where it is in scope."""
    if not file_path:
        return None
    path = PurePosixPath(file_path)
    if lang == "python" and path.name == "__init__.py" and module:
        return f"{module}.{name}"
    if lang in _ECMASCRIPT and path.stem in _BARREL_STEMS:
        return f"{path.parent.as_posix()}:{name}"
    if lang == "rust" and module:
        return f"{module}.{name}"
    return None


def barrel_module(lang_hint: str | None, name: str) -> list[str]:
    """``dir:Name`` -> the fqns a barrel's own definition would have (``dir/index:Name``);
    [] for names that are not TS/JS-style (``path:Name``)."""
    if ":" not in name or lang_hint not in (None, *_ECMASCRIPT):
        return []
    module, _, rest = name.partition(":")
    return [f"{module}/{stem}:{rest}" for stem in sorted(_BARREL_STEMS)]
