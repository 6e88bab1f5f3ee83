"""Text helpers for types as written in source (shared by the extractors and the
language-neutral type normalisation of the graph step)."""

from __future__ import annotations

from collections.abc import Callable


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


def nominal_name(text: str, prepass: Callable[[str], str] | None = None) -> str:
    """Reduce a type as written to the plain (possibly dotted) name the resolver looks
    up: ``X | None`` -> ``X``, ``Map<K, V>`` -> ``Map``, ``*T`` -> ``T``, ``T?`` -> ``T``.
    ``prepass`` is the language's own first step (its spec's ``type_prepass``:
    ``Optional[X]``, Go's ``(T, error)``)."""
    text = text.strip().strip("'\"")
    if prepass is not None:
        text = prepass(text)
    if "|" in text:  # `X | None`, `X | undefined`: the first real member
        parts = [p.strip() for p in text.split("|")]
        text = next((p for p in parts if p not in ("None", "null", "undefined")), parts[0])
    text = text.split("<", 1)[0].split("[", 1)[0]
    text = text.lstrip("*&").rstrip("?!").replace("...", "")
    if " " in text:  # modifiers (Kotlin `suspend`) and leftovers: keep the last word
        text = text.split()[-1]
    return text.lstrip("*&")
