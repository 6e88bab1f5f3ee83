"""A member's whole source from its chunks: split chunks re-joined in source order, the
bodies its chunks elide (nested functions, a class's constructor) put back, one
indentation removed for the whole member, fenced with its language.

Pure functions over the stored chunk rows (``content_raw`` keeps each chunk's exact
lines with elisions applied; ``span_lines`` and the plan's ``elide`` ranges say which
file lines they are), so the context never reads the repository and never shows a
chunk dedented on its own or cut mid-member.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

LineMap = dict[int, str]
# A gap no chunk covers (a body elided without a chunk of its own): said, not invented.
GAP = "..."


@dataclass(frozen=True)
class CodeChunk:
    """What the re-joining needs of one stored code chunk."""

    start: int
    end: int
    content_raw: str
    elide: tuple[tuple[int, int], ...] = ()


def chunk_lines(chunk: CodeChunk) -> LineMap:
    """File line number -> text (line ending removed) of the lines a chunk holds.

    ``content_raw`` lists lines ``start..end`` except that each elided range ``[a, b]``
    is its first line followed by one ``...`` line (see the extract-snippet stage)."""
    raw = chunk.content_raw.splitlines()
    ranges = {a: b for a, b in chunk.elide if a <= b}
    out: LineMap = {}
    n, i = chunk.start, 0
    while n <= chunk.end and i < len(raw):
        out[n] = raw[i]
        i += 1
        if n in ranges:
            i += 1  # the "..." line standing for the elided body
            n = ranges[n] + 1
        else:
            n += 1
    return out


def elided_lines(chunk: CodeChunk) -> set[int]:
    """The file lines a chunk leaves out (bodies of children with chunks of their own)."""
    return {n for a, b in chunk.elide for n in range(a + 1, b + 1)}


def merge_line_maps(chunks: Iterable[CodeChunk]) -> LineMap:
    """Every line any of the chunks holds (a line held twice keeps its first text)."""
    lines: LineMap = {}
    for chunk in chunks:
        for n, line in chunk_lines(chunk).items():
            lines.setdefault(n, line)
    return lines


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def outdent(lines: Sequence[str]) -> list[str]:
    """Remove the first line's indentation from every line that starts with it.

    Not ``textwrap.dedent``: a comment at column 0 inside an indented method (or the
    text of a multi-line string) would stop it from removing anything, and the member
    would no longer parse. Lines indented less than the first keep what they have."""
    first = next((ln for ln in lines if ln.strip()), "")
    prefix = _indent(first)
    if not prefix:
        return list(lines)
    out = []
    for ln in lines:
        if ln.startswith(prefix):
            out.append(ln[len(prefix):])
        else:
            out.append(ln if ln.strip() else "")
    return out


def implementation(start: int, end: int, lines: LineMap) -> tuple[str, int]:
    """Source of lines ``start..end`` from the line map, outdented; a run of lines no
    chunk holds becomes one ``...`` line at the indentation of the line before it.
    Returns the text and the number of lines missing."""
    out: list[str] = []
    missing = 0
    n = start
    while n <= end:
        if n in lines:
            out.append(lines[n].rstrip())
            n += 1
            continue
        run_end = n
        while run_end + 1 <= end and run_end + 1 not in lines:
            run_end += 1
        missing += run_end - n + 1
        before = next((ln for ln in reversed(out) if ln.strip()), "")
        out.append(_indent(before) + "    " + GAP)
        n = run_end + 1
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(outdent(out)), missing


def fence(code: str, lang: str | None) -> str:
    """``code`` in a Markdown code fence tagged with its language, the fence longer than
    any backtick run inside (a docstring may hold a fenced example)."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang or ''}\n{code}\n{ticks}"
