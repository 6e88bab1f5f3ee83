"""One shape for every extension point: a named :class:`Registry` per kind of extension
(languages, chunk strategies, pipeline stages, search modes), filled by the built-ins and
by plugin packages through Python entry points.

A plugin package declares, in its ``pyproject.toml``::

    [project.entry-points."graphrag.search_modes"]
    mine = "my_package.plugin:register_modes"

and ``register_modes(register)`` calls ``register(name, item)`` once per extension, the
same call the built-ins make (llm's hooks receive a ``register`` callable the same way).
Entry points are read once, the first time a registry is asked for its contents, so
importing graphrag costs nothing when no plugin is installed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from graphrag.errors import ConfigurationError, UnknownName

T = TypeVar("T")
log = logging.getLogger(__name__)

# Entry point groups, one per registry.
LANGUAGES_GROUP = "graphrag.languages"
CHUNK_STRATEGIES_GROUP = "graphrag.chunk_strategies"
STAGES_GROUP = "graphrag.stages"
SEARCH_MODES_GROUP = "graphrag.search_modes"
ROUTE_FRAMEWORKS_GROUP = "graphrag.route_frameworks"
HTTP_CLIENTS_GROUP = "graphrag.http_clients"


class Registry(Generic[T]):
    """Named extensions of one kind, in registration order (built-ins first).

    ``kind`` names the extension in error messages (``unknown search mode 'x'``);
    ``group`` is the entry point group plugins register through; ``builtins``, when
    given, is called once before the first read to register the built-ins lazily (so
    that a registry module need not import every implementation); ``on_register``, when
    given, sees every registration after it is added and may refuse it by raising (the
    registration is then undone)."""

    def __init__(self, kind: str, group: str | None = None,
                 builtins: Callable[[Callable[[str, T], T]], None] | None = None,
                 on_register: Callable[[str, T], None] | None = None) -> None:
        self.kind = kind
        self.group = group
        self._builtins = builtins
        self._on_register = on_register
        self._items: dict[str, T] = {}
        self._loaded = False

    def register(self, name: str, item: T) -> T:
        """Add ``item`` under ``name`` (a later registration replaces an earlier one,
        so a plugin may override a built-in); returns ``item``.

        The built-ins are registered first, so an explicit registration made before
        the first read still overrides a built-in of the same name."""
        self._load()
        previous = self._items.get(name)
        self._items[name] = item
        if self._on_register is not None:
            try:
                self._on_register(name, item)
            except Exception:
                if previous is None:
                    del self._items[name]
                else:
                    self._items[name] = previous
                raise
        return item

    def unregister(self, name: str) -> None:
        """Remove ``name`` (no error when absent)."""
        self._load()
        self._items.pop(name, None)
        if self._on_register is not None:
            self._on_register(name, None)  # type: ignore[arg-type]

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self._builtins is not None:
            self._builtins(self.register)
        if self.group is not None:
            for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
                try:
                    hook = ep.load()
                    hook(self.register)
                except Exception as exc:  # a broken plugin names itself, not a traceback
                    raise ConfigurationError(
                        f"plugin {ep.name!r} ({ep.value}) of {self.group} failed to load: "
                        f"{type(exc).__name__}: {exc}") from exc

    def reload(self) -> None:
        """Register the built-ins and read the entry points again (after installing a
        plugin in this process); other registrations stay, but a built-in's name goes
        back to the built-in unless a plugin registers it."""
        self._loaded = False
        self._load()

    def get(self, name: str) -> T:
        """The extension called ``name``; :class:`UnknownName` lists the valid ones."""
        self._load()
        try:
            return self._items[name]
        except KeyError:
            raise UnknownName(self.kind, name, list(self._items)) from None

    def find(self, name: str) -> T | None:
        """The extension called ``name``, or None."""
        self._load()
        return self._items.get(name)

    def names(self) -> list[str]:
        """Registered names, built-ins first in their registration order."""
        self._load()
        return list(self._items)

    def items(self) -> dict[str, T]:
        """A copy of ``{name: extension}``."""
        self._load()
        return dict(self._items)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._items

    def __iter__(self) -> Iterator[T]:
        self._load()
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        self._load()
        return len(self._items)
