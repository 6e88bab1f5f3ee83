"""Recursive character splitting (chunk_size 1000, overlap 200, separators
``["\\n\\n", "\\n", ". ", " ", ""]``), returning character spans so that a chunk can be
cut from its page text again and cited by offset.

As LangChain's RecursiveCharacterTextSplitter: the text is cut at the first separator it
contains (the separator stays with the left piece); pieces still longer than the chunk
size are cut with the next separators, ``""`` meaning a hard cut; then consecutive pieces
are merged up to the chunk size, each new chunk starting with the last pieces of the
previous one that fit in the overlap. Pure functions, unit-tested without a database."""

from __future__ import annotations

CHUNK_SIZE = 1000
CHUNK_OVERLAP = 200
SEPARATORS = ("\n\n", "\n", ". ", " ", "")

Span = tuple[int, int]


def _pieces(text: str, start: int, end: int, size: int, seps: tuple[str, ...]) -> list[Span]:
    """Contiguous spans covering [start, end), each at most ``size`` long."""
    if end - start <= size:
        return [(start, end)]
    for i, sep in enumerate(seps):
        if sep == "":
            return [(p, min(p + size, end)) for p in range(start, end, size)]
        if text.find(sep, start, end) < 0:
            continue
        out: list[Span] = []
        pos = start
        while pos < end:
            hit = text.find(sep, pos, end)
            cut = end if hit < 0 else hit + len(sep)
            if cut - pos <= size:
                out.append((pos, cut))
            else:
                out.extend(_pieces(text, pos, cut, size, seps[i + 1:]))
            pos = cut
        return out
    return [(p, min(p + size, end)) for p in range(start, end, size)]


def _strip(text: str, span: Span) -> Span | None:
    a, b = span
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if b > a else None


def split_spans(text: str, chunk_size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP,
                separators: tuple[str, ...] = SEPARATORS) -> list[Span]:
    """Character spans of the chunks of ``text`` (whitespace trimmed, empty ones dropped)."""
    if overlap >= chunk_size:
        raise ValueError("overlap must be smaller than the chunk size")
    chunks: list[Span] = []
    window: list[Span] = []
    for piece in _pieces(text, 0, len(text), chunk_size, separators):
        if window and piece[1] - window[0][0] > chunk_size:
            chunks.append((window[0][0], window[-1][1]))
            # keep the tail that fits in the overlap and leaves room for the new piece
            while window and (window[-1][1] - window[0][0] > overlap
                              or piece[1] - window[0][0] > chunk_size):
                window.pop(0)
        window.append(piece)
    if window:
        chunks.append((window[0][0], window[-1][1]))
    out: list[Span] = []
    for span in chunks:
        trimmed = _strip(text, span)
        if trimmed and (not out or trimmed != out[-1]):
            out.append(trimmed)
    return out


def split_text(text: str, chunk_size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP,
               separators: tuple[str, ...] = SEPARATORS) -> list[str]:
    return [text[a:b] for a, b in split_spans(text, chunk_size, overlap, separators)]
