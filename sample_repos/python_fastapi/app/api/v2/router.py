"""Mounts the version 2 routers: ``/api/v2/reports/...`` and ``/api/v2/admin/reports/...``."""

from fastapi import APIRouter

from app.api.v2 import legacy, reports
from app.api.v2.reports import admin_router as reports_admin

api_v2 = APIRouter(prefix="/v2")
api_v2.include_router(reports.router)
api_v2.include_router(reports_admin, prefix="/admin/reports")
api_v2.include_router(legacy.legacy_router)


@api_v2.get("/ping")
def ping_v2() -> dict[str, str]:
    """Liveness of the version 2 API."""
    return {"api": "v2"}
