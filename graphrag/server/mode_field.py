"""The search mode as a request field of the HTTP and MCP servers: any registered mode,
the built-ins and those plugins add (:mod:`graphrag.retrieval.search.modes`), listed in the
schema clients read and checked when a request arrives."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from graphrag.errors import UnknownName
from graphrag.retrieval.search.modes import get_mode, mode_names


def _list_modes(schema: dict[str, Any]) -> None:
    # Called when the schema is generated: the modes registered by then, plugins included.
    schema["enum"] = mode_names()


def known_mode(value: str) -> str:
    """``value`` if a mode of that name is registered; else a validation error that lists
    the valid names."""
    try:
        get_mode(value)
    except UnknownName as exc:
        raise ValueError(str(exc)) from None
    return value


ModeName = Annotated[str, AfterValidator(known_mode), Field(json_schema_extra=_list_modes)]
