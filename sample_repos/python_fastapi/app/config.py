"""Application settings read from the environment."""

import os
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Settings:
    """Runtime configuration of the service."""

    app_name: str = "orders"
    sender_address: str = "noreply@example.com"
    max_page_size: int = 100
    discount_percent: float = 0.0


@lru_cache
def get_settings() -> Settings:
    """Build the settings once per process from ``ORDERS_*`` variables."""
    return Settings(
        app_name=os.environ.get("ORDERS_APP_NAME", "orders"),
        sender_address=os.environ.get("ORDERS_SENDER", "noreply@example.com"),
        max_page_size=int(os.environ.get("ORDERS_MAX_PAGE_SIZE", "100")),
        discount_percent=float(os.environ.get("ORDERS_DISCOUNT", "0")),
    )
