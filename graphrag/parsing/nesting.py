"""A bound on the nesting depth of the syntax trees extractors walk.

Tree-sitter nodes keep no parent pointer: ``Node.parent`` descends from the root, so it
costs the node's depth, and the extractors' enclosing-scope lookups walk parents for
every call. On hostile input (``f(f(f(...)))`` 50,000 deep, method chains 1,000 long)
that is cubic in the depth, and recursive helpers hit Python's recursion limit.

Real code stays far below :data:`DEFAULT_MAX_NESTING` levels. Deeper subtrees are
blanked (every byte but newlines becomes a space, so byte offsets, character offsets
and line numbers of everything else are unchanged) and the file is parsed again; the
parse worker records on the file's row how many subtrees were cut. Every extractor
gets its parser from :func:`graphrag.parsing.registry.parser`, which applies the bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from tree_sitter import Parser, Tree

DEFAULT_MAX_NESTING = 200
# Re-parsing blanked text can regroup tokens; a few rounds always settle it.
_MAX_ROUNDS = 4
_BLANK = bytes(b if b in (0x0A, 0x0D) else 0x20 for b in range(256))


@dataclass
class NestingReport:
    """What the bound cut while it was active."""

    limit: int
    cut_regions: int = 0
    spans: list[tuple[int, int]] = field(default_factory=list, repr=False)


_ACTIVE: ContextVar[NestingReport | None] = ContextVar("graphrag_nesting", default=None)


@contextmanager
def nesting_limit(limit: int = DEFAULT_MAX_NESTING) -> Iterator[NestingReport]:
    """Parse with at most ``limit`` levels of nesting inside this block; the yielded
    report counts the subtrees cut."""
    report = NestingReport(limit=max(8, limit))
    token = _ACTIVE.set(report)
    try:
        yield report
    finally:
        _ACTIVE.reset(token)


def too_deep(tree: Tree, limit: int) -> list[tuple[int, int]]:
    """Byte spans of the outermost subtrees that start ``limit`` levels below the root,
    in document order.

    A subtree of ``n`` nodes (``descendant_count``, itself included) reaches at most
    ``n - 1`` levels below its root, so only subtrees big enough to reach the limit are
    entered: on real code that is a few dozen nodes per file instead of every node. No
    recursion and no parent lookups: at worst linear in the tree."""
    spans: list[tuple[int, int]] = []
    root = tree.root_node
    if root.descendant_count <= limit:
        return spans
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth == limit:
            if node.end_byte > node.start_byte:
                spans.append((node.start_byte, node.end_byte))
            continue
        # a child (one level down) reaches the limit only with enough nodes below it
        deep = [c for c in node.children if depth + c.descendant_count >= limit]
        stack.extend((child, depth + 1) for child in reversed(deep))
    return spans


def blank(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``source`` with every byte of ``spans`` but newlines replaced by a space."""
    out = bytearray(source)
    for start, end in spans:
        out[start:end] = out[start:end].translate(_BLANK)
    return bytes(out)


class BoundedParser:
    """A tree-sitter parser whose trees never nest deeper than the active limit."""

    def __init__(self, parser: Parser) -> None:
        self._parser = parser

    def parse(self, source: bytes) -> Tree:
        """Parse ``source``; subtrees deeper than the limit are blanked and re-parsed."""
        tree = self._parser.parse(source)
        report = _ACTIVE.get()
        limit = report.limit if report is not None else DEFAULT_MAX_NESTING
        for _ in range(_MAX_ROUNDS):
            spans = too_deep(tree, limit)
            if not spans:
                break
            if report is not None:
                report.cut_regions += len(spans)
                report.spans.extend(spans)
            source = blank(source, spans)
            tree = self._parser.parse(source)
        return tree
