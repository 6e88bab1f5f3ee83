"""The bounds of what one request may ask (the README's limits table), and the checks of
the text a client sends, shared by the HTTP bodies and the MCP tool arguments.

A value out of bounds is refused with a one-line message before any service runs: the
database never sees a NUL character, a lone surrogate, a 1 MB query (PostgreSQL's
tsvector limit) or a glob whose regular expression is too complex for it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

MAX_BODY_BYTES = 1 << 20  # a JSON request body (uploads have GRAPHRAG_MAX_UPLOAD_BYTES)
UPLOAD_ENVELOPE_BYTES = 1 << 20  # multipart headers and form fields around an upload
MAX_QUERIES = 100  # queries of one batch search
MAX_QUERY_CHARS = 10_000  # one query; the model reads its first 512 tokens anyway
MAX_NAME_CHARS = 2_000  # an fqn, an application name, a filter value
MAX_GLOB_CHARS = 500  # a path glob
MAX_GLOB_STARS = 8  # `**` in one path glob (each is a `.*` of the regular expression)
MAX_FILENAME_BYTES = 255  # an upload's file name (the file system's limit)
MAX_ID = 2**63 - 1  # PostgreSQL's bigint: a larger id cannot exist
MAX_JSON_DEPTH = 32  # nesting of a JSON object a client sends as a value (cite's answer)


def clean_text(value: str) -> str:
    """``value`` unless it holds what PostgreSQL cannot take: NUL or a lone surrogate."""
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("must be valid Unicode (a lone surrogate is not)") from exc
    return value


def check_glob(value: str) -> str:
    """A path glob no longer than :data:`MAX_GLOB_CHARS` with at most
    :data:`MAX_GLOB_STARS` ``**`` (its regular expression stays cheap)."""
    clean_text(value)
    if len(value) > MAX_GLOB_CHARS:
        raise ValueError(f"path glob longer than {MAX_GLOB_CHARS} characters")
    if value.count("**") > MAX_GLOB_STARS:
        raise ValueError(f"path glob with more than {MAX_GLOB_STARS} '**'")
    return value


def clean_json(value: Any) -> Any:
    """A JSON value whose keys and strings all pass :func:`clean_text`, nested at most
    :data:`MAX_JSON_DEPTH` levels (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            clean_text(item)
        elif isinstance(item, dict | list):
            if level > MAX_JSON_DEPTH:
                raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
            pairs = item.items() if isinstance(item, dict) else ((None, v) for v in item)
            for key, inner in pairs:
                if key is not None:
                    clean_text(str(key))
                stack.append((inner, level + 1))
    return value


Text = Annotated[str, AfterValidator(clean_text)]
TextOrObject = Annotated[str | dict[str, Any], AfterValidator(clean_json)]
Name = Annotated[str, Field(max_length=MAX_NAME_CHARS), AfterValidator(clean_text)]
Query = Annotated[str, Field(max_length=MAX_QUERY_CHARS), AfterValidator(clean_text)]
Glob = Annotated[str, AfterValidator(check_glob)]
Id = Annotated[int, Field(ge=0, le=MAX_ID)]


def check_filename(name: str) -> str:
    """An upload's file name, checked like any text and at most 255 bytes."""
    clean_text(name)
    if len(name.encode("utf-8")) > MAX_FILENAME_BYTES:
        raise ValueError(f"file name longer than {MAX_FILENAME_BYTES} bytes")
    return name
