"""extract-snippet: a CODE chunk's source lines, read from the indexed repository.

Reads ``applications.root_path / <filePath>`` and keeps lines ``span_lines`` (1-based,
inclusive), or, when the plan has ``params.chars`` (a symbol on a long line), that
character range of the file's text. Each ``params.elide`` range ``[a, b]`` is replaced
by its first line followed by ``...`` indented one level (4 spaces) deeper than that
line, so a class chunk shows its members' signatures but not bodies that have chunks of
their own.

- ``content_raw``: the exact lines (line endings kept), elisions applied;
- ``content``: the same, trailing whitespace stripped and common indentation removed;
- ``content_hash``: sha256 of ``content``; ``token_count``: the embedding model's tokenizer.

The stage fails with the reason when the file vanished, or when its sha256 differs from
``files.content_hash`` (the file changed since it was indexed: re-index first). An empty
or whitespace-only file is no failure: its snippet is empty.

A snippet longer than :data:`MAX_SNIPPET_CHARS` (a minified or generated line) is cut
there with a note of what was left out: people, LLMs and a 256-token embedding model all
gain nothing from a megabyte of one line, and PostgreSQL's full-text vector of a chunk
cannot exceed 1 MB.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from graphrag.graph.store import file_hashes
from graphrag.kinds import CODE_CHUNKS, EXTRACT_SNIPPET
from graphrag.parsing import source as source_files
from graphrag.pipeline.model import Stage, StageContext, StageFailure, WorkItem, fill_token_counts
from graphrag.pipeline.text import sha256_hex

ELISION = "    ..."
MAX_SNIPPET_CHARS = 100_000


@dataclass(frozen=True)
class SourceFile:
    """A repository file read once per batch: its lines, or why it cannot be used."""

    lines: list[str] | None
    problem: str | None = None
    text: str = ""  # the whole decoded text (``params.chars`` ranges index it)


def file_path_of(item: WorkItem) -> str | None:
    return item.params.get("filePath") or item.node.file_path or None


def read_source(root: Path, rel_path: str, expected_hash: str | None) -> SourceFile:
    """Read a file under ``root`` and check it is the version that was indexed."""
    path = root / rel_path
    if not path.exists():
        return SourceFile(None, f"file vanished since indexing: {rel_path}")
    try:
        data = source_files.read_source(path, source_files.REREAD_MAX_BYTES, root)
    except source_files.SourceProblem as exc:
        return SourceFile(None, f"cannot read {rel_path}: {exc.reason}")
    if expected_hash and sha256_hex(data) != expected_hash:
        return SourceFile(None, f"file changed since indexing (sha256 mismatch): {rel_path}")
    decoded, _notes = source_files.decode_source(data)  # the text the parser saw (no NUL)
    return SourceFile(decoded.splitlines(keepends=True), text=decoded)


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _ending_of(line: str) -> str:
    return line[len(line.rstrip("\r\n")):] or "\n"


def select_lines(lines: list[str], start: int, end: int,
                 elide: Sequence[Sequence[int]] = ()) -> list[str]:
    """Lines ``start..end`` (1-based, inclusive) with each elided range folded to two lines."""
    ranges = sorted((int(a), int(b)) for a, b in elide if int(a) <= int(b))
    picked: list[str] = []
    n = start
    while n <= min(end, len(lines)):
        rng = next(((a, b) for a, b in ranges if a == n), None)
        line = lines[n - 1]
        if rng is None:
            picked.append(line)
            n += 1
            continue
        picked.append(line if line.endswith(("\n", "\r")) else line + "\n")
        picked.append(_indent_of(line) + ELISION + _ending_of(line))
        n = rng[1] + 1
    return picked


def normalize(raw_lines: list[str]) -> str:
    """Trailing whitespace stripped, common indentation removed, outer blank lines dropped."""
    stripped = "\n".join(line.rstrip() for line in raw_lines)
    return textwrap.dedent(stripped).strip("\n")


def capped(snippet: str) -> str:
    """``snippet`` cut at :data:`MAX_SNIPPET_CHARS`, saying how much was left out."""
    if len(snippet) <= MAX_SNIPPET_CHARS:
        return snippet
    left_out = len(snippet) - MAX_SNIPPET_CHARS
    return f"{snippet[:MAX_SNIPPET_CHARS]}\n... [{left_out} more characters not shown]\n"


class ExtractSnippetStage(Stage):
    name = EXTRACT_SNIPPET
    applies_to = frozenset({CODE_CHUNKS})

    def prepare(self, items: Sequence[WorkItem], ctx: StageContext) -> dict[str, SourceFile]:
        """Read each distinct file of the batch once, checked against ``files.content_hash``."""
        paths = sorted({p for p in map(file_path_of, items) if p})
        if not paths or not ctx.root_path:
            return {}
        with ctx.engine.connect() as conn:
            hashes = file_hashes(conn, ctx.app_id, paths)
        root = Path(ctx.root_path)
        return {p: read_source(root, p, hashes.get(p)) for p in paths}

    def process(self, item: WorkItem, prepared: dict[str, SourceFile], ctx: StageContext
                ) -> None:
        rel = file_path_of(item)
        if not rel:
            raise StageFailure("no file path for this chunk's node")
        if not ctx.root_path:
            raise StageFailure(f"application {ctx.app_name!r} has no root path")
        source = prepared.get(rel) or SourceFile(None, f"file not read: {rel}")
        if source.lines is None:
            raise StageFailure(source.problem or f"cannot read {rel}")
        start, end = item.span or (item.node.line_start or 1, item.node.line_end or len(
            source.lines))
        if not any(line.strip() for line in source.lines):
            # An empty or whitespace-only file (an empty __init__.py): nothing to show,
            # nothing wrong. Its node spans line 1 of a file that may have no line.
            item.set("content_raw", "".join(source.lines))
            item.set("content", "")
            item.set("content_hash", sha256_hex(""))
            return
        if start > len(source.lines):
            raise StageFailure(f"span {start}-{end} is past the end of {rel} "
                               f"({len(source.lines)} lines)")
        chars = item.params.get("chars")
        if chars:
            # A symbol on a long line: its own characters (``chunking`` decides when).
            raw_lines = source.text[int(chars[0]):int(chars[1])].splitlines(keepends=True)
        else:
            raw_lines = select_lines(source.lines, start, end, item.params.get("elide") or ())
        content = capped(normalize(raw_lines))
        item.set("content_raw", capped("".join(raw_lines)))
        item.set("content", content)
        item.set("content_hash", sha256_hex(content))

    def finish(self, items: Sequence[WorkItem], ctx: StageContext) -> None:
        """Count tokens of every extracted snippet in one tokenizer call."""
        fill_token_counts(items, ctx)
