"""Text helpers for types as written in source (shared by the extractors and the
language-neutral type normalisation of the graph step)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

_THIS_PARAM = re.compile(r"^this\s*:")


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


def function_type_param(text: str, index: int) -> str | None:
    """Type of parameter ``index`` of a function type as written:
    ``(this: A, x: Foo<T>, y?: Bar) => void`` with index 0 -> ``Foo<T>`` (``this`` is no
    parameter); None when ``text`` is no function type or has no such parameter."""
    text = text.strip()
    while text.startswith("((") and ")" in text:  # `((x: A) => void) | undefined`
        text = text[1:]
    if not text.startswith("("):
        return None
    depth = 0
    items: list[str] = []
    current: list[str] = []
    for pos, char in enumerate(text):
        if char in "([{<":
            depth += 1
            if depth == 1:
                continue
        elif char in ")]}>" and not (char == ">" and text[pos - 1:pos] == "="):
            depth -= 1
            if depth == 0:
                items.append("".join(current))
                if not text[pos + 1:].lstrip().startswith("=>"):
                    return None
                break
        elif char == "," and depth == 1:
            items.append("".join(current))
            current = []
            continue
        current.append(char)
    params = [i.strip() for i in items if i.strip() and not _THIS_PARAM.match(i.strip())]
    if index >= len(params) or ":" not in params[index]:
        return None
    return params[index].split(":", 1)[1].strip() or None


def union_members(text: str, null_words: Collection[str] = ()) -> list[str]:
    """Members of a declared union with two or more real members (``A | B``,
    ``Union[A, B]``, ``A | B | None`` with ``None`` among the language's ``null_words``);
    [] for anything else."""
    text = text.strip().strip("'\"")
    match = re.match(r"^(?:typing\.|t\.)?Union\[(.*)\]$", text)
    parts = split_top_level(match.group(1), ",") if match else split_top_level(text, "|")
    members = [p.strip().strip("'\"") for p in parts]
    members = [m for m in members if m and m not in null_words]
    return members if len(members) >= 2 else []
