"""Text helpers for types as written in source (shared by the extractors and the
language-neutral type normalisation of the graph step)."""

from __future__ import annotations


def split_top_level(text: str, sep: str) -> list[str]:
    """Split ``text`` on ``sep`` outside brackets (``<>``, ``()``, ``{}``, ``[]``):
    ``Union[A, Dict[K, V]]``'s inner text on ``,`` gives two parts. The ``>`` of an arrow
    (``=>``, ``->``) closes nothing."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<({[":
            depth += 1
        elif ch in ")}]" or (ch == ">" and (i == 0 or text[i - 1] not in "=-")):
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
