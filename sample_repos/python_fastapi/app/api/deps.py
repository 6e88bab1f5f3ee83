"""Dependency providers for the routers.

Services are process-wide singletons built lazily so that importing the API does not
touch configuration.
"""

from functools import lru_cache

from app.config import get_settings
from app.repositories.users import UserRepository
from app.services.notifications import EmailNotifier, Notifier
from app.services.orders import OrderService
from app.services.users import UserService


@lru_cache
def get_notifier() -> Notifier:
    """The notifier used by every service."""
    return EmailNotifier(get_settings().sender_address)


@lru_cache
def get_user_service() -> UserService:
    """The shared :class:`UserService`."""
    return UserService(UserRepository(), get_notifier())


@lru_cache
def get_order_service() -> OrderService:
    """The shared :class:`OrderService`, built on the shared user service."""
    return OrderService(get_user_service(), get_notifier(), get_settings())
