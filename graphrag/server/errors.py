"""The error hierarchy (:mod:`graphrag.errors`) as HTTP statuses, and the one JSON shape
of every error answer: ``{"error": {"code": ..., "message": ...}}``."""

from __future__ import annotations

from typing import Any

from graphrag.errors import (
    DatabaseUnavailable,
    GraphragError,
    ModelUnavailable,
    NotAllowed,
    NotFound,
    TooLarge,
    UnknownApplication,
    UnknownSymbol,
    UserError,
)

# most specific first
_STATUSES: list[tuple[type[GraphragError], int, str]] = [
    (UnknownApplication, 404, "unknown_application"),
    (NotFound, 404, "not_found"),
    (TooLarge, 413, "too_large"),
    (NotAllowed, 403, "forbidden"),
    (UserError, 400, "bad_request"),
    (DatabaseUnavailable, 503, "database_unavailable"),
    (ModelUnavailable, 503, "model_unavailable"),
    (GraphragError, 500, "environment"),
]


def status_of(exc: GraphragError) -> tuple[int, str]:
    """(HTTP status, stable error code) for one of our errors."""
    if isinstance(exc, UnknownSymbol) and exc.ambiguous:
        return 409, "ambiguous"
    for cls, status, code in _STATUSES:
        if isinstance(exc, cls):
            return status, code
    return 500, "internal"


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}
