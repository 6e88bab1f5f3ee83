"""Pydantic models shared by the API and the services."""

from .order import Order, OrderItem, OrderStatus
from .user import Role, User, UserCreate

__all__ = ["Order", "OrderItem", "OrderStatus", "Role", "User", "UserCreate"]
