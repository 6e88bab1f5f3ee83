"""Business logic. Services receive their collaborators in ``__init__``."""

from .orders import OrderService
from .users import UserService

__all__ = ["OrderService", "UserService"]
