"""``/orders`` endpoints."""

from fastapi import APIRouter, Depends, HTTPException
from pydantic import BaseModel

from app.api import deps
from app.models.order import Order, OrderItem
from app.services.orders import OrderError, OrderService

router = APIRouter(prefix="/orders", tags=["orders"])


class PlaceOrderRequest(BaseModel):
    """Body of ``POST /orders``."""

    user_id: int
    items: list[OrderItem]


class OrderSummary(BaseModel):
    """An order together with its computed total."""

    order: Order
    total: str


@router.post("/", response_model=OrderSummary, status_code=201)
def place_order(request: PlaceOrderRequest,
                service: OrderService = Depends(deps.get_order_service)) -> OrderSummary:
    """Place an order for an existing user."""
    try:
        order = service.place_order(request.user_id, request.items)
    except OrderError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc
    return OrderSummary(order=order, total=str(service.order_total(order)))


@router.get("/user/{user_id}", response_model=list[Order])
def orders_of_user(user_id: int,
                   service: OrderService = Depends(deps.get_order_service)) -> list[Order]:
    """All orders of one user."""
    return service.orders_of(user_id)


@router.patch("/{order_id}/cancel", response_model=Order)
async def cancel_order(order_id: int) -> Order:
    """Cancel a pending order (the service is looked up directly here)."""
    service = deps.get_order_service()
    try:
        return service.cancel(order_id)
    except OrderError as exc:
        raise HTTPException(status_code=409, detail=str(exc)) from exc
