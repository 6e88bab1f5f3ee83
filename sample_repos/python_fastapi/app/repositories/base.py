"""Generic in-memory repository.

Real deployments swap this for a database-backed one; the services only rely on the
methods defined here.
"""

import itertools
import logging
from typing import Generic, TypeVar

T = TypeVar("T")

logger = logging.getLogger(__name__)


class BaseRepository(Generic[T]):
    """Stores entities by integer id and hands out new ids."""

    entity_name: str = "entity"

    def __init__(self) -> None:
        """Start empty; ids begin at 1."""
        self._items: dict[int, T] = {}
        self._ids = itertools.count(1)

    def find_by_id(self, entity_id: int) -> T | None:
        """The entity with ``entity_id`` or None."""
        return self._items.get(entity_id)

    def find_all(self, offset: int = 0, limit: int = 100) -> list[T]:
        """A page of entities in insertion order."""
        values = list(self._items.values())
        return values[offset:offset + limit]

    def save(self, entity: T) -> T:
        """Insert or replace ``entity``; entities without an id get a fresh one."""
        if getattr(entity, "id", 0) == 0:
            entity.id = self.next_id()
        self._items[entity.id] = entity
        logger.debug("saved %s %s", self.entity_name, entity.id)
        return entity

    def remove(self, entity_id: int) -> bool:
        """Delete by id; False when nothing was stored under it."""
        return self._items.pop(entity_id, None) is not None

    def next_id(self) -> int:
        """Reserve the next id."""
        return next(self._ids)

    def count_all(self) -> int:
        """Number of stored entities."""
        return len(self._items)
