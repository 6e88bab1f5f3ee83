"""Order placement and cancellation."""

import logging
from decimal import Decimal

from app.config import Settings
from app.models.order import Order, OrderItem, OrderStatus
from app.repositories.orders import OrderRepository as OrderStore
from app.utils import pricing

from .notifications import Notifier
from .users import UserService

log = logging.getLogger(__name__)


class OrderError(ValueError):
    """An order request that cannot be fulfilled."""


class OrderService:
    """Places orders for existing users and keeps them in an :class:`OrderStore`."""

    def __init__(self, users: UserService, notifier: Notifier, settings: Settings) -> None:
        """The order store is owned by the service; users and notifier are shared."""
        self.users = users
        self.notifier = notifier
        self.settings = settings
        self.orders = OrderStore()

    def place_order(self, user_id: int, items: list[OrderItem]) -> Order:
        """Validate the items, store a pending order and confirm it to the user."""
        if not items:
            raise OrderError("an order needs at least one item")
        user = self.users.get_user(user_id)
        order = Order.new(user.id, items)
        self.orders.save(order)
        total = self.order_total(order)
        self.notifier.send(user.email, "Order received", f"Total: {total}")
        log.info("order %s placed by %s", order.id, user_id)
        return order

    def order_total(self, order: Order) -> Decimal:
        """Order total after the configured discount."""
        total = pricing.compute_total(order.items)
        return pricing.apply_discount(total, self.settings.discount_percent)

    def cancel(self, order_id: int) -> Order:
        """Cancel a pending order."""
        order: Order | None = self.orders.find_by_id(order_id)
        if order is None or not order.is_open():
            raise OrderError(f"order {order_id} cannot be cancelled")
        order.status = OrderStatus.CANCELLED
        self.orders.save(order)
        return order

    def store(self) -> OrderStore:
        """The order store owned by this service."""
        return self.orders

    def open_order_count(self) -> int:
        """Number of orders still pending."""
        return len(self.store().open_orders())

    def orders_of(self, user_id: int) -> list[Order]:
        """Orders of an existing user."""
        self.users.get_user(user_id)
        return self.orders.for_user(user_id)
