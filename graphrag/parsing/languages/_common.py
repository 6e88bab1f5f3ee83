"""Tree helpers every extractor needs: error counting, node text, header normalising,
innermost-enclosing-scope lookups."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from tree_sitter import Node

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_UNKNOWN = object()


def count_errors(root: Node) -> int:
    """Number of ERROR and MISSING nodes (only subtrees with errors are visited)."""
    if not root.has_error:
        return 0
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return count


def node_text(node: Node | None) -> str:
    """The node's source text ('' for None); invalid UTF-8 becomes U+FFFD."""
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def normalize(text: str) -> str:
    """Collapse whitespace and tidy brackets so multi-line headers read as one line."""
    text = " ".join(text.split())
    text = re.sub(r"([(\[]) ", r"\1", text)
    return re.sub(r",? ([)\]])", r"\1", text)


class ScopeIndex(dict[K, V], Generic[K, V]):
    """The scopes an extractor registered (``key(node) -> value``), plus the lookup of the
    innermost registered scope strictly around any node.

    ``Node.parent`` descends from the root, so its cost is the node's depth, and walking
    parents for every call was cubic on deeply nested input. Here the answer is kept for
    every node a walk passes, until a new scope is registered: each node is walked once,
    so the lookups of a whole file are linear in its tree."""

    def __init__(self, key: Callable[[Node], K]) -> None:
        super().__init__()
        self._key = key
        self._answers: dict[int, K | None] = {}  # node id -> key of its enclosing scope
        self._size = 0

    def enclosing(self, node: Node) -> V | None:
        """Value of the innermost registered ancestor of ``node``; None at file level."""
        if len(self) != self._size:  # a new scope can sit between a node and its answer
            self._answers.clear()
            self._size = len(self)
        path: list[int] = []
        answer: K | None = None
        current = node.parent
        while current is not None:
            key = self._key(current)
            if key in self:
                answer = key
                break
            known = self._answers.get(current.id, _UNKNOWN)
            if known is not _UNKNOWN:
                answer = known  # type: ignore[assignment]
                break
            path.append(current.id)
            current = current.parent
        for node_id in path:
            self._answers[node_id] = answer
        return self[answer] if answer is not None else None


def node_id(node: Node) -> int:
    """Key of scopes registered by node id."""
    return node.id
