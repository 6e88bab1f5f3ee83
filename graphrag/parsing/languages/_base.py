"""The one role every extractor plays: a single-use worker that walks one file's syntax
tree and fills its :class:`~graphrag.parsing.model.ParseResult`."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tree_sitter import Node

from graphrag.parsing.languages._common import in_order
from graphrag.parsing.model import CharOffsets, ParseResult, Symbol

Step = tuple[str | tuple[str, ...], Callable[[Node], object]]


class FileExtractor:
    """Extraction state of one file: its bytes, syntax tree, character offsets and the
    result being filled. A language subclasses it and implements :meth:`run`."""

    def __init__(self, source: bytes, root: Node, result: ParseResult,
                 offsets: CharOffsets | None = None) -> None:
        self.source = source
        self.root = root
        self.result = result
        self.offsets = offsets if offsets is not None else CharOffsets(source)
        self._added_fqns: set[str] = set()

    def run(self) -> ParseResult:
        """Fill and return :attr:`result`."""
        raise NotImplementedError

    @staticmethod
    def passes(captures: Mapping[str, list[Node]], *steps: Step) -> None:
        """Each step in turn: its handler on every node captured under its capture name
        (or names, their nodes together), in source order with an enclosing node before
        the nodes inside it."""
        for names, handle in steps:
            for node in in_order([n for name in ((names,) if isinstance(names, str) else names)
                                  for n in captures.get(name, [])]):
                handle(node)

    def finished(self) -> ParseResult:
        """:attr:`result` with its symbols in source order, an enclosing symbol before
        the symbols inside it."""
        self.result.symbols.sort(key=lambda s: (s.char_start, -s.char_end))
        return self.result

    def add_once(self, symbol: Symbol) -> bool:
        """Add ``symbol`` unless one of its fqn was added through here before (a later
        declaration of the name, an extension, a redeclaration: the first one stands);
        True when added."""
        if symbol.fqn in self._added_fqns:
            return False
        self._added_fqns.add(symbol.fqn)
        self.result.symbols.append(symbol)
        return True

    def span(self, node: Node) -> dict[str, int]:
        """Lines (1-based, inclusive) and characters (end exclusive) of ``node``, as the
        keyword arguments of a :class:`~graphrag.parsing.model.Symbol`."""
        return {
            "line_start": node.start_point[0] + 1,
            "line_end": node.end_point[0] + 1,
            "char_start": self.offsets(node.start_byte),
            "char_end": self.offsets(node.end_byte),
        }

    def scope_vars(self, scope: str) -> dict[str, str]:
        """The variable types recorded for scope fqn ``scope`` (created empty)."""
        return self.result.var_types.setdefault(scope, {})
