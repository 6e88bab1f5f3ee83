"""Reports: two routers in one module, each mounted under its own prefix."""

from fastapi import APIRouter, Depends

from app.api.deps import get_order_service, get_user_service
from app.services.orders import OrderService
from app.services.users import UserService

router = APIRouter(prefix="/reports")
admin_router = APIRouter()


@router.get("/")
def report_index() -> list[str]:
    """Names of the available reports."""
    return ["users", "open-orders"]


@router.get("/users")
def users_report(service: UserService = Depends(get_user_service)) -> dict[str, int]:
    """How many users there are."""
    return {"users": len(service.list_users(limit=1000))}


@admin_router.post("/rebuild")
def rebuild_reports(service: OrderService = Depends(get_order_service)) -> dict[str, int]:
    """Recount open orders (admin only)."""
    return {"open": service.open_order_count()}
