"""Split a node's lines into chunks under a token budget, at syntactic boundaries (cAST).

A node's own text is a sequence of units: its lines, except that each child with a chunk
of its own is one *elided* unit (its first line plus ``    ...``). When the whole does
not fit the budget, oversized runs are split recursively -- at blank lines, then at
statement starts (lines at the block's base indentation), then into single lines; lines
are never cut -- and the small parts are merged greedily, in order, back up to the
budget. Pure functions over :class:`FileLines`, so they are unit-tested without a DB."""

from __future__ import annotations

from dataclasses import dataclass

from graphrag.chunking.context import FileLines

# Tokens of the ``...`` line that replaces an elided body ('.' is one token each).
ELLIPSIS_TOKENS = 3


@dataclass(frozen=True, slots=True)
class Piece:
    """One chunk of a node: inclusive line span and the child ranges to elide in it."""

    start: int
    end: int
    elide: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class _Unit:
    start: int
    end: int
    tokens: int
    elided: bool = False


def clean_children(start: int, end: int, children: list[tuple[int, int]],
                   ) -> list[tuple[int, int]]:
    """Multi-line child ranges strictly inside [start, end], sorted, non-overlapping."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(children):
        if e <= s or s < start or e > end or (s, e) == (start, end):
            continue
        if out and s <= out[-1][1]:
            continue  # nested or overlapping: the outer child already covers it
        out.append((s, e))
    return out


def split_node(start: int, end: int, children: list[tuple[int, int]], text: FileLines | None,
               budget: int) -> list[Piece]:
    """Pieces covering [start, end] in order, each within ``budget`` tokens where possible.

    ``children``: ranges of child nodes that have chunks of their own (elided here).
    Without the file text nothing can be measured: one piece."""
    kids = clean_children(start, end, children)
    whole = Piece(start, end, tuple(kids))
    if text is None:
        return [whole]
    own = _own_lines(start, end, kids)
    bound = sum(text.chars(n) for n in own) + ELLIPSIS_TOKENS * len(kids)
    if bound <= budget:
        return [whole]
    units = _units(start, end, kids, text)
    if sum(u.tokens for u in units) <= budget:
        return [whole]
    atoms: list[_Unit] = []
    for block in _blocks(units, text):
        atoms.extend(_split_block(block, text, budget))
    return [_piece(group, kids) for group in _merge(atoms, budget)]


def _own_lines(start: int, end: int, kids: list[tuple[int, int]]) -> list[int]:
    """Line numbers whose text is counted: all lines but the elided bodies."""
    out: list[int] = []
    n = start
    for s, e in kids:
        out.extend(range(n, s + 1))  # lines before the child and its first line
        n = e + 1
    out.extend(range(n, end + 1))
    return out


def _units(start: int, end: int, kids: list[tuple[int, int]], text: FileLines) -> list[_Unit]:
    own = _own_lines(start, end, kids)
    counts = dict(zip(own, text.tokens(own), strict=True))
    units: list[_Unit] = []
    n = start
    for s, e in kids:
        units.extend(_Unit(i, i, counts[i]) for i in range(n, s))
        units.append(_Unit(s, e, counts[s] + ELLIPSIS_TOKENS, elided=True))
        n = e + 1
    units.extend(_Unit(i, i, counts[i]) for i in range(n, end + 1))
    return units


def _blocks(units: list[_Unit], text: FileLines) -> list[list[_Unit]]:
    """Runs of plain lines ended by a blank line; each elided child is a block of its own."""
    blocks: list[list[_Unit]] = []
    current: list[_Unit] = []
    for u in units:
        if u.elided:
            if current:
                blocks.append(current)
                current = []
            blocks.append([u])
            continue
        current.append(u)
        if not text.text(u.start).strip():
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _split_block(block: list[_Unit], text: FileLines, budget: int) -> list[_Unit]:
    """A block as one atom if it fits, else its statements (recursively), else its lines."""
    total = sum(u.tokens for u in block)
    if total <= budget or len(block) == 1:
        if len(block) == 1:
            return block
        return [_Unit(block[0].start, block[-1].end, total)]
    groups = _statements(block, text)
    if len(groups) == 1:
        return list(block)  # no statement structure to use: single lines
    out: list[_Unit] = []
    for group in groups:
        out.extend(_split_block(group, text, budget))
    return out


def _statements(block: list[_Unit], text: FileLines) -> list[list[_Unit]]:
    """Cut before every line at the block's base indentation (after its first line), so a
    statement keeps its continuation lines and nested body together."""
    body = [u for u in block[1:] if text.text(u.start).strip()]
    if not body:
        return [block]
    base = min(_indent(text.text(u.start)) for u in body)
    groups: list[list[_Unit]] = [[block[0]]]
    for u in block[1:]:
        line = text.text(u.start)
        if line.strip() and _indent(line) <= base:
            groups.append([u])
        else:
            groups[-1].append(u)
    return groups


def _merge(atoms: list[_Unit], budget: int) -> list[list[_Unit]]:
    """Greedy merge of consecutive atoms while the sum stays within the budget."""
    groups: list[list[_Unit]] = []
    size = 0
    for a in atoms:
        if groups and size + a.tokens <= budget:
            groups[-1].append(a)
            size += a.tokens
        else:
            groups.append([a])
            size = a.tokens
    return groups


def _piece(group: list[_Unit], kids: list[tuple[int, int]]) -> Piece:
    start, end = group[0].start, group[-1].end
    return Piece(start, end, tuple(k for k in kids if start <= k[0] and k[1] <= end))
