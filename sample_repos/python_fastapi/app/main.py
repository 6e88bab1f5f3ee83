"""ASGI entry point: ``uvicorn app.main:app``."""

import logging

from fastapi import FastAPI

from app import __version__
from app.api import orders, users
from app.api.deps import get_user_service
from app.config import get_settings


def create_app() -> FastAPI:
    """Build the FastAPI application and mount the routers."""
    settings = get_settings()
    logging.basicConfig(level=logging.INFO)
    application = FastAPI(title=settings.app_name, version=__version__)
    application.include_router(users.router)
    application.include_router(orders.router)
    return application


app = create_app()


@app.get("/health")
def health() -> dict[str, str]:
    """Liveness probe."""
    return {"status": "ok", "version": __version__}


@app.get("/stats")
def stats() -> dict[str, int]:
    """Counts for the dashboard."""
    service = get_user_service()
    return {"users": len(service.list_users(limit=get_settings().max_page_size))}
