"""Per-page context for strategies: source files and child nodes, each loaded once per page."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphrag.chunking.tokens import TokenCounter
from graphrag.parsing.source import REREAD_MAX_BYTES, SourceProblem, decode_source, read_source


@dataclass(frozen=True, slots=True)
class ChildRow:
    """A child node (``parent_id`` = the node), enough to cut the parent at its boundary."""

    id: int
    parent_id: int
    kind: str
    line_start: int | None
    line_end: int | None


# A line longer than this (minified or generated code that was not recognised as such)
# is not shown whole in the chunk of every symbol on it: each gets its own characters.
LONG_LINE_CHARS = 1_000


class FileLines:
    """The lines of one source file, with token counts computed lazily per line."""

    def __init__(self, lines: list[str], counter: Callable[[], TokenCounter] | None) -> None:
        self.lines = lines
        self._counter = counter
        self._tokens: dict[int, int] = {}
        self._long: list[int] | None = None

    def has_long_line(self, start: int, end: int) -> bool:
        """Whether a line of ``start..end`` (1-based, inclusive) is longer than
        :data:`LONG_LINE_CHARS`; the long lines are found once per file."""
        if self._long is None:
            self._long = [n for n, line in enumerate(self.lines, 1)
                          if len(line) > LONG_LINE_CHARS]
        i = bisect.bisect_left(self._long, start)
        return i < len(self._long) and self._long[i] <= end

    def __len__(self) -> int:
        return len(self.lines)

    def text(self, n: int) -> str:
        """Line ``n`` (1-based); empty beyond the end (the file may have changed)."""
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ""

    def chars(self, n: int) -> int:
        """Non-blank characters of line ``n``: an upper bound of its tokens (WordPiece
        tokens never span whitespace and cover at least one character each)."""
        return len("".join(self.text(n).split()))

    def tokens(self, numbers: list[int]) -> list[int]:
        """Exact token counts of the given lines (each line tokenized once)."""
        missing = [n for n in numbers if n not in self._tokens]
        if missing:
            if self._counter is None:
                counts = [self.chars(n) for n in missing]
            else:
                counts = self._counter().count_lines([self.text(n) for n in missing])
            self._tokens.update(zip(missing, counts, strict=True))
        return [self._tokens[n] for n in numbers]


class PageContext:
    """What a strategy may need beyond a node and its edges, for the nodes of one page.

    Both lookups are lazy, so a strategy that needs neither (per-node) costs nothing."""

    def __init__(self, root_path: str | None, node_ids: list[int],
                 load_children: Callable[[list[int]], list[ChildRow]],
                 counter: Callable[[], TokenCounter] | None = None) -> None:
        self.root = Path(root_path) if root_path else None
        self._node_ids = node_ids
        self._load_children = load_children
        self._counter = counter
        self._children: dict[int, list[ChildRow]] | None = None
        self._files: dict[str, FileLines | None] = {}

    def children(self, node_id: int) -> list[ChildRow]:
        """Child nodes of ``node_id``; one query for the whole page on first use."""
        if self._children is None:
            self._children = {}
            for row in self._load_children(self._node_ids):
                self._children.setdefault(row.parent_id, []).append(row)
        return self._children.get(node_id, [])

    def file(self, rel_path: str | None) -> FileLines | None:
        """The file under the application root, read once per page; None if unreadable."""
        if not rel_path or self.root is None:
            return None
        if rel_path not in self._files:
            self._files[rel_path] = self._read(rel_path)
        return self._files[rel_path]

    def _read(self, rel_path: str) -> FileLines | None:
        path = (self.root / rel_path).resolve()
        if not path.is_relative_to(self.root.resolve()):
            return None  # a path escaping the repository root is never read
        try:
            data = read_source(path, REREAD_MAX_BYTES, self.root)
        except SourceProblem:
            # Missing or unreadable: plan anyway; extract-snippet reports the reason later.
            return None
        text, _notes = decode_source(data)  # the same text the parser saw
        return FileLines(text.splitlines(), self._counter)
