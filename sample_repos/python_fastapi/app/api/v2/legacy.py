"""Routes registered without decorator syntax, for old clients."""

from fastapi import APIRouter

from app.api.deps import get_user_service

legacy_router = APIRouter(prefix="/legacy")


def legacy_users() -> int:
    """How many users there are (the old response shape)."""
    return len(get_user_service().list_users(limit=100))


def legacy_ping() -> str:
    """Liveness for old clients."""
    return "pong"


legacy_router.get("/users")(legacy_users)
legacy_router.add_api_route("/ping", legacy_ping, methods=["GET", "HEAD"])
