"""Order models."""

from datetime import datetime, timezone
from enum import Enum

from pydantic import BaseModel


class OrderStatus(str, Enum):
    """Life cycle of an order."""

    PENDING = "pending"
    PAID = "paid"
    CANCELLED = "cancelled"


class OrderItem(BaseModel):
    """One line of an order."""

    sku: str
    quantity: int
    unit_price: float


class Order(BaseModel):
    """An order placed by a user."""

    id: int = 0
    user_id: int
    items: list[OrderItem]
    status: OrderStatus = OrderStatus.PENDING
    created_at: datetime

    @classmethod
    def new(cls, user_id: int, items: list[OrderItem]) -> "Order":
        """A pending order created now (the repository assigns the id)."""
        return cls(user_id=user_id, items=items, created_at=datetime.now(timezone.utc))

    def is_open(self) -> bool:
        """True while the order can still be changed."""
        return self.status == OrderStatus.PENDING
