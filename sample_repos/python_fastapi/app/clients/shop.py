"""HTTP client of the shop service (the Go sample): product lookups for orders."""

import os

import httpx
import requests

SHOP_URL = os.getenv("SHOP_URL", "http://shop:8080")


def shop_product(product_id: int) -> dict:
    """One product of the shop."""
    with httpx.Client(base_url=SHOP_URL) as client:
        return client.get(f"/products/{product_id}").json()


def shop_history(customer: str) -> dict:
    """The purchase history of a customer."""
    return requests.get(f"{SHOP_URL}/api/v1/customers/{customer}/history", timeout=5).json()


def github_status() -> int:
    """A service outside the indexed ones: kept as an unmatched call site."""
    return requests.get("https://www.githubstatus.com/api/v2/status.json", timeout=5).status_code
