"""What a rewrite of stored rows changes: the rows found again stay (with their ids), so a
run that finds what is stored writes nothing."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

T = TypeVar("T")


def diff_rows(stored: Mapping[Hashable, list[int]], found: Iterable[T],
              key: Callable[[T], Hashable] | None = None) -> tuple[list[T], list[int]]:
    """Match ``found`` against ``stored`` (row key -> ids of the stored rows with that key;
    the lists are consumed): each found item keeps one stored row of its key (``key(item)``,
    by default the item itself). Returns the
    items no stored row matched (to insert) and the ids of the rows no item matched (to
    delete); equal items match as many rows as there are of them."""
    new: list[T] = []
    for item in found:
        ids = stored.get(item if key is None else key(item))
        if ids:
            ids.pop()
        else:
            new.append(item)
    return new, [i for ids in stored.values() for i in ids]
