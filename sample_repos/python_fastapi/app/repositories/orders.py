"""Order repository."""

from app.models.order import Order, OrderStatus
from app.repositories.base import BaseRepository


class OrderRepository(BaseRepository[Order]):
    """Orders; inherits storage from :class:`BaseRepository`."""

    entity_name = "order"

    def for_user(self, user_id: int) -> list[Order]:
        """Every order placed by ``user_id``."""
        return [o for o in self.find_all(limit=self.count_all()) if o.user_id == user_id]

    def open_orders(self) -> list[Order]:
        """Orders that are still pending."""
        return [o for o in self.find_all(limit=self.count_all())
                if o.status == OrderStatus.PENDING]
